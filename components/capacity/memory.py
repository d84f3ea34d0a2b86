"""vLLM V1's GPU memory accounting, done before a GPU exists.

Per GPU (every TP/PP rank profiles its own device), vLLM 0.33 sizes the KV cache as

    kv = total_memory x gpu_memory_utilization
         - weights            (this rank's share of the checkpoint, plus the rotary cache)
         - peak activation    (profile run: a forward pass of max_num_batched_tokens tokens,
                               then a sampler pass over min(max_num_seqs, tokens) rows x vocab)
         - non-torch memory   (CUDA context growth, cuBLAS/NCCL workspaces; grows with TP)
         - CUDA graph memory  (estimated and reserved before the KV cache since v0.21)

(shared/reference/vllm_memory_model.md sections 1-2 and 8, read from vllm/v1/worker/gpu_worker.py
and vllm/utils/mem_utils.py). The KV cache is then cut into blocks of ``block_size`` tokens whose
size follows from the layers on this rank, the KV heads on this rank (at least one: heads are
replicated when TP exceeds them), head_dim and the cache dtype (section 3-6 of the same note).

The empirical constants (activation multipliers, non-torch and graph estimates) are fitted to
real startup logs and biased to the safe side: predicting less KV cache than vLLM finds costs
some concurrency, predicting more costs an OOM at start-up.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Optional

from components.capacity.architecture import GIB, Architecture, LayerGroup

# --- empirical constants, fitted on the startup logs in tests/capacity/data (see calibration test) ---

# Sampler warm-up: float32 logits of S rows x vocab, and the copies top-k/top-p sorting, softmax,
# cumulative sums and the random draw make of them (vllm/v1/sample/ops/topk_topp_sampler.py).
SAMPLER_LOGIT_COPIES = 8.0
# Forward pass of T tokens: the widest live tensors are the fused gate/up projection output
# (2 x intermediate), the activation output (1 x intermediate) and a few hidden-size buffers.
FORWARD_INTERMEDIATE_COPIES = 3.0
FORWARD_HIDDEN_COPIES = 6.0
# Non-torch memory on one GPU (CUDA context growth after the baseline snapshot, cuBLAS workspaces);
# with TP > 1 NCCL and the custom all-reduce add buffers per rank.
NON_TORCH_SINGLE_GIB = 0.20
NON_TORCH_TP_BASE_GIB = 0.45
NON_TORCH_TP_PER_RANK_GIB = 0.06
# CUDA graph memory that vLLM >= 0.21 estimates and reserves before the KV cache.
CUDA_GRAPH_BASE_GIB = 0.10
CUDA_GRAPH_PER_LAYER_GIB = 0.006

_KV_DTYPE_BYTES = {"fp8": 1, "fp8_e4m3": 1, "fp8_e5m2": 1, "fp8_ds_mla": 1, "bfloat16": 2, "float16": 2, "half": 2, "float32": 4}
# Weight bits per parameter of linear layers under a quantization method (embeddings stay 16-bit).
_QUANT_LINEAR_BYTES = {"fp8": 1.0, "int8": 1.0, "awq": 0.5, "awq_marlin": 0.5, "gptq": 0.5, "gptq_marlin": 0.5, "mxfp4": 0.53,
                       "bitsandbytes": 0.5, "compressed-tensors": 1.0}


@dataclass(frozen=True)
class Gpu:
    """A GPU type as vLLM sees it: its name and the total memory CUDA reports."""

    name: str
    memory_gib: float


@dataclass(frozen=True)
class EngineArgs:
    """The vLLM flags that change memory. None means "vLLM's default for this GPU / model"."""

    tensor_parallel_size: int = 1
    pipeline_parallel_size: int = 1
    gpu_memory_utilization: float = 0.92  # vLLM 0.33 default (config/cache.py, shared/reference/vllm.md)
    max_model_len: Optional[int] = None
    max_num_seqs: Optional[int] = None
    max_num_batched_tokens: Optional[int] = None
    block_size: int = 16
    dtype: str = "auto"
    kv_cache_dtype: str = "auto"
    quantization: Optional[str] = None
    enforce_eager: bool = False


@dataclass(frozen=True)
class MemoryPlan:
    """Where each GPU's memory goes, and what that leaves for requests."""

    gpu: str
    gpu_memory_gib: float
    gpus_per_replica: int
    budget_gib: float
    weights_gib: float
    activation_gib: float
    non_torch_gib: float
    cuda_graph_gib: float
    kv_cache_gib: float
    kv_bytes_per_token: int
    block_bytes: int
    num_blocks: int
    kv_cache_tokens: int
    max_model_len: int
    max_num_seqs: int
    max_num_batched_tokens: int
    max_concurrency: float
    fits: bool
    reason: str
    notes: tuple[str, ...] = field(default=())

    def as_dict(self) -> dict:
        """Plain, JSON-ready figures (rounded so that reports are stable)."""
        out = asdict(self)
        for key, value in out.items():
            if isinstance(value, float):
                out[key] = round(value, 2 if key != "max_concurrency" else 2)
        out["notes"] = list(self.notes)
        return out


