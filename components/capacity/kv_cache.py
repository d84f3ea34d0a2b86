"""The KV cache in blocks: bytes one token takes per layer, and how a per-GPU budget is cut into blocks.

Split from the memory model (components.capacity.memory re-exports every name here): the budget is
the memory model's, the block arithmetic follows vLLM's KV-cache allocator (cited per function).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..capacity.accounting import EngineArgs
from ..capacity.architecture import Architecture, LayerGroup

FP8_DS_MLA_BYTES_PER_TOKEN = 656

_KV_DTYPE_BYTES = {
    "fp8": 1,
    "fp8_e4m3": 1,
    "fp8_e5m2": 1,
    "fp8_inc": 1,
    "fp8_ds_mla": 1,
    "float": 4,
    "bfloat16": 2,
    "float16": 2,
    "half": 2,
    "float32": 4,
}


def kv_bytes_per_token_per_layer(arch: Architecture, args: EngineArgs) -> int:
    """Bytes one token occupies in one attention layer's KV cache on one rank."""
    kv_bytes = _kv_dtype_bytes(arch, args)
    if arch.is_mla and args.kv_cache_dtype == "fp8_ds_mla":
        # DeepSeek V3.2's sparse-attention cache: a fixed 656 bytes per token and layer
        # (vllm-project/vllm vllm/v1/worker/gpu_worker.py section 5).
        return FP8_DS_MLA_BYTES_PER_TOKEN
    if arch.kv_lora_rank is not None:  # MLA (arch.is_mla)
        # One latent (kv_lora_rank + rope dims) shared by K and V, replicated on every TP rank.
        return (arch.kv_lora_rank + (arch.qk_rope_head_dim or 0)) * kv_bytes
    heads = max(1, arch.num_kv_heads // args.tensor_parallel_size)
    return 2 * heads * arch.head_dim * kv_bytes


def _kv_dtype_bytes(arch: Architecture, args: EngineArgs) -> int:
    if args.kv_cache_dtype != "auto":
        return _KV_DTYPE_BYTES[args.kv_cache_dtype]
    if args.dtype not in ("auto",):
        return _KV_DTYPE_BYTES.get(args.dtype, 2)
    return arch.dtype_bytes


@dataclass(frozen=True)
class KvLayout:
    """How a per-GPU KV budget is cut into blocks, and what that holds."""

    bytes_per_token: int
    block_bytes: int
    num_blocks: int
    tokens: int
    max_concurrency: float
    # Block ids per token position: one per attention-type group of the hybrid allocator.
    groups: int = 1


def kv_layout(arch: Architecture, args: EngineArgs, kv_bytes: float, max_model_len: int, batched_tokens: int) -> KvLayout:
    """Blocks, tokens and concurrency at ``max_model_len`` that ``kv_bytes`` per GPU hold.

    vLLM's hybrid allocator (kv_cache_utils._get_kv_cache_config_uniform_page_size) cuts every
    attention type into groups of the smallest type's layer count; one block id then holds a
    page in each of group_size tensors, and a request takes blocks in every group it touches.
    """
    per_layer = kv_bytes_per_token_per_layer(arch, args)
    groups = _rank_groups(arch, args.pipeline_parallel_size)
    group_size = min(g.layers for g in groups)
    tensors_per_group = [math.ceil(g.layers / group_size) for g in groups]
    num_groups = sum(tensors_per_group)
    block_bytes = args.block_size * per_layer * group_size
    num_blocks = int(kv_bytes // block_bytes) if kv_bytes > 0 else 0
    tokens = (num_blocks // num_groups) * args.block_size
    per_request = sum(
        n * _blocks_needed(g, max_model_len, batched_tokens, args.block_size)
        for g, n in zip(groups, tensors_per_group, strict=True)
    )
    return KvLayout(
        bytes_per_token=int(sum(g.layers for g in groups) * per_layer),
        block_bytes=int(block_bytes),
        num_blocks=num_blocks,
        tokens=tokens,
        max_concurrency=num_blocks / per_request if per_request else 0.0,
        groups=num_groups,
    )


def _rank_groups(arch: Architecture, pp: int) -> list[LayerGroup]:
    """Layer groups on the busiest pipeline stage (layers split as evenly as vLLM splits them)."""
    return [LayerGroup(math.ceil(g.layers / pp), g.window) for g in arch.layer_groups]


def _blocks_needed(group: LayerGroup, max_model_len: int, batched_tokens: int, block_size: int) -> int:
    """Blocks a request at max_model_len keeps in one group.

    A sliding-window group keeps only the window plus the tokens of one step, and one block
    more for the window's unaligned edge (SlidingWindowSpec.max_memory_usage_bytes).
    """
    if group.window is None:
        return math.ceil(max_model_len / block_size)
    return math.ceil(min(group.window - 1 + batched_tokens, max_model_len) / block_size) + 1
