"""S4: a multi-process GPU server (tensor/pipeline parallel, torchrun, Ray workers) has a bounded memory /dev/shm.

Which pods (policies/reading/shm.py shm_needs, the same for every engine of the engine table and every pod template the
pack reads): a container whose engine runs several ranks (tensor x pipeline x local data parallel above 1 in its row's
own spellings; TGI's shards over every GPU when --num-shard is unset; vLLM's --distributed-executor-backend mp|ray), a
launcher of several processes (components/rank_launchers.toml: torchrun --nproc-per-node, deepspeed, mpirun -np,
Triton's launch_triton_server.py --world_size), a GPU pod of a multi-pod LeaderWorkerSet or leader/worker group, and a
Ray pod with GPUs (Ray's object store lives in /dev/shm: KubeRay v1.7.0 ray-operator/controllers/ray/common/pod.go:855-858
mounts a memory emptyDir there "for the object store to avoid performance degradation", sized to the Ray container's
memory by makeEmptyDirVolume :1574-1592, when the container mounts none).

What it reports:
- nothing at /dev/shm: NCCL and the engine's workers get the runtime's 64Mi ("Error while creating shared memory segment
  /dev/shm/nccl-...", vllm-project/vllm#1710). Blocking only where the ranks are on the command line of an engine whose
  row says several ranks fail on 64Mi (shm_fails); elsewhere advice (TGI's README says NCCL "might fall back" to host
  memory, a presumed rank count is not proven);
- a memory emptyDir at /dev/shm with no sizeLimit when some container of the pod has no memory limit: unbounded and
  uncounted, it grows into the node's RAM (advice);
- a sizeLimit below the /dev/shm the engine's publisher asks for (engine row shm_size: TGI 1Gi), or above the
  container's memory limit (advice);
- a /dev/shm that names no volume of the pod (blocking where the ranks are proven), or that is no memory emptyDir
  (advice: a disk emptyDir still gives more than 64Mi; a hostPath of the node's /dev/shm is the node's tmpfs and is
  silent here, its hygiene the hostPath rows').

Blocking needs tensor x pipeline parallel above 1 on a GPU NCCL/RCCL drives: data parallel alone (independent dense
engines, or one local rank under external-LB data parallel) and Neuron/TPU/Gaudi ranks (no CUDA NCCL) are advice
(policies/reading/shm.py _model_ranks, other_accelerator; review47d items 2-4).

Silent: a memory emptyDir with a sizeLimit that fits; hostIPC: true (the pod's containers then use the node's IPC
namespace and the node's /dev/shm instead of a 64Mi tmpfs of their own: containerd/containerd@56e5564d
internal/cri/server/podsandbox/sandbox_run_linux.go, sandbox /dev/shm = the host's under NamespaceMode_NODE, the code
index's stored version; hostIPC itself is no-host-namespaces'); a single rank; a CPU-only Ray pod; a Ray GPU container
that mounts nothing (KubeRay mounts one); and a memory emptyDir with no sizeLimit in a pod whose every container has a
memory limit: "the maximum usage on memory medium EmptyDir would be the minimum value between the SizeLimit specified
here and the sum of memory limits of all containers in a pod" (k8s.io/api core/v1 EmptyDirVolumeSource.sizeLimit, as
kubernetes-sigs/lws v0.10.0 config/crd/bases/leaderworkerset.x-k8s.io_leaderworkersets.yaml:7106 embeds it), so it is
bounded and counted against the pod, and the worst it does is the OOM kill any memory use under a limit risks (no
second message for it: a bounded /dev/shm is what this row asks for). With a memory request only, as KubeRay's own
sample gives its 8-GPU worker (ray-project/kuberay@59d663ae ray-operator/config/samples/
ray-service.high-throughput-gemma4.yaml:101-121), S4 advises. The same /dev/shm volume is not reported again by
memory-emptydir-size-limit (G36), which keeps every other memory emptyDir and the /dev/shm of single-process pods.
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.kube import (
    SHM_PATH,
    WORKLOAD_TYPES,
    as_dict,
    as_list,
    as_quantity,
    container_label,
    containers,
    is_ray,
    name_of,
    pod_specs,
    resource_value,
)
from policies.operator_defaults import supplied
from policies.reading.kserve_runtime import merged_predictor, runtime_container
from policies.reading.serving import model_servers
from policies.reading.shm import (
    ShmNeed,
    memory_limited,
    needs_shm,
    other_accelerator,
    ranks_shown,
    shm_needs,
    shm_volume_name,
)
from policies.reading.vllm_args import is_vllm_container, vllm_args

_FIX = "mount an emptyDir {medium: Memory, sizeLimit: ...} at /dev/shm"


def _check_container(podspec: dict, label: str, container: dict, why: str, need: ShmNeed | None = None) -> list[str]:
    """The /dev/shm of a container that needs one (``need``; None for the KServe predictor's merged vLLM, judged as
    before), or, with ``why`` empty, a /dev/shm a container mounts without needing it (only what it mounts is read)."""
    volume_name = shm_volume_name(container)
    if volume_name is None:
        return [
            f"{label}: {why} but nothing is mounted at /dev/shm, where NCCL runs out of the "
            f"runtime's 64Mi (vllm-project/vllm#1710); {_FIX}"
        ]
    volumes = {name_of(v): v for v in as_list(podspec.get("volumes")) if isinstance(v, dict)}
    volume = volumes.get(volume_name)
    if volume is None:
        return [f"{label}: /dev/shm mounts volume {volume_name}, which the pod spec does not define"]
    host_path = as_dict(volume.get("hostPath")).get("path")
    if isinstance(host_path, str) and host_path.rstrip("/") == SHM_PATH:
        return []  # the node's own /dev/shm tmpfs: shm_open and NCCL work on it (hostPath rows own its hygiene)
    empty_dir = volume.get("emptyDir")
    if not isinstance(empty_dir, dict) or empty_dir.get("medium") != "Memory":
        # A disk emptyDir or another volume still gives the ranks more than 64Mi; only "nothing mounted" is proven
        # to break (vllm-project/vllm#1710): advice.
        return [unproven(f"{label}: /dev/shm is volume {volume_name}, which is not an emptyDir with medium Memory; {_FIX}")]
    if need is not None and empty_dir.get("sizeLimit") is None and not memory_limited(podspec):
        return [
            unproven(
                f"{label}: {need.why}; its /dev/shm, the memory emptyDir {volume_name}, has no sizeLimit and not every "
                f"container of the pod has a memory limit, so shared memory is bounded by nothing but the node's RAM "
                f"and is not counted against the pod: set a sizeLimit"
                + (f" (at least {need.size_text})" if need.size_text else "")
            )
        ]
    return _over_limit(label, container, volume_name, empty_dir) + _below_need(label, volume_name, empty_dir, need)


def _below_need(label: str, volume_name: str, empty_dir: dict, need: ShmNeed | None) -> list[str]:
    """Advice on a sizeLimit below the /dev/shm the engine's publisher asks for (engine row shm_size)."""
    size = as_quantity(empty_dir.get("sizeLimit"))
    if need is None or need.size is None or size is None or size >= need.size:
        return []
    return [
        unproven(
            f"{label}: {need.why}, but its /dev/shm emptyDir {volume_name} sizeLimit {empty_dir.get('sizeLimit')} is "
            f"below {need.size_text}; NCCL falls back to host shared memory when the GPUs have no peer-to-peer path"
        )
    ]


