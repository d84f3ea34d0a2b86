"""Operator custom resources with no pod template: NVIDIA NIMService and production-stack VLLMRuntime.

Their operators render the Deployment, so a manifest shows only the operator's own fields. This
module reads those fields as the pod policies need them (image, memory limit, GPUs, tolerations,
node selection, replicas, autoscaling floor, context length), each with the field path messages name:

- **NIMService** (``apps.nvidia.com/v1alpha1``; NVIDIA/k8s-nim-operator v3.1.2,
  commit f9e3047e0bf40eea8f195d3b73c83432f75d983a, api/apps/v1alpha1/nimservice_types.go and
  common_types.go): ``spec.image.{repository,tag}``, ``spec.resources`` (core/v1
  ResourceRequirements), ``spec.nodeSelector``, ``spec.tolerations``, ``spec.affinity``,
  ``spec.replicas``, ``spec.scale.{enabled,hpa.minReplicas,hpa.maxReplicas}``,
  ``spec.priorityClassName``;
- **VLLMRuntime** (``production-stack.vllm.ai/v1alpha1``; vllm-project/production-stack tag
  vllm-stack-0.1.12, commit 66b60661aa3052810859a417559e9e830772a091,
  operator/api/v1alpha1/vllmruntime_types.go and common.go): ``spec.model.{modelURL,maxModelLen}``,
  ``spec.vllmConfig.{tensorParallelSize,gpuMemoryUtilization,extraArgs}``,
  ``spec.deploymentConfig.{replicas,resources.{cpu,memory,gpu},image.{registry,name},toleration,
  nodeSelectorTerms}``, ``spec.autoscalingConfig.{enabled,minReplicas,maxReplicas}``. The
  controller (operator/internal/controller/vllmruntime_controller.go) builds the image as
  ``registry + "/" + name`` (L653), sets the cpu and memory requests and limits only when
  ``resources.cpu`` / ``resources.memory`` are given (L622-637), passes ``--max_model_len`` only when maxModelLen > 0
  (L473-477), puts ``toleration`` on the pod (L802) and ``nodeSelectorTerms`` into a required node
  affinity (L743-747), and gives KEDA ``minReplicaCount: minReplicas`` (L1168).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from policies.kube import as_dict, as_int, as_list, get, metadata_name, split_type

NIM_SERVICE = ("apps.nvidia.com", "NIMService")
VLLM_RUNTIME = ("production-stack.vllm.ai", "VLLMRuntime")
OPERATOR_TYPES: tuple[str, ...] = (
    "kubernetes:apps.nvidia.com/v1alpha1:NIMService",
    "kubernetes:production-stack.vllm.ai/v1alpha1:VLLMRuntime",
)


@dataclass(frozen=True)
class OperatorServer:
    """What a NIMService or VLLMRuntime asks its operator to run, with each value's field path.

    ``podspec`` is the part of the pod the operator copies from the resource (nodeSelector,
    tolerations, affinity, one container holding the GPU limit), so that the pod-scheduling helpers
    (policies.gpu) read it as they read any pod spec.
    """

    kind: str
    image: Optional[str]
    image_field: str
    memory_limit: Any
    memory_field: str
    gpus: int
    podspec: dict
    tolerations_field: str
    min_replicas: Optional[int]
    min_replicas_field: Optional[str]
    model: Optional[str] = None
    max_model_len_set: Optional[bool] = None  # None: the kind has no such field
    # (resource, field path) pairs the operator turns into neither a request nor a limit.
    unrequested: tuple[tuple[str, str], ...] = ()


def operator_server(resource: Any) -> Optional[OperatorServer]:
    """The resource read as an operator-run model server, or None for other resources."""
    group_kind = split_type(resource.type)
    spec = as_dict(get(resource.props, "spec"))
    if group_kind == NIM_SERVICE:
        return _nim(spec)
    if group_kind == VLLM_RUNTIME:
        return _vllm_runtime(spec)
    return None


def _nim(spec: dict) -> OperatorServer:
    repository, tag = get(spec, "image", "repository"), get(spec, "image", "tag")
    image = (
        f"{repository}:{tag}"
        if isinstance(repository, str) and isinstance(tag, (str, int, float)) and str(tag)
        else (repository if isinstance(repository, str) else None)
    )
    resources = as_dict(spec.get("resources"))
    gpus = as_int(get(resources, "limits", "nvidia.com/gpu")) or as_int(get(resources, "requests", "nvidia.com/gpu")) or 0
    podspec = {
        "nodeSelector": as_dict(spec.get("nodeSelector")),
        "tolerations": as_list(spec.get("tolerations")),
        "affinity": as_dict(spec.get("affinity")),
        "priorityClassName": spec.get("priorityClassName"),
        "containers": [{"name": "nim", "resources": resources}],
    }
    scale = as_dict(spec.get("scale"))
    minimum, field = None, None
    if scale.get("enabled") is True and "minReplicas" in as_dict(scale.get("hpa")):
        minimum, field = as_int(get(scale, "hpa", "minReplicas")), "spec.scale.hpa.minReplicas"
    elif "replicas" in spec:
        minimum, field = as_int(spec.get("replicas")), "spec.replicas"
    unrequested = tuple(
        (r, f"spec.resources.requests.{r}")
        for r in ("cpu", "memory")
        if get(resources, "requests", r) is None and get(resources, "limits", r) is None
    )
    return OperatorServer(
        "NIMService",
        image,
        "spec.image",
        get(resources, "limits", "memory"),
        "spec.resources.limits.memory",
        gpus,
        podspec,
        "spec.tolerations",
        minimum,
        field,
        unrequested=unrequested,
    )


def _vllm_runtime(spec: dict) -> OperatorServer:
    deployment = as_dict(spec.get("deploymentConfig"))
    registry, name = get(deployment, "image", "registry"), get(deployment, "image", "name")
    image = (
        f"{registry}/{name}"
        if isinstance(registry, str) and registry and isinstance(name, str)
        else (name if isinstance(name, str) else None)
    )
    resources = as_dict(deployment.get("resources"))
    gpus = as_int(resources.get("gpu")) or 0
    gpu_resource = resources.get("gpuType") if isinstance(resources.get("gpuType"), str) else "nvidia.com/gpu"
    terms = as_list(deployment.get("nodeSelectorTerms"))
    podspec = {
        "tolerations": as_list(deployment.get("toleration")),
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}
        if terms
        else {},
        "containers": [{"name": "vllm", "resources": {"limits": {gpu_resource: gpus}} if gpus else {}}],
    }
    autoscaling = as_dict(spec.get("autoscalingConfig"))
    minimum, field = None, None
    if autoscaling.get("enabled") is True and "minReplicas" in autoscaling:
        minimum, field = as_int(autoscaling.get("minReplicas")), "spec.autoscalingConfig.minReplicas"
    model = get(spec, "model", "modelURL")
    max_len = as_int(get(spec, "model", "maxModelLen"))
    return OperatorServer(
        "VLLMRuntime",
        image,
        "spec.deploymentConfig.image",
        resources.get("memory"),
        "spec.deploymentConfig.resources.memory",
        gpus,
        podspec,
        "spec.deploymentConfig.toleration",
        minimum,
        field,
        model if isinstance(model, str) else None,
        bool(max_len and max_len > 0),
        # The controller sets each request only when its field is given (L622-637).
        tuple((r, f"spec.deploymentConfig.resources.{r}") for r in ("cpu", "memory") if not resources.get(r)),
    )


def vllm_runtime_pod(resource: Any) -> Optional[tuple[dict, dict]]:
    """A production-stack VLLMRuntime's pod as its controller renders it, (podspec, vllm container), or None for another
    resource: vllm-project/production-stack vllm-stack-0.1.12 (66b60661) operator/internal/controller/
    vllmruntime_controller.go: the container runs ``/opt/venv/bin/vllm serve`` (L758) with args ``modelURL --host
    0.0.0.0 --port PORT``, the flags its fields turn on and ``vllmConfig.extraArgs`` appended (L441-511), the env
    ``vllmConfig.env`` (L613-620), the cpu/memory/GPU requests and limits its resources give (L622-650), and, only with
    ``storageConfig.enabled``, the PersistentVolumeClaim named as the resource mounted at ``storageConfig.mountPath``
    (default /data, L687-711); no other volume, and no field of the CRD asks for ephemeral-storage
    (operator/api/v1alpha1/vllmruntime_types.go ResourceRequirements: cpu, memory, gpu, gpuType)."""
    if split_type(getattr(resource, "type", "")) != VLLM_RUNTIME:
        return None
    spec = as_dict(get(resource.props, "spec"))
    model = get(spec, "model", "modelURL")
    if not isinstance(model, str) or not model:
        return None
    server = _vllm_runtime(spec)
    config = as_dict(spec.get("vllmConfig"))
    port = as_int(config.get("port"))
    args = [model, "--host", "0.0.0.0", "--port", str(port if port is not None else 0)]
    if as_int(get(spec, "model", "maxModelLen")):
        args += ["--max-model-len", str(as_int(get(spec, "model", "maxModelLen")))]
    if as_int(config.get("tensorParallelSize")):
        args += ["--tensor-parallel-size", str(as_int(config.get("tensorParallelSize")))]
    args += [a for a in as_list(config.get("extraArgs")) if isinstance(a, str)]
    env = [
        {"name": e["name"], "value": e.get("value")}
        for e in (as_dict(x) for x in as_list(config.get("env")))
        if isinstance(e.get("name"), str)
    ]
    resources = as_dict(get(spec, "deploymentConfig", "resources"))
    limits = {k: resources[k] for k in ("cpu", "memory") if isinstance(resources.get(k), (str, int, float))}
    limits.update(as_dict(server.podspec["containers"][0].get("resources")).get("limits", {}))
    container: dict = {
        "name": "vllm",
        "image": server.image,
        "command": ["/opt/venv/bin/vllm", "serve"],
        "args": args,
        "env": env,
        "resources": {"requests": dict(limits), "limits": dict(limits)} if limits else {},
    }
    podspec = {k: v for k, v in server.podspec.items() if k != "containers"}
    storage = as_dict(spec.get("storageConfig"))
    if storage.get("enabled") is True:
        name = metadata_name(resource.props) or "storage"
        mount = storage.get("mountPath") if isinstance(storage.get("mountPath"), str) and storage["mountPath"] else "/data"
        podspec["volumes"] = [{"name": "pvc-storage", "persistentVolumeClaim": {"claimName": name}}]
        container["volumeMounts"] = [{"name": "pvc-storage", "mountPath": mount}]
    podspec["containers"] = [container]
    return podspec, container
