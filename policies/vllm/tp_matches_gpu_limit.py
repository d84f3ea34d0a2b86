"""S3: a vLLM pod must hold exactly as many GPUs as the engine has ranks.

vLLM runs one worker per GPU: tensor_parallel_size x pipeline_parallel_size ranks (both
default 1, config/parallel.py). More GPUs than ranks sit idle and are paid for (advice: the engine serves); fewer
and the engine fails at startup (blocking). (That a GPU request equals its limit is gpu-request-equals-limit's check,
for every container, and a GPU engine with no nvidia.com/gpu limit at all is gpu-engine-has-gpu-limit's, G13: S3
judges only a written size against a limit that is there.)

Multi-node engines:
- KubeRay (`ray.io`) with `--distributed-executor-backend ray`: Ray places every rank on a GPU
  of the cluster, wherever the server runs (often a GPU-less head), so TP x PP must equal the
  GPUs of the whole Ray cluster: per group, the GPUs Ray sees in a pod (`rayStartParams`
  num-gpus, else the Ray container's GPU limit, as KubeRay fills it in) x its pods (replicas x
  numOfHosts). The server's own container then needs no GPU.
- LeaderWorkerSet with `size` > 1: the ranks spread over `size` pods, so TP x PP must equal
  the GPU limit x `size`. The same leader/worker group in a custom resource read generically (llmaz's
  `spec.workloadTemplate`, policies/reading/groups.py) is held to its `size` (or its roles' replicas), and where the
  manifest states neither the rule stays silent: the ranks may spread over any number of pods.
Engines that Ray Serve starts from a RayService's `serveConfigV2` (ray.serve.llm's
`engine_kwargs`) are not read: their parallel sizes live in an application config, not in a
container's command line.

Every other engine of the engine table (components/serving_engines.toml) runs one rank per GPU too (SGLang's
--tp-size x --pp-size over --nnodes nodes, TGI's --num-shard / NUM_SHARD, NIM's NIM_TENSOR_PARALLEL_SIZE): its
written sizes are read through its row's spellings and held to its GPU limit the same way.
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.kube import GPU_RESOURCE, WORKLOAD_TYPES, as_int, as_list, get, is_ray, read_generically, resource_value, split_type
from policies.reading.engines import EngineServer, table_servers
from policies.reading.groups import group_pods
from policies.reading.kserve_runtime import builtin_runtime, predictor_runtime, runtime_container
from policies.reading.ray_cluster import cluster_gpus, kuberay_created_pod
from policies.reading.vllm_args import (
    VllmServer,
    expand_abbreviations,
    parallel_size,
    parse_vllm_args,
    set_at_run_time,
    vllm_command_line,
    vllm_servers,
)

_TP, _PP = "tensor-parallel-size", "pipeline-parallel-size"


def _gpus(count: int) -> str:
    return f"{count} GPU" if count == 1 else f"{count} GPUs"


def _ray_cluster(resource: Resource, server: VllmServer, tp: int, pp: int) -> list[str]:
    """TP x PP against the GPUs of the whole Ray cluster the server's executor places ranks on."""
    counted = cluster_gpus(resource)
    if counted is None:
        return []  # a replica or GPU count that cannot be read: nothing to compare
    total, parts = counted
    if total == tp * pp:
        return []
    message = (
        f"{server.label}: tensor parallel {tp} × pipeline parallel {pp} = {_gpus(tp * pp)} placed by Ray, "
        f"but the Ray cluster has {_gpus(total)} ({' + '.join(parts)}); vLLM runs one rank per GPU, so "
        f"spare GPUs sit idle and missing ones leave the engine waiting for its placement group"
    )
    return [_spare(message, total > tp * pp)]


def _spare(message: str, spare: bool) -> str:
    """Fewer GPUs than ranks stop the engine (it blocks); more only leave GPUs idle, a cost the engine serves through
    (advice: spent sets 13-37 filed such labels advisory unless no node holds the count, which the files do not say)."""
    return unproven(message) if spare else message


