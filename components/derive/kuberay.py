"""The pods KubeRay v1.7.0 creates from a RayCluster, derived as its operator builds them, and their checks.

Pure. Read at ray-project/kuberay v1.7.0, ray-operator/controllers/ray/common/pod.go:

- the head: the template, ``generateName <cluster>-head-`` (214-226), labels from ``labelPod`` (1167-1191: ray.io/node-type,
  ray.io/group and ray.io/cluster cannot be overridden; the others can), missing ray start parameters
  (``setMissingRayStartParams`` 1345-1388: dashboard-host 0.0.0.0, metrics-export-port 8080, block,
  dashboard-agent-listen-port 52365), a ``metrics`` port when none is named so (282-289);
- a worker: the same, ``generateName <cluster>-<group>-worker-`` (595-599), an init container ``wait-gcs-ready`` that
  runs ``ray health-check`` against the head Service with 200m CPU and 256Mi as requests and limits and the Ray
  container's env and mounts (606-654), the ``address`` parameter <head Service FQDN>:<port> (1348-1353);
- both (``BuildPod`` 832-933): a memory emptyDir at /dev/shm unless one is mounted there (852-858, 1548-1572); the
  container's command replaced by ``/bin/bash -c -- "ulimit ...; ray start ..."`` unless the template annotates
  ``ray.io/overwrite-container-cmd: "true"`` or already runs ``ray start`` (874-906); env ``KUBERAY_GEN_RAY_START_CMD``,
  ``RAY_CLUSTER_NAME`` and the rest (1207-1343); liveness and readiness probes only where the container has none
  (732-830, 921-930). ``ray start`` gets num-cpus from the CPU limit, else the request, memory from the memory limit and
  num-gpus from the GPU limit, where the parameters do not set them (1390-1430), flags sorted (1518-1546).

What is left out: autoscaler, TLS, token auth, GCS fault tolerance and history-server sidecars (none of which our
RayClusters enable), and the head pod's deterministic name (a feature gate).
"""

from __future__ import annotations

import copy
import math
from typing import Any, Mapping, Optional, Sequence

from .karpenter import NODEPOOL_LABEL, quantity, tolerates_taint
from .node_facts import mapping as _mapping
from .node_facts import mappings as _mappings

DEFAULT_HEAD_PORT = "6379"  # utils.DefaultRedisPort via GetHeadPort (pod.go:54-60)
METRICS_PORT = 8080  # utils.DefaultMetricsPort
DASHBOARD_AGENT_PORT = 52365  # utils.DefaultDashboardAgentListenPort
OVERWRITE_CMD = "ray.io/overwrite-container-cmd"
CONTAINER_COMMAND = ["/bin/bash", "-c", "--"]  # utils.GetContainerCommand without ENABLE_LOGIN_SHELL (util.go:1005-1013)
ULIMIT = "ulimit -n ${RAY_START_ULIMIT_OPEN_FILES:-65536}"


def _labels(kind: str, cluster: str, group: str, template_labels: Mapping[str, str]) -> dict[str, str]:
    labels = {
        "ray.io/is-ray-node": "yes",
        "ray.io/cluster": cluster,
        "ray.io/node-type": kind,
        "ray.io/group": group,
        "ray.io/identifier": f"{cluster}-{kind}"[:63],
        "app.kubernetes.io/name": "kuberay",
        "app.kubernetes.io/created-by": "kuberay-operator",
    }
    for k, v in template_labels.items():
        if k not in ("ray.io/node-type", "ray.io/group", "ray.io/cluster"):
            labels[k] = v
    return labels


def _start_params(kind: str, params: Mapping[str, str], resources: Mapping[str, Any], address: str) -> dict[str, str]:
    out = {k: str(v) for k, v in params.items()}
    if kind == "worker":
        out.setdefault("address", address)
    else:
        out.setdefault("dashboard-host", "0.0.0.0")
    out.setdefault("metrics-export-port", str(METRICS_PORT))
    out["block"] = "true"
    out.setdefault("dashboard-agent-listen-port", str(DASHBOARD_AGENT_PORT))
    limits = resources.get("limits") or {}
    requests = resources.get("requests") or {}
    if "num-cpus" not in out:
        cpu = limits.get("cpu") or requests.get("cpu")
        if cpu is not None and quantity(cpu):
            out["num-cpus"] = str(math.ceil(quantity(cpu)))
    if "memory" not in out and limits.get("memory") is not None:
        out["memory"] = str(int(quantity(limits["memory"])))
    if "num-gpus" not in out and quantity(limits.get("nvidia.com/gpu", 0)):
        out["num-gpus"] = str(math.ceil(quantity(limits["nvidia.com/gpu"])))
    return out


