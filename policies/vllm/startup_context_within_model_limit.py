"""S23: --max-model-len must not exceed the model's own maximum context.

vLLM derives the longest context a model supports from its config.json (max_position_embeddings and rope
scaling) and refuses a --max-model-len above it unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 is set, which vLLM
itself warns leads to NaNs or out-of-bounds errors past the trained positions.
The rule and its source: components.capacity.startup; how engines are read: policies.vllm.startup_rules.
"""

from __future__ import annotations

from policies.vllm.startup_rules import startup_policy

POLICY = startup_policy(
    "vllm-context-within-model-limit",
    description=(
        "A vLLM engine's --max-model-len must not exceed the model's maximum context (unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1)."
    ),
    remediation=(
        "Lower --max-model-len to the model's maximum (config.json max_position_embeddings, times its rope scaling "
        "factor), or serve a long-context variant of the model."
    ),
    rationale=(
        'vLLM raises "User-specified max_model_len (N) is greater than the derived max_model_len" '
        "(vllm/config/model.py _get_and_verify_max_len, v0.33.0 lines 2657-2683, "
        "https://github.com/vllm-project/vllm/blob/v0.33.0/vllm/config/model.py#L2657-L2683) unless "
        "VLLM_ALLOW_LONG_MAX_MODEL_LEN is 1 or true."
    ),
)
