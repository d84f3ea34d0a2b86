"""Speed of the simulator: one simulated hour at 50 requests/s over three prod models, and its growth with the request count.

    python benchmarks/simulate_speed.py [--repeat N] [--json]

Measured in-process (the settings are read from the prod plan once, outside the timing): the
derived run of ``components.simulate.run.simulate`` over chat-8b, qwen3-32b and llama-70b (the
prod models that scale; llama-405b is one fixed replica) for one simulated hour at 50 req/s in
total (30 + 5 + 15), with the token shapes of examples/traffic/steady.yaml. Then the same for
12.5 and 25 req/s: the cost per request at each size shows whether the cost grows linearly with
the request count. Each size is repeated N times (default 3) in interleaved rounds; the table
prints medians (and the minimum).

Target (issue 23): the hour at 50 req/s in under 10 s on 2 cores; cost linear in requests (the
per-request cost at 50 req/s within 1.3x of that at 12.5 req/s). The simulation is one thread, so
its CPU time (time.process_time) is what it costs on an idle 2-core machine; the wall time is printed
beside it, and is longer wherever other processes share the cores.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SHAPES = {  # model: (share of the total rate, prompt median, prompt sigma, output median, output sigma)
    "chat-8b": (0.6, 600, 1.0, 250, 0.7),
    "qwen3-32b": (0.1, 1200, 0.9, 400, 0.7),
    "llama-70b": (0.3, 1500, 1.0, 350, 0.7),
}
DURATION = 3600.0
TARGET_SECONDS = 10.0
LINEAR_SLACK = 1.3


def profile(total_rate: float):
    from components.traffic.profile import parse_profile

    models = {}
    for name, (share, pm, ps, om, os_) in SHAPES.items():
        models[name] = {
            "arrivals": {"rate": total_rate * share},
            "promptTokens": {"kind": "lognormal", "median": pm, "sigma": ps, "max": 12000},
            "outputTokens": {"kind": "lognormal", "median": om, "sigma": os_, "max": 2000},
            "streamedShare": 0.8,
        }
    return parse_profile({"models": models})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from components.simulate.run import simulate, workloads
    from components.simulate.settings import StackSettings
    from stacks.simulate import stack_settings

    _cfg, _plans, derived, _defaults, _name = stack_settings("prod")
    stack = StackSettings(tuple(m for m in derived.models if m.name in SHAPES), derived.pools, derived.label)
    sizes = (12.5, 25.0, 50.0)
    loads = {rate: workloads(profile(rate), stack, DURATION, 0, {}) for rate in sizes}
    counts = {rate: sum(len(w) for w in loads[rate].values()) for rate in sizes}
    times: dict[float, list[float]] = {rate: [] for rate in sizes}
    walls: dict[float, list[float]] = {rate: [] for rate in sizes}
    for _ in range(args.repeat):
        for rate in sizes:
            start, wall = time.process_time(), time.perf_counter()
            simulate(stack, loads[rate], DURATION, 0)
            times[rate].append(time.process_time() - start)
            walls[rate].append(time.perf_counter() - wall)
    rows = []
    for rate in sizes:
        med = statistics.median(times[rate])
        rows.append(
            {
                "rate_per_s": rate,
                "requests": counts[rate],
                "median_s": round(med, 3),
                "min_s": round(min(times[rate]), 3),
                "wall_median_s": round(statistics.median(walls[rate]), 3),
                "us_per_request": round(med / counts[rate] * 1e6, 1),
            }
        )
    per_small, per_big = rows[0]["us_per_request"], rows[-1]["us_per_request"]
    verdict = {
        "hour_at_50_per_s_seconds": rows[-1]["median_s"],
        "meets_10s": rows[-1]["median_s"] < TARGET_SECONDS,
        "per_request_ratio_50_vs_12_5": round(per_big / per_small, 3),
        "linear": per_big / per_small <= LINEAR_SLACK,
    }
    if args.json:
        print(json.dumps({"rows": rows, **verdict}, indent=2, sort_keys=True))
        return 0
    print(f"one simulated hour, models {', '.join(SHAPES)}; median of {args.repeat} (min)")
    print(f"{'req/s':>6} {'requests':>9} {'CPU seconds':>16} {'wall s':>8} {'us/request':>11}")
    for r in rows:
        print(
            f"{r['rate_per_s']:>6g} {r['requests']:>9} {r['median_s']:>8.2f} ({r['min_s']:.2f}) {r['wall_median_s']:>8.2f} "
            f"{r['us_per_request']:>11.1f}"
        )
    print(
        f"hour at 50 req/s: {verdict['hour_at_50_per_s_seconds']:.2f} CPU s (target < {TARGET_SECONDS:g} s): "
        f"{'met' if verdict['meets_10s'] else 'NOT met'}"
    )
    print(
        f"cost per request at 50 vs 12.5 req/s: {verdict['per_request_ratio_50_vs_12_5']:.2f}x "
        f"(linear within {LINEAR_SLACK}x: {'yes' if verdict['linear'] else 'no'})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
