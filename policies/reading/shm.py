"""Whether a model server needs a shared-memory /dev/shm (several ranks on one pod) and what it mounts there."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from components.engine_shm import engine_shm
from components.rank_launchers import LAUNCHERS
from components.serving_engines import Engine
from policies.kube import (
    SHM_PATH,
    as_dict,
    as_int,
    as_list,
    container_label,
    containers,
    get,
    gpu_count,
    is_ray,
    memoized,
    pod_specs,
    resource_value,
    split_type,
)
from policies.reading.engines import table_servers
from policies.reading.groups import group_pods
from policies.reading.serving import engine_row
from policies.reading.vllm_args import command_tokens, is_shell_operator, parallel_size, parse_vllm_args, vllm_args, vllm_servers


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


# Which pods run several processes that share memory through /dev/shm (S4 owns their /dev/shm; G36 leaves it alone).


@dataclass(frozen=True)
class ShmNeed:
    """A container that runs several processes sharing tensors through /dev/shm, and why the files say so."""

    path: str
    podspec: dict
    container: dict
    why: str  # "runs 4 ranks (tensor parallel 4 × pipeline parallel 1)", as messages say it
    shown: bool  # the files set several processes (else they are presumed: from a GPU count, a group, a Ray worker)
    fails: bool  # several ranks on the command line of an engine that fails on the runtime's 64Mi (engine row shm_fails)
    size: float | None = None  # the bytes of /dev/shm the engine's publisher asks for, when its row states it
    size_text: str = ""  # that size as the row writes it, with the engine's name

    @property
    def label(self) -> str:
        """How messages name this container."""
        return container_label(self.path, self.container)


def shm_needs(resource: Any) -> list[ShmNeed]:
    """Every container of the resource that runs several processes sharing /dev/shm: ranks of any engine of the engine
    table (tensor x pipeline x local data parallel above 1 in its own spellings, one rank per GPU where its row says an
    unset size means so, its multiprocess settings), a launcher of several processes (components/rank_launchers.toml),
    a GPU pod of a multi-pod leader/worker group (LeaderWorkerSet size > 1, or a group read generically), a GPU Ray
    pod (Ray's object store lives in /dev/shm), and, presumed, a server of an engine with a parallel setting that holds
    several GPUs. A pod with hostIPC: true shares the node's IPC namespace and /dev/shm, and needs none of its own."""
    return list(memoized(resource, "shm_needs", _shm_needs))


def _servers(resource: Any) -> dict[int, tuple[Engine, Mapping[str, str | None]]]:
    """Each model-server container of the resource (by id) with its engine row and settings in vLLM's names."""
    found: dict[int, tuple[Engine, Mapping[str, str | None]]] = {}
    vllm = engine_row("vllm")
    if vllm is not None:
        for server in vllm_servers(resource):
            found[id(server.container)] = (vllm, server.args)
    for table_server in table_servers(resource):
        if table_server.row is not None:
            found.setdefault(id(table_server.container), (table_server.row, table_server.args))
    return found


def _shm_needs(resource: Any) -> list[ShmNeed]:
    ray = is_ray(resource.type)
    servers = _servers(resource)
    found = []
    for path, podspec in pod_specs(resource):
        if podspec.get("hostIPC") is True:
            continue
        group = _group_size(resource, path)
        for container in containers(podspec):
            need = _need(path, podspec, container, servers.get(id(container)), group, ray)
            if need is not None:
                found.append(need)
    return found


def _group_size(resource: Any, path: str) -> int:
    """The pods of the leader/worker group the pod spec at ``path`` belongs to (1 outside a group or unknown)."""
    if split_type(resource.type)[1] == "LeaderWorkerSet":
        return as_int(get(resource.props, "spec", "leaderWorkerTemplate", "size")) or 1
    spread = group_pods(resource, path)
    return spread[0] if spread is not None else 1


def _need(
    path: str,
    podspec: dict,
    container: dict,
    server: tuple[Engine, Mapping[str, str | None]] | None,
    group: int,
    ray: bool,
) -> ShmNeed | None:
    gpus = gpu_count(container) or 0
    if server is not None:
        row, args = server
        facts = engine_shm(row.name)
        size = facts.size_bytes
        size_text = f"the {facts.size} {row.display}'s publisher asks for with several ranks" if size else ""
        ranks = _engine_ranks(row, args, gpus)
        if ranks is not None:
            fails = facts.fails and _model_ranks(args) > 1 and not other_accelerator(container, args)
            return ShmNeed(path, podspec, container, ranks, True, fails, size, size_text)
        for flag, value in facts.multiprocess:
            if str(args.get(flag, "")).lower() == value:
                why = f"runs its workers as processes of their own ({row.spelling(flag)} {value})"
                return ShmNeed(path, podspec, container, why, True, False, size, size_text)
    launched = _launched(container, gpus)
    if launched is not None:
        return ShmNeed(path, podspec, container, launched, True, False)
    if gpus > 0 and ray:
        why = "is a Ray pod with GPUs (Ray's object store and the engine's NCCL ranks share memory through /dev/shm)"
        return ShmNeed(path, podspec, container, why, False, False)
    if gpus > 0 and group > 1:
        why = f"is a GPU pod of a {group}-pod leader/worker group, whose engine runs its ranks across the pods"
        return ShmNeed(path, podspec, container, why, False, False)
    if server is not None and gpus > 1 and "tensor-parallel-size" in server[0].flags:
        return ShmNeed(path, podspec, container, f"has {gpus} GPUs (resources.limits nvidia.com/gpu)", False, False)
    return None


def _engine_ranks(row: Engine, args: Mapping[str, str | None], gpus: int) -> str | None:
    """Why the engine runs several ranks on this pod, in messages' words, or None (one rank, or sizes unreadable)."""
    tp = parallel_size(args, "tensor-parallel-size")
    pp = parallel_size(args, "pipeline-parallel-size")
    local = args.get("data-parallel-size-local")
    if local is None and "data-parallel-rank" not in args and "data-parallel-external-lb" not in args:
        local = args.get("data-parallel-size")
    dp = as_int(local) if local is not None else 1
    if tp is None or pp is None or dp is None or dp < 1:
        return None
    if "tensor-parallel-size" not in args and engine_shm(row.name).ranks_unset == "gpus" and gpus > 1:
        return f"runs {gpus * pp} {row.display} shards ({row.spelling('tensor-parallel-size')} unset: one per GPU)"
    if tp * pp * dp <= 1:
        return None
    if dp > 1:
        return f"runs {tp * pp * dp} ranks (tensor parallel {tp} × pipeline parallel {pp} × data parallel {dp})"
    return f"runs {tp * pp} ranks (tensor parallel {tp} × pipeline parallel {pp})"


def _model_ranks(args: Mapping[str, str | None]) -> int:
    """Tensor x pipeline parallel: the ranks of one model replica, which talk through NCCL and the engine's shm
    broadcast queue (vllm-project/vllm#1710 is tensor parallel). Data parallel alone is not counted: external-LB data
    parallel (--data-parallel-rank or --data-parallel-external-lb) runs one local rank per pod (vllm v0.11.0
    vllm/engine/arg_utils.py create_engine_config: data_parallel_external_lb, then data_parallel_size_local = 1), and
    dense-model DP ranks are independent engines, "treat like DP=1" (vllm/v1/engine/core.py run_engine_core, same tag);
    only MoE DP uses NCCL across DP ranks, which the files seldom prove: advice."""
    return (parallel_size(args, "tensor-parallel-size") or 1) * (parallel_size(args, "pipeline-parallel-size") or 1)


# Accelerators whose ranks do not run NCCL/RCCL over /dev/shm (AWS Neuron's collectives, TPU's ICI, Gaudi's HCCL):
# vllm-project/vllm#1710's failure is CUDA NCCL's, so a rank count there proves no break (advice only).
_OTHER_ACCELERATORS = ("aws.amazon.com/neuron", "google.com/tpu", "habana.ai/gaudi")
_OTHER_DEVICES = frozenset({"neuron", "tpu", "hpu", "xpu", "cpu"})


def other_accelerator(container: Mapping, args: Mapping[str, str | None]) -> bool:
    """Whether the container requests an accelerator other than an NCCL/RCCL GPU, or sets --device to one."""
    if str(args.get("device") or "").strip().lower() in _OTHER_DEVICES:
        return True
    image = str(container.get("image") or "").lower()
    if "vllm-tpu" in image or "neuron" in image:
        return True
    resources = as_dict(container.get("resources"))
    keys = [str(k) for part in ("limits", "requests") for k in as_dict(resources.get(part))]
    return any(k.startswith(_OTHER_ACCELERATORS) for k in keys)


# Tokens before a launcher's name that still leave it the command run (a Python interpreter's -m, exec, nohup).
_BEFORE = frozenset({"-m", "exec", "nohup", "env", "time"})


def _launched(container: Mapping, gpus: int) -> str | None:
    """Why a launcher of components/rank_launchers.toml starts several processes in the container, or None."""
    tokens, _ = command_tokens(container)
    for i, token in enumerate(tokens):
        base = posixpath.basename(token)
        launcher = next((row for row in LAUNCHERS if base in row.commands), None)
        if launcher is None:
            continue
        before = tokens[i - 1] if i else ""
        if i and not (is_shell_operator(before) or before in _BEFORE or posixpath.basename(before).startswith("python")):
            continue  # a word of another command (pip install deepspeed)
        end = next((j for j in range(i + 1, len(tokens)) if is_shell_operator(tokens[j])), len(tokens))
        options = parse_vllm_args(tokens[i + 1 : end])
        flag = next((f for f in launcher.count if f in options), None)
        value = options.get(flag) if flag else None
        if flag is None:
            count = gpus if launcher.unset == "gpus" else int(launcher.unset)
            said = f"{launcher.display} with no {'/'.join('--' + f for f in launcher.count)}: one process per GPU"
        elif isinstance(value, str) and value.lower() in launcher.all_gpus:
            count, said = gpus, f"{launcher.display} --{flag} {value}: one process per GPU"
        else:
            count, said = as_int(value) or 0, f"{launcher.display} --{flag} {value}"
        if count > 1:
            return f"starts {count} processes ({said})"
    return None


def memory_limited(podspec: Mapping) -> bool:
    """True when every container of the pod has a memory limit: a memory emptyDir is then bounded by their sum and
    counted against them ("the maximum usage on memory medium EmptyDir would be the minimum value between the SizeLimit
    specified here and the sum of memory limits of all containers in a pod", core/v1 EmptyDirVolumeSource.sizeLimit)."""
    found = containers(podspec)
    return bool(found) and all(resource_value(c, "limits", "memory") is not None for c in found)


def shm_volumes(resource: Any) -> set[tuple[str, str]]:
    """(pod spec path, volume name) of each volume a container of ``shm_needs`` mounts at /dev/shm: S4 judges them,
    and G36 leaves them alone."""
    return {(need.path, name) for need in shm_needs(resource) if (name := shm_volume_name(need.container))}
