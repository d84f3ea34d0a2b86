"""NVIDIA Dynamo DynamoGraphDeployment pods as the Dynamo operator renders them: its component defaults merged in.

A DynamoGraphDeployment (``nvidia.com/v1alpha1``) lists ``spec.services``; each service becomes a
DynamoComponentDeployment whose pod the operator builds from the component type's defaults, the service's
``extraPodSpec`` (a PodSpec plus ``mainContainer``) and its ``resources``. Facts read from ai-dynamo/dynamo at
commit 0284ad8648d328adb8b00be2cf6eac3c20736675 (deploy/cloud/operator/internal/dynamo/):

- every component's container is named ``main`` and its pod gets ``terminationGracePeriodSeconds: 60``
  (component_common.go, getCommonContainer / getCommonPodSpec, read at 47b4f3666e6f);
- a ``frontend`` runs ``python3 -m dynamo.frontend`` with liveness ``/live`` and readiness ``/health`` on its
  HTTP port (component_frontend.go, GetBaseContainer, read at 57f8cbc8e588): it routes requests, it holds no model;
- a ``worker``, ``prefill`` or ``decode`` component gets liveness ``/live`` (period 5 s), readiness ``/health``
  and a startup probe of 720 x 10 s (component_worker.go, GetBaseContainer); its engine is the command the
  service gives (``python3 -m dynamo.vllm``, ``dynamo.sglang``, ``dynamo.trtllm``);
- the service's ``resources`` (``cpu``, ``memory``, ``gpu``; requests and limits) become the main container's,
  ``gpu`` as ``nvidia.com/gpu`` (common.ResourceItem, graph.go overrideWithDynDeploymentConfig);
- every component's main container gets /dev/shm, an emptyDir of medium Memory of ``sharedMemory.size`` (8Gi by
  default) unless ``sharedMemory.disabled`` (deploy/operator/internal/consts/consts.go at d195d280e13e, read in the
  code index: DefaultSharedMemoryMountPath, DefaultSharedMemorySize; buildSharedMemoryVolumeAndMount);
- ``replicas`` is the service's replica count (graph.go GenerateDynamoComponentsDeployments: "replicas, if set in
  the CRD must always be the source of truth").

The service's own fields win over the defaults (a strategic merge, as for any pod spec). Nothing here reads
the reference folder at run time.
"""

from __future__ import annotations

import copy
from typing import Any

from policies.llmisvc_presets import strategic_merge

WORKER_TYPES = ("worker", "prefill", "decode")
_RESOURCE_NAMES = {"cpu": "cpu", "memory": "memory", "gpu": "nvidia.com/gpu"}


def _default_container(component_type: str) -> dict:
    if component_type == "frontend":
        return {
            "name": "main",
            "command": ["python3"],
            "args": ["-m", "dynamo.frontend"],
            "livenessProbe": {"httpGet": {"path": "/live", "port": "http"}, "initialDelaySeconds": 15, "periodSeconds": 10},
            "readinessProbe": {"httpGet": {"path": "/health", "port": "http"}, "initialDelaySeconds": 10, "periodSeconds": 10},
        }
    if component_type in WORKER_TYPES:
        return {
            "name": "main",
            "livenessProbe": {"httpGet": {"path": "/live", "port": "system"}, "periodSeconds": 5, "failureThreshold": 1},
            "readinessProbe": {"httpGet": {"path": "/health", "port": "system"}, "periodSeconds": 10, "failureThreshold": 3},
            "startupProbe": {"httpGet": {"path": "/live", "port": "system"}, "periodSeconds": 10, "failureThreshold": 720},
        }
    return {"name": "main"}


def operator_probes() -> list[dict]:
    """Every liveness/readiness probe the Dynamo operator writes by default (rules that judge probe settings leave the
    operator's own choices alone)."""
    kinds = ("frontend", *sorted(WORKER_TYPES))
    return [_default_container(k)[p] for k in kinds for p in ("livenessProbe", "readinessProbe") if p in _default_container(k)]


