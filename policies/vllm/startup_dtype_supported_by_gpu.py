"""S25: --dtype bfloat16 needs a GPU of compute capability 8.0 or above.

bfloat16 arithmetic needs Ampere (compute capability 8.0) or later: on a T4 or V100 vLLM refuses an explicit
--dtype bfloat16 while it initialises the device, before the memory profile (with --dtype auto it falls back
to float16 with a warning instead). The GPU is the one the pod pins (the llm-serving.io/gpu annotation, else
its node selection).
The rule and its source: components.capacity.startup; how engines are read: policies.vllm.startup_rules.
"""

from __future__ import annotations

from policies.vllm.startup_rules import startup_policy

POLICY = startup_policy(
    "vllm-dtype-supported-by-gpu",
    description=("A vLLM engine's --dtype bfloat16 needs a GPU of compute capability 8.0 or above."),
    remediation=(
        "Use --dtype float16 (or auto) on GPUs below compute capability 8.0 (T4, V100), or pin the pod to an Ampere or later GPU."
    ),
    rationale=(
        'vLLM raises "Bfloat16 is only supported on GPUs with compute capability of at least 8.0" '
        "(vllm/platforms/cuda.py check_if_supports_dtype, v0.33.0 lines 638-656, called by "
        "vllm/v1/worker/gpu_worker.py Worker.init_device, line 498, "
        "https://github.com/vllm-project/vllm/blob/v0.33.0/vllm/platforms/cuda.py#L638-L656)."
    ),
)