def _group_size(resource: Resource, path: str) -> int | None:
    """The pods one engine's ranks spread over: a LeaderWorkerSet's size, a leader/worker group's in a custom resource
    read generically (policies.reading.groups), else 1; None when the pod is in a group of unknown size."""
    size = as_int(get(resource.props, "spec", "leaderWorkerTemplate", "size"))
    if split_type(resource.type)[1] == "LeaderWorkerSet":
        return size if size is not None and size > 1 else 1
    spread = group_pods(resource, path)
    return None if spread is None else spread[0]


def _ranks(resource: Resource, server: VllmServer, tp: int, pp: int) -> tuple[int, int, str] | None:
    """(ranks, pods they spread over, how the message explains them); None when the pods are unknown."""
    size = _group_size(resource, server.path)
    if size is None:
        return None  # a group whose size the manifest does not say: the ranks may spread over any number of pods
    if size > 1:
        return tp * pp, size, f"tensor parallel {tp} × pipeline parallel {pp} = {_gpus(tp * pp)} over {size} pods"
    # Data parallelism runs --data-parallel-size-local engines of TP x PP ranks in the pod (vLLM's local DP ranks,
    # vllm/engine/arg_utils.py data_parallel_size_local; the whole --data-parallel-size when no local size is given).
    local = server.args.get("data-parallel-size-local") or server.args.get("data-parallel-size")
    dp = as_int(local) if local is not None else None
    if dp is not None and dp > 1:
        ranks = tp * pp * dp
        return ranks, 1, f"tensor parallel {tp} × pipeline parallel {pp} × local data parallel {dp} = {_gpus(ranks)}"
    return tp * pp, 1, f"tensor parallel {tp} × pipeline parallel {pp} = {_gpus(tp * pp)}"


def _runtime_args(resource: Resource, server: VllmServer) -> tuple[dict | None, bool]:
    """A KServe predictor ``model``'s vLLM options as its pod runs them, and whether they are proven.

    KServe appends the model's args to its ServingRuntime's kserve-container args (kserve v0.20.0
    pkg/controller/v1beta1/inferenceservice/utils/utils.go:253-263 MergeRuntimeContainers), so the sizes the model
    leaves out are the runtime's: read from its vLLM command line when the runtime is among the files (argparse keeps
    the last spelling, the model's). None when the runtime sizes the engine itself: KServe's Hugging Face server sets
    tensor_parallel_size to torch.cuda.device_count() whatever its args say (kserve v0.20.0
    python/huggingfaceserver/huggingfaceserver/vllm/vllm_model.py:106-107), the built-in runtime or one whose
    container runs no vLLM command line we read. A runtime not among the files (a cluster's own) may set the sizes:
    the model's alone are then unproven (advisory). KServe's built-in kserve-vllmserver runs the api_server module with
    no parallel size (config/runtimes/kserve-vllmserver.yaml:21-28 at v0.20.0), so the model's args are the sizes."""
    runtime = predictor_runtime(resource)
    if runtime is None:
        builtin = builtin_runtime(resource)
        if builtin is None:
            return server.args, False
        # kserve-vllmserver runs the api_server module with no parallel size (config/runtimes/kserve-vllmserver.yaml
        # at v0.20.0: --port, --served-model-name, --model only); the Hugging Face server sizes its engine itself.
        return (server.args, True) if builtin[0].name == "kserve-vllmserver" else (None, True)
    container = runtime_container(runtime)
    line = vllm_command_line(container)
    if line is None:
        return None, True  # the Hugging Face server (or another program): it sizes the engine itself
    return {**expand_abbreviations(parse_vllm_args(line), container), **server.args}, True


def _check_server(resource: Resource, server: VllmServer) -> list[str]:
    if server.runtime_merged:
        args, proven = _runtime_args(resource, server)
        if args is None:
            return []
        if args is not server.args:
            server = VllmServer(server.path, server.podspec, server.container, args, runtime_merged=True)
        if not proven:
            return [unproven(m) for m in _check_args(resource, server)]
    return _check_args(resource, server)


