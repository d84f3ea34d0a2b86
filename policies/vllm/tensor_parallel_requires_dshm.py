"""S4: a vLLM pod with more than one GPU rank needs a bounded, memory-backed /dev/shm.

NCCL and vLLM's multiprocess workers exchange data through /dev/shm; the container runtime
gives 64Mi, and NCCL then fails with "Error while creating shared memory segment
/dev/shm/nccl-..." (vllm-project/vllm#1710). The fix is an emptyDir with medium Memory and a
sizeLimit, mounted at /dev/shm. `hostIPC: true` is the common wrong fix: it shares the node's
IPC namespace (no-host-namespaces reports it, for every pod). Memory-backed emptyDir pages count against the container's
memory limit, so the sizeLimit must fit inside it. A single-rank server of any engine that mounts a memory /dev/shm
sized above its memory limit gets the same message as advice: whether it fills /dev/shm that far depends on its load.

KubeRay pods (`ray.io` RayCluster, RayService, RayJob) differ: when the Ray container mounts
nothing at /dev/shm, the operator mounts a memory emptyDir there sized to the container's memory
limit (KubeRay v1.7.0 ray-operator/controllers/ray/common/pod.go, addEmptyDir /
makeEmptyDirVolume), so no mount is fine. A /dev/shm a Ray pod mounts itself must be bounded
the same way as anywhere else, whatever the pod runs (Ray's object store lives there too).
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.kube import (
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
from policies.reading.engines import sglang_servers
from policies.reading.kserve_runtime import merged_predictor, runtime_container
from policies.reading.serving import model_servers
from policies.reading.shm import needs_shm, ranks_shown, shm_volume_name
from policies.reading.vllm_args import is_vllm_container, parallel_size

_FIX = "mount an emptyDir {medium: Memory, sizeLimit: ...} at /dev/shm"


def _check_container(podspec: dict, label: str, container: dict, why: str) -> list[str]:
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
    empty_dir = volume.get("emptyDir")
    if not isinstance(empty_dir, dict) or empty_dir.get("medium") != "Memory":
        return [f"{label}: /dev/shm is volume {volume_name}, which is not an emptyDir with medium Memory; {_FIX}"]
    return _over_limit(label, container, volume_name, empty_dir)


def _over_limit(label: str, container: dict, volume_name: str, empty_dir: dict) -> list[str]:
    """A /dev/shm memory emptyDir whose sizeLimit exceeds the container's memory limit (or is no quantity)."""
    size_raw = empty_dir.get("sizeLimit")
    if size_raw is None:
        # Unbounded is not broken: "the maximum usage on memory medium EmptyDir would be the minimum value between
        # the SizeLimit specified here and the sum of memory limits of all containers in a pod" (core/v1
        # EmptyDirVolumeSource.sizeLimit, k8s.io/api; KEP-1967 sizable memory-backed volumes), which is what KubeRay
        # renders on purpose (module docstring); NCCL gets its shared memory either way. The missing bound is
        # memory-emptydir-size-limit's (G36: spent set 13 labelled it there, and S4 a trap, on andrewaddo/gke-vllm-hdml).
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


def _check_ray(resource: Resource) -> list[str]:
    """Every Ray pod: its own /dev/shm mounts are checked; the Ray container mounting none gets KubeRay's
    (policies/operator_defaults.py), unless rayStartParams moves the object store (plasma-directory)."""
    messages = []
    for path, podspec in pod_specs(resource):
        for container in containers(podspec):
            if shm_volume_name(container) is not None:
                messages.extend(_check_container(podspec, container_label(path, container), container, ""))
            elif not supplied(resource, path, podspec, container, "shm") and (why := needs_shm(container, False)):
                messages.extend(_check_container(podspec, container_label(path, container), container, why))
    return messages


def _check(resource: Resource, config: dict) -> list[str]:
    if is_ray(resource.type):
        return _check_ray(resource)
    image_entrypoint = True
    messages: list[str] = []
    needy: list[tuple[dict, str]] = []
    for path, podspec in pod_specs(resource):
        for container in containers(podspec):
            if is_vllm_container(container):
                why = needs_shm(container, image_entrypoint)
                if why is not None:
                    needy.append((container, why))
                    found = _check_container(podspec, container_label(path, container), container, why)
                    shown = ranks_shown(container, image_entrypoint)
                    messages.extend(found if shown else [unproven(m) for m in found])
    # SGLang's tensor-parallel ranks talk over NCCL through /dev/shm the same way.
    for server in sglang_servers(resource):
        tp = parallel_size(server.args, "tensor-parallel-size") or 1
        if tp > 1:
            needy.append((server.container, ""))
            messages.extend(
                _check_container(
                    server.podspec, server.label, server.container, f"runs SGLang with tensor parallel {tp} (--tp-size)"
                )
            )
    judged = {id(container) for container, _ in needy}
    return messages + _kserve_predictor(resource) + _single_rank_shm(resource, judged)


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
    return found if ranks_shown(container, True) else [unproven(m) for m in found]


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
        "A vLLM container with more than one GPU rank must mount a memory-backed, size-limited "
        "emptyDir at /dev/shm, not rely on hostIPC; any model server's own memory /dev/shm must fit its memory limit "
        "(advice for a single rank)."
    ),
    catalog="S4",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Add a volume `{name: dshm, emptyDir: {medium: Memory, sizeLimit: <size>}}` to the pod spec and "
        "mount it at /dev/shm in the vLLM container; keep sizeLimit below the container's memory limit "
        "(it counts against it) and remove hostIPC: true. On KubeRay pods either mount nothing at /dev/shm "
        "(the operator mounts one sized to the memory limit) or give your own a sizeLimit."
    ),
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    operator_fills="a /dev/shm volume",
    rationale=(
        "NCCL and vLLM's worker processes exchange tensors through /dev/shm; container runtimes give 64 MiB and NCCL "
        'fails with "Error while creating shared memory segment" (https://github.com/vllm-project/vllm/issues/1710). '
        "Memory-backed emptyDir pages count against the container's memory limit "
        "(https://kubernetes.io/docs/concepts/storage/volumes/#emptydir), so the size must fit inside it. KubeRay "
        "mounts a memory /dev/shm sized to the memory limit when the Ray container mounts none "
        "(https://github.com/ray-project/kuberay, ray-operator/controllers/ray/common/pod.go)."
    ),
)
