"""S22: --tensor-parallel-size must divide the model's attention heads, and divide or be divided by its KV heads.

Tensor parallelism splits the attention heads evenly over the ranks: vLLM refuses a size that does not divide
them while it checks the model against the parallel config, and the QKV projection refuses one that neither
divides nor is divided by the KV heads while the model is built, before any memory is allocated.
The rule and its source: components.capacity.startup; how engines are read: policies.vllm.startup_rules.
"""

from __future__ import annotations

from components.capacity.startup import BY_NAME
from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES
from policies.vllm.startup_rules import startup_findings

RULE = BY_NAME["vllm-tp-divides-attention-heads"]


def _check(resource: Resource, config: dict) -> list[str]:
    return startup_findings(resource, RULE)


POLICY = Policy(
    name=RULE.name,
    description=(
        "A vLLM engine's --tensor-parallel-size must divide the model's attention heads (and divide or be divided by "
        "its KV heads)."
    ),
    catalog=RULE.catalog,
    severity="critical",
    enforcement="mandatory",
    remediation_steps=(
        "Use a --tensor-parallel-size that divides the model's attention heads (1, 2, 4 or 8 for most models) and its "
        "KV heads, and set the GPU limit to match (vllm-tp-matches-gpu-limit); spread further with "
        "--pipeline-parallel-size."
    ),
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        'vLLM raises "Total number of attention heads (N) must be divisible by tensor parallel size (M)" '
        "(vllm/config/model.py ModelConfig.verify_with_parallel_config, v0.33.0 lines 1557-1564, "
        "https://github.com/vllm-project/vllm/blob/v0.33.0/vllm/config/model.py#L1557-L1564) and QKVParallelLinear "
        "divides the KV heads by TP or TP by the KV heads (vllm/model_executor/layers/linear.py lines 1065-1071), so "
        "a size like 3 or 6 never starts."
    ),
)
