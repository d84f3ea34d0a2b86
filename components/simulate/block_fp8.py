"""The latency floor of block-scaled FP8 linear layers at decode batch sizes (DeepSeek-V3/R1, Qwen3 -FP8 on Hopper).

vLLM 0.11.0 runs a block-FP8 checkpoint's linear layers (Fp8LinearMethod.apply, model_executor/layers/quantization/
fp8.py 401-407) through ``apply_w8a8_block_fp8_linear`` (utils/fp8_utils.py 118-184): a per-token-group quantization of
the activations, then CUTLASS's SM90 blockwise GEMM (``cutlass_scaled_mm``; DeepGEMM's ``fp8_gemm_nt`` instead where
DeepGEMM is installed and both N and K are multiples of 128, which DeepSeek's fused q_a/kv_a projection, N = 2112, is
not). Each 128-wide K block's partial product is rescaled by its activation and weight scales before it is added, so a
tile walks K block by block; at decode sizes the grid is one row of tiles (N / 128 output tiles, at most a few dozen
on a tensor-parallel rank: fewer than the GPU's SMs), and the GEMM takes as long as one tile's walk down K, whatever
its weight bytes.

vLLM's own measurement of that kernel (vllm-project/vllm PR 23280, "[Perf] Use upstream CUTLASS for SM90 Block FP8
kernel", the change 0.11.0 ships: fp8_utils.py 916-924 "SM90 Block FP8 CUTLASS requires row-major weight scales";
H100, DeepSeek-V3's N=2112 K=7168, the w8a8-block-fp8-cutlass column): 0.893 TFLOP/s at 1 token, 13.94 at 16, 55.79
at 64, 106.5 at 128, i.e. 33.9, 34.7, 34.7 and 36.4 us for a 15 MB weight that streams in 4.5 us at the H100's
3.35 TB/s. 33.9 us over the 56 K blocks of 128 is BLOCK_FP8_K_STEP_S a block. Read from the measurement, not calibrated;
the walk is latency-bound, so the H200 (the H100's SMs and clocks, more bandwidth) takes it as the H100 does.
"""

from __future__ import annotations

from ..capacity.architecture import Architecture

BLOCK_FP8_K_STEP_S = 33.9e-6 / (7168 / 128)  # one 128-wide K block of a decode-sized blockwise GEMM (PR 23280)
BLOCK_K = 128  # the K width of a weight scale block (weight_block_size [128, 128])


def block_fp8_linear_shapes(arch: Architecture, tp: int) -> tuple[tuple[int, int, int], ...]:
    """The block-FP8 linear GEMMs a decode step runs on one tensor-parallel rank, as (N, K, count over the model).

    MLA (vLLM 0.11.0 model_executor/models/deepseek_v2.py DeepseekV2MLAAttention 872-921): fused_qkv_a_proj, one
    replicated GEMM to q_lora_rank + kv_lora_rank + rope (``disable_tp=True``); q_b_proj column-parallel to every head's
    query; o_proj row-parallel from the values (kv_b_proj is absorbed into bf16 matrices in decode: mla/common.py
    W_UK_T, W_UV). Otherwise qkv_proj (column-parallel) and o_proj. The MLPs: the dense layers' gate_up and down, and a
    DeepSeek MoE layer's shared experts (DeepseekV2MLP, tensor-parallel: use_sequence_parallel_moe needs data
    parallelism, config/parallel.py 292-298). The routers (``quant_config=None``, deepseek_v2.py 158-162) and the LM
    head are bf16; the routed experts run the fused MoE kernel (roofline.expert_compute_seconds)."""
    layers = arch.num_layers
    h = arch.hidden_size
    heads = arch.num_attention_heads
    if arch.is_mla and arch.qk_nope_head_dim and arch.v_head_dim:
        rope, lora = arch.qk_rope_head_dim or 0, arch.kv_lora_rank or 0
        q_out = heads * (arch.qk_nope_head_dim + rope) // tp
        if arch.q_lora_rank:
            attn = [(arch.q_lora_rank + lora + rope, h, layers), (q_out, arch.q_lora_rank, layers)]
        else:
            attn = [(lora + rope, h, layers), (q_out, h, layers)]
        attn.append((h, heads * arch.v_head_dim // tp, layers))
    else:
        q, kv = heads * arch.head_dim, arch.num_kv_heads * arch.head_dim
        attn = [((q + 2 * kv) // tp, h, layers), (h, q // tp, layers)]
    moe = bool(arch.num_experts and arch.experts_per_token)
    dense_layers = arch.first_dense_layers if moe else layers
    mlps = [(2 * arch.intermediate_size // tp, h, dense_layers), (h, arch.intermediate_size // tp, dense_layers)]
    if moe and arch.shared_experts:
        shared = arch.shared_experts * (arch.moe_intermediate_size or arch.intermediate_size) // tp
        mlps += [(2 * shared, h, layers - dense_layers), (h, shared, layers - dense_layers)]
    return tuple(s for s in attn + mlps if s[2] > 0 and s[0] > 0 and s[1] > 0)


def block_fp8_floor_seconds(shapes: tuple[tuple[int, int, int], ...], tokens: float, bytes_s: float, flops_s: float) -> float:
    """What the block-FP8 GEMMs' K walk adds to a step of ``tokens`` tokens (one micro-batch, one stage's share of
    ``shapes``) beyond the time the roofline already gives each GEMM: its FP8 weight bytes at ``bytes_s`` or its FLOPs
    at ``flops_s``, whichever is longer. A prefill chunk's GEMMs are longer than their walk and add nothing."""
    extra = 0.0
    for n, k, count in shapes:
        walk = -(-k // BLOCK_K) * BLOCK_FP8_K_STEP_S
        roof = max(n * k / bytes_s, 2 * tokens * n * k / flops_s)
        extra += count * max(0.0, walk - roof)
    return extra
