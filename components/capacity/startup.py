"""The checks vLLM makes before it allocates any memory: each one a named rule, read at the release it cites.

A configuration that fails one of these never reaches the memory profile: vLLM raises while it builds
its config, loads the model or initialises the device, and the pod restarts in a loop. The memory plan
(components.capacity.memory) asks :func:`first_refusal` before it judges the KV cache, and the policy
pack reports each rule under its own row (policies/vllm/startup_rules.py; the rule's ``name`` is the
policy's name and ``catalog`` its catalogue id), so that "max-model-len fits the KV cache" (S2) means
only that.

Every rule cites vLLM 0.33.0 (the release the stacks' image tag ``vllm/vllm-openai:v0.33.0`` names),
file and lines as they are in that release's wheel (the same files as the v0.33.0 tag).

A rule's message names each setting through ``names``: the stack file's keys by default
(``tensorParallelSize``), a container's flags (``--tensor-parallel-size``) or Ray Serve LLM's
``engine_kwargs`` (``tensor_parallel_size``) when a policy reads those (:func:`flag_names`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Mapping, Optional

from ..capacity.architecture import Architecture
from ..hardware import supported_dtypes

# Methods vLLM applies to a 16-bit checkpoint while loading it, with the bytes per linear-layer
# parameter they leave (embeddings stay 16-bit); the other methods need a checkpoint already
# quantized with them.
ONLINE_QUANTIZATION = {"fp8": 1.0, "bitsandbytes": 0.5}

# The settings a rule names, by vLLM's flag name: how the stack file spells each.
STACK_NAMES: Mapping[str, str] = {
    "max-num-batched-tokens": "maxNumBatchedTokens",
    "max-num-seqs": "maxNumSeqs",
    "tensor-parallel-size": "tensorParallelSize",
    "max-model-len": "maxModelLen",
    "quantization": "--quantization",
    "dtype": "dtype",
}


# The stack file's key of each setting, under a model's ``engine``.
STACK_KEYS: Mapping[str, str] = {
    "max-num-batched-tokens": "maxNumBatchedTokens",
    "max-num-seqs": "maxNumSeqs",
    "tensor-parallel-size": "tensorParallelSize",
    "max-model-len": "maxModelLen",
    "quantization": "quantization",
    "dtype": "dtype",
}


def field_path(rule_name: str, model_path: str) -> str:
    """The stack file's field a rule's refusal is about: ``models[0].engine.dtype`` for the dtype rule of models[0]."""
    return f"{model_path}.engine.{STACK_KEYS[BY_NAME[rule_name].setting]}"


def flag_names(engine_kwargs: bool = False) -> Mapping[str, str]:
    """How a container's command line (``--max-model-len``) or Ray Serve LLM's engine_kwargs (``max_model_len``)
    spell the settings the rules name."""
    if engine_kwargs:
        return {flag: flag.replace("-", "_") for flag in STACK_NAMES}
    return {flag: f"--{flag}" for flag in STACK_NAMES}


@dataclass(frozen=True)
class Settings:
    """What the start-up checks read: the engine's settings after vLLM filled in its defaults."""

    tensor_parallel_size: int
    max_model_len: int
    max_num_seqs: int
    max_num_batched_tokens: int
    quantization: Optional[str] = None
    dtype: str = "auto"
    # The GPU, for the device checks: its name and (major, minor); None where the device is unknown.
    gpu: str = ""
    compute_capability: Optional[tuple[int, int]] = None
    # --no-enable-chunked-prefill: a prompt must then fit one batch.
    chunked_prefill: bool = True
    # VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 in the server's environment (another engine's variable: override_env).
    allow_long_max_model_len: bool = False
    # The engine these settings are for, as messages name it, and the variable that lifts its context limit
    # (components/serving_engines.toml display and context_override_env; vLLM's by default).
    engine: str = "vLLM"
    override_env: str = "VLLM_ALLOW_LONG_MAX_MODEL_LEN"
    # False where the engine cannot replicate KV heads over more ranks than it has (TGI: both head counts must be
    # divisible by the shard count); vLLM and SGLang replicate them.
    kv_heads_replicated: bool = True
    # The vLLM release the image names ("0.4.3"), for the rules whose outcome changed between releases; None where
    # no release is named (the rules then follow the release this module cites).
    release: Optional[str] = None


