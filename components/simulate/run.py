"""Run a stack's simulation under a profile and summarise it (JSON-ready, rounded, deterministic)."""

from __future__ import annotations

import math
from typing import Any, Mapping, Optional

import numpy as np

from ..errors import ConfigError, Problem
from ..traffic.profile import TraceRow, TrafficProfile
from ..traffic.workload import Workload, build_workload
from .cluster import SERIES, Simulation
from .settings import StackSettings


def _round(x: Optional[float], digits: int = 4) -> Optional[float]:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return None
    return float(round(float(x), digits))


def _percentiles(values: list) -> dict[str, Optional[float]]:
    if not values:
        return {"p50": None, "p95": None, "p99": None}
    arr = np.asarray(values, dtype=float)
    p = np.percentile(arr, [50, 95, 99])
    return {"p50": _round(p[0]), "p95": _round(p[1]), "p99": _round(p[2])}


def check_profile(profile: TrafficProfile, stack: StackSettings) -> None:
    """Every model the profile names is in the stack; a long-context share needs the model's sibling."""
    names = {m.name: m for m in stack.models}
    problems = []
    for name, traffic in sorted(profile.models.items()):
        if name not in names:
            problems.append(
                Problem(
                    f"models.{name}",
                    f"the stack serves no model of that name; its models: {', '.join(sorted(names))}",
                    has_value=False,
                )
            )
        elif traffic.long_context is not None and float(traffic.long_context.share) > 0 and names[name].long_sibling is None:
            problems.append(
                Problem(
                    f"models.{name}.longContext.share",
                    "the model has no long-context sibling (longContext in the stack file); set 0 or add one",
                    traffic.long_context.share,
                )
            )
    if problems:
        raise ConfigError(problems)


# Most requests one run may draw (bounded input: memory grows with the requests in a run).
MAX_REQUESTS = 5_000_000


def workloads(
    profile: TrafficProfile, stack: StackSettings, duration: float, seed: int, traces: Mapping[str, tuple[TraceRow, ...]]
) -> dict[str, Workload]:
    """Each profiled model's requests (the same for every run of one seed)."""
    expected = sum(t.arrivals.peak_rate() * duration for t in profile.models.values() if t.arrivals.trace is None)
    if expected > MAX_REQUESTS:
        raise ConfigError(
            [
                Problem(
                    "models",
                    f"the rates over {duration:g} s draw up to {expected:,.0f} requests, above the "
                    f"{MAX_REQUESTS:,} one run simulates; shorten --duration or lower the rates",
                    has_value=False,
                )
            ]
        )
    by_name = {m.name: m for m in stack.models}
    out = {}
    for index, name in enumerate(sorted(profile.models)):
        m = by_name[name]
        sib = by_name.get(m.long_sibling) if m.long_sibling else None
        out[name] = build_workload(
            profile.models[name],
            duration,
            m.engine.max_model_len,
            seed,
            index,
            traces.get(name),
            sib.engine.max_model_len if sib else None,
        )
    return out


def sample_seconds_for(duration: float) -> float:
    """The series' step: about 240 points, at least 5 s."""
    return max(5.0, float(math.ceil(duration / 240 / 5) * 5))


def simulate(stack: StackSettings, loads: dict[str, Workload], duration: float, seed: int) -> dict[str, Any]:
    """Run one stack setting; per model its summary and series."""
    sim = Simulation(stack, loads, duration, seed, sample_seconds_for(duration))
    sim.run()
    out = {}
    for name, run in sim.models.items():
        st = run.stats
        series = sim.series[name]
        preempt = sum(r.preemptions for r in run.replicas)
        peak_kv = max([run.peak_kv, *(r.peak_kv for r in run.replicas)])
        ready_series = series["replicas_ready"]
        to_scale = None
        if run.first_over is not None:
            later = [t for t in st.ready_events if t >= run.first_over]
            to_scale = _round(later[0] - run.first_over, 1) if later else None
        out[name] = {
            "requests": st.requests,
            "completed": st.ok,
            "in_flight_at_end": st.requests - st.ok - st.rejected_503 - st.timeouts_504 - st.cut,
            "ttft_s": _percentiles(st.ttft),
            "tpot_s": _percentiles(st.tpot),
            "e2e_s": _percentiles(st.e2e),
            "output_tokens_per_s": _round(st.output_tokens / duration, 2),
            "errors_503": st.rejected_503,
            "errors_504": st.timeouts_504,
            "cut_streams": st.cut,
            "cut_by_alb_idle": st.cut_idle,
            "cut_by_route_timeout": st.cut_route,
            "cut_by_drain": st.cut_drain,
            "in_flight_at_scale_in": st.in_flight_at_scale_in,
            "retries": st.retries,
            "preemptions": preempt,
            "peak_kv_usage": _round(peak_kv, 4),
            "replicas": {
                "start": run.s.scaling.min_replicas,
                "peak": max(series["replicas"], default=run.s.scaling.min_replicas),
                "peak_ready": max(ready_series, default=0),
                "end": len(run.ready),
            },
            "scaling": run.s.scaling.signal,
            "peak_cpu_utilization": _round(run.peak_cpu, 4),
            "overload_at_s": _round(run.first_over, 1),
            "time_to_scale_out_s": to_scale,
            "scale_events": [[_round(t, 1), a, b] for t, a, b in st.scale_events],
            "series": {k: [_round(v, 4) if isinstance(v, float) else v for v in series[k]] for k in SERIES},
        }
    return out


def rate(n: int, total: int) -> float:
    """n / total, 0 when total is 0."""
    return n / total if total else 0.0
