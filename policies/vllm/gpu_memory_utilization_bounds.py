"""S1: keep vLLM's `--gpu-memory-utilization` inside a safe band.

Too high and the rest of the device cannot hold what vLLM does not budget for (CUDA graphs in
older releases, other processes, NCCL buffers): the engine OOMs at startup or under load
(vllm_memory_model.md §1). Too low and little or no KV cache is left: "No available memory
for the cache blocks. Try increasing `gpu_memory_utilization`" (vllm-project/vllm#2248).
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, as_float, fmt_number
from policies.vllm.args import vllm_servers

FLAG = "gpu-memory-utilization"
# vLLM 0.33 `config/cache.py`: CacheConfig.gpu_memory_utilization = Field(default=0.92, ...)
VLLM_DEFAULT = 0.92

_TOO_HIGH = ("CUDA graphs, NCCL buffers and other processes need the rest of the GPU, "
             "or the engine runs out of memory (vllm_memory_model.md §1)")
_TOO_LOW = ("too little is left for the KV cache: \"No available memory for the cache blocks\" "
            "(vllm-project/vllm#2248)")


def _check(resource: Resource, config: dict) -> list[str]:
    low, high = float(config["min"]), float(config["max"])
    messages = []
    for server in vllm_servers(resource):
        if FLAG in server.args:
            raw = server.args[FLAG]
            shown = f"--{FLAG}={raw}" if raw is not None else f"--{FLAG} (no value)"
            value = as_float(raw)
            if value is None:
                messages.append(f"{server.label}: {shown} is not a number")
                continue
        else:
            shown = f"--{FLAG} is not set, so vLLM 0.33 uses its default {VLLM_DEFAULT} (config/cache.py), which"
            value = VLLM_DEFAULT
        if value > high:
            messages.append(f"{server.label}: {shown} is above the maximum {fmt_number(high)}; {_TOO_HIGH}")
        elif value < low:
            messages.append(f"{server.label}: {shown} is below the minimum {fmt_number(low)}; {_TOO_LOW}")
    return messages


POLICY = Policy(
    name="vllm-gpu-memory-utilization-bounds",
    description="vLLM's --gpu-memory-utilization must lie within a configured band (default 0.80 to 0.95).",
    catalog="S1",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Set --gpu-memory-utilization explicitly on the vLLM container, between `min` and `max` "
        "(default 0.80-0.95). Lower it if a sidecar shares the GPU or startup OOMs during CUDA-graph "
        "capture; raise it if vLLM reports no memory for KV cache blocks. Size it with "
        "`python -m stacks size` rather than by trial and error."),
    config_schema={
        "min": {"type": "number", "exclusiveMinimum": 0, "maximum": 1, "default": 0.80,
                "description": "Lowest allowed fraction of GPU memory for vLLM (default 0.80)."},
        "max": {"type": "number", "exclusiveMinimum": 0, "maximum": 1, "default": 0.95,
                "description": "Highest allowed fraction of GPU memory for vLLM (default 0.95)."},
    },
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
)
