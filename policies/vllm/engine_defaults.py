"""What vLLM does with a memory flag that is left unset: the defaults S1 and S2 reason about.

- `--gpu-memory-utilization`: 0.92 from vLLM 0.20 on, 0.90 before (config/cache.py
  `CacheConfig.gpu_memory_utilization`; components.capacity.memory keeps the per-release value).
- `--max-model-len`: the model's own context (its config.json `max_position_embeddings`, scaled
  by rope scaling where vLLM applies it; components.capacity.architecture).
"""

from __future__ import annotations

from components.capacity.accounting import OLDEST_RELEASE, parse_release
from components.capacity.architecture import ArchitectureError
from components.capacity.memory import ACCOUNTINGS, accounting_for
from components.capacity.models import UnknownModel, find_model
from components.images import vllm_release


def default_utilization(image: str) -> tuple[str, str]:
    """(the default as text, which release it belongs to) for the vLLM image `image`."""
    release = vllm_release(image or "")
    accounting = accounting_for(release)
    if accounting is None and (parsed := parse_release(release)) is not None and parsed < OLDEST_RELEASE:
        # Before the accountings the table models, the default was already 0.90 (EngineArgs.gpu_memory_utilization in
        # vllm/engine/arg_utils.py, read at HabanaAI/vllm-fork v0.4.2-Gaudi-1.16.0:44 and v0.6.4.post2+Gaudi-1.19.0:122,
        # which keep upstream 0.4.2's and 0.6.4.post2's EngineArgs).
        return "0.9", f"vLLM {release}"
    if accounting is None:
        values = sorted({a.default_utilization for a in ACCOUNTINGS})
        return " or ".join(f"{v:g}" for v in values), "0.90 before vLLM 0.20, 0.92 from 0.20 on; the image names no release"
    return f"{accounting.default_utilization:g}", f"vLLM {release}"


def model_context(model: str | None) -> int | None:
    """The context length vLLM takes as max_model_len when the flag is unset; None if unknown."""
    if not model:
        return None
    try:
        arch = find_model(model).arch
    except (UnknownModel, ArchitectureError):
        return None
    return arch.max_model_len_limit or arch.max_position_embeddings
