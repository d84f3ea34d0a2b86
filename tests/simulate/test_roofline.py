"""The roofline's step time: what a mixture-of-experts step reads and computes (the dense terms are covered through the
engine and stack tests)."""

from __future__ import annotations

import dataclasses

import pytest

from components.capacity.models import find_model
from components.simulate import roofline
from components.simulate.roofline import active_params, dense_active_params, roofline_for, routed_expert_params
from tests.simulate.helpers import load_fidelity


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
    logits_row = 151_936 * 12 / (3350e9 * roofline.HBM_EFFICIENCY)
    assert r.logits_seconds(1024) == pytest.approx(1024 * logits_row)
    one = r.step_seconds(0, 8192, 8192, 8192 * 64)
    many = r.step_seconds(0, 8192, 8192, 8192 * 64, prefill_seqs=64)
    # ... and 63 more rows through the LM head (the step is compute-bound).
    lm_head = 63 * r.lm_head_flops / (r.dense_flops_s() * roofline.FLOP_EFFICIENCY)
    assert many - one == pytest.approx(63 * (roofline.PER_SEQ_OVERHEAD_S + logits_row) + lm_head)
    # A decode step's share grows with the batch: at 1,024 requests the logits alone take most of a millisecond on an H100.
    assert 0.5e-3 < r.logits_seconds(1024) < 1.0e-3


def _tp2_32b(link=None):
    m = find_model("qwen2.5-32b")  # 64 layers, hidden 5120
    return roofline_for(m.arch, "A100-80GB", m.checkpoint_bytes / 2, 131072, 2, 1, link=link)


def test_every_layer_all_reduces_its_attention_and_mlp_outputs_over_the_tp_ranks(monkeypatch):
    """Two all-reduces of tokens x hidden bf16 activations per layer (vLLM RowParallelLinear o_proj and down_proj), each
    a fixed latency plus a ring's 2 (tp - 1) / tp of the buffer per rank over the link's bandwidth per direction."""
    r = _tp2_32b()
    assert (r.link, r.link_bytes_s, r.layers, r.hidden_size) == ("nvlink", 300e9, 64, 5120)
    size = 256 * 5120 * 2
    one = roofline.ALLREDUCE_LATENCY_S["nvlink"] + 2 * (2 - 1) / 2 * size / (300e9 * roofline.NVLINK_ALLREDUCE_EFFICIENCY)
    assert roofline.allreduce_seconds(size, 2, "nvlink", 300e9) == pytest.approx(one)
    assert r.comm_seconds(256) == pytest.approx(2 * 64 * one)
    # The step pays it on top of the roofline's memory or compute time; one GPU pays none.
    with_comm = r.step_seconds(256, 0, 0)
    monkeypatch.setattr(roofline, "allreduce_seconds", lambda *a: 0.0)
    assert with_comm - r.step_seconds(256, 0, 0) == pytest.approx(2 * 64 * one)
    m = find_model("qwen2.5-32b")
    assert roofline_for(m.arch, "A100-80GB", m.checkpoint_bytes, 262144, 1, 1).comm_seconds(256) == 0.0


def test_ranks_without_gpu_peer_access_all_reduce_through_host_memory():
    """A run whose driver reports no peer access (vLLM 0.10.1.1 custom_all_reduce.py 146-150 disables the custom
    all-reduce) pays NCCL's host-staged latency and bandwidth instead of the GPU's NVLink."""
    nvlink, host = _tp2_32b(), _tp2_32b("host")
    assert (host.link, host.link_bytes_s) == ("host", roofline.HOST_LINK_BYTES_S)
    lat = roofline.ALLREDUCE_LATENCY_S["host"] - roofline.ALLREDUCE_LATENCY_S["nvlink"]
    size = 5120 * 2  # one decoding request
    ring = size / roofline.HOST_LINK_BYTES_S - size / (300e9 * roofline.NVLINK_ALLREDUCE_EFFICIENCY)
    assert host.step_seconds(1, 0, 1024) - nvlink.step_seconds(1, 0, 1024) == pytest.approx(2 * 64 * (lat + ring))
    # A 2048-token prefill chunk moves 21 MB per all-reduce: the host path's bandwidth then dominates.
    assert host.comm_seconds(2048) > 10 * nvlink.comm_seconds(2048)
    with pytest.raises(ValueError, match="'pcie'"):
        _tp2_32b("pcie")


