"""GPU types and AWS GPU instances: lookups over the catalogue in gpu_catalog.py."""

from __future__ import annotations

from typing import Optional

from ..capacity.gpu_catalog import GPUS, INSTANCES
from ..capacity.memory import Gpu

__all__ = ["GPUS", "INSTANCES", "find_gpu", "gpu_names", "instance_gpu", "UnknownGpu"]


class UnknownGpu(KeyError):
    """The name matches no catalogue GPU."""

    def __str__(self) -> str:
        return str(self.args[0])


def _norm(name: str) -> str:
    return "".join(ch for ch in name.upper() if ch.isalnum())


_INDEX: dict[str, str] = {}
for _key, _entry in GPUS.items():
    for _alias in (_key, *_entry.get("aliases", ())):
        _INDEX.setdefault(_norm(_alias), _key)
    if _entry.get("karpenter_gpu_name"):
        _INDEX.setdefault(_norm(_entry["karpenter_gpu_name"]), _key)


# SXM parts whose GPUs talk over NVLink on AWS (p4d/p4de, p5/p5e/p5en, p6): vLLM's custom
# all-reduce then holds per-rank buffers (components.capacity.memory.non_torch_bytes).
NVLINK_GPUS = frozenset({"A100-40GB", "A100-80GB", "H100", "H200", "B200", "B300"})


def gpu_names() -> list[str]:
    """Canonical GPU names, sorted."""
    return sorted(GPUS)


def find_gpu(name: str, memory_gib: Optional[float] = None) -> Gpu:
    """The GPU called ``name`` (case-insensitive, aliases allowed); ``memory_gib`` overrides its memory."""
    key = _INDEX.get(_norm(name))
    if key is None:
        if memory_gib is not None:
            # An unnamed device: datacenter-sized memory is taken as NVLink-connected (the larger overhead).
            return Gpu(name=name, memory_gib=float(memory_gib), nvlink=float(memory_gib) >= 70)
        raise UnknownGpu(f"unknown GPU {name!r}; known: {', '.join(gpu_names())} (or give --gpu-memory-gib)")
    cc = GPUS[key].get("compute_capability")
    return Gpu(name=key, memory_gib=float(memory_gib if memory_gib is not None else GPUS[key]["memory_gib"]), nvlink=key in NVLINK_GPUS,
               compute_capability=tuple(int(part) for part in cc.split(".")) if cc else None)


def instance_gpu(instance_type: str) -> tuple[Gpu, int]:
    """The GPU type and GPU count of an EC2 instance type."""
    entry = INSTANCES[instance_type]
    return find_gpu(entry["gpu"]), int(entry["gpu_count"])
