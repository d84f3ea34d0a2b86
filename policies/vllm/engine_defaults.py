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
from policies.reading.installs import installs_engine
from policies.reading.serving import EngineConfig
from policies.reading.vllm_args import command_tokens


def release_image(engine: EngineConfig) -> tuple[str, str]:
    """The image whose tag names the vLLM release the engine runs; "" when its container installs vLLM itself (pip
    install vllm==..., a requirements file), so the tag's release is not the one run (cold review 29, finding 5: S1
    said "default 0.9 (vLLM 0.4.2)" for a v0.4.2 image whose container installs vLLM 0.6.3)."""
    if engine.server is not None and installs_engine(command_tokens(engine.server.container)[0], "vllm"):
        return "", "the container installs its own vLLM"
    return engine.image, NO_RELEASE


NO_RELEASE = "the image names no release"


def default_utilization(image: str, unknown: str = NO_RELEASE) -> tuple[str, str]:
    """(the default as text, which release it belongs to) for the vLLM image `image`; ``unknown`` says why no release
    is known when the image names none."""
    release = vllm_release(image or "")
    accounting = accounting_for(release)
    if accounting is None and (parsed := parse_release(release)) is not None and parsed < OLDEST_RELEASE:
        # Before the accountings the table models, the default was already 0.90 (EngineArgs.gpu_memory_utilization in
        # vllm/engine/arg_utils.py, read at HabanaAI/vllm-fork v0.4.2-Gaudi-1.16.0:44 and v0.6.4.post2+Gaudi-1.19.0:122,
        # which keep upstream 0.4.2's and 0.6.4.post2's EngineArgs).
        return "0.9", f"vLLM {release}"
    if accounting is None:
        values = sorted({a.default_utilization for a in ACCOUNTINGS})
        return " or ".join(f"{v:g}" for v in values), f"0.90 before vLLM 0.20, 0.92 from 0.20 on; {unknown}"
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
