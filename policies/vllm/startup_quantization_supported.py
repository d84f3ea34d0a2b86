"""S24: --quantization must be an online method or the method the checkpoint was quantized with, and run on the GPU.

Most quantization methods (AWQ, GPTQ, ...) need a checkpoint produced by them; on a 16-bit checkpoint vLLM
looks for the method's config file and refuses to load. Only the online methods (fp8, bitsandbytes) quantize a
16-bit checkpoint while loading it.
The rule and its source: components.capacity.startup; how engines are read: policies.vllm.startup_rules.
A method whose least compute capability at the image's release is above the pinned GPU's is refused too, whatever
the model (policies/vllm/quantization_on_gpu.py).
"""

from __future__ import annotations

import dataclasses

from policies.framework import Resource
from policies.vllm.quantization_on_gpu import gpu_findings
from policies.vllm.startup_rules import startup_policy

_RULE = startup_policy(
    "vllm-quantization-supported",
    description=(
        "A vLLM engine's --quantization must be an online method (fp8, bitsandbytes) unless the checkpoint is "
        "quantized, and a method the pinned GPU runs at the image's vLLM release (awq_marlin, gptq_marlin and fp8 need "
        "compute capability 8.0 before vLLM 0.14, 7.5 from it)."
    ),
    remediation=(
        "Drop --quantization (vLLM reads the method from a quantized checkpoint), serve a checkpoint quantized with "
        "the method, or use --quantization fp8 to quantize a 16-bit checkpoint while loading it. On an older GPU use "
        "a method it runs (awq on a T4 before vLLM 0.14), move to vLLM 0.14 or later, or pin a newer GPU."
    ),
    rationale=(
        'vLLM raises "Cannot find the config file for <method>" when a 16-bit checkpoint is loaded with an offline '
        "method (vllm/model_executor/model_loader/weight_utils.py get_quant_config, v0.33.0 lines 374-380, "
        "https://github.com/vllm-project/vllm/blob/v0.33.0/vllm/model_executor/model_loader/weight_utils.py#L374-L380); "
        "and raises before loading when the method's get_min_capability() is above the GPU's (vllm 0.13.0 "
        "vllm/config/vllm.py:383-388; the minimums per release in components/vllm_quantization.py, read from the "
        "0.12.0, 0.13.0 and 0.14.0 wheels: Marlin on Turing from 0.14, vllm-project/vllm#29901)."
    ),
)


def _check(resource: Resource, config: dict) -> list[str]:
    assert _RULE.check_resource is not None
    return [*_RULE.check_resource(resource, config), *gpu_findings(resource)]


POLICY = dataclasses.replace(_RULE, check_resource=_check)