def test_the_host_link_latency_is_what_its_source_measured():
    """dennislee22/vLLM-benchmarking@b474d1e (A100 80GB, vLLM 0.10.1.1; its same-node TP2 logs print 'Custom allreduce
    is disabled because your platform lacks GPU P2P capability'), README Tests 4 and 2, --num-prompts 1, 1024 in/out:
    Qwen2-7B (28 layers; the catalogue's qwen2.5-7b has its architecture) decodes at 11.76 ms per token at TP1 and
    8.82 ms at TP2. With the step overhead o, TP1 = o + W/B and TP2 = o + W/2B + 2 x 28 x latency."""
    o = roofline.STEP_OVERHEAD_S + roofline.PER_SEQ_OVERHEAD_S
    tp1, tp2 = 11.76e-3, 8.82e-3
    latency = (tp2 - o - (tp1 - o) / 2) / (2 * 28)
    assert roofline.ALLREDUCE_LATENCY_S["host"] == pytest.approx(latency, rel=0.05)
    # The same platform's bandwidth and that latency predict its Qwen2.5-32B TP2 run (Test 6, 29.21 ms per token).
    w7, w32 = find_model("qwen2.5-7b").checkpoint_bytes, find_model("qwen2.5-32b").checkpoint_bytes
    achieved = w7 / (tp1 - o)
    assert o + w32 / 2 / achieved + 2 * 64 * roofline.ALLREDUCE_LATENCY_S["host"] == pytest.approx(29.21e-3, rel=0.08)


def test_the_fidelity_replay_uses_the_link_each_point_records():
    fidelity = load_fidelity()
    points = fidelity.json.loads(fidelity.POINTS.read_text())["points"]
    linked = [p for p in points if p["engine"].get("tp_link")]
    assert len(linked) == 5  # dennislee22's five Qwen2.5-32B TP2 points
    for p in linked:
        assert p["engine"]["tp_link"] in roofline.ALLREDUCE_LATENCY_S
        assert "lacks GPU P2P capability" in p["notes"]
        roof = fidelity._replica_roofline(p)[0]
        assert (roof.link, roof.tp) == (p["engine"]["tp_link"], p["tp"])


def test_block_scaled_fp8_runs_at_the_bf16_peak_and_per_tensor_fp8_at_the_fp8_peak():
    """vLLM 0.11.0's block-scaled FP8 kernels rescale each 128-wide K step on the CUDA cores (fused_moe.py 443-452), so
    DeepSeek-R1's 128 x 128 blocks run at the BF16 peak; a per-tensor FP8 checkpoint keeps the FP8 peak."""
    from components.hardware import GPUS

    m = find_model("deepseek-v3")
    assert m.arch.weight_block_size == (128, 128)  # config.json quantization_config.weight_block_size
    perf = GPUS["H200"].performance
    assert perf is not None and perf.fp8_tflops
    block = roofline_for(m.arch, "H200", m.checkpoint_bytes / 8, 70272, 8, 1, fp8=True)
    tensor = roofline_for(m.arch, "H200", m.checkpoint_bytes / 8, 70272, 8, 1, fp8=True, fp8_block_scaled=False)
    assert block.flops_s == perf.bf16_tflops * 1e12
    assert tensor.flops_s == perf.fp8_tflops * 1e12
    # The dense GEMMs run at the measured rates of the same dtype (hardware.toml bf16/fp8_achieved_tflops).
    assert block.dense_flops_s() == perf.bf16_achieved * 1e12
    assert tensor.dense_flops_s() == perf.fp8_achieved * 1e12
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


def test_an_nvlink_all_reduce_takes_what_vllms_own_benchmark_measured():
    """vllm-project/vllm pull 24111 (the limits vLLM 0.11.0's all-reduce dispatch uses), H100 TP6 bf16, the fastest
    backend: 16 us for a 1 MB buffer, 31 us for 4 MB (multimem symmetric memory). NVLink4 is 450 GB/s per direction."""
    mb = 1024 * 1024
    one, four = (roofline.allreduce_seconds(n * mb, 6, "nvlink", 450e9) for n in (1, 4))
    assert four - one == pytest.approx(15e-6, rel=0.1)  # the bandwidth term: 3 MB more in 15 us
    assert one == pytest.approx(16e-6, rel=0.3) and four == pytest.approx(31e-6, rel=0.15)