def hardware_batch_defaults(gpu: Gpu) -> tuple[int, int]:
    """vLLM 0.33's OpenAI-server defaults (max_num_batched_tokens, max_num_seqs) for a GPU.

    engine/arg_utils.py get_batch_defaults (shared/reference/vllm.md section 2): >= 160 GiB
    16384/1024; >= 70 GiB and not A100 8192/1024; otherwise 2048/256.
    """
    if gpu.memory_gib >= 160:
        return 16384, 1024
    if gpu.memory_gib >= 70 and "A100" not in gpu.name.upper():
        return 8192, 1024
    return 2048, 256


def weights_per_gpu_bytes(arch: Architecture, checkpoint_bytes: float, args: EngineArgs) -> float:
    """This rank's share of the weights in GPU memory.

    Linear layers and the vocab-parallel embedding/LM head are split over TP; PP stages hold
    their layers, and the first/last stage also the embedding/LM head. A 32-bit checkpoint is
    loaded in 16 bits by dtype "auto"; online quantization shrinks only the linear layers.
    """
    tp, pp = args.tensor_parallel_size, args.pipeline_parallel_size
    total = float(checkpoint_bytes)
    if arch.checkpoint_dtype == "float32" and args.dtype in ("auto", "bfloat16", "float16", "half"):
        total /= 2
    elif args.dtype == "float32" and arch.checkpoint_dtype in ("bfloat16", "float16"):
        total *= 2
    embed = arch.embedding_bytes() * (1 if arch.tie_word_embeddings else 2)
    embed = min(embed, total)
    linear = total - embed
    if args.quantization in _QUANT_LINEAR_BYTES and arch.quant_method is None:
        # Online quantization of a 16-bit checkpoint (e.g. --quantization fp8).
        linear *= _QUANT_LINEAR_BYTES[args.quantization] / arch.dtype_bytes
    embed_stage = embed if pp == 1 else embed / (1 if arch.tie_word_embeddings else 2)
    rotary = arch.max_position_embeddings * arch.head_dim * arch.dtype_bytes
    return (linear / pp + embed_stage) / tp + rotary


