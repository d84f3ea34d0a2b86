"""S22: --tensor-parallel-size must divide the model's attention heads, and divide or be divided by its KV heads.

Tensor parallelism splits the attention heads evenly over the ranks: vLLM refuses a size that does not divide
them while it checks the model against the parallel config, and the QKV projection refuses one that neither
divides nor is divided by the KV heads while the model is built, before any memory is allocated.
The rule and its source: components.capacity.startup; how engines are read: policies.vllm.startup_rules.
"""

from __future__ import annotations

from policies.vllm.startup_rules import startup_policy

POLICY = startup_policy(
    "vllm-tp-divides-attention-heads",
    description=(
        "A vLLM engine's --tensor-parallel-size must divide the model's attention heads (and divide or be divided by "
        "its KV heads)."
    ),
    remediation=(
        "Use a --tensor-parallel-size that divides the model's attention heads (1, 2, 4 or 8 for most models) and its "
        "KV heads, and set the GPU limit to match (vllm-tp-matches-gpu-limit); spread further with "
        "--pipeline-parallel-size."
    ),
    rationale=(
        'vLLM raises "Total number of attention heads (N) must be divisible by tensor parallel size (M)" '
        "(vllm/config/model.py ModelConfig.verify_with_parallel_config, v0.33.0 lines 1557-1564, "
        "https://github.com/vllm-project/vllm/blob/v0.33.0/vllm/config/model.py#L1557-L1564) and QKVParallelLinear "
        "divides the KV heads by TP or TP by the KV heads (vllm/model_executor/layers/linear.py lines 1065-1071), so "
        "a size like 3 or 6 never starts."
    ),
)
