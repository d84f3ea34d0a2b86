"""The layout of a model larger than one node: nodes, GPUs per node, layers per pipeline stage.

A model with ``distributed: {backend: ray}`` runs one vLLM engine over several nodes of its pool.
The seeds' rule (vLLM "Distributed inference and serving": tensor parallel size = GPUs per node,
pipeline parallel size = number of nodes) keeps tensor parallelism on NVLink inside a node and
lets only the pipeline's activations cross the network. This module checks that rule against
the pool (the refusals name it), splits the decoder layers over the pipeline stages as vLLM
does, and charges each stage's GPUs with their own weights and KV cache budget.

Pure: no Pulumi, no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Optional

from ..capacity.architecture import GIB
from ..capacity.cuda_graphs import cuda_graph_bytes
from ..capacity.gpus import INSTANCES
from ..capacity.memory import (
    ACCOUNTINGS,
    EngineArgs,
    Gpu,
    MemoryPlan,
    kv_bytes_per_token_per_layer,
    non_torch_bytes,
    weights_per_gpu_bytes,
)
from ..capacity.models import CatalogModel
from ..capacity.startup import unsharded_heads
from ..config.models import ModelConfig
from ..config.placement import distributed, gpus_per_node, layout_problems
from ..config.pools import GpuPoolConfig
from ..errors import Problem

RULE_TP_DIVIDES_HEADS = "tensor parallel size must divide the model's attention heads"


@dataclass(frozen=True)
class Stage:
    """One pipeline stage: its decoder layers and what each of its GPUs holds."""

    index: int
    first_layer: int
    layers: int
    weights_gib: float  # per GPU of this stage
    kv_cache_gib: float  # per GPU of this stage (negative when the budget is short)
    kv_cache_tokens: Optional[int]  # tokens this stage's cache holds; None for hybrid attention

    def report(self) -> dict:
        """JSON-ready figures."""
        return {
            "stage": self.index,
            "layers": self.layers,
            "first_layer": self.first_layer,
            "weights_gib": round(self.weights_gib, 2),
            "kv_cache_gib": round(self.kv_cache_gib, 2),
            "kv_cache_tokens": self.kv_cache_tokens,
        }


@dataclass(frozen=True)
class Layout:
    """Where one multi-node engine runs: nodes x GPUs per node, and its pipeline stages."""

    backend: str
    nodes: int
    gpus_per_node: int
    tensor_parallel_size: int
    pipeline_parallel_size: int
    instance_type: str
    efa_interfaces_per_node: int  # 0 when the node type has no EFA
    stages: tuple[Stage, ...]

    @property
    def gpus(self) -> int:
        """GPUs of the whole engine (TP x PP = nodes x GPUs per node)."""
        return self.nodes * self.gpus_per_node

    @property
    def layers_per_stage(self) -> tuple[int, ...]:
        """Decoder layers of each stage, in pipeline order."""
        return tuple(s.layers for s in self.stages)

    def report(self) -> dict:
        """JSON-ready figures for the plan report."""
        return {
            "backend": self.backend,
            "nodes": self.nodes,
            "gpus_per_node": self.gpus_per_node,
            "tensor_parallel_size": self.tensor_parallel_size,
            "pipeline_parallel_size": self.pipeline_parallel_size,
            "instance_type": self.instance_type,
            "efa_interfaces_per_node": self.efa_interfaces_per_node,
            "layers_per_stage": list(self.layers_per_stage),
            "stages": [s.report() for s in self.stages],
        }


def node_instance_type(pool: GpuPoolConfig) -> str:
    """The pool's instance type a multi-node worker runs on: a full node, fewest vCPUs first."""
    per_node = gpus_per_node(pool)
    full = [t for t in pool.instance_types if INSTANCES[t].gpu_count == per_node]
    return min(full, key=lambda t: (INSTANCES[t].vcpu, t))


def efa_interfaces(pool: GpuPoolConfig) -> int:
    """EFA interfaces every full node of the pool has (0 when one of them has none).

    A worker asks for this many ``vpc.amazonaws.com/efa`` devices, so it fits whichever of the
    pool's full-node types Karpenter launches.
    """
    per_node = gpus_per_node(pool)
    return min(INSTANCES[t].efa_interfaces for t in pool.instance_types if INSTANCES[t].gpu_count == per_node)