Check = Callable[[Architecture, Settings, Mapping[str, str]], Optional[str]]


@dataclass(frozen=True)
class StartupRule:
    """One check vLLM makes before it allocates memory: the policy row it is reported under, the setting it
    names and where vLLM makes it."""

    name: str
    catalog: str
    setting: str  # the flag name of the setting a refusal is about ("tensor-parallel-size")
    source: str
    check: Check

    def refusal(self, arch: Architecture, settings: Settings, names: Mapping[str, str] = STACK_NAMES) -> Optional[str]:
        """Why vLLM refuses ``settings`` for ``arch`` under this rule, or None."""
        return self.check(arch, settings, names)


def _batched_tokens(arch: Architecture, s: Settings, names: Mapping[str, str]) -> Optional[str]:
    tokens, seqs = names["max-num-batched-tokens"], names["max-num-seqs"]
    if s.max_num_batched_tokens < s.max_num_seqs:
        return (
            f"{tokens} {s.max_num_batched_tokens:,} is below {seqs} {s.max_num_seqs:,}; vLLM's scheduler config refuses it "
            f"(SchedulerConfig: max_num_batched_tokens must be >= max_num_seqs)"
        )
    if not s.chunked_prefill and s.max_num_batched_tokens < s.max_model_len:
        return (
            f"{tokens} {s.max_num_batched_tokens:,} is below {names['max-model-len']} {s.max_model_len:,} with chunked "
            f"prefill disabled; vLLM's scheduler config refuses it (a prompt must fit one batch)"
        )
    return None


def unsharded_heads(arch: Architecture, tp: int, replicate_kv: bool = True) -> Optional[str]:
    """The heads tensor parallel size ``tp`` cannot shard, "attention" or "kv", or None: S22's test, kept here once.

    vLLM divides the attention heads over the TP ranks, and the KV heads too or replicates them (TP a
    multiple of them); MLA models keep one latent KV, which any TP takes. The sources are S22's in RULES.
    An engine that does not replicate KV heads (``replicate_kv`` False: TGI) needs TP to divide them too.
    """
    if arch.num_attention_heads % tp:
        return "attention"
    if not arch.is_mla and arch.num_kv_heads % tp and (not replicate_kv or tp % arch.num_kv_heads):
        return "kv"
    return None


def _tp_divides_heads(arch: Architecture, s: Settings, names: Mapping[str, str]) -> Optional[str]:
    tp = s.tensor_parallel_size
    heads = unsharded_heads(arch, tp, s.kv_heads_replicated)
    if heads == "attention":
        return (
            f"{names['tensor-parallel-size']} {tp} does not divide the model's {arch.num_attention_heads} attention heads; "
            f"{s.engine} refuses to start (use a divisor)"
        )
    if heads == "kv" and not s.kv_heads_replicated:
        return (
            f"{names['tensor-parallel-size']} {tp} does not divide the model's {arch.num_kv_heads} KV heads; "
            f"{s.engine} refuses to start (it shards KV heads without replicating them)"
        )
    if heads == "kv":
        return (
            f"{names['tensor-parallel-size']} {tp} and the model's {arch.num_kv_heads} KV heads do not divide one another; "
            f"{s.engine} refuses to start"
        )
    return None


def _context_within_limit(arch: Architecture, s: Settings, names: Mapping[str, str]) -> Optional[str]:
    limit = arch.max_model_len_limit
    if not limit or s.max_model_len <= limit or s.allow_long_max_model_len:
        return None
    name = names["max-model-len"]
    return (
        f"{name} {s.max_model_len:,} exceeds the model's maximum of {limit:,} tokens; "
        f"{s.engine} refuses it (unless {s.override_env}=1); lower {name}"
    )


