"""S21: --max-num-batched-tokens must cover --max-num-seqs (and --max-model-len without chunked prefill).

vLLM's scheduler config refuses a token budget per step below the number of sequences it may schedule, and,
with chunked prefill disabled, below max_model_len (a prompt must fit one step). The engine raises while it
builds its config, before it allocates any memory, and the pod restarts in a loop.
The rule and its source: components.capacity.startup; how engines are read: policies.vllm.startup_rules.
"""

from __future__ import annotations

from policies.vllm.startup_rules import startup_policy

POLICY = startup_policy(
    "vllm-batched-tokens-cover-seqs",
    description=(
        "A vLLM engine's --max-num-batched-tokens must be at least --max-num-seqs (and --max-model-len with chunked "
        "prefill disabled)."
    ),
    remediation=(
        "Raise --max-num-batched-tokens to at least --max-num-seqs (and to --max-model-len if chunked prefill is "
        "disabled), or lower --max-num-seqs; leave both unset to take vLLM's defaults for the GPU."
    ),
    rationale=(
        'vLLM raises "max_num_batched_tokens (N) must be greater than or equal to max_num_seqs (M)" while it builds '
        "its scheduler config (vllm/config/scheduler.py SchedulerConfig.verify_max_model_len, v0.33.0 lines 318-336, "
        "https://github.com/vllm-project/vllm/blob/v0.33.0/vllm/config/scheduler.py#L318-L336), so the server never "
        "starts."
    ),
)