def _resources(service: dict) -> dict:
    """The service's resources in core/v1 form (``gpu`` as nvidia.com/gpu)."""
    raw = service.get("resources")
    out: dict[str, dict] = {}
    if not isinstance(raw, dict):
        return out
    for section in ("requests", "limits"):
        items = raw.get(section)
        if not isinstance(items, dict):
            continue
        converted = {_RESOURCE_NAMES[k]: v for k, v in items.items() if k in _RESOURCE_NAMES and v not in (None, "")}
        custom = items.get("custom")
        if isinstance(custom, dict):
            converted.update(custom)
        if converted:
            out[section] = converted
    return out


def _shared_memory(service: dict, pod: dict, main: dict) -> None:
    """The operator's /dev/shm: an emptyDir of medium Memory named shared-memory, ``sharedMemory.size`` or 8Gi, mounted
    on the main container unless ``sharedMemory.disabled`` (deploy/operator/internal/consts/consts.go at d195d280e13e
    KubeValueNameSharedMemory, DefaultSharedMemoryMountPath "/dev/shm", DefaultSharedMemorySize "8Gi";
    buildSharedMemoryVolumeAndMount). A mount of the service's own at /dev/shm stays."""
    shared = service.get("sharedMemory")
    shared = shared if isinstance(shared, dict) else {}
    if shared.get("disabled") is True:
        return
    raw_mounts = main.get("volumeMounts")
    mounts: list = raw_mounts if isinstance(raw_mounts, list) else []
    if any(isinstance(m, dict) and str(m.get("mountPath", "")).rstrip("/") == "/dev/shm" for m in mounts):
        return
    size = shared.get("size") if shared.get("size") not in (None, "", 0, "0") else "8Gi"
    volumes = pod.get("volumes")
    pod["volumes"] = [
        *(volumes if isinstance(volumes, list) else []),
        {"name": "shared-memory", "emptyDir": {"medium": "Memory", "sizeLimit": size}},
    ]
    main["volumeMounts"] = [*mounts, {"name": "shared-memory", "mountPath": "/dev/shm"}]


def dynamo_pod_specs(spec: dict) -> list[tuple[str, dict]]:
    """The pod spec of every service of a DynamoGraphDeployment spec, as (``spec.services.<name>``, podspec)."""
    found: list[tuple[str, dict]] = []
    services = spec.get("services")
    if not isinstance(services, dict):
        return found
    for name, service in services.items():
        if not isinstance(service, dict):
            continue
        raw_extra = service.get("extraPodSpec")
        extra: dict = raw_extra if isinstance(raw_extra, dict) else {}
        component_type = str(service.get("componentType") or "")
        pod = {k: copy.deepcopy(v) for k, v in extra.items() if k != "mainContainer"}
        main = _default_container(component_type)
        if resources := _resources(service):
            main["resources"] = resources
        own = extra.get("mainContainer")
        if isinstance(own, dict):
            main = strategic_merge(main, {k: v for k, v in own.items() if k != "name"})
        _shared_memory(service, pod, main)
        listed: list = pod["containers"] if isinstance(pod.get("containers"), list) else []
        pod["containers"] = [
            main,
            *[c for c in listed if isinstance(c, dict) and c.get("name") != "main"],
        ]
        pod.setdefault("terminationGracePeriodSeconds", 60)
        found.append((f"spec.services.{name}", pod))
    return found


def service_replicas(spec: dict) -> list[tuple[str, Any]]:
    """(field path, replicas) of every service that sets replicas."""
    services = spec.get("services")
    if not isinstance(services, dict):
        return []
    return [
        (f"spec.services.{name}.replicas", s["replicas"])
        for name, s in services.items()
        if isinstance(s, dict) and "replicas" in s
    ]


__all__ = ["WORKER_TYPES", "dynamo_pod_specs", "operator_probes", "service_replicas"]