# Offline methods by the checkpoint format each reads: a method of one family never loads another's checkpoint. vLLM
# accepts a method that overrides the checkpoint's (gptq_marlin for gptq, awq_marlin for awq, moe_wna16 and inc for
# either: config/model.py _verify_quantization, 0.33.0 lines 1391-1447, each method's override_quantization_method)
# and otherwise raises "Quantization method specified in the model config (<checkpoint's>) does not match the
# quantization method specified in the `quantization` argument (<asked>)" (lines 1451-1461). A method outside these
# families (moe_wna16, inc, compressed-tensors, ...) is not judged.
QUANTIZATION_FAMILIES: Mapping[str, frozenset[str]] = {
    "awq": frozenset({"awq", "auto_awq", "awq_marlin"}),
    "gptq": frozenset({"gptq", "auto_gptq", "gptq_marlin", "gptq_marlin_24", "gptq_bitblas"}),
}


def _family(method: str) -> Optional[str]:
    return next((name for name, members in QUANTIZATION_FAMILIES.items() if method in members), None)


def _quantization_supported(arch: Architecture, s: Settings, names: Mapping[str, str]) -> Optional[str]:
    method = s.quantization.lower() if s.quantization else None
    if not method or method in ONLINE_QUANTIZATION:
        return None
    if arch.quant_method is not None:
        asked, held = _family(method), _family(arch.quant_method.lower())
        if asked is None or held is None or asked == held:
            return None  # an override vLLM may accept, or a method this rule does not know
        return (
            f"{names['quantization']} {method} does not match the checkpoint's {arch.quant_method} quantization; vLLM "
            f'refuses it ("Quantization method specified in the model config ... does not match"); drop '
            f"{names['quantization']} (vLLM reads the checkpoint's method)"
        )
    return (
        f"{names['quantization']} {method} needs a checkpoint quantized with it, and this one is "
        f"{arch.checkpoint_dtype}; use a pre-quantized checkpoint or {names['quantization']} fp8"
    )


# The first vLLM release whose dtype "auto" falls back to float16 on a GPU without bfloat16: 0.9.0
# vllm/config.py _get_and_verify_dtype, lines 3084-3100 ("Deal with torch dtype fallback for device compatibility":
# a dtype outside current_platform.supported_dtypes becomes supported_dtypes[0]). Before it, "auto" keeps a bfloat16
# checkpoint's dtype (0.8.5 vllm/config.py lines 2903-2908; 0.4.3 vllm/config.py lines 1126-1133) and the worker
# refuses it on the device (0.4.3 vllm/worker/worker.py _check_if_gpu_supports_dtype, lines 353-363).
AUTO_DTYPE_FALLBACK_RELEASE = (0, 9, 0)


def _auto_keeps_bfloat16(arch: Architecture, s: Settings) -> bool:
    """True when --dtype auto runs a bfloat16 checkpoint in bfloat16 whatever the GPU: a release before the fallback."""
    if s.dtype.lower() != "auto" or arch.checkpoint_dtype != "bfloat16" or not s.release:
        return False
    return tuple(int(p) for p in re.findall(r"\d+", s.release)[:3]) < AUTO_DTYPE_FALLBACK_RELEASE


def _bfloat16_on_gpu(arch: Architecture, s: Settings, names: Mapping[str, str]) -> Optional[str]:
    # An explicit bfloat16, or auto on a bfloat16 checkpoint before 0.9.0: from 0.9.0 auto falls back to float16 on
    # such a GPU, with a warning (config/model.py _resolve_auto_dtype, 0.33.0 lines 2423-2462).
    cc = s.compute_capability
    auto = _auto_keeps_bfloat16(arch, s)
    # Which dtypes a compute capability runs is vLLM's rule, kept once in hardware.supported_dtypes.
    if (s.dtype.lower() != "bfloat16" and not auto) or cc is None or "bfloat16" in supported_dtypes(cc):
        return None
    name = names["dtype"]
    written = (
        f"{name} auto keeps the checkpoint's bfloat16 in vLLM {s.release} (the fallback to float16 came in 0.9.0), and bfloat16"
        if auto
        else f"{name} bfloat16"
    )
    return (
        f"{written} needs a GPU of compute capability 8.0 or above, and the {s.gpu or 'GPU'} has "
        f'{cc[0]}.{cc[1]}; vLLM refuses it at start-up ("Bfloat16 is only supported on GPUs with compute '
        f'capability of at least 8.0"); use {name} float16'
    )


