"""Whether a vLLM server's weights fit any GPU, when nothing pins the GPU it lands on (S2).

The capacity plan (policies/reading/vllm_capacity.py) needs the GPU type; a pod that pins none still has to hold its
weights, split over tensor x pipeline parallel GPUs, in gpu_memory_utilization of one GPU. Their size is the model
catalogue's checkpoint (components/capacity/models.py), else a lower bound read from the Hub id: its parameter count
(``Llama-3-70B``: 70e9; an active-parameter token such as ``A3B`` and an ``8x7B`` expert count are not read) times the
bytes of its weights (2 for 16-bit, 1 for fp8/int8, 0.5 for AWQ/GPTQ/int4 named in the id or by --quantization), else
components/model_weights.toml (families whose id names no size). Above the largest GPU of the catalogue
(components/capacity/gpus.py) no node can hold them; above the largest GPU of the 80-96 GB class (H100, A100-80GB,
RTX PRO 6000) only H200/B200/B300-class GPUs can, which the pod does not ask for (it selects no GPU at all): a risk,
reported advisory.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any, Optional

from components import model_weights
from components.capacity.architecture import ArchitectureError
from components.capacity.gpus import gpu_names, gpu_spec
from components.capacity.models import UnknownModel, find_model
from policies.kube import as_float, as_int
from policies.reading.gpu_selection import pinned_gpu
from policies.reading.vllm_args import VllmServer, served_model

GIB = 1024**3
# The 80-96 GB class most clusters have: the largest catalogue GPU below this many GiB bounds it.
_COMMON_CLASS_GIB = 100.0
_SIZE = re.compile(r"(?<![\w.])(\d{1,4}(?:\.\d{1,3})?)([bt])(?![a-z0-9])")
_HALF_BYTE = re.compile(r"(?<![a-z0-9])(awq|gptq|int4|4bit|w4a16|w4a8|nf4|bnb-4bit|mxfp4|nvfp4)(?![a-z0-9])")
_ONE_BYTE = re.compile(r"(?<![a-z0-9])(fp8|int8|8bit|w8a8|w8a16)(?![a-z0-9])")
_HALF_QUANT = {"awq", "awq_marlin", "gptq", "gptq_marlin", "bitsandbytes", "mxfp4", "modelopt_fp4"}
_ONE_QUANT = {"fp8", "fbgemm_fp8", "modelopt", "experts_int8"}


@dataclass(frozen=True)
class WeightsEstimate:
    """The weights of one server's model and how they were sized."""

    model_id: str
    gib: float
    exact: bool  # the catalogue's checkpoint (True) or a lower bound read from the id or the table (False)
    how: str


@cache
def _table() -> tuple[tuple[str, float], ...]:
    return tuple((row.prefix, row.gb) for row in model_weights.load())  # each row checked (components/table_rows.py)


@cache
def _gpu_bounds() -> tuple[tuple[str, float], tuple[str, float]]:
    """(largest GPU, largest GPU of the common class) as (name, GiB)."""
    sizes = sorted((gpu_spec(n).memory_gib, n) for n in gpu_names())
    common = [s for s in sizes if s[0] < _COMMON_CLASS_GIB]
    return (sizes[-1][1], sizes[-1][0]), (common[-1][1], common[-1][0])


def _bytes_per_param(model_id: str, quantization: str) -> float:
    if quantization in _HALF_QUANT:
        return 0.5
    if quantization in _ONE_QUANT:
        return 1.0
    if _HALF_BYTE.search(model_id):
        return 0.5
    if _ONE_BYTE.search(model_id):
        return 1.0
    return 2.0


