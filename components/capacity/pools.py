"""The capacity plan of one GPU pool: what its nodes hold and what its models and buffer need.

Pure: from a ``gpuPools`` entry, the models placed on it and their serving plans, derive the
numbers the NodePool, the EC2NodeClass, the buffer and the pool-fit check must agree on (GPUs
per node, the GPUs one replica of the largest model needs, the buffer's GPUs, the root volume,
the drain the node must wait for). Instance facts come from the typed hardware records (hardware.py,
facts and sources in hardware.toml).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

from ..capacity.gpus import GPUS, INSTANCES
from ..capacity.plan import Resources, ServingPlan
from ..config import GpuPoolConfig, ModelConfig
from ..config.placement import spans_nodes
from ..hardware import pool_architecture

# Root volume: the vLLM image unpacked (28.6 GB for vllm-openai:latest in Dec 2025, vllm-project/vllm
# PR #22377; ~25 GB in vllm-project/vllm issue #17163) plus the OS, kubelet and logs. Weights are added on top where a model
# downloads them to the node's disk and the node has no instance-store NVMe to put them on.
IMAGE_AND_SYSTEM_GIB = 60
# EBS gp3 volume size bounds the EC2NodeClass CRD accepts (volumeSize pattern, up to 59000Gi).
MAX_VOLUME_GIB = 59000


@dataclass(frozen=True)
class PoolModel:
    """One model on the pool, as the pool sees it."""

    name: str
    gpus_per_replica: int
    max_replicas: int
    min_replicas: int
    grace_seconds: int
    startup_budget_seconds: int

    @property
    def peak_gpus(self) -> int:
        """GPUs the model holds at replicas.max."""
        return self.gpus_per_replica * self.max_replicas


@dataclass(frozen=True)
class PoolPlan:
    """Everything derived for one GPU pool; the pool builders read only from here."""

    name: str
    instance_types: tuple[str, ...]
    capacity_types: tuple[str, ...]
    gpu: str
    karpenter_gpu_name: str
    gpus_per_node: Mapping[str, int]
    gpu_limit: int
    local_nvme_gb: int  # smallest instance-store NVMe of the pool's types; 0 when one type has none
    efa: Mapping[str, bool]
    arch: str  # kubernetes.io/arch of every node (the instance records' arch; config refuses a pool mixing them)
    models: tuple[PoolModel, ...]
    buffer_replicas: int
    buffer_pod: Resources | None  # one placeholder replica: the largest model's pod
    root_volume_gib: int
    drain_seconds: int  # the longest a node must wait for its serving pods to drain and be replaced
    images: tuple[str, ...] = ()  # the vLLM images of the pool's models (pre-pulled on every node)
    cached_models: tuple[str, ...] = ()  # models whose weights a LocalModelCache keeps on the pool's NVMe
    multi_node_models: tuple[str, ...] = ()  # models whose one engine spans several of the pool's nodes (KubeRay)

    @property
    def max_gpus_per_node(self) -> int:
        """GPUs of the pool's largest instance type."""
        return max(self.gpus_per_node.values())

    @property
    def buffer_gpus(self) -> int:
        """GPUs the warm buffer holds."""
        return self.buffer_replicas * (self.buffer_pod.gpus if self.buffer_pod else 0)

    @property
    def peak_gpus(self) -> int:
        """GPUs held with every model at replicas.max plus the buffer."""
        return sum(m.peak_gpus for m in self.models) + self.buffer_gpus

    @property
    def drift(self) -> str:
        """How the pool's nodes get new AMIs: "held" (a multi-node engine's pool: only by the planned roll of
        docs/platform.md; builders/karpenter.py holds_drift) or "window" (drift inside the maintenance window)."""
        return "held" if self.multi_node_models else "window"

    def fit_problems(self) -> list[str]:
        """Each model whose replicas.max x GPUs plus the buffer exceeds gpuLimit, as a message naming the pool."""
        out = []
        for m in self.models:
            need = m.peak_gpus + self.buffer_gpus
            if need > self.gpu_limit:
                out.append(
                    f"pool {self.name}: model {m.name} needs {m.max_replicas} replicas.max x {m.gpus_per_replica} GPUs "
                    f"+ {self.buffer_gpus} buffer GPUs = {need} GPUs, above gpuLimit {self.gpu_limit}; raise gpuLimit "
                    f"or lower replicas.max"
                )
        return out

    def report(self) -> dict:
        """JSON-ready figures for the plan report."""
        return {
            "name": self.name,
            "instance_types": list(self.instance_types),
            "capacity_types": list(self.capacity_types),
            "gpu": self.gpu,
            "gpus_per_node": dict(self.gpus_per_node),
            "gpu_limit": self.gpu_limit,
            "buffer_replicas": self.buffer_replicas,
            "buffer_gpus": self.buffer_gpus,
            "peak_gpus": self.peak_gpus,
            "local_nvme_gb": self.local_nvme_gb,
            "root_volume_gib": self.root_volume_gib,
            "drain_seconds": self.drain_seconds,
            "models": [m.name for m in self.models],
            "images": list(self.images),
            "cached_models": list(self.cached_models),
            "multi_node_models": list(self.multi_node_models),
            "drift": self.drift,
            "fits": not self.fit_problems(),
        }