def test_each_moe_layer_adds_the_fused_moe_kernels_fixed_latency_to_a_step(monkeypatch):
    """A small decode batch of a MoE model pays MOE_LAYER_SECONDS for each layer with routed experts (routing, sorting
    and two grouped-GEMM launches cost tens of microseconds whatever the batch: vllm#24700's benchmark_moe figures);
    DeepSeek's 3 dense layers and a dense model pay none."""
    _, gpt = _roof("gpt-oss-120b")  # 36 layers, all with routed experts
    ds = roofline_for(find_model("deepseek-v3").arch, "H200", 80e9, 70272, 8, 1, fp8=True)
    _, dense = _roof("llama-3.1-8b")
    assert (gpt.moe_layers, ds.moe_layers, dense.moe_layers) == (36, 58, 0)
    before = [r.step_seconds(4, 0, 4000) for r in (gpt, ds, dense)]
    monkeypatch.setattr(roofline, "MOE_LAYER_SECONDS", roofline.MOE_LAYER_SECONDS + 1e-4)
    after = [r.step_seconds(4, 0, 4000) for r in (gpt, ds, dense)]
    assert after[0] - before[0] == pytest.approx(36e-4)
    assert after[1] - before[1] == pytest.approx(58e-4)
    assert after[2] == before[2]
    assert roofline.MOE_LAYER_SECONDS > 0


def test_async_scheduling_overlaps_the_per_request_host_work_with_the_gpu_not_the_fixed_step_cost():
    """vLLM's async scheduling (v1/engine/core.py step_with_batch_queue) prepares the next batch while the GPU runs this
    one: a step takes the longer of its GPU work and its per-request host work, plus STEP_OVERHEAD_S in series."""
    m = find_model("qwen3-14b")
    r = roofline_for(m.arch, "H100", m.checkpoint_bytes, 160 * 1024, 1, 1)
    for decodes in (8, 512, 1024):
        sync = r.step_seconds(decodes, 0, decodes * 300)
        host = decodes * roofline.PER_SEQ_OVERHEAD_S
        gpu = sync - roofline.STEP_OVERHEAD_S - host
        assert r.step_seconds(decodes, 0, decodes * 300, async_scheduling=True) == pytest.approx(
            roofline.STEP_OVERHEAD_S + max(gpu, host)
        )
        assert r.step_seconds(decodes, 0, decodes * 300, async_scheduling=True) < sync
    assert r.step_host_seconds(0.010, 1000, async_scheduling=True) == pytest.approx(roofline.STEP_OVERHEAD_S + 0.020)
    assert r.step_host_seconds(0.010, 1000) == pytest.approx(roofline.STEP_OVERHEAD_S + 0.030)


