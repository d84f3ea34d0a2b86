"""S3: a vLLM pod must hold exactly as many GPUs as the engine has ranks.

vLLM runs one worker per GPU: tensor_parallel_size x pipeline_parallel_size ranks (both
default 1, config/parallel.py). More GPUs than ranks sit idle and are paid for; fewer and the
engine fails at startup. Kubernetes also demands that an extended resource's request equal
its limit (gpu-request-equals-limit checks that for every container).

Multi-node engines (documented simplifications):
- KubeRay (`ray.io`, AIBrix RayClusterFleet) with `--distributed-executor-backend ray`: the
  ranks may spread over the whole Ray cluster, so TP x PP equal to the cluster's GPUs (head plus
  worker replicas) passes; otherwise the container's GPU limit is compared with the
  tensor-parallel size alone (pipeline stages on other pods).
- LeaderWorkerSet with `size` > 1: the ranks spread over `size` pods, so TP x PP must equal
  the GPU limit x `size`.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import GPU_RESOURCE, WORKLOAD_TYPES, as_int, containers, get, is_ray, pod_specs, resource_value, split_type
from policies.vllm.args import VllmServer, parallel_size, vllm_servers

_TP, _PP = "tensor-parallel-size", "pipeline-parallel-size"


def _gpus(count: int) -> str:
    return f"{count} GPU" if count == 1 else f"{count} GPUs"


def ray_cluster_gpus(resource: Resource) -> int | None:
    """The GPUs of a whole Ray cluster: the head's plus each worker group's replicas x its
    containers' limits; None when a count cannot be read."""
    total = 0
    for path, podspec in pod_specs(resource):
        group = None
        if ".workerGroupSpecs[" in path:
            index = int(path.split(".workerGroupSpecs[", 1)[1].split("]", 1)[0])
            prefix = path.split(".workerGroupSpecs[", 1)[0]
            groups = get(resource.props, *[p for p in prefix.split(".")], "workerGroupSpecs")
            group = groups[index] if isinstance(groups, list) and index < len(groups) else None
        replicas = 1 if group is None else as_int(group.get("replicas", group.get("minReplicas", 1)))
        for container in containers(podspec):
            gpus = as_int(resource_value(container, "limits", GPU_RESOURCE) or 0)
            if gpus is None or replicas is None:
                return None
            total += gpus * replicas
    return total


def _ranks(resource: Resource, server: VllmServer, tp: int, pp: int) -> tuple[int, int, str]:
    """(ranks, pods they spread over, how the message explains them)."""
    group, kind = split_type(resource.type)
    if is_ray(resource.type) and server.args.get("distributed-executor-backend") == "ray":
        return tp, 1, f"tensor parallel {tp} = {_gpus(tp)} per pod (Ray runs the pipeline stages on other pods)"
    size = as_int(get(resource.props, "spec", "leaderWorkerTemplate", "size"))
    if kind == "LeaderWorkerSet" and size is not None and size > 1:
        return tp * pp, size, f"tensor parallel {tp} × pipeline parallel {pp} = {_gpus(tp * pp)} over {size} pods"
    return tp * pp, 1, f"tensor parallel {tp} × pipeline parallel {pp} = {_gpus(tp * pp)}"


def _check_server(resource: Resource, server: VllmServer) -> list[str]:
    label = server.label
    tp, pp = parallel_size(server.args, _TP), parallel_size(server.args, _PP)
    for flag, size in ((_TP, tp), (_PP, pp)):
        if size is None:
            return [f"{label}: --{flag}={server.args[flag]} is not a positive integer"]
    if is_ray(resource.type) and server.args.get("distributed-executor-backend") == "ray" \
            and ray_cluster_gpus(resource) == tp * pp:
        return []  # the Ray executor places the ranks on the cluster's GPUs, over several pods
    ranks, pods, explained = _ranks(resource, server, tp, pp)
    limit_raw = resource_value(server.container, "limits", GPU_RESOURCE)
    limit = as_int(limit_raw)
    messages = []
    if limit_raw is None:
        # A ServingRuntime may set the model's resources; only its own resource shows them.
        if not server.runtime_merged:
            messages.append(f"{label}: {explained}, but resources.limits has no {GPU_RESOURCE}; "
                            f"set the limit to the number of ranks")
        return messages
    if limit is None:
        return [f"{label}: resources.limits {GPU_RESOURCE} is {limit_raw!r}, not a whole number"]
    if limit * pods != ranks:
        per_pod = f"{limit} per pod" if pods > 1 else f"{limit}"
        messages.append(f"{label}: {explained}, but resources.limits {GPU_RESOURCE} is {per_pod}; "
                        f"vLLM runs one rank per GPU, so spare GPUs sit idle and missing ones "
                        f"stop the engine at startup")
    return messages


def _check(resource: Resource, config: dict) -> list[str]:
    return [m for server in vllm_servers(resource) for m in _check_server(resource, server)]


POLICY = Policy(
    name="vllm-tp-matches-gpu-limit",
    description=(
        "A vLLM container's nvidia.com/gpu limit must equal tensor x pipeline parallel size."
    ),
    catalog="S3",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Set resources.limits[\"nvidia.com/gpu\"] (and requests, if set, to the same value) to "
        "--tensor-parallel-size x --pipeline-parallel-size, or change the parallel sizes to fit the "
        "GPUs of one node. For multi-node engines use KubeRay with --distributed-executor-backend ray "
        "or a LeaderWorkerSet whose size covers the pipeline stages."),
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "vLLM starts tensor_parallel_size x pipeline_parallel_size workers, one per GPU "
        "(https://docs.vllm.ai/en/latest/serving/parallelism_scaling.html); with fewer GPUs visible it fails at "
        "startup, with more the extra GPUs are paid for and idle. No public policy set relates the two (catalogue S3)."),
)