def _largest(plans: Sequence[ServingPlan]) -> ServingPlan | None:
    # Largest by GPUs, then memory and CPU: the placeholder must make room for any model's replica.
    return max(plans, key=lambda p: (p.resources.gpus, p.resources.memory_gib, p.resources.cpu, p.name), default=None)


def plan_pool(pool: GpuPoolConfig, models: Sequence[ModelConfig], plans: Mapping[str, ServingPlan]) -> PoolPlan:
    """Derive the plan of one pool from its config, the models placed on it and their serving plans."""
    on_pool = [m for m in models if m.pool == pool.name]
    pool_plans = [plans[m.name] for m in on_pool]
    gpu = INSTANCES[pool.instance_types[0]].gpu
    nvme = [INSTANCES[t].local_nvme_gb for t in pool.instance_types]
    local_nvme_gb = min(nvme) if all(nvme) else 0
    pool_models = tuple(
        PoolModel(
            name=m.name,
            # TP x PP: a multi-node replica spans several pods (resources.gpus is one pod's).
            gpus_per_replica=p.memory.gpus_per_replica,
            max_replicas=m.replicas.max,
            min_replicas=m.replicas.min,
            grace_seconds=p.termination_grace_seconds,
            startup_budget_seconds=p.startup_failure_threshold * p.startup_period_seconds,
        )
        for m, p in zip(on_pool, pool_plans)
    )
    largest = _largest(pool_plans)
    # Weights land on the root volume only where there is no instance-store NVMe to hold them
    # (with RAID0, Karpenter puts ephemeral storage on the NVMe array: Karpenter v1.14.1 docs, instanceStorePolicy).
    weights = 0 if local_nvme_gb else max((p.resources.ephemeral_storage_gib for p in pool_plans), default=0)
    root = min(MAX_VOLUME_GIB, IMAGE_AND_SYSTEM_GIB + weights)
    # A draining node keeps its serving pods until they finish their requests, and the PDB lets the
    # next one go only once a replacement is ready elsewhere: wait for both before forcing.
    drain = max((m.grace_seconds + m.startup_budget_seconds for m in pool_models), default=0)
    return PoolPlan(
        name=pool.name,
        instance_types=tuple(pool.instance_types),
        capacity_types=tuple(pool.capacity_types),
        gpu=gpu,
        karpenter_gpu_name=GPUS[gpu].karpenter_gpu_name or gpu.lower(),
        gpus_per_node={t: INSTANCES[t].gpu_count for t in pool.instance_types},
        gpu_limit=pool.gpu_limit,
        local_nvme_gb=local_nvme_gb,
        efa={t: INSTANCES[t].efa for t in pool.instance_types},
        arch=pool_architecture(pool.instance_types, INSTANCES),
        models=pool_models,
        buffer_replicas=pool.buffer.replicas if largest is not None else 0,
        buffer_pod=largest.resources if largest is not None else None,
        root_volume_gib=int(math.ceil(root)),
        drain_seconds=drain,
        images=tuple(sorted({m.image for m in on_pool})),
        cached_models=tuple(m.name for m in on_pool if m.source.type == "localCache"),
        multi_node_models=tuple(m.name for m in on_pool if spans_nodes(m)),
    )


def plan_pools(
    pools: Sequence[GpuPoolConfig], models: Sequence[ModelConfig], plans: Mapping[str, ServingPlan]
) -> dict[str, PoolPlan]:
    """Plans of every pool, keyed by pool name, in stack order.

    A pool whose models cannot fit (``fit_problems``) is reported, not refused here: the plan's
    policies name it (S8 on the HPA's maximum, gpu-pool-fits-models with the buffer) and exit 1.
    """
    return {p.name: plan_pool(p, models, plans) for p in pools}
