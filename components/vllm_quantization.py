"""The least GPU compute capability each vLLM quantization method runs on, by release.

vLLM refuses a quantization method whose QuantizationConfig.get_min_capability() is above the GPU's compute capability
while it builds its config, before any weight is loaded: vllm 0.13.0 wheel ``vllm/config/vllm.py:383-388``, "The
quantization method {method} is not supported for the current GPU. Minimum capability: {min}. Current capability:
{cc}." The Marlin methods also verify the kernel at config time (0.13.0 ``awq_marlin.py:101``
AWQMarlinConfig.__init__ -> ``utils/marlin_utils.py:51`` ``if device_capability < 80`` not supported, ``:122-128``
verify_marlin_supported raises ValueError).

How the table was made: the wheels of vLLM 0.12.0, 0.13.0 and 0.14.0 (``pip download vllm==X --no-deps``), each
``vllm/model_executor/layers/quantization/<file>.py`` get_min_capability read, not run (0.13.0 lines: awq_marlin.py:123,
gptq_marlin.py:183, gptq_marlin_24.py:101, fp8.py:255, fbgemm_fp8.py:64, modelopt.py:325 ModelOptFp8Config,
mxfp4.py:186, experts_int8.py:42, awq.py:73, bitsandbytes.py:83, gptq.py:135; 0.14.0: awq_marlin.py:124 75,
gptq_marlin.py:184 75, fp8.py:152 75). 0.12.0 gives awq_marlin, gptq_marlin and fp8 80, gptq 60, as 0.13.0 does.
0.14.0 brought the Marlin kernels to Turing (vllm-project/vllm#29901 "add marlin kernel support for turing (sm75)"),
which lowered awq_marlin, gptq_marlin and fp8 to 75; the code index's stored version 2ab31a8 of awq_marlin.py (a later
commit) still returns 75. Releases before 0.12.0 were not read: only the Marlin methods are judged there, since the
Marlin kernels needed compute capability 8.0 until #29901 (cp.async: IST-DASLab/marlin#4, and 0.13.0's marlin_utils
above); every other method's row starts at the first release read.
"""

from __future__ import annotations

from typing import Optional

from .vllm_flags import NEWEST_READ, parse_version

# method (the --quantization value) -> ((first release, least compute capability as major*10+minor), ...), by release.
MIN_CAPABILITY: dict[str, tuple[tuple[str, int], ...]] = {
    "awq_marlin": (("0.0.0", 80), ("0.14.0", 75)),
    "gptq_marlin": (("0.0.0", 80), ("0.14.0", 75)),
    "gptq_marlin_24": (("0.0.0", 80),),
    "fp8": (("0.12.0", 80), ("0.14.0", 75)),
    "fbgemm_fp8": (("0.13.0", 80),),
    "modelopt": (("0.13.0", 89),),
    "mxfp4": (("0.13.0", 80),),
    "experts_int8": (("0.13.0", 80),),
    "awq": (("0.12.0", 75),),
    "bitsandbytes": (("0.13.0", 70),),
    "gptq": (("0.12.0", 60),),
}


def min_capability(method: str, release: Optional[str]) -> Optional[int]:
    """The least compute capability (major*10+minor) ``method`` needs in vLLM ``release`` (None: the newest read);
    None when the method is not in the table or the release is older than the table's first for it."""
    rows = MIN_CAPABILITY.get(method.lower())
    if not rows:
        return None
    version = parse_version(release or NEWEST_READ)
    found = None
    for first, least in rows:
        if version >= parse_version(first):
            found = least
    return found
