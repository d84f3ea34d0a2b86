"""S24: --quantization must be an online method or the method the checkpoint was quantized with.

Most quantization methods (AWQ, GPTQ, ...) need a checkpoint produced by them; on a 16-bit checkpoint vLLM
looks for the method's config file and refuses to load. Only the online methods (fp8, bitsandbytes) quantize a
16-bit checkpoint while loading it.
The rule and its source: components.capacity.startup; how engines are read: policies.vllm.startup_rules.
"""

from __future__ import annotations

from policies.vllm.startup_rules import startup_policy

POLICY = startup_policy(
    "vllm-quantization-supported",
    description=(
        "A vLLM engine's --quantization must be an online method (fp8, bitsandbytes) unless the checkpoint is quantized."
    ),
    remediation=(
        "Drop --quantization (vLLM reads the method from a quantized checkpoint), serve a checkpoint quantized with "
        "the method, or use --quantization fp8 to quantize a 16-bit checkpoint while loading it."
    ),
    rationale=(
        'vLLM raises "Cannot find the config file for <method>" when a 16-bit checkpoint is loaded with an offline '
        "method (vllm/model_executor/model_loader/weight_utils.py get_quant_config, v0.33.0 lines 374-380, "
        "https://github.com/vllm-project/vllm/blob/v0.33.0/vllm/model_executor/model_loader/weight_utils.py#L374-L380)."
    ),
)