def _over_limit(label: str, container: dict, volume_name: str, empty_dir: dict) -> list[str]:
    """A /dev/shm memory emptyDir whose sizeLimit exceeds the container's memory limit (or is no quantity)."""
    size_raw = empty_dir.get("sizeLimit")
    if size_raw is None:
        # Bounded by the pod's memory limits where every container sets one (module docstring); unbounded otherwise,
        # which _check_container reports for a container that needs /dev/shm, and G36 for any other.
        return []
    size = as_quantity(size_raw)
    if size is None:
        return [f"{label}: the /dev/shm emptyDir {volume_name} sizeLimit {size_raw!r} is not a quantity"]
    memory_raw = resource_value(container, "limits", "memory")
    memory = as_quantity(memory_raw)
    if memory is not None and size > memory:
        # A risk, not a refusal: the pod starts and serves; only shared memory grown past the limit (minus what the
        # process holds) OOM-kills it, and NCCL's buffers seldom come near (fresh set 36, dims/skunkworks
        # r1/deepseek-lws.yaml: 512Gi against a 384Gi limit, not labelled). Advice.
        return [
            unproven(
                f"{label}: the /dev/shm emptyDir {volume_name} sizeLimit {size_raw} exceeds the "
                f"container's memory limit {memory_raw}; shared-memory pages count against that "
                f"limit, so the container is OOM-killed before /dev/shm fills"
            )
        ]
    return []


def _check_need(resource: Resource, need: ShmNeed) -> list[str]:
    """One container that needs /dev/shm: blocking only where an engine that fails on 64Mi shows its ranks on its
    command line and nothing (or a volume the pod lacks) is at /dev/shm; every other finding is advice."""
    if shm_volume_name(need.container) is None and supplied(resource, need.path, need.podspec, need.container, "shm"):
        return []  # the operator mounts one (KubeRay: sized to the container's memory)
    found = _check_container(need.podspec, need.label, need.container, need.why, need)
    if need.fails:
        return found
    return [m if m.endswith("which the pod spec does not define") else unproven(m) for m in found]


