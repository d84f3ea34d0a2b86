"""The roofline's step time: what a mixture-of-experts step reads and computes (the dense terms are covered through the
engine and stack tests)."""

from __future__ import annotations

import pytest

from components.capacity.models import find_model
from components.simulate import roofline
from components.simulate.roofline import active_params, dense_active_params, roofline_for, routed_expert_params


def _roof(model: str):
    m = find_model(model)
    return m.arch, roofline_for(m.arch, "H100", m.checkpoint_bytes, 100_000, 1, 1)


def test_a_moe_decode_step_reads_only_the_experts_its_tokens_are_routed_to():
    arch, r = _roof("qwen3-30b-a3b")  # 128 experts, 8 per token
    assert (r.num_experts, r.experts_per_token) == (128, 8)
    dense = 1 - r.expert_share
    # One token reads the dense weights and 8 of 128 experts; the share read grows as 1 - (1 - 8/128)^n.
    assert r.weights_read(1) / r.weight_bytes == pytest.approx(dense + r.expert_share * 8 / 128)
    assert r.weights_read(16) / r.weight_bytes == pytest.approx(dense + r.expert_share * (1 - (120 / 128) ** 16))
    assert r.weights_read(4096) / r.weight_bytes == pytest.approx(1.0)
    assert r.weights_read(1) < r.weights_read(2) < r.weights_read(64)
    # The experts are nearly all of such a model's weights.
    assert 0.9 < r.expert_share < 1.0


def test_a_dense_model_reads_all_its_weights_every_step():
    _, r = _roof("llama-3.1-8b")
    assert r.expert_share == 0.0 and r.num_experts == 0
    assert r.weights_read(1) == r.weights_read(4096) == r.weight_bytes


def test_active_parameters_split_into_dense_and_routed_expert_parts():
    arch, _ = _roof("qwen3-30b-a3b")
    assert active_params(arch) == dense_active_params(arch) + routed_expert_params(arch, arch.experts_per_token)
    assert routed_expert_params(arch, arch.num_experts) == 128 / 8 * routed_expert_params(arch, 8)
    dense_arch, _ = _roof("llama-3.1-8b")
    assert routed_expert_params(dense_arch, 8) == 0.0
    assert 2.5e9 < active_params(arch) < 3.6e9  # "A3B": about 3 billion active parameters


def test_the_moe_gemm_efficiency_applies_to_the_routed_experts_only(monkeypatch):
    """A prefill step's expert FLOPs run at MOE_FLOP_EFFICIENCY (fused MoE grouped GEMMs), the rest at FLOP_EFFICIENCY."""
    _, moe = _roof("qwen3-30b-a3b")
    _, dense = _roof("llama-3.1-8b")
    before = moe.step_seconds(0, 8192, 8192), dense.step_seconds(0, 8192, 8192)
    monkeypatch.setattr(roofline, "MOE_FLOP_EFFICIENCY", roofline.MOE_FLOP_EFFICIENCY / 2)
    after = moe.step_seconds(0, 8192, 8192), dense.step_seconds(0, 8192, 8192)
    assert after[0] > before[0] * 1.3  # the experts' FLOPs dominate a MoE prefill step
    assert after[1] == before[1]


def test_block_scaled_fp8_runs_at_the_bf16_peak_and_per_tensor_fp8_at_the_fp8_peak():
    """vLLM 0.11.0's block-scaled FP8 kernels rescale each 128-wide K step on the CUDA cores (fused_moe.py 443-452), so
    DeepSeek-R1's 128 x 128 blocks run at the BF16 peak; a per-tensor FP8 checkpoint keeps the FP8 peak."""
    from components.capacity.hardware import GPUS

    m = find_model("deepseek-v3")
    assert m.arch.weight_block_size == (128, 128)  # config.json quantization_config.weight_block_size
    perf = GPUS["H200"].performance
    assert perf is not None and perf.fp8_tflops
    block = roofline_for(m.arch, "H200", m.checkpoint_bytes / 8, 70272, 8, 1, fp8=True)
    tensor = roofline_for(m.arch, "H200", m.checkpoint_bytes / 8, 70272, 8, 1, fp8=True, fp8_block_scaled=False)
    assert block.flops_s == perf.bf16_tflops * 1e12
    assert tensor.flops_s == perf.fp8_tflops * 1e12
    # A prefill chunk is compute-bound: the block-scaled one takes about twice as long.
    assert block.step_seconds(0, 8192, 8192) > 1.5 * tensor.step_seconds(0, 8192, 8192)


def test_weight_block_size_is_read_from_the_quantization_config():
    from components.capacity.architecture import ArchitectureError, parse_config

    base = {"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 100}
    assert parse_config(base).weight_block_size is None
    quant = {"quant_method": "fp8", "weight_block_size": [128, 128]}
    assert parse_config({**base, "quantization_config": quant}).weight_block_size == (128, 128)
    with pytest.raises(ArchitectureError, match="weight_block_size"):
        parse_config({**base, "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, "x"]}})


def test_deepseek_counts_its_dense_layers_shared_expert_and_mla_projections():
    """DeepSeek-V3/R1: 3 dense layers then 58 MoE layers of 256 routed experts (8 a token) and 1 shared expert; MLA's
    q_a/q_b, kv_a, kv_b and o projections. The paper's 37B active parameters come out only with all of them."""
    arch = find_model("deepseek-v3").arch
    assert (arch.first_dense_layers, arch.shared_experts, arch.q_lora_rank) == (3, 1, 1536)
    expert = 3 * 7168 * 2048
    assert routed_expert_params(arch, 1) == 58 * expert  # not 61: the first 3 layers have no routed experts
    # One MLA layer: q_a 7168x1536, q_b 1536x128x192, kv_a 7168x576, kv_b 512x128x256, o 128x128x7168.
    mla = 7168 * 1536 + 1536 * 128 * 192 + 7168 * 576 + 512 * 128 * 256 + 128 * 128 * 7168
    assert roofline.attention_params(arch) == mla
    dense = 61 * mla + 3 * 3 * 7168 * 18432 + 58 * expert + 7168 * 129280
    assert dense_active_params(arch) == dense
    assert 36e9 < active_params(arch) < 38e9


def test_mla_prefill_attends_with_the_decompressed_head_widths():
    """MLA's prefill attention runs over kv_b_proj's per-head keys (qk_nope 128 + rope 64) and values (128), so a
    (token, context token) pair costs 2 x 128 heads x (192 + 128) FLOPs a layer, not 4 x hidden_size."""
    arch = find_model("deepseek-v3").arch
    assert roofline.attention_flops_per_token_ctx(arch) == 2 * 128 * (192 + 128) * 61
    dense = find_model("llama-3.1-8b").arch
    assert roofline.attention_flops_per_token_ctx(dense) == 4 * 32 * 128 * 32
