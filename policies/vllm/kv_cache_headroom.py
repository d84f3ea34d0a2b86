"""S1 (budget part): warn when the memory budget leaves too little KV cache to serve well.

A model can start with a KV cache of a few hundred MiB and still be useless: every long request
preempts the others. The band of S1 (gpu-memory-utilization-bounds) says nothing about that;
this advisory check reads the predicted budget instead (components.capacity.memory).
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, fmt_number
from policies.reading.vllm_args import vllm_servers
from policies.reading.vllm_capacity import server_plan


def _check(resource: Resource, config: dict) -> list[str]:
    floor = float(config["minKvCacheGib"])
    messages = []
    for server in vllm_servers(resource):
        found = server_plan(resource, server)
        if found is None or not found.plan.fits:
            continue  # S2 reports models that do not start at all
        p = found.plan
        if p.kv_cache_gib < floor:
            messages.append(
                f"{server.label}: --gpu-memory-utilization={p.budget_gib / p.gpu_memory_gib:.2f} leaves {p.kv_cache_gib:.2f} GiB "
                f"of KV cache per GPU ({p.kv_cache_tokens:,} tokens) on {p.gpu}, below {fmt_number(floor)} GiB; "
                f"raise the utilization or tensorParallelSize, or use an fp8 KV cache"
            )
    return messages


POLICY = Policy(
    name="vllm-kv-cache-headroom",
    description="The GPU memory budget should leave at least a configured KV cache per GPU (default 2 GiB).",
    catalog="S1",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Check the budget with `python -m stacks size`; raise --gpu-memory-utilization within S1's band, spread the "
        "model over more GPUs, or use --kv-cache-dtype fp8."
    ),
    config_schema={
        "minKvCacheGib": {
            "type": "number",
            "minimum": 0,
            "default": 2,
            "description": "Least KV cache per GPU, GiB, before the budget counts as too tight (default 2).",
        },
    },
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "A model that starts with a few hundred MiB of KV cache preempts requests as soon as two long ones overlap "
        "(https://docs.vllm.ai/en/latest/configuration/optimization.html#preemption); the utilization band says nothing "
        "about that, the predicted KV cache does."
    ),
)
