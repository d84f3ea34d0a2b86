"""`python -m stacks simulate STACK --traffic PROFILE.yaml`: what users would see under a traffic profile.

Plans the stack offline (the same run as `python -m stacks plan`, nothing written), reads each
model's settings from its capacity plan and from the rendered manifests
(components/simulate/settings.py), and runs the discrete-event simulation twice on the same
requests: with the derived settings and with the seeds' defaults. Prints a table (text, JSON or
Markdown) and writes report.json, report.md and one PNG per model under --out (default
build/STACK/simulate), all or nothing. Bad input exits 2 with the field and the rule. docs/simulate.md documents the profile and the JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Optional

from components.errors import ConfigError, Problem
from stacks.slo_check import DEFAULT_DURATION, own_garbage_collected, settings_from, slo_results  # noqa: F401

if TYPE_CHECKING:
    from components.capacity.plan import ServingPlan
    from components.config import StackConfig
    from components.simulate.settings import ModelSettings, StackSettings

MAX_SEED = 2**32 - 1


def add_simulate_arguments(p: argparse.ArgumentParser) -> None:
    """The flags of `simulate` (the command-line contract in docs/simulate.md)."""
    p.add_argument("stack", help="stack name (stacks/Pulumi.STACK.yaml) or path of a stack file")
    p.add_argument(
        "--traffic", required=True, help="traffic profile (YAML or JSON; schema: components/traffic/traffic_profile.schema.json)"
    )
    p.add_argument("--duration", help="simulated span: seconds or 90s / 15m / 1h (default: the profile's, else 1h)")
    p.add_argument("--seed", default="0", help="random seed (default 0): the same seed gives the same bytes")
    p.add_argument("--out", help="folder for report.json, report.md and the PNGs (default build/STACK/simulate)")
    p.add_argument("--format", choices=("text", "json", "markdown"), default="text", help="report on stdout (default text)")
    p.add_argument("--no-defaults", action="store_true", help="skip the side-by-side run under the seeds' defaults")


def stack_settings(stack_ref: str) -> tuple[StackConfig, dict[str, ServingPlan], StackSettings, StackSettings, str]:
    """(stack config, plans, derived StackSettings, seed-default StackSettings, stack name) of a stack file."""
    from components.capacity.plan import plan_stack
    from components.config import load_stack_config
    from stacks.offline import load_stack_file
    from stacks.plan import run_plan

    stack = load_stack_file(stack_ref)
    cfg = load_stack_config(stack.config)
    plans = plan_stack(cfg, stack.path.parent)
    result = run_plan(stack_ref, simulate_slo=False)  # the simulation this command runs is its own
    derived = settings_from(cfg, plans, result.files)
    defaults = seed_defaults_of(derived, cfg, stack.path.parent)
    return cfg, plans, derived, defaults, stack.name


def seed_defaults_of(derived: StackSettings, cfg: StackConfig, base_dir: Path) -> StackSettings:
    """The seed-defaults StackSettings beside ``derived``."""
    from components.simulate.settings import seed_defaults

    return seed_defaults(derived, default_plans(cfg, base_dir))


def default_plans(cfg: StackConfig, base_dir: Path) -> dict[str, ServingPlan]:
    """Each single-node model re-planned as a seed stack would run it: utilization 0.9, the model's full context
    (no cap; the configured one where the full context does not fit), vLLM's batch defaults, no admission queue."""
    from components.capacity.gpus import instance_gpu
    from components.capacity.memory import batch_defaults_for
    from components.capacity.plan import node_for, plan_model, resolve_model
    from components.config.placement import spans_nodes
    from components.images import vllm_release

    pools = {p.name: p for p in cfg.gpu_pools}
    out: dict[str, ServingPlan] = {}
    for m in cfg.models:
        if spans_nodes(m):  # the seeds' defaults are single-node ones
            continue
        model = resolve_model(m, m.name, base_dir)
        pool = pools[m.pool]
        gpu, _ = instance_gpu(node_for(pool, m.engine.tensor_parallel_size * m.engine.pipeline_parallel_size))
        tokens, seqs = batch_defaults_for(gpu, vllm_release(m.image))
        full = model.arch.max_model_len_limit or model.arch.max_position_embeddings
        for length in (full, m.engine.max_model_len):
            engine = m.engine.model_copy(
                update={
                    "gpu_memory_utilization": 0.9,
                    "max_model_len": length,
                    "max_num_seqs": min(seqs, tokens),
                    "max_num_batched_tokens": max(tokens, min(seqs, tokens)),
                    "max_num_queued_reqs": None,
                }
            )
            try:
                plan = plan_model(m.model_copy(update={"engine": engine}), pool, m.name, base_dir)
            except ConfigError:
                continue
            if plan.memory.fits:
                out[m.name] = plan
                break
    return out