def kv_bytes_per_token_per_layer(arch: Architecture, args: EngineArgs) -> int:
    """Bytes one token occupies in one attention layer's KV cache on one rank."""
    kv_bytes = _kv_dtype_bytes(arch, args)
    if arch.is_mla:
        # One latent (kv_lora_rank + rope dims) shared by K and V, replicated on every TP rank.
        return (arch.kv_lora_rank + arch.qk_rope_head_dim) * kv_bytes
    heads = max(1, arch.num_kv_heads // args.tensor_parallel_size)
    return 2 * heads * arch.head_dim * kv_bytes


def _kv_dtype_bytes(arch: Architecture, args: EngineArgs) -> int:
    if args.kv_cache_dtype != "auto":
        return _KV_DTYPE_BYTES[args.kv_cache_dtype]
    if args.dtype not in ("auto",):
        return _KV_DTYPE_BYTES.get(args.dtype, 2)
    return arch.dtype_bytes


def activation_bytes(arch: Architecture, tokens: int, seqs: int, tp: int) -> float:
    """Peak torch memory of the profile run above the weights (forward of ``tokens``, then the sampler)."""
    b = arch.dtype_bytes
    inter = arch.moe_intermediate_size * max(1, arch.experts_per_token) if arch.num_experts else arch.intermediate_size
    forward = tokens * (FORWARD_INTERMEDIATE_COPIES * inter / tp + FORWARD_HIDDEN_COPIES * arch.hidden_size) * b
    rows = min(seqs, tokens)
    # The LM head is vocab-parallel, but logits are gathered to full vocab on every rank before sampling.
    sampler = SAMPLER_LOGIT_COPIES * rows * arch.vocab_size * 4
    return forward + sampler


def non_torch_bytes(tp: int) -> float:
    """CUDA context growth and library workspaces; NCCL/custom all-reduce buffers with TP > 1."""
    if tp <= 1:
        return NON_TORCH_SINGLE_GIB * GIB
    return (NON_TORCH_TP_BASE_GIB + NON_TORCH_TP_PER_RANK_GIB * tp) * GIB


def cuda_graph_bytes(arch: Architecture, args: EngineArgs, pp: int) -> float:
    """The CUDA graph pool vLLM 0.33 reserves before sizing the KV cache (0 with enforce_eager)."""
    if args.enforce_eager:
        return 0.0
    layers = math.ceil(arch.num_layers / pp)
    return (CUDA_GRAPH_BASE_GIB + CUDA_GRAPH_PER_LAYER_GIB * layers) * GIB


def plan_memory(arch: Architecture, checkpoint_bytes: float, gpu: Gpu, args: EngineArgs) -> MemoryPlan:
    """Predict vLLM's per-GPU memory budget and the KV cache it leaves for ``arch`` on ``gpu``."""
    tp, pp = args.tensor_parallel_size, args.pipeline_parallel_size
    hw_tokens, hw_seqs = hardware_batch_defaults(gpu)
    max_model_len = args.max_model_len or arch.max_position_embeddings
    seqs = args.max_num_seqs or hw_seqs
    tokens = args.max_num_batched_tokens or hw_tokens
    notes = []

    budget = gpu.memory_gib * GIB * args.gpu_memory_utilization
    weights = weights_per_gpu_bytes(arch, checkpoint_bytes, args)
    activation = activation_bytes(arch, tokens, seqs, tp)
    non_torch = non_torch_bytes(tp)
    graphs = cuda_graph_bytes(arch, args, pp)
    kv = budget - weights - activation - non_torch - graphs

    per_layer = kv_bytes_per_token_per_layer(arch, args)
    groups = _rank_groups(arch, pp)
    # vLLM's hybrid allocator (kv_cache_utils._get_kv_cache_config_uniform_page_size) cuts every
    # attention type into groups of the smallest type's layer count; one block id then holds a
    # page in each of group_size tensors, and a request takes blocks in every group it touches.
    group_size = min(g.layers for g in groups)
    tensors_per_group = [math.ceil(g.layers / group_size) for g in groups]
    num_groups = sum(tensors_per_group)
    block_bytes = args.block_size * per_layer * group_size
    num_blocks = int(kv // block_bytes) if kv > 0 else 0
    kv_tokens = (num_blocks // num_groups) * args.block_size
    blocks_per_request = sum(
        n * math.ceil(_tokens_needed(g, max_model_len, tokens) / args.block_size) for g, n in zip(groups, tensors_per_group)
    )
    max_concurrency = num_blocks / blocks_per_request if blocks_per_request else 0.0
    bytes_per_token = sum(g.layers for g in groups) * per_layer

    if weights >= budget:
        fits, reason = False, (
            f"weights need {weights / GIB:.2f} GiB per GPU but {args.gpu_memory_utilization:g} x {gpu.memory_gib:.2f} GiB "
            f"= {budget / GIB:.2f} GiB is the budget; raise tensorParallelSize, quantize, or use a bigger GPU"
        )
    elif kv <= 0:
        fits, reason = False, (
            f"no memory left for the KV cache ({kv / GIB:.2f} GiB after weights, activations, non-torch memory and CUDA graphs); "
            f"raise gpuMemoryUtilization or tensorParallelSize, lower maxNumBatchedTokens/maxNumSeqs, or use a bigger GPU"
        )
    elif max_concurrency < 1:
        fits, reason = False, (
            f"maxModelLen {max_model_len:,} exceeds the KV cache ({kv_tokens:,} tokens, {kv / GIB:.2f} GiB per GPU); "
            f"lower maxModelLen, raise tensorParallelSize, use an fp8 KV cache, or a bigger GPU"
        )
    else:
        fits, reason = True, f"{max_concurrency:.2f} requests of {max_model_len:,} tokens fit in the KV cache"
    if max_model_len > arch.max_position_embeddings:
        notes.append(f"maxModelLen {max_model_len:,} exceeds the model's max_position_embeddings {arch.max_position_embeddings:,}")

    return MemoryPlan(
        gpu=gpu.name,
        gpu_memory_gib=gpu.memory_gib,
        gpus_per_replica=tp * pp,
        budget_gib=budget / GIB,
        weights_gib=weights / GIB,
        activation_gib=activation / GIB,
        non_torch_gib=non_torch / GIB,
        cuda_graph_gib=graphs / GIB,
        kv_cache_gib=max(kv, 0.0) / GIB,
        kv_bytes_per_token=int(bytes_per_token),
        block_bytes=int(block_bytes),
        num_blocks=num_blocks,
        kv_cache_tokens=kv_tokens,
        max_model_len=max_model_len,
        max_num_seqs=seqs,
        max_num_batched_tokens=tokens,
        max_concurrency=max_concurrency,
        fits=fits,
        reason=reason,
        notes=tuple(notes),
    )


def _rank_groups(arch: Architecture, pp: int) -> list[LayerGroup]:
    """Layer groups on the busiest pipeline stage (layers split as evenly as vLLM splits them)."""
    return [LayerGroup(math.ceil(g.layers / pp), g.window) for g in arch.layer_groups]


def _tokens_needed(group: LayerGroup, max_model_len: int, batched_tokens: int) -> int:
    """Tokens a request at max_model_len keeps in one group (SlidingWindowSpec.max_memory_usage_bytes)."""
    if group.window is None:
        return max_model_len
    return min(group.window - 1 + batched_tokens, max_model_len)
