"""vLLM's memory model: worked examples (KV bytes per token, weights split) and invariants (hypothesis)."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from components.capacity.architecture import GIB, ArchitectureError, parse_config
from components.capacity.cuda_graphs import (
    cold_compile_bytes,
    cudagraph_capture_sizes,
    model_runner,
    v2_profiled_sampler_bytes_per_logit,
)
from components.capacity.gpus import find_gpu
from components.capacity.memory import (
    RESERVED_GRAPHS,
    EngineArgs,
    Gpu,
    accounting_for,
    activation_bytes,
    batch_defaults_for,
    hardware_batch_defaults,
    kv_bytes_per_token_per_layer,
    plan_memory,
)
from components.capacity.models import find_model


def plan(model: str, gpu: str, **engine):
    m = find_model(model)
    return plan_memory(m.arch, m.checkpoint_bytes, find_gpu(gpu), EngineArgs(**engine))


# --- worked examples (worked by hand from vllm/v1/worker/gpu_worker.py determine_available_memory) ---


def test_llama_8b_bf16_is_128_kib_per_token():
    # 2 (K,V) x 32 layers x 8 KV heads x 128 head_dim x 2 bytes = 131,072 B
    p = plan("meta-llama/Llama-3.1-8B-Instruct", "H100", max_model_len=8192)
    assert p.kv_bytes_per_token == 131_072


def test_kv_heads_split_over_tp_but_never_below_one():
    arch = find_model("meta-llama/Llama-3.1-70B-Instruct").arch  # 8 KV heads
    per = {tp: kv_bytes_per_token_per_layer(arch, EngineArgs(tensor_parallel_size=tp)) for tp in (1, 2, 8, 16)}
    assert per[1] == 2 * 8 * 128 * 2
    assert per[2] == per[1] // 2
    assert per[8] == per[16] == 2 * 1 * 128 * 2  # replicated once TP exceeds the KV heads


def test_mla_latent_is_576_values_per_layer_and_not_split_by_tp():
    arch = find_model("deepseek-ai/DeepSeek-V3").arch
    assert arch.is_mla
    bf16 = kv_bytes_per_token_per_layer(arch, EngineArgs(tensor_parallel_size=8))
    assert bf16 == (512 + 64) * 2
    assert kv_bytes_per_token_per_layer(arch, EngineArgs(tensor_parallel_size=8, kv_cache_dtype="fp8")) == 576


def test_fp8_kv_halves_bytes_per_token():
    a = plan("llama-3.1-8b", "L40S", max_model_len=8192)
    b = plan("llama-3.1-8b", "L40S", max_model_len=8192, kv_cache_dtype="fp8")
    assert b.kv_bytes_per_token * 2 == a.kv_bytes_per_token


def test_weights_split_over_tensor_parallel_ranks():
    one = plan("meta-llama/Llama-3.1-70B-Instruct", "H100", tensor_parallel_size=1, max_model_len=4096)
    four = plan("meta-llama/Llama-3.1-70B-Instruct", "H100", tensor_parallel_size=4, max_model_len=4096)
    assert four.weights_gib == pytest.approx(one.weights_gib / 4, rel=0.02)
    assert not one.fits and "weights need" in one.reason
    assert four.fits


def test_70b_on_one_h100_does_not_fit_with_the_fix_in_the_reason():
    p = plan("meta-llama/Llama-3.1-70B-Instruct", "H100", max_model_len=8192)
    assert p.fits is False
    assert p.reason.endswith("raise tensorParallelSize, quantize, or use a bigger GPU")


def test_max_model_len_beyond_the_kv_cache_does_not_fit():
    # An 8B model on a 24 GB-class GPU with 128k context: the weights fit, the context does not.
    p = plan("llama-3.1-8b", "A10G", max_model_len=131072, gpu_memory_utilization=0.95)
    assert p.weights_gib < p.budget_gib
    assert p.fits is False
    assert p.reason.startswith("maxModelLen 131,072 exceeds the KV cache (")
    assert p.reason.endswith("lower maxModelLen, raise tensorParallelSize, use an fp8 KV cache, or a bigger GPU")


def test_hardware_batch_defaults_follow_vllm_033():
    assert hardware_batch_defaults(find_gpu("H100")) == (8192, 1024)
    assert hardware_batch_defaults(find_gpu("H200")) == (8192, 1024)
    assert hardware_batch_defaults(find_gpu("B200")) == (16384, 1024)
    assert hardware_batch_defaults(find_gpu("A100-80GB")) == (2048, 256)
    assert hardware_batch_defaults(find_gpu("L40S")) == (2048, 256)


def test_blocks_and_tokens_are_consistent():
    p = plan("qwen3-8b", "L40S", max_model_len=16384)
    assert p.kv_cache_tokens == p.num_blocks * 16
    assert p.num_blocks == math.floor(p.kv_cache_gib * GIB / (16 * p.kv_bytes_per_token))
    assert p.max_concurrency == pytest.approx(p.num_blocks / math.ceil(16384 / 16))


def test_hybrid_sliding_window_model_gets_more_concurrency_than_its_full_cost():
    # gpt-oss alternates sliding-window (128) and full attention layers: a long request keeps
    # only a window in half of its layers, so concurrency exceeds tokens / max_model_len.
    p = plan("openai/gpt-oss-20b", "H100", max_model_len=131072)
    assert p.fits
    assert p.max_concurrency > p.kv_cache_tokens / 131072


def test_enforce_eager_reserves_no_cuda_graph_memory():
    assert plan("llama-3.1-8b", "L40S", max_model_len=8192, enforce_eager=True, vllm_version="0.33.0").cuda_graph_gib == 0
    assert plan("llama-3.1-8b", "L40S", max_model_len=8192, vllm_version="0.33.0").cuda_graph_gib > 0
    # Before 0.20 graphs were captured after the KV cache, out of the budget.
    assert plan("llama-3.1-8b", "L40S", max_model_len=8192, vllm_version="0.19.0").cuda_graph_gib == 0


def test_batch_defaults_follow_the_release():
    # components/vllm_flags.batch_defaults: A100 joined the small tier in 0.9.0 (PR #17885), the
    # >= 160 GiB tier came in 0.28.0; an unknown release takes 0.33's.
    assert batch_defaults_for(find_gpu("A100-80GB"), "0.8.5") == (8192, 1024)
    assert batch_defaults_for(find_gpu("A100-80GB"), "0.31.0") == (2048, 256)
    assert batch_defaults_for(find_gpu("B200"), "0.27.0") == (8192, 1024)
    assert batch_defaults_for(find_gpu("B200"), None) == (16384, 1024)


def test_cuda_graph_capture_sizes_follow_vllm():
    # 0.33.0 config/vllm.py _set_cudagraph_sizes; the logs print the same counts:
    # the 0.19 sweep "(51-1) x 6.00 MiB per-graph" at max_num_seqs 1024, and a 0.22 log
    # "PIECEWISE=35 (largest=256), FULL=19 (largest=128)" at max_num_seqs 128, 2048 tokens.
    assert len(cudagraph_capture_sizes(1024, 8192)) == 51
    sizes = cudagraph_capture_sizes(128, 2048)
    assert (len(sizes), sizes[-1], len([s for s in sizes if s <= 128])) == (35, 256, 19)
    assert cudagraph_capture_sizes(32, 8192) == [1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64]
    assert cudagraph_capture_sizes(1024, 16384, find_gpu("B200"))[-1] == 1024
    assert cudagraph_capture_sizes(4, 2048) == [1, 2, 4, 8]


def test_cuda_graph_reserve_shrinks_with_max_num_seqs():
    wide = plan("llama-3.1-8b", "L40S", max_model_len=8192, vllm_version="0.33.0", max_num_seqs=256)
    narrow = plan("llama-3.1-8b", "L40S", max_model_len=8192, vllm_version="0.33.0", max_num_seqs=16)
    assert narrow.cuda_graph_gib < wide.cuda_graph_gib - 0.3
    assert narrow.kv_cache_gib > wide.kv_cache_gib


@pytest.mark.parametrize(
    "model,version,runner,reserves",
    [
        ("llama-3.1-8b", "0.21.0", "V1", True),
        ("llama-3.1-8b", "0.22.0", "V1", True),  # 0.22.0 defaults only Qwen3 to V2
        ("qwen3-8b", "0.22.0", "V2", False),
        ("llama-3.1-8b", "0.23.0", "V2", False),
        ("qwen2.5-7b", "0.24.0", "V1", True),  # not in 0.24.0's list
        ("qwen2.5-7b", "0.25.0", "V2", False),  # every dense model from 0.25.0
        ("qwen3-30b-a3b", "0.27.0", "V1", True),  # MoE outside the list keeps V1
        ("llama-3.1-8b", "0.29.0", "V2", True),  # V2's real estimate from 0.29.0
        ("qwen3-30b-a3b", "0.33.0", "V2", True),
    ],
)
def test_model_runner_follows_each_release(model, version, runner, reserves):
    r = model_runner(find_model(model).arch, version, RESERVED_GRAPHS)
    assert (r.name, r.reserves_graphs) == (runner, reserves)
    assert r.sampler_warmup_profiled == (version == "0.33.0" or runner == "V1")
    # Where V2 reserves nothing, its cold-compile profile peak is charged to the activation instead
    # (cold_compile_bytes), with a note.
    p = plan(model, "H100", max_model_len=4096, vllm_version=version)
    assert (p.cuda_graph_gib > 0) == reserves
    assert any("reserves no CUDA graph memory" in n for n in p.notes) == (not reserves)
    v1 = plan(model, "H100", max_model_len=4096, vllm_version="0.21.0")
    assert p.activation_gib + p.cuda_graph_gib == pytest.approx(v1.activation_gib + v1.cuda_graph_gib)


@pytest.mark.parametrize(
    "model,version,charged",
    [
        ("qwen3-8b", "0.27.1", True),  # V2 without a graph reserve: a cold start's compile peak is charged
        ("llama-3.1-8b", "0.23.0", True),
        ("llama-3.1-8b", "0.21.0", False),  # V1 reserves its graph estimate; its compile is in the fitted constants
        ("qwen3-30b-a3b", "0.27.0", False),  # MoE outside 0.27's V2 list keeps V1
        ("llama-3.1-8b", "0.33.0", False),  # V2 with a real estimate from 0.29
        ("llama-3.1-8b", "0.19.0", False),
    ],
)
def test_a_warm_compile_cache_drops_only_the_cold_compile_charge(model, version, charged):
    # Where V2 reserves no graphs (0.22-0.28) a warm start drops the compile stand-in and its profiled sampler
    # is the default pass (the logits alone); elsewhere the cache's state changes nothing.
    cold = plan(model, "L40S", max_model_len=8192, vllm_version=version)
    warm = plan(model, "L40S", max_model_len=8192, vllm_version=version, compile_cache="warm")
    m = find_model(model)
    args = EngineArgs(max_model_len=8192, vllm_version=version)
    acc = accounting_for(version)
    charge = cold_compile_bytes(m.arch, args, acc, find_gpu("L40S")) / GIB
    assert (charge > 0.5) == charged
    tokens, seqs = cold.max_num_batched_tokens, cold.max_num_seqs
    profiled = (
        activation_bytes(
            m.arch,
            tokens,
            seqs,
            1,
            acc,
            8192,
            version,
            sampler_bytes_per_logit=v2_profiled_sampler_bytes_per_logit(m.arch) if charged else None,
        )
        / GIB
    )
    assert warm.activation_gib == pytest.approx(profiled)
    assert cold.activation_gib == pytest.approx(activation_bytes(m.arch, tokens, seqs, 1, acc, 8192, version) / GIB + charge)
    assert warm.kv_cache_gib - cold.kv_cache_gib == pytest.approx(cold.activation_gib - warm.activation_gib)
    assert (warm.kv_cache_gib > cold.kv_cache_gib + charge + 0.2) == charged
    assert warm.cuda_graph_gib == cold.cuda_graph_gib


def test_the_known_residuals_are_said_in_the_notes():
    # Pipeline stages' buffers and MXFP4's repack growth are residuals the figures do not carry (the
    # calibration's KNOWN_MISSES and WEIGHT_EXCEPTIONS); a plan where they apply says so, others do not.
    pp = plan("qwen3-32b", "L40S", pipeline_parallel_size=2, max_model_len=8192, vllm_version="0.27.1")
    assert [n for n in pp.notes if n.startswith("pipelineParallelSize 2: each stage's own buffers")]
    oss = plan("openai/gpt-oss-20b", "H100", max_model_len=8192, vllm_version="0.33.0")
    assert [n for n in oss.notes if n.startswith("MXFP4 checkpoint:") and "x1.06" in n and "Triton" in n]
    old = plan("openai/gpt-oss-20b", "H100", max_model_len=8192, vllm_version="0.10.1")
    assert [n for n in old.notes if n.startswith("MXFP4 checkpoint:") and "x1.088" in n and "Marlin" in n]
    dense = plan("qwen3-32b", "L40S", tensor_parallel_size=2, max_model_len=8192, vllm_version="0.27.1")
    assert not [n for n in dense.notes if n.startswith(("pipelineParallelSize", "MXFP4", "fp8 weights"))]
    # fp8 weights below compute capability 8.9 run as Marlin weight-only FP8, which the figures do not size.
    marlin = plan("qwen3-8b", "A10G", quantization="fp8", max_model_len=8192, vllm_version="0.27.1")
    assert [n for n in marlin.notes if n.startswith("fp8 weights on A10G (compute capability 8.6, below 8.9) run as Marlin")]
    for gpu, engine in (("L4", {"quantization": "fp8"}), ("H100", {"quantization": "fp8"}), ("A10G", {})):
        other = plan("qwen3-8b", gpu, max_model_len=8192, vllm_version="0.27.1", **engine)
        assert not [n for n in other.notes if n.startswith("fp8 weights")], gpu
    assert find_gpu("custom", 24.0).compute_capability is None


def test_compile_cache_takes_cold_or_warm_only():
    with pytest.raises(ValueError, match="compile_cache = 'hot': must be one of cold, warm"):
        EngineArgs(compile_cache="hot")


def test_graphs_captured_after_the_kv_cache_must_fit_in_what_is_left():
    # Where nothing is reserved (0.19; Model Runner V2 in 0.22-0.28, vllm-project/vllm#49224) the
    # graphs and the sampler warm-up run in the (1 - utilization) share less the CUDA context.
    tight = plan("llama-3.1-8b", "L40S", max_model_len=8192, gpu_memory_utilization=0.98, vllm_version="0.26.0")
    assert tight.fits is False
    assert tight.reason.startswith(
        "start-up would run out of memory after the KV cache is allocated: vLLM 0.26.0 (V2 model runner) "
        "reserves no CUDA graph memory before the KV cache"
    )
    assert tight.reason.endswith("lower gpuMemoryUtilization or maxNumSeqs, or set enforceEager")
    assert plan("llama-3.1-8b", "L40S", max_model_len=8192, gpu_memory_utilization=0.92, vllm_version="0.26.0").fits
    assert plan(
        "llama-3.1-8b", "L40S", max_model_len=8192, gpu_memory_utilization=0.98, vllm_version="0.26.0", enforce_eager=True
    ).fits
    # 0.33 reserves the estimate before the KV cache: the same utilization starts.
    assert plan("llama-3.1-8b", "L40S", max_model_len=8192, gpu_memory_utilization=0.98, vllm_version="0.33.0").fits
    # A 24 GB card at 0.95 on 0.19: 1.1 GiB outside the budget, 0.5 of it the context.
    l4 = plan("llama-3.1-8b", "L4", max_model_len=8192, gpu_memory_utilization=0.95, vllm_version="0.19.0")
    assert l4.fits is False and "after the KV cache is allocated" in l4.reason
    assert plan("llama-3.1-8b", "L4", max_model_len=8192, gpu_memory_utilization=0.90, vllm_version="0.19.0").fits


def test_parse_config_errors_name_the_key():
    with pytest.raises(ArchitectureError, match="config.json lacks vocab_size"):
        parse_config({"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4})
    with pytest.raises(
        ArchitectureError, match=r"config.json num_hidden_layers = 'x': must be a whole number between 0 and 2\^40"
    ):
        parse_config({"num_hidden_layers": "x", "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 10})


# --- invariants ---

MODELS = [
    "llama-3.1-8b",
    "qwen3-8b",
    "meta-llama/Llama-3.1-70B-Instruct",
    "mistralai/Mistral-7B-Instruct-v0.3",
    "openai/gpt-oss-20b",
    "deepseek-ai/DeepSeek-V3",
]
GPUS = ["L40S", "H100", "H200", "A100-80GB"]

engines = st.fixed_dictionaries(
    {
        "gpu_memory_utilization": st.floats(0.5, 0.95),
        "max_model_len": st.sampled_from([2048, 4096, 8192, 32768, 131072]),
        "tensor_parallel_size": st.sampled_from([1, 2, 4, 8]),
    }
)


@settings(max_examples=60, deadline=None)
@given(model=st.sampled_from(MODELS), gpu=st.sampled_from(GPUS), e=engines, bump=st.floats(0.005, 0.05))
def test_kv_budget_rises_with_utilization(model, gpu, e, bump):
    low = plan(model, gpu, **e)
    high = plan(model, gpu, **{**e, "gpu_memory_utilization": min(1.0, e["gpu_memory_utilization"] + bump)})
    assert high.kv_cache_gib >= low.kv_cache_gib
    assert high.kv_cache_tokens >= low.kv_cache_tokens


@settings(max_examples=60, deadline=None)
@given(model=st.sampled_from(MODELS), gpu=st.sampled_from(GPUS), e=engines, factor=st.sampled_from([2, 4]))
def test_max_concurrency_never_rises_with_max_model_len(model, gpu, e, factor):
    short = plan(model, gpu, **e)
    long = plan(model, gpu, **{**e, "max_model_len": e["max_model_len"] * factor})
    assert long.max_concurrency <= short.max_concurrency


@settings(max_examples=60, deadline=None)
@given(model=st.sampled_from(MODELS), gpu=st.sampled_from(GPUS), e=engines)
def test_doubling_tp_never_raises_per_gpu_weights(model, gpu, e):
    a = plan(model, gpu, **e)
    b = plan(model, gpu, **{**e, "tensor_parallel_size": e["tensor_parallel_size"] * 2})
    assert b.weights_gib <= a.weights_gib


@settings(max_examples=60, deadline=None)
@given(model=st.sampled_from(MODELS), e=engines, memory=st.floats(40, 200))
def test_fp8_kv_doubles_tokens_at_equal_budget(model, e, memory):
    gpu = Gpu("custom", memory)
    m = find_model(model)
    bf16 = plan_memory(m.arch, m.checkpoint_bytes, gpu, EngineArgs(**e))
    fp8 = plan_memory(m.arch, m.checkpoint_bytes, gpu, EngineArgs(**e, kv_cache_dtype="fp8"))
    assume(bf16.kv_cache_tokens > 0)
    assert fp8.kv_cache_gib == pytest.approx(bf16.kv_cache_gib)
    # Twice the tokens, up to the rounding to whole blocks (at most two blocks of 16 tokens).
    assert 0 <= fp8.kv_cache_tokens - 2 * bf16.kv_cache_tokens <= 32


def test_pipeline_parallel_splits_layers_and_their_kv():
    one = plan("qwen3-32b", "H100", max_model_len=8192, vllm_version="0.33.0")
    two = plan("qwen3-32b", "H100", max_model_len=8192, pipeline_parallel_size=2, vllm_version="0.33.0")
    assert two.kv_bytes_per_token * 2 == one.kv_bytes_per_token  # 64 layers -> 32 per stage
    assert two.weights_gib < 0.55 * one.weights_gib
    assert two.gpus_per_replica == 2


def test_online_fp8_quantization_halves_the_linear_weights_only():
    bf16 = plan("llama-3.1-8b", "H100", max_model_len=8192)
    fp8 = plan("llama-3.1-8b", "H100", max_model_len=8192, quantization="fp8")
    m = find_model("llama-3.1-8b")
    embeddings = 2 * m.arch.embedding_bytes() / GIB  # untied input embedding and LM head stay 16-bit
    assert fp8.weights_gib == pytest.approx((bf16.weights_gib - embeddings) / 2 + embeddings, abs=0.02)


def test_a_prequantized_checkpoint_is_sized_by_its_own_bytes():
    # gpt-oss ships MXFP4 experts: the catalogue's checkpoint bytes are what loads (plus the
    # kernels' padding), not parameters x 2.
    p = plan("openai/gpt-oss-120b", "H100", max_model_len=8192)
    assert 60 < p.weights_gib < 66


def test_moe_activations_count_the_routed_tokens():
    dense = plan("qwen3-32b", "H100", max_model_len=8192, vllm_version="0.33.0")
    moe = plan("qwen3-30b-a3b", "H100", max_model_len=8192, vllm_version="0.33.0")
    # Both share Qwen3's vocabulary and the sampler dominates both peaks, so the difference is the
    # fused-MoE workspace (2 x tokens x top-k x (3 x moe_intermediate + hidden) bytes) and the
    # smaller hidden states kept through sampling.
    tokens, topk, moe_inter = 8192, 8, 768
    workspace = 2 * tokens * topk * (3 * moe_inter + 2048) / GIB
    hidden_states = 2 * tokens * (2048 - 5120) / GIB
    assert moe.activation_gib - dense.activation_gib == pytest.approx(workspace + hidden_states, abs=0.02)


def test_negative_budget_is_reported_as_negative_kv():
    p = plan("meta-llama/Llama-3.3-70B-Instruct", "H100", max_model_len=4096, gpu_memory_utilization=0.95)
    assert p.kv_cache_gib < 0 and p.num_blocks == 0 and p.kv_cache_tokens == 0 and not p.fits


def test_deepseek_sparse_mla_cache_is_656_bytes_per_token_and_layer():
    arch = find_model("deepseek-ai/DeepSeek-V3").arch
    assert kv_bytes_per_token_per_layer(arch, EngineArgs(kv_cache_dtype="fp8_ds_mla")) == 656


@pytest.mark.parametrize(
    "model,engine,reason",
    [
        (
            "meta-llama/Llama-3.1-8B-Instruct",
            {"tensor_parallel_size": 3},
            "tensorParallelSize 3 does not divide the model's 32 attention heads; vLLM refuses to start (use a divisor)",
        ),
        (
            "meta-llama/Llama-3.1-8B-Instruct",
            {"max_model_len": 262144},
            "maxModelLen 262,144 exceeds the model's maximum of 131,072 tokens; vLLM refuses it (unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1); lower maxModelLen",
        ),
        (
            "meta-llama/Llama-3.1-8B-Instruct",
            {"max_model_len": 8192, "quantization": "awq"},
            "--quantization awq needs a checkpoint quantized with it, and this one is bfloat16; use a pre-quantized checkpoint or --quantization fp8",
        ),
        (
            "meta-llama/Llama-3.1-8B-Instruct",
            {"max_model_len": 8192, "max_num_seqs": 512, "max_num_batched_tokens": 256},
            "maxNumBatchedTokens 256 is below maxNumSeqs 512; vLLM's scheduler config refuses it (SchedulerConfig: max_num_batched_tokens must be >= max_num_seqs)",
        ),
    ],
)
def test_settings_vllm_refuses_do_not_fit(model, engine, reason):
    p = plan(model, "H100", **engine)
    assert (p.fits, p.reason) == (False, reason)


def _config(**extra):
    base = {
        "num_hidden_layers": 42,
        "hidden_size": 3584,
        "num_attention_heads": 16,
        "num_key_value_heads": 8,
        "head_dim": 256,
        "vocab_size": 256000,
        "intermediate_size": 14336,
        "max_position_embeddings": 8192,
        "torch_dtype": "bfloat16",
    }
    return {**base, **extra}


def test_gemma2_alternates_local_and_global_layers():
    arch = parse_config(_config(model_type="gemma2", sliding_window=4096))
    assert [(g.layers, g.window) for g in arch.layer_groups] == [(21, None), (21, 4096)]


def test_a_window_on_every_layer_stays_a_window():
    arch = parse_config(_config(model_type="mistral", sliding_window=4096))
    assert [(g.layers, g.window) for g in arch.layer_groups] == [(42, 4096)]


def test_qwen_vl_models_pay_for_the_vision_encoders_profile_run():
    text = parse_config(_config(model_type="qwen2"))
    vl = parse_config(_config(model_type="qwen2_5_vl"))
    gpu, args = Gpu("custom", 44.0), EngineArgs(max_model_len=4096, vllm_version="0.33.0")
    gap = plan_memory(text, 16 * GIB, gpu, args).kv_cache_gib - plan_memory(vl, 16 * GIB, gpu, args).kv_cache_gib
    assert gap == pytest.approx(2.5)


def test_rope_scaling_stretches_the_length_vllm_accepts():
    yarn = parse_config(
        _config(
            max_position_embeddings=32768,
            rope_scaling={"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768},
        )
    )
    llama3 = parse_config(_config(max_position_embeddings=131072, rope_scaling={"rope_type": "llama3", "factor": 8.0}))
    assert (yarn.max_model_len_limit, llama3.max_model_len_limit) == (131072, 131072)


# --- the sampler warm-up of 0.9-0.11 with FlashInfer (accounting.py profiled_sampler_bytes_per_logit) ---


@pytest.mark.parametrize(
    "version, flashinfer, per_logit",
    [
        ("0.10.2", True, 14.0),  # bf16 logits + the float32 copy, FlashInfer's top-k-masked copy and its softmax
        ("0.9.0", True, 14.0),
        ("0.11.0", True, 14.0),
        ("0.10.2", None, 38.3),  # unknown: the PyTorch sort (a pip install without FlashInfer), the larger
        ("0.10.2", False, 38.3),
        ("0.8.5", True, 38.3),  # 0.8.5 falls back to PyTorch for FlashInfer >= 0.2.3 (topk_topp_sampler.py 32-48)
        ("0.13.0", True, 38.3),  # 0.12-0.16 are sized as the sort: FlashInfer is opt-in there (vllm#26859)
        (None, True, 38.3),  # an unknown release may be one of those
        ("0.33.0", True, 14.9),  # 0.17 on: the accounting's own constant, the flag changes nothing
    ],
)
def test_flashinfer_sampler_is_charged_only_where_vllm_samples_with_it(version, flashinfer, per_logit):
    from components.capacity.accounting import SORT_SAMPLER, profiled_sampler_bytes_per_logit

    args = EngineArgs(vllm_version=version, flashinfer_sampler=flashinfer)
    acc = accounting_for(version) or SORT_SAMPLER
    assert profiled_sampler_bytes_per_logit(2, args, acc) == pytest.approx(per_logit)


def test_gpt_oss_120b_on_one_h100_at_32k_starts_on_010_where_flashinfer_samples():
    # GPUStack's performance lab ran `vllm serve openai/gpt-oss-120b --max-model-len 32768` on one H100 SXM with
    # vLLM 0.10.2 (gpustack/gpustack docs/performance-lab/gpt-oss-120b/h100.md); vLLM refuses a start whose KV
    # cache cannot hold max_model_len (0.10.2/0.11.0 v1/core/kv_cache_utils.py check_enough_kv_cache_memory), so
    # its KV cache held 32,768 tokens. With FlashInfer's sampler warm-up (14 bytes per logit over 1,024 rows of a
    # 201,088 vocabulary: 2.68 GiB) the plan agrees; with the PyTorch sort (38.3: 7.34 GiB) nothing is left, as
    # vllm#27508's pip install logged at 0.11.0 (-2.28 GiB, row is05).
    image = plan("openai/gpt-oss-120b", "H100", vllm_version="0.10.2", max_model_len=32768, flashinfer_sampler=True)
    assert image.fits and image.kv_cache_gib == pytest.approx(2.39, abs=0.01) and image.kv_cache_tokens >= 32768
    assert "as vLLM 0.10.2 runs it where FlashInfer is installed" in image.notes[-1]
    pip = plan("openai/gpt-oss-120b", "H100", vllm_version="0.10.2", max_model_len=32768)
    assert not pip.fits and pip.kv_cache_gib == pytest.approx(-2.27, abs=0.01)
    assert "sized as the PyTorch sort of an install without it" in pip.notes[-1]
    # The model's own 131,072 tokens still do not fit, FlashInfer or not.
    assert not plan("openai/gpt-oss-120b", "H100", vllm_version="0.10.2", flashinfer_sampler=True).fits


def test_flashinfer_sampler_is_also_what_the_warm_up_after_the_kv_cache_costs():
    # vLLM 0.10/0.11 run the same _dummy_sampler_run again after the KV cache is allocated
    # (gpu_worker.py compile_or_warm_up_model), so the after-KV check charges the same per-logit cost.
    at = dict(vllm_version="0.11.0", max_model_len=4096, gpu_memory_utilization=0.99)
    sort = plan("Qwen/Qwen3-32B", "H100", **at)
    flashinfer = plan("Qwen/Qwen3-32B", "H100", **at, flashinfer_sampler=True)
    assert "the sampler warm-up over 1,024 requests (5.55 GiB)" in sort.reason
    assert "the sampler warm-up over 1,024 requests (2.03 GiB)" in flashinfer.reason


@pytest.mark.parametrize(
    "version, noted",
    [("0.10.2", True), ("0.11.0", True), ("0.9.0.1", True), ("0.11.1", False), ("0.8.5", False), ("0.12.0", False)],
)
def test_a_plan_says_when_its_release_samples_with_flashinfer_by_default(version, noted):
    # 0.9.0-0.11.0 sample with FlashInfer wherever it is installed; 0.11.1 made it opt-in (topk_topp_sampler.py
    # 0.11.1 lines 34-46): a plan of an unknown install says so only where the default depends on the image.
    notes = plan("Qwen/Qwen3-32B", "H100", vllm_version=version, max_model_len=8192).notes
    assert any("sized as the PyTorch sort of an install without it" in n for n in notes) == noted


# --- which images sample with FlashInfer (accounting.py image_flashinfer_sampler: the one rule of the three callers) ---


@pytest.mark.parametrize(
    "image",
    [
        "vllm/vllm-openai:v0.10.2",
        "docker.io/vllm/vllm-openai:v0.10.2",
        "index.docker.io/vllm/vllm-openai:v0.9.0",
        "registry.local:5000/vllm/vllm-openai:v0.11.0",  # a mirror path ending in the repository (a port is no tag)
        "123456789012.dkr.ecr.us-east-1.amazonaws.com/docker-hub/vllm/vllm-openai:v0.10.1.1",  # ECR pull-through
        "vllm/vllm-openai:v0.10.2@sha256:" + "a" * 64,  # pinned by digest, the tag still names the release
    ],
)
def test_vllms_own_image_of_09_to_0110_samples_with_flashinfer(image):
    from components.capacity.accounting import image_flashinfer_sampler, upstream_vllm_image

    assert upstream_vllm_image(image)
    assert image_flashinfer_sampler(image) is True


@pytest.mark.parametrize(
    "image",
    [
        "ghcr.io/acme/vllm:v0.10.2",  # a custom build: whether FlashInfer is installed is unknown
        "lmcache/vllm-openai:v0.10.2",  # its vLLM says "FlashInfer is not available" (LMCache/LMCache#1384)
        "vllm/vllm-openai-cpu:v0.10.2",  # another of vLLM's repositories
        "acme/vllm/vllm-openai-fork:v0.10.2",
        "vllm-openai:v0.10.2",
        "vllm/vllm-openai:v0.8.5",  # 0.8.5 falls back to PyTorch with the image's FlashInfer (>= 0.2.3)
        "vllm/vllm-openai:v0.11.1",  # opt-in from 0.11.1 (vllm#26859)
        "vllm/vllm-openai:v0.12.0",
        "vllm/vllm-openai:v0.33.0",  # the stacks' release: the flag changes nothing there
        "vllm/vllm-openai:latest",  # no release named
        "vllm/vllm-openai@sha256:" + "a" * 64,
    ],
)
def test_other_images_and_releases_stay_unknown(image):
    from components.capacity.accounting import image_flashinfer_sampler

    assert image_flashinfer_sampler(image) is None


def test_the_release_the_caller_resolved_wins_over_the_tag():
    # A policy's defaultVllmRelease for a tag that names none; `size --image ... --vllm-version`.
    from components.capacity.accounting import image_flashinfer_sampler

    assert image_flashinfer_sampler("vllm/vllm-openai:latest", "0.10.2") is True
    assert image_flashinfer_sampler("vllm/vllm-openai:latest", "0.11.1") is None
    assert image_flashinfer_sampler("ghcr.io/acme/vllm:latest", "0.10.2") is None


@pytest.mark.parametrize(
    "env, expected",
    [
        ({}, True),
        ({"VLLM_USE_FLASHINFER_SAMPLER": "1"}, True),
        ({"VLLM_USE_FLASHINFER_SAMPLER": "0"}, None),  # envs.py bool(int(...)): the PyTorch path
        ({"VLLM_USE_V1": "0"}, None),  # the V0 engine samples with FlashInfer only when asked
        ({"VLLM_USE_V1": "1", "HF_TOKEN": "x"}, True),
        ({"VLLM_USE_FLASHINFER_SAMPLER": ""}, None),  # a value the manifest does not show (valueFrom)
        ({"VLLM_USE_FLASHINFER_SAMPLER": "false"}, None),  # vLLM cannot read it either
    ],
)
def test_the_environment_can_turn_the_sampler_off(env, expected):
    from components.capacity.accounting import image_flashinfer_sampler

    assert image_flashinfer_sampler("vllm/vllm-openai:v0.10.2", env=env) is expected