def estimate(model_id: str, quantization: str = "") -> Optional[WeightsEstimate]:
    """The weights of ``model_id`` (None when neither the catalogue, the id nor the table sizes it)."""
    if not quantization:
        try:
            return WeightsEstimate(model_id, find_model(model_id).checkpoint_gib, True, "the catalogue's checkpoint")
        except (UnknownModel, ArchitectureError, KeyError, ValueError):
            pass
    lowered = model_id.lower()
    if "gguf" in lowered or "/" not in lowered or lowered.startswith(("/", "s3:", "gs:", "pvc:", "oci:", "hf:")):
        return None  # a path, a URI or a GGUF file: its size is not in the name
    name = lowered.rsplit("/", 1)[1]
    per = _bytes_per_param(name, quantization)
    sizes = [m for m in _SIZE.finditer(name) if not name[max(0, m.start() - 1) : m.start()].endswith("x")]
    if len(sizes) == 1:
        value, unit = float(sizes[0].group(1)), sizes[0].group(2)
        params = value * (1e12 if unit == "t" else 1e9)
        return WeightsEstimate(model_id, params * per / GIB, False, f"{sizes[0].group(0).upper()} parameters x {per:g} B")
    for prefix, gb in _table():
        if lowered.startswith(prefix):
            return WeightsEstimate(model_id, gb * 1e9 / GIB, False, "its published checkpoint size (model_weights.toml)")
    return None


def _positive(args: dict, flag: str) -> Optional[int]:
    if flag not in args:
        return 1
    value = as_int(args.get(flag))
    return value if value and value > 0 else None


def weights_anywhere(server: VllmServer) -> tuple[str, bool]:
    """Why a vLLM server's weights fit no GPU, or only a GPU larger than the common class ("" when they fit); True
    when it is sure (the catalogue's checkpoint over the largest GPU)."""
    model = served_model(server)
    return weights_fit(server.label, model if isinstance(model, str) else "", server.args, server.podspec)


def weights_fit(
    label: str, model: str, args: Any, podspec: Any, fraction_flag: str = "gpu-memory-utilization", default: float = 0.9
) -> tuple[str, bool]:  # default: vLLM's --gpu-memory-utilization, 0.9 at every release components/capacity reads
    """weights_anywhere for any engine: ``fraction_flag`` is the canonical flag of its share of the GPU ("" when its
    fraction is of the memory the weights leave) and ``default`` the share when it is unset."""
    if not model:
        return "", False
    quantization = str(args.get("quantization") or "").lower()
    found = estimate(model, quantization)
    tp, pp = _positive(args, "tensor-parallel-size"), _positive(args, "pipeline-parallel-size")
    if found is None or tp is None or pp is None:
        return "", False
    utilization = default
    if fraction_flag and fraction_flag in args:
        value = as_float(args.get(fraction_flag))
        if value is None or not 0 < value <= 1:
            return "", False  # S1's finding
        utilization = value
    per_gpu = found.gib / (tp * pp)
    (big_name, big_gib), (common_name, common_gib) = _gpu_bounds()
    head = (
        f"{label}: {model}'s weights take {per_gpu:.1f} GiB per GPU ({found.gib:.1f} GiB, {found.how}, over "
        f"tensor parallel {tp} x pipeline parallel {pp})"
    )
    if per_gpu > utilization * big_gib:
        return (
            f"{head}, more than {utilization:g} of even a {big_name} ({big_gib:.2f} GiB): no GPU can load them; raise "
            f"the tensor / pipeline parallel size or serve a quantized checkpoint",
            found.exact,
        )
    if per_gpu > utilization * common_gib and pinned_gpu(podspec) is None:
        # (A selection naming a GPU the catalogue does not know may name a larger one: only the tier above holds.)
        return (
            f"{head}, more than {utilization:g} of an 80-96 GB GPU (up to {common_name}, {common_gib:.2f} GiB), and "
            f"nothing in the pod's node selection asks for a larger one: on the GPUs most clusters have the engine cannot "
            f"load them (CUDA out of memory); pin an H200/B200-class GPU, raise the tensor parallel size or quantize",
            False,
        )
    return "", False
