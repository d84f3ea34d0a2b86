"""S25: --dtype bfloat16 needs a GPU of compute capability 8.0 or above.

bfloat16 arithmetic needs Ampere (compute capability 8.0) or later: on a T4 or V100 vLLM refuses an explicit
--dtype bfloat16 while it initialises the device, before the memory profile. With --dtype auto vLLM 0.9.0 and later
fall back to float16 with a warning (0.9.0 vllm/config.py:3084-3100); earlier releases keep a bfloat16 checkpoint's
dtype (0.4.3 vllm/config.py:1126-1133) and refuse it the same way, which the rule reports where the image is
vllm/vllm-openai at such a release. The GPU is the one the pod pins (the llm-serving.io/gpu annotation, else
its node selection). A model read from a local path whose folder is named after a catalogue model
(/mnt/models/Qwen2.5-0.5B-Instruct) is judged as that model, as advice: the files at the path are not shown.
The rule and its source: components.capacity.startup; how engines are read: policies.vllm.startup_rules.
"""

from __future__ import annotations

from policies.vllm.startup_rules import startup_policy

POLICY = startup_policy(
    "vllm-dtype-supported-by-gpu",
    description=(
        "A vLLM engine's --dtype bfloat16 (or auto on a bfloat16 checkpoint before vLLM 0.9.0) needs a GPU of compute "
        "capability 8.0 or above."
    ),
    remediation=(
        "Use --dtype float16 (or auto) on GPUs below compute capability 8.0 (T4, V100), or pin the pod to an Ampere or later GPU."
    ),
    rationale=(
        'vLLM raises "Bfloat16 is only supported on GPUs with compute capability of at least 8.0" '
        "(vllm/platforms/cuda.py check_if_supports_dtype, v0.33.0 lines 638-656, called by "
        "vllm/v1/worker/gpu_worker.py Worker.init_device, line 498, "
        "https://github.com/vllm-project/vllm/blob/v0.33.0/vllm/platforms/cuda.py#L638-L656). Before 0.9.0, --dtype "
        "auto keeps a bfloat16 checkpoint's dtype (0.4.3 vllm/config.py _get_and_verify_dtype, lines 1126-1133) and the "
        "worker refuses it (0.4.3 vllm/worker/worker.py _check_if_gpu_supports_dtype, lines 353-363); 0.9.0 falls back "
        "to float16 (vllm/config.py lines 3084-3100)."
    ),
)
