"""Where a model runs over the nodes of its pool, as far as the stack file decides it.

``spans_nodes`` is the one placement question (is a replica spread over several nodes?), asked by
the config's cross checks, the capacity plan and the pools; ``gpus_per_node`` is the unit a
multi-node engine is cut into (the pool's largest node, from components/hardware.py), and
``layout_problems`` the node rules of a distributed model that need nothing but the config and the
instance records. The memory of each pipeline stage needs the model's architecture: that is the
capacity plan's (components/capacity/layout.py), above this package.

Pure: no Pulumi, no I/O.
"""

from __future__ import annotations

import math

from ..errors import Problem
from ..hardware import INSTANCES
from .models import DistributedConfig, ModelConfig
from .pools import GpuPoolConfig

RULE_TP_WITHIN_NODE = "tensor parallel size must not exceed the GPUs per node"
RULE_TP_PP_FILLS_NODES = "tensor parallel size x pipeline parallel size must equal GPUs per node x nodes"
RULE_MORE_THAN_ONE_NODE = "a distributed model must need more than one node"
RULE_ONE_REPLICA = "a multi-node model runs exactly one replica"


def gpus_per_node(pool: GpuPoolConfig) -> int:
    """GPUs of the pool's largest node: the unit a multi-node engine is cut into."""
    return max(INSTANCES[t].gpu_count for t in pool.instance_types)


def spans_nodes(m: ModelConfig) -> bool:
    """Whether one replica of ``m`` spreads over several nodes (``distributed`` set): the one placement question the
    capacity plan, the pools and the config's checks ask. Which back-end serves the model is components/backends'
    choice (``serving_backend``), not theirs: a second multi-node back-end changes nothing here."""
    return m.distributed is not None


def distributed(m: ModelConfig) -> DistributedConfig:
    """The ``distributed`` settings of a model whose replica spans nodes (the only models laid out here)."""
    assert m.distributed is not None, f"model {m.name!r} does not span nodes"
    return m.distributed


def layout_problems(m: ModelConfig, pool: GpuPoolConfig, path: str) -> list[Problem]:
    """The node rules of a distributed model that need only the config (no architecture)."""
    tp, pp = m.engine.tensor_parallel_size, m.engine.pipeline_parallel_size
    per_node = gpus_per_node(pool)
    where = f"pool {pool.name!r} ({', '.join(pool.instance_types)}) has {per_node} GPUs per node"
    problems = []
    if tp > per_node:
        problems.append(
            Problem(
                f"{path}.engine.tensorParallelSize",
                f"{RULE_TP_WITHIN_NODE}: {where}; tensor parallelism needs NVLink inside one node, pipeline "
                f"stages cross nodes (use tensorParallelSize {per_node} and raise pipelineParallelSize)",
                tp,
            )
        )
    elif (tp * pp) % per_node:
        nodes = math.ceil(tp * pp / per_node)
        problems.append(
            Problem(
                f"{path}.engine.pipelineParallelSize",
                f"{RULE_TP_PP_FILLS_NODES}: {tp} x {pp} = {tp * pp} GPUs, but {where}, so {nodes} nodes hold "
                f"{per_node * nodes}; idle GPUs would be paid for (use tensorParallelSize {per_node} and "
                f"pipelineParallelSize = the node count)",
                pp,
            )
        )
    elif tp * pp == per_node:
        problems.append(
            Problem(
                f"{path}.distributed",
                f"{RULE_MORE_THAN_ONE_NODE}: {tp} x {pp} = {tp * pp} GPUs fit on one node ({where}); remove "
                f"distributed to serve it from one pod",
                {"backend": distributed(m).backend},
            )
        )
    if m.replicas.min != 1 or m.replicas.max != 1:
        problems.append(
            Problem(
                f"{path}.replicas",
                f"{RULE_ONE_REPLICA} ({{min: 1, max: 1}}): autoscaling multi-node replicas is out of scope, as in KServe and NIM",
                {"max": m.replicas.max, "min": m.replicas.min},
            )
        )
    return problems
