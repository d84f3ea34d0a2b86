"""max_num_seqs from the KV cache: how many requests of the sizes a model serves its cache holds at once.

Without a declared profile a batch is that many requests of the typical size (``traffic.typicalRequestTokens``,
or min(2048, maxModelLen)); with one (``slo.traffic``, components/traffic/) it is as many of the profile's
request sizes as fit with room for their spread. One rule for ``python -m stacks plan`` (capacity/plan.py) and
``python -m stacks size``, so both report the same figures.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from ..config import ModelConfig
from ..errors import ConfigError, Problem

# With a declared traffic profile (slo.traffic), the batch's KV cache is the sum of its requests' contexts: n
# independent requests of mean size mu and standard deviation sigma (prompt + output, what each holds at its end)
# sum to n * mu with a standard deviation of sigma * sqrt(n) (the central limit theorem). The derived batch keeps
# that sum BATCH_KV_SIGMAS standard deviations inside the cache (one-sided normal: ~98% of full batches fit), since
# vLLM preempts and recomputes a running request when a decode step finds no free block ("Decrease max_num_seqs
# ... thereby requiring less KV cache space", vLLM docs/configuration/optimization.md, "Preemption").
BATCH_KV_SIGMAS = 2.0


@dataclass(frozen=True)
class RequestSizes:
    """Prompt + output tokens of the requests a model is declared to serve: their mean and standard deviation."""

    mean: int
    sd: int
    source: str  # where the figures come from, for the derivation's reason


def seqs_within(kv_cache_tokens: int, sizes: RequestSizes) -> int:
    """The most requests n whose summed sizes stay within the KV cache at BATCH_KV_SIGMAS standard deviations:
    n * mean + BATCH_KV_SIGMAS * sd * sqrt(n) <= kv_cache_tokens (at least 1)."""
    mean, margin = max(1, sizes.mean), BATCH_KV_SIGMAS * sizes.sd
    # The positive root of mean * x^2 + margin * x - kv = 0 in x = sqrt(n), then checked in integers.
    root = (-margin + math.sqrt(margin * margin + 4 * mean * kv_cache_tokens)) / (2 * mean)
    n = max(1, math.floor(root * root))

    def fits(k: int) -> bool:
        return k * mean + margin * math.sqrt(k) <= kv_cache_tokens

    # The float root may land one off either way.
    while n > 1 and not fits(n):
        n -= 1
    while fits(n + 1):
        n += 1
    return n


def settle_max_num_seqs(
    kv_cache_tokens: int, typical: int, hw_seqs: int, tokens: int, default_note: str, sizes: Optional[RequestSizes] = None
) -> tuple[int, str]:
    """The derived max_num_seqs and why: as many typical requests as the KV cache holds at the hardware
    default batch (with a declared profile's ``sizes``: as many as it holds with room for their spread,
    seqs_within), never above that default nor above max_num_batched_tokens (vLLM refuses that), and a
    multiple of 8 from 16 up. One rule for `plan` and `size`, so both report the same figures.
    """
    by_cache = seqs_within(kv_cache_tokens, sizes) if sizes is not None else kv_cache_tokens // typical
    seqs = max(1, min(hw_seqs, by_cache, tokens))
    if seqs >= 16:
        seqs -= seqs % 8
    if sizes is not None:
        held = (
            f"{by_cache} requests of {sizes.source}'s sizes (mean {sizes.mean:,}, standard deviation {sizes.sd:,} prompt + "
            f"output tokens), their sum {BATCH_KV_SIGMAS:g} standard deviations within the cache"
        )
    else:
        held = f"{by_cache} requests of {typical:,} typical tokens"
    if by_cache < hw_seqs:
        return seqs, f"at the default batch the KV cache holds {kv_cache_tokens:,} tokens = {held}"
    return seqs, f"{default_note}; the KV cache would hold {held}"


def declared_sizes(m: ModelConfig, path: str, base_dir: Optional[Path]) -> Optional[RequestSizes]:
    """The request sizes of the traffic profile ``m`` declares (slo.traffic, relative to the stack file), or None
    without one or where the profile gives this model no traffic (a long-context sibling's share is its own)."""
    ref = m.slo.traffic
    if ref is None:
        return None
    from ..traffic.profile import load_profile
    from ..traffic.workload import request_sizes

    field = f"{path}.slo.traffic"
    profile_path = Path(ref)
    if not profile_path.is_absolute() and base_dir is not None:
        profile_path = base_dir / profile_path
    if not profile_path.is_file():
        raise ConfigError([Problem(field, "no such traffic profile (the path is relative to the stack file)", ref)])
    try:
        profile, traces = load_profile(profile_path)
    except ConfigError as exc:
        raise ConfigError([Problem(f"{field} ({ref})", str(p), has_value=False) for p in exc.problems]) from None
    traffic = profile.models.get(m.name)
    if traffic is None:
        return None
    try:
        mean, sd = request_sizes(traffic, m.engine.max_model_len, traces.get(m.name))
    except ValueError as exc:
        raise ConfigError([Problem(f"{field} ({ref})", f"models.{m.name}: {exc}", has_value=False)]) from None
    return RequestSizes(mean, sd, f"the profile {ref}")