def ray_start_command(kind: str, params: Mapping[str, str]) -> str:
    """``ray start`` as KubeRay writes it: flags sorted, booleans as bare flags (pod.go:1390-1430, 1518-1546)."""
    flags = ""
    for key in sorted(params):
        value = params[key]
        if value.lower() in ("true", "false") and key not in ("log-color", "include-dashboard", "include-log-monitor"):
            if value.lower() == "true":
                flags += f" --{key} "
        else:
            flags += f" --{key}={value} "
    return f"ray start --head {flags}" if kind == "head" else f"ray start {flags}"


def _env(kind: str, fqdn: str, head_port: str, start: str, existing: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    env = [dict(e) for e in existing]
    names = {e.get("name") for e in env}

    def field(name: str, path: str) -> dict[str, Any]:
        return {"name": name, "valueFrom": {"fieldRef": {"fieldPath": path}}}

    ip = "127.0.0.1" if kind == "head" else fqdn
    if kind == "worker":
        env += [{"name": "FQ_RAY_IP", "value": fqdn}, {"name": "RAY_IP", "value": fqdn.split(".")[0]}]
    env += [
        field("RAY_CLUSTER_NAME", "metadata.labels['ray.io/cluster']"),
        field("RAY_CLUSTER_NAMESPACE", "metadata.namespace"),
        field("RAY_CLOUD_INSTANCE_ID", "metadata.name"),
        field("RAY_NODE_TYPE_NAME", "metadata.labels['ray.io/group']"),
        {"name": "KUBERAY_GEN_RAY_START_CMD", "value": start},
    ]
    if "RAY_PORT" not in names:
        env.append({"name": "RAY_PORT", "value": head_port})
    if "RAY_ADDRESS" not in names:
        env.append({"name": "RAY_ADDRESS", "value": f"{ip}:{head_port}"})
    if "RAY_USAGE_STATS_KUBERAY_IN_USE" not in names:
        env.append({"name": "RAY_USAGE_STATS_KUBERAY_IN_USE", "value": "1"})
    if kind == "head":
        env.append({"name": "RAY_USAGE_STATS_EXTRA_TAGS", "value": "kuberay_version=v1.7.0;kuberay_crd=RayCluster"})
    if "RAY_DASHBOARD_ENABLE_K8S_DISK_USAGE" not in names:
        env.append({"name": "RAY_DASHBOARD_ENABLE_K8S_DISK_USAGE", "value": "1"})
    return env


def _pod(cluster: Mapping[str, Any], kind: str, group: Mapping[str, Any], name: str, fqdn: str, head_port: str) -> dict[str, Any]:
    meta = cluster["metadata"]
    template = copy.deepcopy(group.get("template") or {})
    tmeta = template.get("metadata") or {}
    spec = template.get("spec") or {}
    group_name = "headgroup" if kind == "head" else str(group.get("groupName", ""))
    annotations = dict(tmeta.get("annotations") or {})
    if str((meta.get("annotations") or {}).get(OVERWRITE_CMD, "")).lower() == "true":
        annotations[OVERWRITE_CMD] = "true"  # initTemplateAnnotations (pod.go:67-75)
    containers = spec.get("containers") or []
    ray = containers[0]
    start = ray_start_command(
        kind, _start_params(kind, group.get("rayStartParams") or {}, ray.get("resources") or {}, f"{fqdn}:{head_port}")
    )
    if not any(p.get("name") == "metrics" for p in ray.get("ports") or []):
        ray["ports"] = [*(ray.get("ports") or []), {"name": "metrics", "containerPort": METRICS_PORT}]
    if kind == "worker":
        check = f"ray health-check --address {fqdn}:{head_port}"
        init = {
            "name": "wait-gcs-ready",
            "image": ray.get("image"),
            "command": list(CONTAINER_COMMAND),
            # KubeRay's loop (606-633) in short: retry the health check every 5 s until the head's GCS answers.
            "args": [f"until {check} > /dev/null 2>&1; do echo 'Waiting for GCS to be ready.'; sleep 5; done"],
            "env": [
                *copy.deepcopy(ray.get("env") or []),
                {"name": "FQ_RAY_IP", "value": fqdn},
                {"name": "RAY_IP", "value": fqdn.split(".")[0]},
            ],
            "volumeMounts": copy.deepcopy(ray.get("volumeMounts") or []),
            "resources": {"limits": {"cpu": "200m", "memory": "256Mi"}, "requests": {"cpu": "200m", "memory": "256Mi"}},
        }
        if ray.get("imagePullPolicy"):
            init["imagePullPolicy"] = ray["imagePullPolicy"]
        if ray.get("securityContext"):
            init["securityContext"] = copy.deepcopy(ray["securityContext"])
        spec["initContainers"] = [*(spec.get("initContainers") or []), init]
    if not any(m.get("mountPath") == "/dev/shm" for m in ray.get("volumeMounts") or []):
        limit = (ray.get("resources") or {}).get("limits", {}).get("memory")
        volume: dict[str, Any] = {"name": "shared-mem", "emptyDir": {"medium": "Memory"}}
        if limit is not None:
            volume["emptyDir"]["sizeLimit"] = limit
        spec["volumes"] = [*(spec.get("volumes") or []), volume]
        ray["volumeMounts"] = [*(ray.get("volumeMounts") or []), {"name": "shared-mem", "mountPath": "/dev/shm"}]
    command = " ".join([*(ray.get("command") or []), *(ray.get("args") or [])])
    if annotations.get(OVERWRITE_CMD, "").lower() != "true" and "ray start" not in command:
        generated = f"{ULIMIT}; {start}"
        ray["command"] = list(CONTAINER_COMMAND)
        ray["args"] = [f"{command} && {generated}" if command else generated]
    ray["env"] = _env(kind, fqdn, head_port, start, ray.get("env") or [])
    probes_injected = [p for p in ("livenessProbe", "readinessProbe") if p not in ray]
    pod_meta: dict[str, Any] = {
        # The API server appends five random characters to generateName; the derived pod carries a stable stand-in.
        "name": f"{name}{'0' * 5}",
        "generateName": name,
        "namespace": meta.get("namespace"),
        # The RayCluster controls its pods (raycluster_controller.go:1753 head, 1800 workers: SetControllerReference).
        "ownerReferences": [
            {
                "apiVersion": cluster.get("apiVersion", "ray.io/v1"),
                "kind": "RayCluster",
                "name": meta["name"],
                "uid": "00000000-0000-0000-0000-000000000000",
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ],
        "labels": _labels(kind, meta["name"], group_name, tmeta.get("labels") or {}),
    }
    if probes_injected:
        # KubeRay injects its own (pod.go:732-830); which ones depends on the image's Ray version, unknown here.
        annotations["llm-serving.io/derived-note"] = f"KubeRay injects {' and '.join(probes_injected)} (pod.go:732-830)"
    if annotations:
        pod_meta["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "Pod", "metadata": pod_meta, "spec": spec}


def head_service_fqdn(cluster: Mapping[str, Any]) -> str:
    """<cluster>-head-svc.<namespace>.svc.cluster.local, or the head Service's own name (util.go:316-340)."""
    meta = cluster["metadata"]
    svc = ((cluster.get("spec") or {}).get("headGroupSpec") or {}).get("headService") or {}
    name = (svc.get("metadata") or {}).get("name") or svc.get("name") or f"{meta['name']}-head-svc"
    return f"{name}.{meta.get('namespace', 'default')}.svc.cluster.local"


# A group's pods are copies of one template (only their names differ), so pods past this many derive nothing new; a
# hostile count (replicas: 1000000000000) must not keep the check deriving for minutes.
_MOST_GROUP_PODS = 256


def _pod_count(group: Mapping[str, Any]) -> int:
    """The pods a worker group asks for (replicas x numOfHosts), at most _MOST_GROUP_PODS; ValueError for a count that
    is no number (TypeError for one of another type), as int() raises them."""
    try:
        count = int(group.get("replicas", 0) or 0) * int(group.get("numOfHosts", 1) or 1)
    except OverflowError as error:  # replicas: .inf
        raise ValueError(f"workerGroupSpecs replicas {group.get('replicas')!r}: not a pod count") from error
    return min(count, _MOST_GROUP_PODS)


def ray_pods(cluster: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(a stable name, the Pod) for the head and every worker pod KubeRay creates from ``cluster``."""
    spec = cluster.get("spec") or {}
    head = spec.get("headGroupSpec") or {}
    name = cluster["metadata"]["name"]
    head_port = str((head.get("rayStartParams") or {}).get("port", DEFAULT_HEAD_PORT))
    fqdn = head_service_fqdn(cluster)
    out = [(f"{name}-head", _pod(cluster, "head", head, f"{name}-head-", fqdn, head_port))]
    for group in spec.get("workerGroupSpecs") or []:
        for i in range(_pod_count(group)):
            prefix = f"{name}-{group.get('groupName')}-worker-"
            out.append((f"{prefix}{i}", _pod(cluster, "worker", group, prefix, fqdn, head_port)))
    return out


def check_pod(name: str, pod: Mapping[str, Any], taints: Optional[Mapping[str, Sequence[Mapping[str, Any]]]] = None) -> list[str]:
    """What the API server or the scheduler refuses in a derived pod: a request above its limit (the API server's
    validation), a taint of its NodePool it does not tolerate (Karpenter checks every effect: taints.go:83-95)."""
    spec = _mapping(pod.get("spec"))  # a third-party RayCluster's fields may be of any type: no map is an empty one
    problems = []
    for where in ("initContainers", "containers"):
        for c in _mappings(spec.get(where)):
            res = _mapping(c.get("resources"))
            for key, limit in _mapping(res.get("limits")).items():
                request = _mapping(res.get("requests")).get(key)
                if request is not None and quantity(request) > quantity(limit):
                    problems.append(
                        f"{name}: {where}[{c.get('name')}].resources.requests.{key} {request} is above its limit {limit} "
                        "(the API server refuses the pod)"
                    )
    selector = spec.get("nodeSelector")
    pool = selector.get(NODEPOOL_LABEL) if isinstance(selector, Mapping) else None
    pool = pool if isinstance(pool, str) else None
    for taint in (taints or {}).get(pool, []) if pool else []:
        if not tolerates_taint(_mappings(spec.get("tolerations")), taint):
            problems.append(f"{name}: does not tolerate the {taint.get('key')}:{taint.get('effect')} taint of NodePool {pool}")
    return problems


def _hashed_spec(cluster: Mapping[str, Any]) -> dict[str, Any]:
    """The part of a RayCluster's spec whose change makes KubeRay v1.7.0 recreate the pods under Recreate.

    ``GenerateHashWithoutReplicasAndWorkersToDelete`` (ray-operator/controllers/ray/utils/util.go:645-668) leaves out
    the head's and workers' tolerations and scheduling gates, the workers' replicas, min/max replicas and
    workersToDelete, and the upgrade strategy itself.
    """
    spec = copy.deepcopy(dict(cluster.get("spec") or {}))
    spec.pop("upgradeStrategy", None)
    head = (spec.get("headGroupSpec") or {}).get("template", {}).get("spec") or {}
    head.pop("tolerations", None)
    head.pop("schedulingGates", None)
    for g in spec.get("workerGroupSpecs") or []:
        for key in ("replicas", "minReplicas", "maxReplicas"):
            g.pop(key, None)
        (g.get("scaleStrategy") or {}).pop("workersToDelete", None)
        tspec = (g.get("template") or {}).get("spec") or {}
        tspec.pop("tolerations", None)
        tspec.pop("schedulingGates", None)
    return spec


def edit_effect(old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    """What KubeRay v1.7.0 does when ``old`` is edited into ``new``: "recreate" (every pod deleted, then created
    again: raycluster_controller.go:969-981, 1463-1500, only under upgradeStrategy Recreate), "none" (the running
    pods keep the old spec: without Recreate nothing is recreated, 1465-1467) or "reconcile" (no hashed field
    changed: replicas or tolerations only, which the reconciler applies by adding or removing pods)."""
    if _hashed_spec(old) == _hashed_spec(new):
        return "reconcile"
    strategy = ((new.get("spec") or {}).get("upgradeStrategy") or {}).get("type")
    return "recreate" if strategy == "Recreate" else "none"


def derive(rendered: Any) -> list[Any]:
    """The head and worker pods KubeRay creates for each RayCluster, as derived objects (components/derive): the plan
    writes them under derived/ and runs every per-object policy on them, as on our own objects and KServe's."""
    from . import Derived

    out: list[Derived] = []
    for cluster in rendered.of_kind("ray.io/v1", "RayCluster"):
        meta = cluster.get("metadata") or {}
        model = str((meta.get("labels") or {}).get("app.kubernetes.io/instance") or meta.get("name") or "")
        source = f"RayCluster {meta.get('namespace') or 'default'}/{meta.get('name')}"
        for name, pod in ray_pods(cluster):
            # The API server names each pod from generateName; the stable name tells the two workers apart here.
            pod = {**pod, "metadata": {**pod["metadata"], "name": name}}
            spec = pod.get("spec") or {}
            containers = [c.get("name") for c in spec.get("containers") or []]
            summary = {"containers": containers, "initContainers": [c.get("name") for c in spec.get("initContainers") or []]}
            rules = {"spec.initContainers": "ray-project/kuberay v1.7.0 ray-operator/controllers/ray/common/pod.go:606-654"}
            out.append(Derived("kuberay", source, model, pod, rules if spec.get("initContainers") else {}, summary))
    return out
