"""S1 (unset case): say so when vLLM is left at its default --gpu-memory-utilization.

The default changed between releases (0.90, then 0.92 from vLLM 0.20), so an image bump changes
the memory budget, the KV cache and the concurrency without any manifest change; and a sidecar
or a second process on the GPU has nothing left. The band itself is checked by
vllm-gpu-memory-utilization-bounds.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES
from policies.reading.serving import engine_configs
from policies.vllm.engine_defaults import default_utilization, release_image

FLAG = "gpu-memory-utilization"


def _check(resource: Resource, config: dict) -> list[str]:
    messages = []
    for engine in engine_configs(resource):
        if FLAG in engine.args:
            continue
        value, release = default_utilization(*release_image(engine))
        shown = "gpu_memory_utilization" if engine.extra else f"--{FLAG}"
        messages.append(
            f"{engine.label}: {shown} is not set, so vLLM takes its default {value} ({release}); the KV "
            f"cache then changes with the image tag; set it explicitly"
        )
    return messages


POLICY = Policy(
    name="vllm-gpu-memory-utilization-explicit",
    description="vLLM's --gpu-memory-utilization should be set explicitly rather than left at the release's default.",
    catalog="S1",
    severity="low",
    enforcement="advisory",
    remediation_steps=(
        "Set --gpu-memory-utilization (Ray Serve LLM: engine_kwargs.gpu_memory_utilization) to the value the "
        "capacity plan was made with, inside vllm-gpu-memory-utilization-bounds' band; "
        "`python -m stacks size --gpu-memory-utilization ...` shows what it leaves for the KV cache."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "vLLM sizes the KV cache from total memory x gpu_memory_utilization (https://docs.vllm.ai/en/latest/configuration/conserving_memory.html). "
        "The default is 0.92 in current releases (vllm/config/cache.py) and was 0.9 before, so an unset flag makes "
        "the budget depend on the image tag."
    ),
)
