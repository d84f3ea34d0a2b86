"""Requests drawn from a traffic profile: arrival times and token counts, from a seeded generator.

Poisson arrivals with spikes are drawn by thinning: candidate times at the profile's peak rate,
each kept with probability rate(t) / peak. Token counts come from the profile's distributions,
clipped so prompt + output fits the model's maxModelLen (vLLM refuses longer prompts, and stops
generating at the limit). The same seed gives the same requests (numpy's PCG64 seeded per model).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from .profile import Arrivals, Constant, Empirical, LogNormal, ModelTraffic, TraceRow, Uniform


@dataclass(frozen=True)
class Workload:
    """One model's requests, sorted by arrival time."""

    times: np.ndarray
    prompt: np.ndarray
    output: np.ndarray
    streamed: np.ndarray
    long: np.ndarray

    def __len__(self) -> int:
        return len(self.times)


def draw_tokens(dist, n: int, rng: np.random.Generator, cap: int) -> np.ndarray:
    """``n`` token counts from ``dist``, each in [1, cap]."""
    if isinstance(dist, Constant):
        out = np.full(n, dist.value, dtype=np.int64)
    elif isinstance(dist, Uniform):
        out = rng.integers(dist.min, dist.max + 1, size=n)
    elif isinstance(dist, LogNormal):
        out = np.rint(np.exp(rng.normal(np.log(float(dist.median)), float(dist.sigma), size=n))).astype(np.int64)
        out = np.clip(out, dist.min, dist.max or cap)
    elif isinstance(dist, Empirical):
        values = np.asarray(dist.values, dtype=np.int64)
        if dist.weights is None:
            out = values[rng.integers(0, len(values), size=n)]
        else:
            w = np.asarray(dist.weights, dtype=float)
            out = values[rng.choice(len(values), size=n, p=w / w.sum())]
    else:  # pragma: no cover - the schema admits no other kind
        raise TypeError(dist)
    return np.clip(out, 1, cap)


# Requests drawn to estimate a profile's request sizes (request_sizes): enough that the mean and the standard
# deviation move by well under 1% between seeds, few enough to take milliseconds.
SIZE_SAMPLE = 50_000


def request_sizes(traffic: ModelTraffic, max_model_len: int, trace: Optional[tuple[TraceRow, ...]] = None) -> tuple[int, int]:
    """The mean and standard deviation of prompt + output tokens (what a request's KV holds at its end) of the
    requests ``traffic`` sends to the model itself (not its long-context sibling), clipped as ``build_workload``
    clips them; a trace's rows as they are. Rounded to tokens, from a fixed seed: the same profile gives the same pair.
    """
    if trace is not None:
        sizes = np.asarray([r.prompt + r.output for r in trace if not r.long], dtype=np.int64)
        if len(sizes) == 0:
            raise ValueError("the trace sends no request to the model itself")
    elif traffic.prompt_tokens is None or traffic.output_tokens is None:
        raise ValueError("the profile gives no token distributions (promptTokens, outputTokens) for the model")
    else:
        rng = np.random.default_rng(0)
        cap = max_model_len - 1
        prompt = draw_tokens(traffic.prompt_tokens, SIZE_SAMPLE, rng, cap)
        output = np.maximum(1, np.minimum(draw_tokens(traffic.output_tokens, SIZE_SAMPLE, rng, cap), max_model_len - prompt))
        sizes = prompt + output
    return int(round(float(sizes.mean()))), int(round(float(sizes.std())))


def arrival_times(arrivals: Arrivals, duration: float, rng: np.random.Generator) -> np.ndarray:
    """Poisson arrival times in [0, duration) at the profile's rate, spikes included (thinning)."""
    peak = arrivals.peak_rate()
    n = int(rng.poisson(peak * duration))
    times = np.sort(rng.uniform(0.0, duration, size=n))
    if not arrivals.spikes:
        return times
    if arrivals.rate is None:
        raise ValueError("a trace's arrivals are replayed, not drawn")
    base = float(arrivals.rate)
    up, down = np.ones(n), np.ones(n)
    for spike in arrivals.spikes:
        at, span, ramp = spike.seconds()
        f = np.ones(n)
        if ramp > 0:
            rising = (times >= at) & (times < at + ramp)
            f[rising] = 1 + (spike.factor - 1) * (times[rising] - at) / ramp
            falling = (times >= at + ramp + span) & (times < at + 2 * ramp + span)
            f[falling] = 1 + (spike.factor - 1) * (at + 2 * ramp + span - times[falling]) / ramp
        top = (times >= at + ramp) & (times < at + ramp + span)
        f[top] = spike.factor
        # Spikes (factor > 1) take the largest, lulls (factor < 1) the smallest; the two multiply.
        if spike.factor >= 1:
            up = np.maximum(up, f)
        else:
            down = np.minimum(down, f)
    factor = up * down
    rate = base * factor
    keep = rng.uniform(0.0, 1.0, size=n) < rate / peak
    return times[keep]


def build_workload(
    traffic: ModelTraffic,
    duration: float,
    max_model_len: int,
    seed: int,
    index: int,
    trace: Optional[tuple[TraceRow, ...]] = None,
    long_max_model_len: Optional[int] = None,
) -> Workload:
    """The requests of one model for ``duration`` seconds."""
    rng = np.random.default_rng([seed, index])
    if trace is not None:
        rows = [r for r in trace if r.t < duration]
        times = np.asarray([r.t for r in rows], dtype=float)
        prompt = np.asarray([r.prompt for r in rows], dtype=np.int64)
        output = np.asarray([r.output for r in rows], dtype=np.int64)
        share = float(traffic.streamed_share)
        drawn = rng.uniform(size=len(rows)) < share
        streamed = np.asarray([d if r.streamed is None else r.streamed for r, d in zip(rows, drawn)], dtype=bool)
        long = np.asarray([r.long for r in rows], dtype=bool)
    else:
        times = arrival_times(traffic.arrivals, duration, rng)
        n = len(times)
        prompt = draw_tokens(traffic.prompt_tokens, n, rng, max_model_len - 1)
        output = draw_tokens(traffic.output_tokens, n, rng, max_model_len - 1)
        streamed = rng.uniform(size=n) < float(traffic.streamed_share)
        long = np.zeros(n, dtype=bool)
        if traffic.long_context is not None and float(traffic.long_context.share) > 0:
            long = rng.uniform(size=n) < float(traffic.long_context.share)
            if traffic.long_context.prompt_tokens is not None and long.any():
                cap = (long_max_model_len or max_model_len) - 1
                prompt[long] = draw_tokens(traffic.long_context.prompt_tokens, int(long.sum()), rng, cap)
    # prompt + output within the serving model's maxModelLen (the long sibling's for long requests).
    limit = np.where(long, long_max_model_len or max_model_len, max_model_len)
    prompt = np.minimum(prompt, limit - 1)
    output = np.maximum(1, np.minimum(output, limit - prompt))
    return Workload(times, prompt, output, streamed, long)