def run_simulation(args: argparse.Namespace) -> dict[str, Any]:
    """Validate the input, run both settings, return the report (JSON-ready)."""
    from components.simulate.run import check_profile, simulate, workloads
    from components.traffic.profile import load_profile, parse_duration

    try:
        seed = int(args.seed)
        if not 0 <= seed <= MAX_SEED:
            raise ValueError
    except ValueError:
        raise ConfigError([Problem("--seed", f"must be an integer from 0 to {MAX_SEED}", args.seed)]) from None
    profile_path = Path(args.traffic)
    if not profile_path.is_file():
        raise ConfigError([Problem("--traffic", "no such file", args.traffic)])
    profile, traces = load_profile(profile_path)
    raw_duration = args.duration if args.duration is not None else (profile.duration or DEFAULT_DURATION)
    try:
        duration = parse_duration(raw_duration)
    except ValueError as exc:
        field = "--duration" if args.duration is not None else "duration"
        raise ConfigError([Problem(field, str(exc), raw_duration)]) from None
    cfg, plans, derived, defaults, name = stack_settings(args.stack)
    check_profile(profile, derived)
    loads = workloads(profile, derived, duration, seed, traces)
    runs = {"derived": simulate(derived, loads, duration, seed)}
    if not args.no_defaults:
        runs["seed_defaults"] = simulate(defaults, loads, duration, seed)
    settings = {s.label: {m.name: describe(m) for m in s.models if m.name in runs["derived"]} for s in (derived, defaults)}
    return {
        "stack": name,
        "profile": str(profile_path),
        "duration_s": duration,
        "seed": seed,
        "models": sorted(profile.models),
        "settings": settings,
        "runs": runs,
    }


def describe(m: ModelSettings) -> dict[str, Any]:
    """The settings a run used for one model (what the report compares)."""
    return {
        "scaling": m.scaling.signal,
        "target": m.scaling.target,
        "min_replicas": m.scaling.min_replicas,
        "max_replicas": m.scaling.max_replicas,
        "scale_down_window_s": m.scaling.down.stabilization_seconds,
        "max_num_seqs": m.engine.max_num_seqs,
        "max_num_batched_tokens": m.engine.max_num_batched_tokens,
        "max_num_queued_reqs": m.engine.max_num_queued_reqs,
        "kv_blocks": m.engine.num_blocks,
        "max_model_len": m.engine.max_model_len,
        "alb_idle_s": m.route.alb_idle_seconds,
        "route_timeout_s": m.route.route_timeout_seconds,
        "drain_s": m.drain_seconds,
        "cpu_request": m.cpu_request,
        "replica_start_s": m.container_start_seconds,
    }


# ---- rendering --------------------------------------------------------------------------------


def _fmt(x: Any, unit: str = "") -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.2f}{unit}" if abs(x) < 100 else f"{x:.0f}{unit}"
    return f"{x}{unit}"


ROWS = (
    ("requests", lambda r: r["requests"]),
    ("TTFT p50/p95/p99 s", lambda r: "/".join(_fmt(r["ttft_s"][k]) for k in ("p50", "p95", "p99"))),
    (
        "TPOT p50/p95/p99 ms",
        lambda r: "/".join(_fmt(None if r["tpot_s"][k] is None else r["tpot_s"][k] * 1000) for k in ("p50", "p95", "p99")),
    ),
    ("e2e p50/p95/p99 s", lambda r: "/".join(_fmt(r["e2e_s"][k]) for k in ("p50", "p95", "p99"))),
    ("output tokens/s", lambda r: _fmt(r["output_tokens_per_s"])),
    ("503s", lambda r: r["errors_503"]),
    ("504s", lambda r: r["errors_504"]),
    ("cut streams", lambda r: r["cut_streams"]),
    (
        "  by ALB idle / route timeout / drain",
        lambda r: f"{r['cut_by_alb_idle']}/{r['cut_by_route_timeout']}/{r['cut_by_drain']}",
    ),
    ("in flight at scale-in (a 0 s drain cuts them)", lambda r: r["in_flight_at_scale_in"]),
    ("preemptions", lambda r: r["preemptions"]),
    ("peak KV usage", lambda r: _fmt(None if r["peak_kv_usage"] is None else r["peak_kv_usage"] * 100, "%")),
    ("replicas start/peak/end", lambda r: f"{r['replicas']['start']}/{r['replicas']['peak']}/{r['replicas']['end']}"),
    (
        "time to scale out s",
        lambda r: (
            _fmt(r["time_to_scale_out_s"])
            if r["time_to_scale_out_s"] is not None
            else ("not in the run" if r["overload_at_s"] is not None else "-")
        ),
    ),
)


