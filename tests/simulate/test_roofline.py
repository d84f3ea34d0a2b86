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


def test_every_request_a_step_schedules_costs_host_work_and_a_row_of_logits():
    """vLLM 0.11.0 samples every scheduled request, a decode or a prefill chunk (gpu_model_runner.py 1104
    ``logits_indices = query_start_loc[1:] - 1``): its host work and its fp32 logits over the vocabulary count per
    request, so a step of 64 new short prompts costs 63 requests more than a step of one 8,192-token prompt."""
    m = find_model("qwen3-14b")
    r = roofline_for(m.arch, "H100", m.checkpoint_bytes, 160 * 1024, 1, 1)
    assert r.vocab_size == 151_936
    row = roofline.PER_SEQ_OVERHEAD_S + 151_936 * 12 / (3350e9 * roofline.HBM_EFFICIENCY)
    assert r.per_request_seconds(1024) == pytest.approx(1024 * row)
    one = r.step_seconds(0, 8192, 8192, 8192 * 64)
    many = r.step_seconds(0, 8192, 8192, 8192 * 64, prefill_seqs=64)
    assert many - one == pytest.approx(63 * row)
    # A decode step's share grows with the batch: at 1,024 requests the logits alone are about 0.6 ms on an H100.
    logits = r.per_request_seconds(1024) - 1024 * roofline.PER_SEQ_OVERHEAD_S
    assert 0.5e-3 < logits < 0.7e-3


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
