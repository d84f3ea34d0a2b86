"""GPU types and AWS GPU instances: lookups over the typed records of components/hardware.py (facts in hardware.toml)."""

from __future__ import annotations

from typing import Optional

from ..capacity.memory import Gpu
from ..hardware import GPUS, INSTANCES, GpuSpec, InstanceSpec

__all__ = ["GPUS", "INSTANCES", "GpuSpec", "InstanceSpec", "find_gpu", "gpu_names", "gpu_spec", "instance_gpu", "UnknownGpu"]


class UnknownGpu(KeyError):
    """The name matches no catalogue GPU."""

    def __str__(self) -> str:
        return str(self.args[0])


def _norm(name: str) -> str:
    return "".join(ch for ch in name.upper() if ch.isalnum())


# Every spelling of every GPU -> its canonical name; the first GPU to claim a spelling keeps it
# (Karpenter's label `a100` names both A100s: it means the 40 GB part, listed first).
_INDEX: dict[str, str] = {}
for _spec in GPUS.values():
    for _alias in (_spec.name, *_spec.aliases, *([_spec.karpenter_gpu_name] if _spec.karpenter_gpu_name else [])):
        _INDEX.setdefault(_norm(_alias), _spec.name)


def gpu_names() -> list[str]:
    """Canonical GPU names, sorted."""
    return sorted(GPUS)


def gpu_spec(name: str) -> GpuSpec:
    """The catalogue record of the GPU called ``name`` (case-insensitive, aliases allowed)."""
    key = _INDEX.get(_norm(name))
    if key is None:
        raise UnknownGpu(f"unknown GPU {name!r}; known: {', '.join(gpu_names())}")
    return GPUS[key]


def find_gpu(name: str, memory_gib: Optional[float] = None) -> Gpu:
    """The GPU called ``name`` (case-insensitive, aliases allowed); ``memory_gib`` overrides its memory."""
    key = _INDEX.get(_norm(name))
    if key is None:
        if memory_gib is not None:
            # An unnamed device: datacenter-sized memory is taken as NVLink-connected (the larger overhead).
            return Gpu(name=name, memory_gib=float(memory_gib), nvlink=float(memory_gib) >= 70)
        raise UnknownGpu(f"unknown GPU {name!r}; known: {', '.join(gpu_names())} (or give --gpu-memory-gib)")
    spec = GPUS[key]
    return Gpu(
        name=key,
        memory_gib=float(memory_gib if memory_gib is not None else spec.memory_gib),
        nvlink=spec.nvlink,
        compute_capability=spec.compute_capability,
    )


def instance_gpu(instance_type: str) -> tuple[Gpu, int]:
    """The GPU type and GPU count of an EC2 instance type."""
    entry = INSTANCES[instance_type]
    return find_gpu(entry.gpu), entry.gpu_count