def _table(report: Mapping[str, Any], model: str) -> list[list[str]]:
    runs = report["runs"]
    labels = [k for k in ("derived", "seed_defaults") if k in runs]
    return [[label, *(str(fn(runs[k][model])) for k in labels)] for label, fn in ROWS]


def render_text(report: Mapping[str, Any]) -> str:
    """A table per model: derived settings beside the seeds' defaults."""
    lines = [f"simulate {report['stack']}: {report['profile']}, {report['duration_s']:g} s simulated, seed {report['seed']}", ""]
    labels = [k.replace("_", " ") for k in ("derived", "seed_defaults") if k in report["runs"]]
    for model in report["models"]:
        rows = [["", *labels], *_table(report, model)]
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines.append(f"{model}")
        for r in rows:
            lines.append("  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
        lines.append("")
    return "\n".join(lines)


def render_markdown(report: Mapping[str, Any], plots: Optional[Mapping[str, str]] = None) -> str:
    """The same tables in Markdown, each model with its plot when written."""
    labels = [k.replace("_", " ") for k in ("derived", "seed_defaults") if k in report["runs"]]
    lines = [
        f"# Simulation of `{report['stack']}`",
        "",
        f"Profile `{report['profile']}`, {report['duration_s']:g} s simulated, seed {report['seed']}.",
        "",
    ]
    for model in report["models"]:
        lines += [f"## {model}", "", "| | " + " | ".join(labels) + " |", "|---|" + "---|" * len(labels)]
        for row in _table(report, model):
            lines.append("| " + " | ".join(row) + " |")
        if plots and model in plots:
            lines += ["", f"![{model}]({plots[model]})"]
        lines.append("")
    return "\n".join(lines)


def render_json(report: Mapping[str, Any]) -> str:
    """Sorted keys, two-space indent, the same bytes for the same seed."""
    return json.dumps(report, indent=2, sort_keys=True) + "\n"


def write_outputs(report: Mapping[str, Any], out: Path) -> dict[str, str]:
    """report.json, report.md and <model>.png under ``out``, all or nothing; returns model -> PNG file name."""
    import os
    import shutil
    import tempfile

    from components.simulate.plot import write_png

    if out.exists() and not out.is_dir():
        raise ConfigError([Problem("--out", "is a file, not a folder", str(out))])
    try:
        out.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".simulate-", dir=out))
    except OSError as exc:
        raise ConfigError([Problem("--out", f"cannot be written: {exc.strerror}", str(out))]) from None
    try:
        plots = {}
        for model in report["models"]:
            name = f"{model}.png"
            write_png(staging / name, model, report["runs"])
            plots[model] = name
        (staging / "report.json").write_text(render_json(report))
        (staging / "report.md").write_text(render_markdown(report, plots))
        for item in sorted(staging.iterdir()):
            os.replace(item, out / item.name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return plots


def main_simulate(args: argparse.Namespace) -> int:
    """Run, write, print; 0 on success (bad input raises ConfigError: exit 2 in stacks/__main__)."""
    from stacks.plan import default_out_dir

    report = run_simulation(args)
    out = Path(args.out) if args.out else default_out_dir(report["stack"]) / "simulate"
    plots = write_outputs(report, out)
    if args.format == "json":
        sys.stdout.write(render_json(report))
    elif args.format == "markdown":
        sys.stdout.write(render_markdown(report, plots))
    else:
        sys.stdout.write(render_text(report))
        sys.stdout.write(f"wrote {out}/report.json, report.md and {len(plots)} plot(s)\n")
    return 0