# vLLM meets these in different places (the scheduler config, the model config, the model's layers, the worker's
# device), so no single order is vLLM's: the plan reports the first of this tuple (the order it always checked
# them in), and each policy row reports its own rule.
RULES: tuple[StartupRule, ...] = (
    StartupRule(
        "vllm-batched-tokens-cover-seqs",
        "S21",
        "max-num-batched-tokens",
        "vllm/config/scheduler.py SchedulerConfig.verify_max_model_len, 0.33.0 lines 318-336: max_num_batched_tokens "
        "below max_num_seqs raises ValueError, and below max_model_len when chunked prefill is disabled",
        _batched_tokens,
    ),
    StartupRule(
        "vllm-tp-divides-attention-heads",
        "S22",
        "tensor-parallel-size",
        'vllm/config/model.py ModelConfig.verify_with_parallel_config, 0.33.0 lines 1557-1564: "Total number of '
        'attention heads (N) must be divisible by tensor parallel size"; KV heads: '
        "vllm/model_executor/layers/linear.py QKVParallelLinear.__init__, lines 1065-1071, divide() of KV heads by TP "
        "or TP by KV heads (vllm/distributed/utils.py lines 51-55 and 130-134 assert divisibility)",
        _tp_divides_heads,
    ),
    StartupRule(
        "vllm-context-within-model-limit",
        "S23",
        "max-model-len",
        "vllm/config/model.py _get_and_verify_max_len, 0.33.0 lines 2657-2683: a max_model_len above the length "
        "derived from config.json raises ValueError unless VLLM_ALLOW_LONG_MAX_MODEL_LEN (vllm/envs.py lines "
        '1115-1118: "1" or "true")',
        _context_within_limit,
    ),
    StartupRule(
        "vllm-quantization-supported",
        "S24",
        "quantization",
        "vllm/model_executor/model_loader/weight_utils.py get_quant_config, 0.33.0 lines 374-380: a --quantization "
        'that is not an online method, on a checkpoint without a quantization config, raises "Cannot find the '
        'config file for <method>"',
        _quantization_supported,
    ),
    StartupRule(
        "vllm-dtype-supported-by-gpu",
        "S25",
        "dtype",
        "vllm/platforms/cuda.py CudaPlatformBase.check_if_supports_dtype, 0.33.0 lines 638-656, called by "
        "vllm/v1/worker/gpu_worker.py Worker.init_device, line 498, before the memory snapshot: bfloat16 below "
        "compute capability 8.0 raises ValueError",
        _bfloat16_on_gpu,
    ),
)
BY_NAME: Mapping[str, StartupRule] = {rule.name: rule for rule in RULES}


@dataclass(frozen=True)
class Refusal:
    """A rule vLLM would refuse the settings under, and its message."""

    rule: StartupRule
    message: str


def refusals(arch: Architecture, settings: Settings, names: Mapping[str, str] = STACK_NAMES) -> list[Refusal]:
    """Every rule ``settings`` break for ``arch``, in the order of RULES."""
    found = []
    for rule in RULES:
        message = rule.refusal(arch, settings, names)
        if message is not None:
            found.append(Refusal(rule, message))
    return found


def first_refusal(arch: Architecture, settings: Settings) -> Optional[Refusal]:
    """The first rule of RULES that ``settings`` break for ``arch``, or None: the reason a plan gives."""
    found = refusals(arch, settings)
    return found[0] if found else None