def _mounted(resource: Resource, judged: set[int]) -> list[str]:
    """A Ray container that mounts its own /dev/shm without needing one (a CPU head): what it mounts is read."""
    if not is_ray(resource.type):
        return []
    messages = []
    for path, podspec in pod_specs(resource):
        for container in containers(podspec):
            if id(container) not in judged and shm_volume_name(container) is not None:
                messages.extend(_check_container(podspec, container_label(path, container), container, ""))
    return messages


def _check(resource: Resource, config: dict) -> list[str]:
    needs = shm_needs(resource)
    messages = [m for need in needs for m in _check_need(resource, need)]
    judged = {id(need.container) for need in needs}
    return messages + _mounted(resource, judged) + _kserve_predictor(resource) + _single_rank_shm(resource, judged)


def _kserve_predictor(resource: Resource) -> list[str]:
    """An InferenceService's predictor as KServe renders it with its ServingRuntime among the files
    (reading/kserve_runtime.merged_predictor): the model's --tensor-parallel-size joins the runtime's command line, and
    the pod has only the /dev/shm either of them mounts; KServe's controller adds none (kserve v0.20.0: no /dev/shm
    under pkg/ outside tests; its built-in vLLM and Hugging Face runtimes mount their own, config/runtimes/
    kserve-vllmserver.yaml:71-77). A runtime that needs /dev/shm on its own args is reported on the runtime itself."""
    merged = merged_predictor(resource)
    if merged is None:
        return []
    podspec, container, runtime = merged
    if not is_vllm_container(container) or needs_shm(runtime_container(runtime), True) is not None:
        return []
    why = needs_shm(container, True)
    if why is None:
        return []
    label = f"spec.predictor.model (with {runtime.label} merged in, as KServe does)"
    found = _check_container(podspec, label, container, why)
    proven = ranks_shown(container, True) and not other_accelerator(container, vllm_args(container, image_entrypoint=True))
    return found if proven else [unproven(m) for m in found]


def _single_rank_shm(resource: Resource, judged: set[int]) -> list[str]:
    """Advice for any other model server (one rank, any engine) whose own memory /dev/shm is sized above its memory
    limit: whether the server fills /dev/shm past the limit depends on its load (Triton's Python backend, a
    tokenizer's workers), so an OOM kill is not proven (set 22 sgleser/rhoai-model-serving: a Triton ServingRuntime,
    1Gi limit, 2Gi /dev/shm)."""
    messages: list[str] = []
    for server in model_servers(resource):
        if id(server.container) in judged or not (name := shm_volume_name(server.container)):
            continue
        volumes = {name_of(v): v for v in as_list(server.podspec.get("volumes")) if isinstance(v, dict)}
        empty_dir = as_dict(as_dict(volumes.get(name)).get("emptyDir"))
        if empty_dir.get("medium") == "Memory" and empty_dir.get("sizeLimit") is not None:
            messages.extend(unproven(m) for m in _over_limit(server.label, server.container, name, empty_dir))
    return messages


POLICY = Policy(
    name="tensor-parallel-requires-dshm",
    description=(
        "A multi-process GPU server (tensor/pipeline parallel ranks of any engine, torchrun/deepspeed/mpirun workers, "
        "a multi-pod LeaderWorkerSet, a Ray GPU pod) must mount a bounded memory emptyDir at /dev/shm (or share the "
        "node's with hostIPC); any model server's own memory /dev/shm must fit its memory limit (advice)."
    ),
    catalog="S4",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Add a volume `{name: dshm, emptyDir: {medium: Memory, sizeLimit: <size>}}` to the pod spec and "
        "mount it at /dev/shm in the server container; keep sizeLimit at or above what the engine asks for (TGI: 1Gi) "
        "and below the container's memory limit (it counts against it), or give every container a memory limit. "
        "On KubeRay pods either mount nothing at /dev/shm (the operator mounts one sized to the memory limit) or give "
        "your own a sizeLimit."
    ),
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    operator_fills="a /dev/shm volume",
    rationale=(
        "NCCL and the worker processes of a multi-process server exchange tensors through /dev/shm, and Ray keeps its "
        "object store there; container runtimes give 64 MiB and NCCL "
        'fails with "Error while creating shared memory segment" (https://github.com/vllm-project/vllm/issues/1710). '
        "Memory-backed emptyDir pages count against the container's memory limit "
        "(https://kubernetes.io/docs/concepts/storage/volumes/#emptydir), so the size must fit inside it. KubeRay "
        "mounts a memory /dev/shm sized to the memory limit when the Ray container mounts none "
        "(https://github.com/ray-project/kuberay, ray-operator/controllers/ray/common/pod.go)."
    ),
)