def _spaced_option(container: dict) -> bool:
    """True when an argument is an option and its value in one list item (``- --tensor-parallel-size 2``): argparse
    reads it as a positional, so the server exits before any size applies (S38 reports it; fresh set 32
    eliran89c/self-hosted-llm-on-eks, whose labeller filed S38 and no S3)."""
    return any(
        isinstance(t, str) and t.startswith("-") and " " in t.strip()
        for key in ("command", "args")
        for t in as_list(container.get(key))
    )


def _check_args(resource: Resource, server: VllmServer) -> list[str]:
    label = server.label
    if _spaced_option(server.container):
        return []
    tp, pp = parallel_size(server.args, _TP), parallel_size(server.args, _PP)
    if tp is None or pp is None:
        flag = _TP if tp is None else _PP
        if set_at_run_time(server.args[flag]):
            return []  # $(TENSOR_PARALLEL_SIZE) from a ConfigMap: the size is set at run time, not in the manifest
        return [f"{label}: --{flag}={server.args[flag]} is not a positive integer"]
    if is_ray(resource.type) and server.args.get("distributed-executor-backend") == "ray":
        return _ray_cluster(resource, server, tp, pp)
    if server.args.get("distributed-executor-backend") == "ray" and kuberay_created_pod(resource):
        # A pod KubeRay built from a RayCluster (the plan's derived head): Ray places its ranks on the cluster's GPU
        # workers, which this pod alone does not show; the RayCluster itself is checked above. vLLM 0.33.0's Ray
        # executor needs no GPU where `vllm serve` runs (components/image_facts.py, executor_provenance).
        return []
    spread = _ranks(resource, server, tp, pp)
    if spread is None:
        return []
    if server.args.get("distributed-executor-backend") == "ray" and read_generically(resource):
        # An operator's CR no reader knows, running vLLM's Ray executor: Ray may place ranks on pods of a Ray cluster
        # the operator builds beside this one, which the manifest does not show (unproven: advisory).
        return [unproven(m) for m in _judged(resource, server, spread)]
    return _judged(resource, server, spread)


def _judged(resource: Resource, server: VllmServer, spread: tuple[int, int, str]) -> list[str]:
    """S3 for one vLLM server whose ranks spread over ``pods`` pods: its GPU limit x pods against the ranks."""
    label = server.label
    ranks, pods, explained = spread
    limit_raw = resource_value(server.container, "limits", GPU_RESOURCE)
    limit = as_int(limit_raw)
    messages: list[str] = []
    if limit_raw is None:
        # No GPU limit at all is gpu-engine-has-gpu-limit's (G13): S3 judges only a written size against a present limit.
        return messages
    if limit is None:
        return [f"{label}: resources.limits {GPU_RESOURCE} is {limit_raw!r}, not a whole number"]
    if limit * pods != ranks:
        per_pod = f"{limit} per pod" if pods > 1 else f"{limit}"
        message = (
            f"{label}: {explained}, but resources.limits {GPU_RESOURCE} is {per_pod}; "
            f"vLLM runs one rank per GPU, so spare GPUs sit idle and missing ones "
            f"stop the engine at startup"
        )
        messages.append(_spare(message, limit * pods > ranks))
    return messages


def _beyond_max_gpus(server: EngineServer) -> list[str]:
    """Advice for a GPU limit above the most GPUs the engine's server uses (the row's max_gpus: TEI's CUDA backend
    serves on device 0 only, backends/candle/src/lib.rs L241 at v1.9.3): the rest sit idle. Spent set 28
    brayanpena530/multiLLM-EKS-Deploy services/jina_embeddings.yml, nvidia.com/gpu 2."""
    row = server.row
    limit = as_int(resource_value(server.container, "limits", GPU_RESOURCE))
    if row is None or not row.max_gpus or limit is None or limit <= row.max_gpus:
        return []
    return [
        unproven(
            f"{server.label}: resources.limits {GPU_RESOURCE} is {limit}, but {row.display} serves its model on "
            f"{_gpus(row.max_gpus)} whatever it is given (engine table max_gpus), so {_gpus(limit - row.max_gpus)} "
            f"{'sits' if limit - row.max_gpus == 1 else 'sit'} idle; request {row.max_gpus}, and run more replicas for more throughput"
        )
    ]


