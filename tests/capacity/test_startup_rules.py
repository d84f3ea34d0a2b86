"""vLLM's start-up rules (components/capacity/startup.py): each fires on what vLLM refuses and not on its
neighbour, each term of a rule matters (a mutation of the term flips the verdict), and the memory plan
reports the first refusal under the rule's name.

What vLLM 0.33.0 checks, file and lines (read in the release's wheel, the same files as the v0.33.0 tag):
- config/scheduler.py lines 318-336: max_num_batched_tokens >= max_num_seqs, and >= max_model_len when
  chunked prefill is disabled;
- config/model.py lines 1557-1564: attention heads % tensor_parallel_size == 0; model_executor/layers/linear.py
  lines 1065-1071 with distributed/utils.py lines 130-134: divide() of KV heads by TP, or TP by KV heads;
- config/model.py lines 2657-2683: max_model_len <= the derived limit unless VLLM_ALLOW_LONG_MAX_MODEL_LEN;
- model_executor/model_loader/weight_utils.py lines 374-380: an offline method on a checkpoint without a
  quantization config finds no config file;
- platforms/cuda.py lines 638-656 (from v1/worker/gpu_worker.py line 498): bfloat16 needs capability 8.0.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from components.capacity.gpus import find_gpu
from components.capacity.memory import EngineArgs, Gpu, plan_memory
from components.capacity.models import find_model
from components.capacity.startup import BY_NAME, RULES, STACK_NAMES, Settings, field_path, first_refusal, flag_names, refusals
from policies.registry import POLICIES

LLAMA = find_model("meta-llama/Llama-3.1-8B-Instruct").arch  # 32 heads, 8 KV heads, limit 131,072, bfloat16
QWEN = find_model("Qwen/Qwen2.5-7B-Instruct").arch  # 28 heads, 4 KV heads
OK = Settings(
    tensor_parallel_size=1,
    max_model_len=8192,
    max_num_seqs=256,
    max_num_batched_tokens=2048,
    dtype="bfloat16",
    gpu="L40S",
    compute_capability=(8, 9),
)
# A Turing card as vLLM sees it (compute capability 7.5, NVIDIA's table), given by hand: the plan's rule
# reads only the record's compute_capability.
T4 = Gpu("T4", 14.58, compute_capability=(7, 5))


def rule_of(name: str, arch=LLAMA, **changes) -> str | None:
    return BY_NAME[name].refusal(arch, replace(OK, **changes))


def test_a_configuration_vllm_accepts_breaks_no_rule():
    assert refusals(LLAMA, OK) == [] and refusals(QWEN, replace(OK, tensor_parallel_size=4)) == []


def test_every_rule_is_a_registered_policy_row_of_its_own():
    by_name = {p.name: p for p in POLICIES}
    assert [(r.name, by_name[r.name].catalog) for r in RULES] == [(r.name, r.catalog) for r in RULES]
    assert len({r.catalog for r in RULES}) == len(RULES)
    assert "vllm-max-model-len-fits-kv-cache" not in BY_NAME  # S2 keeps only the KV-cache fit


# --- batched tokens cover seqs -------------------------------------------------------------------------


def test_batched_tokens_below_seqs_is_refused():
    assert rule_of("vllm-batched-tokens-cover-seqs", max_num_seqs=512, max_num_batched_tokens=256) == (
        "maxNumBatchedTokens 256 is below maxNumSeqs 512; vLLM's scheduler config refuses it "
        "(SchedulerConfig: max_num_batched_tokens must be >= max_num_seqs)"
    )
    assert rule_of("vllm-batched-tokens-cover-seqs", max_num_seqs=512, max_num_batched_tokens=512) is None


def test_without_chunked_prefill_a_prompt_must_fit_one_batch():
    assert rule_of("vllm-batched-tokens-cover-seqs", max_num_batched_tokens=4096, chunked_prefill=True) is None
    assert rule_of("vllm-batched-tokens-cover-seqs", max_num_batched_tokens=4096, chunked_prefill=False) == (
        "maxNumBatchedTokens 4,096 is below maxModelLen 8,192 with chunked prefill disabled; vLLM's scheduler config "
        "refuses it (a prompt must fit one batch)"
    )
    assert rule_of("vllm-batched-tokens-cover-seqs", max_num_batched_tokens=8192, chunked_prefill=False) is None


# --- tensor parallel divides the heads ---------------------------------------------------------------


@pytest.mark.parametrize(
    "tp,refused",
    [(1, False), (2, False), (4, False), (8, False), (16, False), (32, False), (3, True), (6, True), (12, True), (64, True)],
)
def test_tp_must_divide_the_attention_heads(tp, refused):
    assert (rule_of("vllm-tp-divides-attention-heads", tensor_parallel_size=tp) is not None) is refused


def test_the_kv_head_term_matters():
    # Qwen2.5-7B: 7 divides its 28 attention heads, but neither 7 divides its 4 KV heads nor 4 divides 7.
    assert rule_of("vllm-tp-divides-attention-heads", QWEN, tensor_parallel_size=7) == (
        "tensorParallelSize 7 and the model's 4 KV heads do not divide one another; vLLM refuses to start"
    )
    # The same TP with 7 KV heads (or 14: TP divides them) starts: only the KV term refused it.
    assert rule_of("vllm-tp-divides-attention-heads", replace(QWEN, num_kv_heads=7), tensor_parallel_size=7) is None
    assert rule_of("vllm-tp-divides-attention-heads", replace(QWEN, num_kv_heads=14), tensor_parallel_size=7) is None
    # More ranks than KV heads replicate them: TP 8 over Llama's 8, TP 16 (8 divides 16) both start.
    assert rule_of("vllm-tp-divides-attention-heads", tensor_parallel_size=16) is None


def test_mla_models_have_no_kv_head_term():
    mla = replace(QWEN, kv_lora_rank=512, qk_rope_head_dim=64)
    assert rule_of("vllm-tp-divides-attention-heads", mla, tensor_parallel_size=7) is None
    assert rule_of("vllm-tp-divides-attention-heads", mla, tensor_parallel_size=3) is not None  # 28 % 3


# --- context within the model's limit ----------------------------------------------------------------


def test_context_above_the_models_limit_is_refused_unless_allowed():
    assert rule_of("vllm-context-within-model-limit", max_model_len=131072) is None
    assert rule_of("vllm-context-within-model-limit", max_model_len=131073) == (
        "maxModelLen 131,073 exceeds the model's maximum of 131,072 tokens; vLLM refuses it "
        "(unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1); lower maxModelLen"
    )
    assert rule_of("vllm-context-within-model-limit", max_model_len=131073, allow_long_max_model_len=True) is None
    # A config.json that states no limit leaves nothing to compare with.
    assert rule_of("vllm-context-within-model-limit", replace(LLAMA, max_model_len_limit=0), max_model_len=10**7) is None


# --- quantization -----------------------------------------------------------------------------------


def test_an_offline_method_needs_a_checkpoint_quantized_with_it():
    assert rule_of("vllm-quantization-supported", quantization="awq") == (
        "--quantization awq needs a checkpoint quantized with it, and this one is bfloat16; use a pre-quantized "
        "checkpoint or --quantization fp8"
    )
    assert rule_of("vllm-quantization-supported", quantization="fp8") is None  # online
    assert rule_of("vllm-quantization-supported", quantization="bitsandbytes") is None  # online
    assert rule_of("vllm-quantization-supported", quantization=None) is None
    # The checkpoint term: the same flag on a quantized checkpoint is read from its config.
    assert rule_of("vllm-quantization-supported", replace(LLAMA, quant_method="awq"), quantization="awq") is None


# --- dtype on the GPU -------------------------------------------------------------------------------


def test_bfloat16_needs_compute_capability_8():
    assert rule_of("vllm-dtype-supported-by-gpu", gpu="T4", compute_capability=(7, 5)) == (
        "dtype bfloat16 needs a GPU of compute capability 8.0 or above, and the T4 has 7.5; vLLM refuses it at "
        'start-up ("Bfloat16 is only supported on GPUs with compute capability of at least 8.0"); use dtype float16'
    )
    assert rule_of("vllm-dtype-supported-by-gpu", gpu="A100-40GB", compute_capability=(8, 0)) is None  # the boundary
    # Each term: float16 or auto on the same GPU start (auto falls back to float16), and an unknown device is not judged.
    assert rule_of("vllm-dtype-supported-by-gpu", dtype="float16", compute_capability=(7, 5)) is None
    assert rule_of("vllm-dtype-supported-by-gpu", dtype="auto", compute_capability=(7, 5)) is None
    assert rule_of("vllm-dtype-supported-by-gpu", compute_capability=None) is None


def test_the_catalogue_gpus_below_bfloat16_are_the_turing_cards():
    # The T4 (g4dn), T4G (g5g) and GeForce RTX 2080 Ti are compute capability 7.5 (hardware.toml); every other catalogue
    # GPU is Ampere or later.
    from components.capacity.gpus import gpu_names

    below = [n for n in gpu_names() if (find_gpu(n).compute_capability or (0, 0)) < (8, 0)]
    assert below == ["RTX-2080-TI", "T4", "T4G"]
    for name in below:  # and the rule refuses bfloat16 on each, reading the record's compute capability
        assert rule_of("vllm-dtype-supported-by-gpu", gpu=name, compute_capability=find_gpu(name).compute_capability)


# --- names --------------------------------------------------------------------------------------------


def test_a_rule_names_each_setting_as_its_reader_spells_it():
    bad = replace(OK, tensor_parallel_size=3)
    assert first_refusal(LLAMA, bad).message.startswith("tensorParallelSize 3 ")
    rule = BY_NAME["vllm-tp-divides-attention-heads"]
    assert rule.refusal(LLAMA, bad, flag_names()).startswith("--tensor-parallel-size 3 ")
    assert rule.refusal(LLAMA, bad, flag_names(engine_kwargs=True)).startswith("tensor_parallel_size 3 ")
    assert set(flag_names()) == set(STACK_NAMES)


def test_each_rule_names_its_field_of_the_stack_file():
    assert {r.name: field_path(r.name, "models[2]") for r in RULES} == {
        "vllm-batched-tokens-cover-seqs": "models[2].engine.maxNumBatchedTokens",
        "vllm-tp-divides-attention-heads": "models[2].engine.tensorParallelSize",
        "vllm-context-within-model-limit": "models[2].engine.maxModelLen",
        "vllm-quantization-supported": "models[2].engine.quantization",
        "vllm-dtype-supported-by-gpu": "models[2].engine.dtype",
    }
    # Each is a key of the model's engine in the stack schema.
    from components.config import EngineConfig

    aliases = {f.alias or n for n, f in EngineConfig.model_fields.items()}
    assert {field_path(r.name, "m").rsplit(".", 1)[1] for r in RULES} <= aliases


# --- the memory plan --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "engine,gpu,rule",
    [
        ({"tensor_parallel_size": 3}, "L40S", "vllm-tp-divides-attention-heads"),
        ({"max_model_len": 262144}, "L40S", "vllm-context-within-model-limit"),
        ({"max_model_len": 8192, "quantization": "awq"}, "L40S", "vllm-quantization-supported"),
        ({"max_model_len": 8192, "max_num_seqs": 512, "max_num_batched_tokens": 256}, "L40S", "vllm-batched-tokens-cover-seqs"),
        ({"max_model_len": 8192, "dtype": "bfloat16"}, T4, "vllm-dtype-supported-by-gpu"),
    ],
)
def test_the_plan_names_the_rule_that_refuses(engine, gpu, rule):
    m = find_model("meta-llama/Llama-3.1-8B-Instruct")
    plan = plan_memory(m.arch, m.checkpoint_bytes, gpu if isinstance(gpu, Gpu) else find_gpu(gpu), EngineArgs(**engine))
    assert (plan.fits, plan.startup_rule) == (False, rule)
    assert (
        plan.reason
        == first_refusal(
            m.arch,
            Settings(
                plan.gpus_per_replica,
                plan.max_model_len,
                plan.max_num_seqs,
                plan.max_num_batched_tokens,
                engine.get("quantization"),
                engine.get("dtype", "auto"),
                plan.gpu,
                getattr(gpu, "compute_capability", (8, 9)),
            ),
        ).message
    )
    assert "startup_rule" not in plan.as_dict()  # the report carries the reason, not the row


def test_the_same_model_on_the_t4_in_float16_is_judged_on_memory_alone():
    m = find_model("meta-llama/Llama-3.1-8B-Instruct")
    plan = plan_memory(m.arch, m.checkpoint_bytes, T4, EngineArgs(max_model_len=8192, dtype="float16"))
    assert plan.startup_rule == "" and plan.reason.startswith("weights need ")  # 15 GiB of weights on a 14.6 GiB card


def test_a_plan_that_fits_names_no_rule():
    m = find_model("meta-llama/Llama-3.1-8B-Instruct")
    plan = plan_memory(m.arch, m.checkpoint_bytes, find_gpu("L40S"), EngineArgs(max_model_len=8192, dtype="bfloat16"))
    assert plan.fits and plan.startup_rule == ""