def test_narrow_tensor_parallel_experts_run_their_down_gemm_slower(monkeypatch):
    """The down GEMM's K is an expert's width on the rank (moe_intermediate_size / tp), walked in BLOCK_SIZE_K steps
    through a pipeline of num_stages loads (fused_moe.py line 429): Qwen3-235B's 1536-wide experts at TP8 leave 192,
    a few steps, so its experts' FLOPs cost more than the same FLOPs in gpt-oss's 2880-wide experts at TP1."""
    qwen = find_model("qwen3-235b-a22b")
    gpt = find_model("gpt-oss-120b")
    q8 = roofline_for(qwen.arch, "H100", qwen.checkpoint_bytes / 8, 48128, 8, 1)
    g1 = roofline_for(gpt.arch, "H100", gpt.checkpoint_bytes, 73728, 1, 1)
    assert (q8.expert_width, g1.expert_width) == (1536 // 8, 2880)
    long_k = 1.0 / (q8.flops_s * roofline.MOE_FLOP_EFFICIENCY)  # seconds a FLOP with no pipeline fill
    narrow, wide = q8.expert_compute_seconds(1.0) / long_k, g1.expert_compute_seconds(1.0) / long_k
    p = roofline.MOE_PIPELINE_K
    assert narrow == pytest.approx(2 / 3 + 1 / 3 * (192 + p) / 192)
    assert wide == pytest.approx(2 / 3 + 1 / 3 * (2880 + p) / 2880)
    assert narrow > wide > 1.0
    # Without the pipeline fill (MOE_PIPELINE_K 0) every expert FLOP costs the same.
    monkeypatch.setattr(roofline, "MOE_PIPELINE_K", 0)
    assert q8.expert_compute_seconds(1.0) == pytest.approx(long_k)


def test_geforce_cards_all_reduce_through_host_memory():
    """GeForce cards get no peer-to-peer access (NVIDIA/nccl-tests issue 287: "GeForce cards do not support P2P"), so
    their TP ranks pay the host-staged link; datacenter PCIe cards keep PCIe peer-to-peer."""
    from components.hardware import GPUS

    assert {g.name for g in GPUS.values() if g.interconnect == "host"} == {"RTX-2080-TI", "RTX-3090", "RTX-4090"}
    m = find_model("llama-3.1-8b")
    r = roofline_for(m.arch, "RTX-4090", m.checkpoint_bytes / 2, 65536, 2, 1)
    assert (r.link, r.link_bytes_s) == ("host", roofline.HOST_LINK_BYTES_S)
    assert roofline_for(m.arch, "L40S", m.checkpoint_bytes / 2, 65536, 2, 1).link == "pcie"


def test_narrow_experts_stream_their_down_projection_slower_in_decode(monkeypatch):
    """The down projection's third of the expert bytes goes through the same short K loop: at decode (memory-bound)
    Qwen3-235B's TP8 experts (W 192) cost MOE_PIPELINE_K / W of that third again; a dense model nothing."""
    qwen = find_model("qwen3-235b-a22b")
    q8 = roofline_for(qwen.arch, "H100", qwen.checkpoint_bytes / 8, 48128, 8, 1)
    experts = q8.weights_read(256) - q8.weight_bytes * (1 - q8.expert_share)
    assert q8.expert_pipeline_bytes(q8.weights_read(256)) == pytest.approx(experts / 3 * roofline.MOE_PIPELINE_K / 192)
    assert q8.expert_pipeline_bytes(q8.weights_read(256)) > 0.3 * experts
    _, dense = _roof("llama-3.1-8b")
    assert dense.expert_pipeline_bytes(dense.weights_read(256)) == 0.0
    # A memory-bound decode step grows by those bytes over the HBM rate.
    extra = q8.expert_pipeline_bytes(q8.weights_read(256)) / (q8.hbm_bytes_s * roofline.HBM_EFFICIENCY)
    before = q8.step_seconds(256, 0, 256 * 500)
    monkeypatch.setattr(roofline, "MOE_PIPELINE_K", 0)
    assert before - q8.step_seconds(256, 0, 256 * 500) == pytest.approx(extra)


def test_mla_decode_attends_over_the_latent_and_can_be_compute_bound():
    """Absorbed MLA decode: each of 128 heads attends over the 512 + 64 latent (QK^T) and 512 (PV), 2 x 128 x 1088
    FLOPs a layer per context token. At TP1 that outweighs the latent's 1,152 bytes a layer on an H200 (989 TFLOP/s
    against 4.8 TB/s), so a long-context decode step is compute-bound; a dense GQA model carries no such term."""
    arch = find_model("deepseek-v3").arch
    assert roofline.mla_decode_flops_per_ctx(arch) == 2 * 128 * (2 * 512 + 64) * 61
    assert roofline.mla_decode_flops_per_ctx(find_model("llama-3.1-8b").arch) == 0.0
    r1 = roofline_for(arch, "H200", 80e9, 70272, 1, 1, fp8=True)
    r1_without = dataclasses.replace(r1, decode_attn_flops_per_ctx=0.0)
    ctx = 64 * 32000  # 64 decodes of 32k-token contexts
    assert r1.step_seconds(64, 0, ctx) > 1.05 * r1_without.step_seconds(64, 0, ctx)


def test_a_sampling_request_moves_more_logits_bytes_than_a_greedy_one():
    """Greedy decoding reads its fp32 logits for an argmax; top-k/top-p sampling (vLLM 0.18/0.19: temperature, the
    Triton top-k/top-p kernel, softmax, exponential draws) passes over them several times more (logits_seconds)."""
    from dataclasses import replace

    m = find_model("qwen3-0.6b")
    greedy = roofline_for(m.arch, "H100", m.checkpoint_bytes, 112 * 1024, 1, 1)
    sampled = replace(greedy, sampled=True)
    row = greedy.vocab_size / (3350e9 * roofline.HBM_EFFICIENCY)
    assert greedy.logits_seconds(100) == pytest.approx(100 * row * roofline.LOGITS_BYTES_PER_ENTRY)
    assert sampled.logits_seconds(100) == pytest.approx(100 * row * roofline.SAMPLED_LOGITS_BYTES_PER_ENTRY)
    assert roofline.SAMPLED_LOGITS_BYTES_PER_ENTRY > 4 * roofline.LOGITS_BYTES_PER_ENTRY
    # A 100-request decode step of Qwen3-0.6B: the sampled path costs about 0.3 ms more.
    assert 0.2e-3 < sampled.step_seconds(100, 0, 50_000) - greedy.step_seconds(100, 0, 50_000) < 0.4e-3


def test_the_fidelity_replay_samples_as_each_point_s_client_asked():
    fidelity = load_fidelity()
    points = {p["id"]: p for p in fidelity.json.loads(fidelity.POINTS.read_text())["points"]}
    kvcached = points["h100sxm-qwen3-0.6b-random512x128-rateinf-seed7-kvcached-vanilla"]
    gpustack = points["h100-qwen3-14b-tp1-sharegpt1000-default-gpustack"]
    assert kvcached["engine"]["sampling"].startswith("sampled") and gpustack["engine"]["sampling"].startswith("greedy")
    assert fidelity._replica_roofline(kvcached)[0].sampled is True
    assert fidelity._replica_roofline(gpustack)[0].sampled is False


def test_dense_prefill_runs_at_the_gpus_measured_gemm_rate_and_the_experts_at_the_datasheet_peak():
    """A dense prefill chunk's FLOPs run at FLOP_EFFICIENCY x the GPU's measured GEMM rate (hardware.toml
    bf16_achieved_tflops: the MAMF table's 794.5 TFLOP/s on an H100 SXM, 80% of its 989; a median 165.3 on an RTX 4090,
    its whitepaper figure), not at the datasheet peak; the routed experts keep the datasheet peak."""
    from components.hardware import GPUS

    m = find_model("llama-3.1-8b")
    steps = {}
    for gpu in ("H100", "RTX-4090"):
        perf = GPUS[gpu].performance
        assert perf is not None
        r = roofline_for(m.arch, gpu, m.checkpoint_bytes, 131072, 1, 1)
        assert (r.flops_s, r.dense_flops_s()) == (perf.bf16_tflops * 1e12, perf.bf16_achieved * 1e12)
        at_peak = dataclasses.replace(r, gemm_flops_s=r.flops_s)
        # 8192 prompt tokens: compute-bound, so the step grows by the dense FLOPs' time at the two rates' difference.
        extra = r.step_seconds(0, 8192, 8192) - at_peak.step_seconds(0, 8192, 8192)
        flops = r.flops_per_token * 8192 + r.attn_flops_per_token_ctx * 8192
        assert extra == pytest.approx(flops / roofline.FLOP_EFFICIENCY * (1 / r.dense_flops_s() - 1 / r.flops_s), rel=1e-3)
        steps[gpu] = r.step_seconds(0, 8192, 8192) / at_peak.step_seconds(0, 8192, 8192)
    assert steps["H100"] > 1.15  # 989 / 794.5 = 1.245, less the step's fixed costs
    assert steps["RTX-4090"] == pytest.approx(1.0, abs=0.01)  # measured at its whitepaper figure
    moe = find_model("qwen3-30b-a3b")
    r = roofline_for(moe.arch, "H100", moe.checkpoint_bytes, 100_000, 1, 1)
    expert_flops = 1e12
    assert r.expert_compute_seconds(expert_flops) == dataclasses.replace(r, gemm_flops_s=1.0).expert_compute_seconds(expert_flops)


def test_the_lm_head_runs_on_each_scheduled_requests_last_position_not_on_every_prompt_token(monkeypatch):
    """vLLM computes logits only at ``logits_indices`` (0.11.0 v1/worker/gpu_model_runner.py 1104, 2330-2331): one row
    per scheduled request. A prefill chunk of 8,192 tokens pays the LM head once, so for a small-hidden, large-vocabulary
    model (Qwen3-0.6B: 1,024 x 151,936, a quarter of its dense FLOPs per token) the step is far cheaper than charging the
    LM head per token."""
    m = find_model("qwen3-0.6b")
    r = roofline_for(m.arch, "H100", m.checkpoint_bytes, 100_000, 1, 1)
    assert r.lm_head_flops == 2 * 1024 * 151_936
    assert r.flops_per_token + r.lm_head_flops == pytest.approx(2 * dense_active_params(m.arch))
    assert r.lm_head_flops > 0.25 * (r.flops_per_token + r.lm_head_flops)
    monkeypatch.setattr(roofline, "HBM_EFFICIENCY", 1e9)  # memory free: the step is its FLOPs
    monkeypatch.setattr(roofline, "STEP_OVERHEAD_S", 0.0)
    monkeypatch.setattr(roofline, "PER_SEQ_OVERHEAD_S", 0.0)
    rate = r.dense_flops_s() * roofline.FLOP_EFFICIENCY
    attn = r.attn_flops_per_token_ctx * 8192 * 4096
    step = r.step_seconds(0, 8192, 8192, 8192 * 4096, prefill_seqs=1)
    assert step == pytest.approx((r.flops_per_token * 8192 + r.lm_head_flops + attn) / rate, rel=1e-6)
    per_token = (2 * dense_active_params(m.arch) * 8192 + attn) / rate
    assert per_token - step == pytest.approx(8191 * r.lm_head_flops / rate, rel=1e-6)


def test_fp8_weights_without_fp8_tensor_cores_run_at_marlins_measured_rate(monkeypatch):
    """vLLM 0.11.0 runs an FP8 checkpoint's linear layers through Marlin's weight-only GEMM on GPUs below compute
    capability 8.9 (fp8.py 232-235); Marlin's rate stops at 141 TFLOP/s on an A100 from batch 64 up (vllm-project/vllm PR
    2497, Marlin's bench.py: 0.60-0.74 of torch's GEMM above 128 tokens), MARLIN_PEAK_SHARE of the 312 TFLOP/s peak. A
    compute-bound prefill chunk of Qwen3-32B-FP8 on an A100 charges its linear FLOPs at that rate; the same checkpoint on
    an H100 (FP8 tensor cores) and a BF16 checkpoint on the A100 do not, and a decode step (memory-bound) is unchanged."""
    from components.hardware import GPUS

    assert roofline.MARLIN_PEAK_SHARE == pytest.approx(141.4 / 312, abs=0.005)
    arch = find_model("qwen3-32b").arch
    fp8 = roofline_for(arch, "A100-80GB", 33e9, 262144, 1, 1, fp8=True, fp8_block_scaled=True)
    bf16 = roofline_for(arch, "A100-80GB", 33e9, 262144, 1, 1)
    hopper = roofline_for(arch, "H100", 33e9, 262144, 1, 1, fp8=True, fp8_block_scaled=True)
    assert GPUS["A100-80GB"].compute_capability < (8, 9) <= GPUS["H100"].compute_capability
    assert (fp8.weight_only, bf16.weight_only, hopper.weight_only) == (True, False, False)
    monkeypatch.setattr(roofline, "HBM_EFFICIENCY", 1e9)  # memory free: the step is its FLOPs and fixed costs
    linear = fp8.flops_per_token * 2048
    marlin = roofline.MARLIN_PEAK_SHARE * fp8.flops_s * roofline.FLOP_EFFICIENCY
    extra = fp8.step_seconds(0, 2048, 2048) - bf16.step_seconds(0, 2048, 2048)
    assert extra == pytest.approx(linear / marlin - linear / (fp8.dense_flops_s() * roofline.FLOP_EFFICIENCY), rel=1e-6)
    assert fp8.step_seconds(0, 2048, 2048) > 1.5 * bf16.step_seconds(0, 2048, 2048)  # 271.2 / 141.4 TFLOP/s
    assert hopper.weight_only_seconds(linear) == bf16.weight_only_seconds(linear) == 0.0
    monkeypatch.undo()
    assert fp8.step_seconds(1, 0, 1000) == bf16.step_seconds(1, 0, 1000)  # one decode: the weight bytes bound it
    # The replay's Qwen3-32B-FP8 point on an A100 (GPUStack, vLLM 0.11.0) runs its checkpoint through Marlin.
    fidelity = load_fidelity()
    points = {p["id"]: p for p in fidelity.json.loads(fidelity.POINTS.read_text())["points"]}
    assert fidelity._replica_roofline(points["a10080gb-qwen3-32b-fp8-tp1-sharegpt1000-default-gpustack"])[0].weight_only


def test_block_fp8_linear_gemms_take_their_k_walk_at_decode_sizes():
    """vLLM 0.11.0 runs a block-FP8 checkpoint's linear layers through CUTLASS's SM90 blockwise GEMM, which rescales every
    128-wide K block: vllm-project/vllm PR 23280 measured DeepSeek-V3's N=2112 K=7168 on an H100 at 0.893 TFLOP/s for
    1 token and 55.79 for 64 (33.9 and 34.7 us; its 15 MB stream in 4.5 us). DeepSeek-R1 at TP8 on H200s runs, per rank,
    the replicated fused q_a/kv_a projection, q_b and o_proj (deepseek_v2.py 878-921), the 3 dense MLPs and the 58
    shared experts: a decode step of 4 tokens takes their walks, a prefill chunk only its FLOPs. A BF16 model, and FP8 on
    an A100 (Marlin), have none."""
    from components.simulate import block_fp8

    assert block_fp8.BLOCK_FP8_K_STEP_S * 7168 / 128 == pytest.approx(2 * 2112 * 7168 / 0.893065e12, rel=1e-3)
    assert block_fp8.BLOCK_FP8_K_STEP_S * 7168 / 128 == pytest.approx(64 * 2 * 2112 * 7168 / 55.792628e12, rel=0.03)
    ds = roofline_for(find_model("deepseek-v3").arch, "H200", 86e9, 70272, 8, 1, fp8=True)
    assert ds.block_fp8_gemms == (
        (1536 + 512 + 64, 7168, 61),  # fused_qkv_a_proj, replicated
        (128 * 192 // 8, 1536, 61),  # q_b_proj
        (7168, 128 * 128 // 8, 61),  # o_proj
        (2 * 18432 // 8, 7168, 3),  # dense layers' gate_up
        (7168, 18432 // 8, 3),  # and down
        (2 * 2048 // 8, 7168, 58),  # shared experts' gate_up
        (7168, 2048 // 8, 58),  # and down
    )
    plain = dataclasses.replace(ds, block_fp8_gemms=())
    walks = sum(c * (k // 128) * block_fp8.BLOCK_FP8_K_STEP_S for _, k, c in ds.block_fp8_gemms)
    assert 5.0e-3 < walks < 5.5e-3
    added = ds.step_seconds(4, 0, 1200) - plain.step_seconds(4, 0, 1200)
    own = sum(c * n * k for n, k, c in ds.block_fp8_gemms) / (ds.hbm_bytes_s * roofline.HBM_EFFICIENCY)
    assert added == pytest.approx(walks - own, rel=1e-6)  # each GEMM's walk in place of its bytes
    assert ds.step_seconds(0, 8192, 8192**2 / 2) == plain.step_seconds(0, 8192, 8192**2 / 2)  # a prefill chunk
    qwen = find_model("qwen3-32b").arch
    assert roofline_for(qwen, "H100", 33e9, 262144, 1, 1, fp8=True, fp8_block_scaled=True).block_fp8_gemms
    assert roofline_for(qwen, "H100", 66e9, 262144, 1, 1).block_fp8_gemms == ()
    assert roofline_for(qwen, "A100-80GB", 33e9, 262144, 1, 1, fp8=True, fp8_block_scaled=True).block_fp8_gemms == ()


def _no_host_costs(monkeypatch):
    monkeypatch.setattr(roofline, "STEP_OVERHEAD_S", 0.0)
    monkeypatch.setattr(roofline, "PER_SEQ_OVERHEAD_S", 0.0)


def test_dense_weights_stream_at_the_gpus_measured_rate_and_the_kv_at_the_calibrated_share(monkeypatch):
    """A decode step's dense weights stream at the rate a published decode-sized GEMM measured on the GPU (hardware.toml
    hbm_achieved_gb_s: 2,976 GB/s on an H100, 89% of its 3,350), its KV cache and logits at the calibrated
    HBM_EFFICIENCY of the datasheet; a GPU with no measurement (H200) streams its weights at HBM_EFFICIENCY too."""
    _no_host_costs(monkeypatch)
    m = find_model("llama-3.1-8b")
    h100 = roofline_for(m.arch, "H100", m.checkpoint_bytes, 131_072, 1, 1)
    assert h100.weight_stream_bytes_s == 2976e9 and h100.dense_read_bytes_s() == 2976e9
    assert h100.hbm_read_bytes_s() == pytest.approx(3350e9 * roofline.HBM_EFFICIENCY)
    kv = h100.kv_bytes_per_token * 8 * 2000
    weights = h100.weight_bytes / 2976e9
    assert h100.memory_seconds(h100.weight_bytes, kv) == pytest.approx(weights + kv / (3350e9 * roofline.HBM_EFFICIENCY))
    # Eight decodes over 2,000 tokens each: the step is its reads plus eight rows of logits.
    step = h100.step_seconds(8, 0, 8 * 2000)
    kv_and_logits = kv / (3350e9 * roofline.HBM_EFFICIENCY) + h100.logits_seconds(8)
    assert step == pytest.approx(weights + kv_and_logits, rel=1e-9)
    # The calibrated share no longer moves the dense weights' time: halving it doubles the KV's and the logits' alone.
    monkeypatch.setattr(roofline, "HBM_EFFICIENCY", roofline.HBM_EFFICIENCY / 2)
    assert h100.step_seconds(8, 0, 8 * 2000) == pytest.approx(weights + 2 * kv_and_logits, rel=1e-9)
    monkeypatch.undo()
    h200 = roofline_for(m.arch, "H200", m.checkpoint_bytes, 131_072, 1, 1)
    assert h200.weight_stream_bytes_s == 0.0
    assert h200.dense_read_bytes_s() == h200.hbm_read_bytes_s() == pytest.approx(4800e9 * roofline.HBM_EFFICIENCY)


def test_a_moe_step_streams_its_dense_weights_at_the_measured_rate_and_its_routed_experts_at_the_calibrated_share():
    """Only the dense part of a mixture-of-experts model's weights (attention, embeddings, norms, the router) is the
    GEMM the measurement covers; the routed experts run in fused-MoE grouped GEMMs no cited benchmark measures, so they
    and their down projection's pipeline bytes stay at HBM_EFFICIENCY."""
    _, r = _roof("qwen3-30b-a3b")
    read = r.weights_read(4)
    dense = r.weight_bytes * (1 - r.expert_share)
    experts = read - dense + r.expert_pipeline_bytes(read)
    assert 0 < dense < read
    assert r.memory_seconds(read, 0.0) == pytest.approx(dense / 2976e9 + experts / (3350e9 * roofline.HBM_EFFICIENCY))


def test_the_measured_weight_streaming_rates_are_what_their_sources_printed():
    """Each hbm_achieved_gb_s is the median of the figures its source printed, converted as its citation says."""
    from statistics import median

    from components.hardware import GPUS

    # vLLM PR 2497, Marlin's bench.py on an A100: (batch, Marlin GB/s, speedup over torch's FP16 GEMM) on the Llama13B
    # layers (k, n); torch reads 2kn bytes where Marlin reads kn/2 plus group-128 scales.
    layers = ((5120, 3 * 5120), (5120, 5120), (5120, 2 * 13568), (13568, 5120))
    marlin = ((1, 1158.601, 3.12), (2, 1160.829, 3.10), (4, 1143.497, 3.14), (8, 1160.100, 3.20), (16, 1152.943, 3.19))

    def torch_gb_s(m: int, gb_s: float, speedup: float) -> float:
        quant = sum(2 * m * k + k * n / 2 + 2 * m * n + 2 * (k // 128) * n for k, n in layers)
        dense = sum(2 * m * k + 2 * k * n + 2 * m * n for k, n in layers)
        return dense / (speedup * quant / gb_s)

    assert round(median(torch_gb_s(*row) for row in marlin)) == GPUS["A100-80GB"].performance.hbm_achieved_gb_s
    # vLLM PR 49363 on an H100: torch-bf16 TFLOP/s of (N, K, M rows); 2MNK FLOPs over 2NK weight bytes (+ activations).
    h100 = ((12288, 5376, 1, 2.870333), (12288, 5376, 16, 46.541434), (43008, 5376, 1, 3.072025), (43008, 5376, 16, 48.328807))
    rates = [(2 * n * k + 2 * m * k + 2 * m * n) / (2 * m * n * k / (tflops * 1e12)) / 1e9 for n, k, m, tflops in h100]
    assert round(median(rates)) == GPUS["H100"].performance.hbm_achieved_gb_s
    # xytpai/nvbench on an RTX 4090: a streaming read with 1- to 16-element vector loads.
    assert round(median((920.207, 904.335, 921.850, 914.626, 921.066))) == GPUS["RTX-4090"].performance.hbm_achieved_gb_s


@pytest.mark.parametrize(
    "edit,message",
    [
        (lambda t: t.replace("hbm_achieved_gb_s = 2976\n", ""), "gpus.H100.performance.hbm_achieved_gb_s: missing"),
        (lambda t: t.replace("hbm_achieved_gb_s = 2976\n", "hbm_achieved_gb_s = 3400\n"), "must be above 0 and at most"),
        (lambda t: t.replace("hbm_achieved_gb_s = 920\n", "hbm_achieved_gb_s = 0\n"), "gpus.RTX-4090.performance"),
        (
            lambda t: t.replace("hbm_achieved_gb_s = 920\nhbm_achieved_source", "hbm_achieved_gb_s = 920\nhbm_achieved_sourc"),
            "unknown field 'hbm_achieved_sourc'",
        ),
    ],
)
def test_a_bad_measured_bandwidth_is_refused_naming_the_field(edit, message):
    from components.hardware import HardwareDataError, load_hardware
    from tests.conftest import ROOT

    text = (ROOT / "components" / "hardware.toml").read_text(encoding="utf-8")
    assert edit(text) != text
    with pytest.raises(HardwareDataError, match=message):
        load_hardware(edit(text))