def _check_table(resource: Resource, server: EngineServer) -> list[str]:
    """A table engine's tensor x pipeline parallel ranks against its GPU limit, read through its row's spellings
    (components/serving_engines.toml): judged only where the tensor parallel size is written (an unset one is the
    engine's own default: TGI shards over every GPU it sees) and no data parallel size is (DP may run inside the TP
    group, SGLang's DP attention, or beside it); ``nnodes`` (else a LeaderWorkerSet's size) spreads the ranks."""
    row = server.row
    if row is None or is_ray(resource.type) or "tensor-parallel-size" not in server.args:
        return []
    if "data-parallel-size" in server.args:
        return []
    tp, pp = parallel_size(server.args, _TP), parallel_size(server.args, _PP)
    if tp is None or pp is None:
        flag = _TP if tp is None else _PP
        if set_at_run_time(server.args[flag]):
            return []
        return [f"{server.label}: {row.spelling(flag)}={server.args[flag]} is not a positive integer"]
    # --nnodes where written as a number, else the group's size ($(LWS_GROUP_SIZE) is the LeaderWorkerSet's size).
    nodes = as_int(server.args.get("nnodes")) if "nnodes" in server.args else None
    if nodes is None:
        nodes = _group_size(resource, server.path)
        if nodes is None or ("nnodes" in server.args and nodes == 1):
            # A group of unknown size, or --nnodes from a variable no group here sizes ($(RBG_LWP_GROUP_SIZE) an
            # operator fills): the ranks may spread over any number of pods.
            return []
    limit = as_int(resource_value(server.container, "limits", GPU_RESOURCE))
    if limit is None or nodes < 1 or limit * nodes == tp * pp:
        return []  # no readable limit (an operator's, another accelerator): not judged here
    spread = f" over {nodes} pods" if nodes > 1 else ""
    per_pod = f"{limit} per pod" if nodes > 1 else f"{limit}"
    message = (
        f"{server.label}: {row.spelling(_TP)} {tp} × {row.spelling(_PP)} {pp} = {_gpus(tp * pp)}{spread}, but "
        f"resources.limits {GPU_RESOURCE} is {per_pod}; {row.display} runs one rank per GPU, so spare GPUs sit idle "
        f"and missing ones stop the engine at startup"
    )
    return [_spare(message, limit * nodes > tp * pp)]


def _check(resource: Resource, config: dict) -> list[str]:
    return [m for server in vllm_servers(resource) for m in _check_server(resource, server)] + [
        m for server in table_servers(resource) for m in (*_check_table(resource, server), *_beyond_max_gpus(server))
    ]


POLICY = Policy(
    name="vllm-tp-matches-gpu-limit",
    description=("A vLLM container's nvidia.com/gpu limit must equal tensor x pipeline parallel size."),
    catalog="S3",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        'Set resources.limits["nvidia.com/gpu"] (and requests, if set, to the same value) to '
        "--tensor-parallel-size x --pipeline-parallel-size, or change the parallel sizes to fit the "
        "GPUs of one node. For multi-node engines use KubeRay with --distributed-executor-backend ray "
        "and worker groups whose GPUs add up to the ranks, or a LeaderWorkerSet whose size covers the pipeline stages."
    ),
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "vLLM starts tensor_parallel_size x pipeline_parallel_size workers, one per GPU "
        "(https://docs.vllm.ai/en/latest/serving/parallelism_scaling.html); with fewer GPUs visible it fails at "
        "startup (or, under Ray, waits for a placement group that never fits), with more the extra GPUs are paid "
        "for and idle. No public policy set relates the two (catalogue S3)."
    ),
)