def pipeline_partition(num_layers: int, pp: int) -> list[int]:
    """Decoder layers per pipeline stage, as vLLM 0.33 splits them.

    vllm/distributed/utils.py get_pp_indices (wheel vllm==0.33.0): an even share each, and the
    remainder one layer at a time to the stages before the last, from the second-to-last
    backwards (the last stage also holds the final norm and LM head). VLLM_PP_LAYER_PARTITION
    overrides it; this library does not set it.
    """
    partitions = [num_layers // pp] * pp
    for i in range(2, num_layers % pp + 2):
        partitions[-i] += 1
    return partitions


def _accounting(memory: MemoryPlan):
    return next(a for a in ACCOUNTINGS if a.releases == memory.accounting)


def stage_figures(model: CatalogModel, gpu: Gpu, args: EngineArgs, memory: MemoryPlan) -> tuple[Stage, ...]:
    """Weights and KV budget of each stage's GPUs, with the accounting the capacity plan chose.

    Every rank profiles its own GPU (vllm-project/vllm vllm/v1/worker/gpu_worker.py section 4): a stage's GPUs hold their
    layers' share of the linear weights over TP, the first stage the input embedding, the last the
    LM head; the activation peak and non-torch memory are the plan's; CUDA graphs grow with the
    stage's layers. The engine keeps the smallest block count of all ranks.
    """
    arch = model.arch
    tp, pp = args.tensor_parallel_size, args.pipeline_parallel_size
    acc = _accounting(memory)
    rotary = arch.max_position_embeddings * arch.head_dim * arch.dtype_bytes
    # The whole model as one GPU would hold it (dtype conversion and online quantization applied).
    whole = (
        weights_per_gpu_bytes(arch, model.checkpoint_bytes, replace(args, tensor_parallel_size=1, pipeline_parallel_size=1))
        - rotary
    )
    embed = min(arch.embedding_bytes(), whole)
    linear = whole - embed * (1 if arch.tie_word_embeddings else 2)
    budget = gpu.memory_gib * GIB * memory.gpu_memory_utilization
    activation = memory.activation_gib * GIB  # the plan's peak (with V2's cold-compile charge where it applies)
    non_torch = non_torch_bytes(tp, gpu, acc)
    per_layer = kv_bytes_per_token_per_layer(arch, args)
    stages = []
    first = 0
    partition = pipeline_partition(arch.num_layers, pp)
    for index, layers in enumerate(partition):
        held = embed * ((index == 0) + (index == pp - 1))
        weights = (linear * layers / arch.num_layers + held) / tp + rotary
        graphs = cuda_graph_bytes(
            replace(arch, num_layers=layers),
            replace(args, pipeline_parallel_size=1),
            acc,
            gpu,
            memory.max_num_seqs,
            memory.max_num_batched_tokens,
        )
        kv = budget - weights - activation - non_torch - graphs
        tokens = None
        if not arch.is_hybrid:
            block = args.block_size * per_layer * layers
            tokens = int(kv // block) * args.block_size if kv > 0 else 0
        stages.append(Stage(index, first, layers, weights / GIB, kv / GIB, tokens))
        first += layers
    return tuple(stages)


# Cold start of a multi-node replica (estimates for the
# 70B-class TP4-8 column, which has no measurement for p5 nodes): every node is launched and joins
# (2-5 min; EFA/p5 join failures seen, awslabs/amazon-eks-ami issue #2423), pulls the vLLM image (2-5 min cold), then each node
# downloads the whole checkpoint from the Hugging Face Hub (vLLM's loader fetches every shard, then
# each rank keeps its own) and loads its stage; then torch.compile, profiling and CUDA graphs (1-3 min).
NODE_READY_SECONDS = 300
IMAGE_PULL_SECONDS = 300
COMPILE_AND_GRAPHS_SECONDS = 180
# No Hub download time was measured for a large checkpoint (no public measurement found): 0.5 GiB/s per
# node is an assumption, a third of the HF safetensors loader's ~1.5 GB/s from local NVMe (anyscale/ai-infra-cookbook PR #57).
HUB_DOWNLOAD_GIB_PER_SECOND = 0.5


def cold_start_seconds(model: CatalogModel) -> int:
    """Seconds a multi-node replica may take from nothing to serving (the head's startup budget floor)."""
    download = model.checkpoint_gib / HUB_DOWNLOAD_GIB_PER_SECOND
    return NODE_READY_SECONDS + IMAGE_PULL_SECONDS + math.ceil(download) + COMPILE_AND_GRAPHS_SECONDS


def plan_layout(
    m: ModelConfig, pool: GpuPoolConfig, model: CatalogModel, gpu: Gpu, args: EngineArgs, memory: MemoryPlan, path: str
) -> tuple[Optional[Layout], list[Problem]]:
    """The layout of a distributed model, or the problems that refuse it.

    The config-only node rules (layout_problems) ran when the stack was loaded; the rule that
    needs the architecture runs here: vLLM shards attention heads over TP, so TP must divide them.
    That test is S22's (capacity/startup.py unsharded_heads, with its vLLM source); the layout refuses on
    its attention term, as a config error, and leaves the KV-head term to S22's refusal in the memory
    plan (``memory.startup_rule``), which reports it for every engine alike.
    """
    tp = m.engine.tensor_parallel_size
    problems = layout_problems(m, pool, path)
    if unsharded_heads(model.arch, tp) == "attention":
        problems.insert(
            0,
            Problem(
                f"{path}.engine.tensorParallelSize",
                f"{RULE_TP_DIVIDES_HEADS}: {model.id} has {model.arch.num_attention_heads} attention heads, "
                f"which {tp} does not divide (vLLM refuses to start)",
                tp,
            ),
        )
    if problems:
        return None, problems
    per_node = gpus_per_node(pool)
    return Layout(
        backend=distributed(m).backend,
        nodes=tp * m.engine.pipeline_parallel_size // per_node,
        gpus_per_node=per_node,
        tensor_parallel_size=tp,
        pipeline_parallel_size=m.engine.pipeline_parallel_size,
        instance_type=node_instance_type(pool),
        efa_interfaces_per_node=efa_interfaces(pool),
        stages=stage_figures(model, gpu, args, memory),
    ), []
