"""Whether a model server needs a shared-memory /dev/shm (several ranks on one pod) and what it mounts there."""

from __future__ import annotations

from policies.kube import SHM_PATH, as_dict, as_list, gpu_count
from policies.reading.vllm_args import parallel_size, vllm_args


def needs_shm(container: dict, image_entrypoint: bool) -> str | None:
    """Why the container needs a shared /dev/shm, or None if it runs a single rank."""
    args = vllm_args(container, image_entrypoint=image_entrypoint)
    tp = parallel_size(args, "tensor-parallel-size") or 1
    pp = parallel_size(args, "pipeline-parallel-size") or 1
    if tp * pp > 1:
        return f"runs {tp * pp} ranks (tensor parallel {tp} × pipeline parallel {pp})"
    gpus = gpu_count(container) or 0
    if gpus > 1:
        return f"has {gpus} GPUs (resources.limits nvidia.com/gpu)"
    return None


def ranks_shown(container: dict, image_entrypoint: bool) -> bool:
    """Whether the container's own arguments set more than one rank (tensor x pipeline parallel above 1). With only a
    GPU count above 1, vLLM runs one rank unless a setting the files do not show (a --config file, an env the engine
    reads) asks for more: one rank uses no NCCL between GPUs and needs no shared /dev/shm (fresh set 45
    agrawalsnehal327/vllm_deploy vllm-deployment.yaml: 2 GPUs, no --tensor-parallel-size, labelled S3 one GPU idle)."""
    args = vllm_args(container, image_entrypoint=image_entrypoint)
    return (parallel_size(args, "tensor-parallel-size") or 1) * (parallel_size(args, "pipeline-parallel-size") or 1) > 1


def shm_volume_name(container: dict) -> str | None:
    """The name of the volume mounted at /dev/shm ("" when unnamed), or None when nothing is."""
    for mount in as_list(container.get("volumeMounts")):
        path = as_dict(mount).get("mountPath")
        if isinstance(path, str) and path.rstrip("/") == SHM_PATH:
            name = mount.get("name")
            return name if isinstance(name, str) else ""
    return None
