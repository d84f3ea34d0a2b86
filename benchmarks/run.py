"""Benchmarks of the offline plan and the policy pack: medians and ratios measured side by side.

    python benchmarks/run.py [--repeat N] [--checkov PATH] [--json]

Every measurement is repeated N times (default 5) in interleaved rounds (A, B, A, B, ...), so
that machine noise hits both sides of a ratio alike; the tables print the median (and the
minimum) and each ratio is a ratio of medians. Measured:

- plan: ``stacks.plan.run_plan`` in-process (stack file -> config -> capacity plan -> program
  under the offline engine -> policies -> rendered files) for synthetic stacks of 1, 10 and 100
  models (copies of the dev stack's model);
- floor: the bare Pulumi mock engine (``set_mocks`` + ``pulumi.runtime.test``) registering as
  many plain resources as each plan registered;
- ``python -m stacks plan prod`` as a whole process (imports included): the "< 3 s" target;
- policy evaluation over the rendered prod stack and over ../shared/corpus, as whole processes
  (``python -m policies check``), and Checkov on the same folders where it is installed
  (optional: ``--checkov PATH`` or ``checkov`` on PATH; Checkov is not a dependency).

Targets (issue 13): prod plans in < 3 s on 2 cores; 100 models <= 10x the time of 10; the plan
<= 1.5x the bare engine for the same resource count; the pack >= 10x faster than Checkov.
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import copy
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Optional, Sequence

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
# The reference folder (tests/conftest.py): $LLM_SERVING_REFERENCE, default ../shared beside the checkout.
CORPUS = Path(os.environ.get("LLM_SERVING_REFERENCE") or ROOT.parent / "shared") / "corpus" / "manifests"
SIZES = (1, 10, 100)


def synthetic_stack(models: int, folder: Path) -> Path:
    """A stack file with ``models`` copies of the dev stack's model (distinct names) on one pool big enough."""
    import yaml

    doc = yaml.safe_load((ROOT / "stacks" / "Pulumi.dev.yaml").read_text())
    cfg = doc["config"]
    model = cfg["llm-serving:models"][0]
    cfg["llm-serving:models"] = [{**copy.deepcopy(model), "name": f"m{i:03d}"} for i in range(models)]
    for pool in cfg["llm-serving:gpuPools"]:
        # Room for every model's maxReplicas x GPUs and the buffer (the pool-fit check).
        pool["gpuLimit"] = max(pool["gpuLimit"], models * model["replicas"]["max"] * 8 + 8)
    path = folder / f"Pulumi.bench{models}.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (user + system)."""
    import resource

    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def timed(fn: Callable[[], object]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one call. CPU time is what a busy shared machine distorts least."""
    wall, cpu = time.perf_counter(), _cpu()
    fn()
    return time.perf_counter() - wall, _cpu() - cpu


def plan_once(path: Path) -> int:
    """One in-process plan; returns how many resources the program registered."""
    from stacks.plan import run_plan

    result = run_plan(str(path))
    return len(result.report["resources"])


def recorded_payloads(path: Path) -> list[tuple[str, dict]]:
    """(name, inputs) of every resource the program registers for ``path``: the payload-matched floor's input."""
    from stacks.offline import load_stack_file, run_program

    return [(r.name, dict(r.inputs)) for r in run_program(load_stack_file(str(path))).resources]


def bare_engine(count: int, payloads: Optional[list[tuple[str, dict]]] = None) -> None:
    """The floor: the public mock engine registering ``count`` plain resources, nothing else.

    With ``payloads`` each plain resource carries the inputs the plan's resource of the same
    index carried (same count, same bytes through the engine; no components, builders,
    recording, policies or files).
    """
    import pulumi
    from pulumi.runtime import Mocks, set_mocks

    class _Mocks(Mocks):
        def new_resource(self, args):
            return f"{args.name}-id", args.inputs

        def call(self, args):
            return {}

    def program() -> None:
        if payloads is not None:
            for name, inputs in payloads:
                pulumi.CustomResource("bench:index:Plain", name, inputs)
            return
        for i in range(count):
            pulumi.CustomResource("bench:index:Plain", f"r{i}", {"index": i, "name": f"r{i}"})

    def run() -> None:
        from stacks.offline import ThreadLoops, loop_owning_monitor

        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        # The public MockMonitor, with the worker threads' event loops closed at the end as the
        # plan's engine closes them (costs nothing measurable; left open, they print at exit).
        loops = ThreadLoops()
        try:
            mocks = _Mocks()
            set_mocks(mocks, project="bench", stack="bench", preview=False, monitor=loop_owning_monitor(loops)(mocks))
            pulumi.runtime.test(program)()
        finally:
            loop.run_until_complete(loop.shutdown_default_executor())
            loop.close()
            asyncio.set_event_loop(None)
            loops.close()

    contextvars.Context().run(run)


def process_env(pycache: Path) -> dict[str, str]:
    """The environment whole commands run in: Python's bytecode cache on, in a folder of this run.

    An installed package has its modules compiled (pip writes the .pyc files at install time), and
    a checkout writes them on its first run. A machine that sets PYTHONDONTWRITEBYTECODE=1 (this
    project's CI sandbox does) recompiles every module on every start instead: about 90 modules
    and 70 ms for ``python -m policies check``, while a pip-installed Checkov still reads the .pyc
    files pip wrote. Both commands therefore run with the cache on (PYTHONPYCACHEPREFIX, so
    nothing is written into the repository), after one warm-up run that fills it.
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def process(*argv: str, env: Optional[dict[str, str]] = None) -> Callable[[], None]:
    """A whole command as a callable (its output discarded; exit codes 0 and 1 are both a result)."""

    def run() -> None:
        proc = subprocess.run(list(argv), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
        if proc.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr[-2000:]}")

    return run


def interleave(cases: dict[str, Callable[[], object]], repeat: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Run every case once per round, ``repeat`` rounds; (wall seconds, CPU seconds) of each run per case."""
    wall: dict[str, list[float]] = {name: [] for name in cases}
    cpu: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(repeat):
        for name, fn in cases.items():
            w, c = timed(fn)
            wall[name].append(w)
            cpu[name].append(c)
    return wall, cpu


def median(xs: list[float]) -> float:
    return statistics.median(xs)


def fmt(seconds: Optional[float]) -> str:
    return "n/a" if seconds is None else f"{seconds * 1000:,.0f} ms"


def find_checkov(given: Optional[str]) -> Optional[str]:
    """The Checkov executable: --checkov, $CHECKOV, `checkov` on PATH; None when absent."""
    for candidate in (given, os.environ.get("CHECKOV"), shutil.which("checkov")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


def import_profile(env: Optional[dict[str, str]] = None) -> tuple[float, list[tuple[str, float]]]:
    """`python -X importtime` of what `python -m stacks plan` imports: total seconds and the five slowest top-level packages."""
    code = "import stacks.__main__, stacks.plan, stacks.offline, components.program, policies.framework, policies.registry"
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", code], cwd=ROOT, capture_output=True, text=True, env=env)
    top: dict[str, float] = {}
    for line in proc.stderr.splitlines():
        # "import time:  self [us] | cumulative | imported package"; nesting shows as indentation.
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line.split(":", 1)[1].split("|")
        if name.startswith("  "):
            continue
        top[name.strip()] = top.get(name.strip(), 0.0) + int(cumulative) / 1e6
    return sum(top.values()), sorted(top.items(), key=lambda r: -r[1])[:5]


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python benchmarks/run.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="rounds per measurement (default 5)")
    parser.add_argument("--checkov", help="Checkov executable (default: $CHECKOV or `checkov` on PATH; optional)")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 1 and 10 models, one round, no Checkov (tests use it)")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    sizes = (1, 10) if args.quick else SIZES
    repeat = 1 if args.quick else args.repeat
    checkov = None if args.quick else find_checkov(args.checkov)

    work = Path(tempfile.mkdtemp(prefix="llm-serving-bench-"))
    try:
        figures = run_all(work, repeat, checkov, sizes)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(figures, indent=2, sort_keys=True))
    else:
        print(render(figures))
    return 0


def run_all(work: Path, repeat: int, checkov: Optional[str], sizes: Sequence[int] = SIZES) -> dict:
    """Every measurement; the figures as one JSON-ready dict."""
    env = process_env(work / "pycache")
    stacks = {n: synthetic_stack(n, work) for n in sizes}
    counts = {n: plan_once(stacks[n]) for n in sizes}  # warm-up run: imports and caches out of the timings
    payloads = {n: recorded_payloads(stacks[n]) for n in sizes}
    bare_engine(10)

    cases: dict[str, Callable[[], object]] = {}
    for n in sizes:
        cases[f"plan {n}"] = lambda p=stacks[n]: plan_once(p)
        cases[f"bare {n}"] = lambda c=counts[n]: bare_engine(c)
        cases[f"bare+inputs {n}"] = lambda c=counts[n], p=payloads[n]: bare_engine(c, p)
    engine_wall, engine_cpu = interleave(cases, repeat)

    prod_out = work / "prod"
    process(sys.executable, "-m", "stacks", "plan", "prod", "--out", str(prod_out), env=env)()
    rendered = str(prod_out / "kubernetes")
    whole: dict[str, Callable[[], None]] = {
        "plan prod (process)": process(sys.executable, "-m", "stacks", "plan", "prod", "--out", str(prod_out), env=env)
    }
    targets = {"rendered prod": rendered}
    if CORPUS.is_dir():
        targets["corpus"] = str(CORPUS)
    for label, path in targets.items():
        whole[f"policies {label}"] = process(sys.executable, "-m", "policies", "check", path, env=env)
        if checkov:
            whole[f"checkov {label}"] = process(
                checkov, "-d", path, "--framework", "kubernetes", "--quiet", "--compact", "--skip-download", env=env
            )
    # The floor every whole command shares: starting this Python (and its site-packages' .pth files).
    whole["python -c pass (start-up)"] = process(sys.executable, "-c", "pass", env=env)
    for run in whole.values():
        run()  # warm-up: fills the bytecode cache, and the page cache with every file read
    process_wall, process_cpu = interleave(whole, repeat)

    total_imports, slowest = import_profile(env)
    wall = {**engine_wall, **process_wall}
    cpu = {**engine_cpu, **process_cpu}
    med = {name: median(ts) for name, ts in wall.items()}
    med_cpu = {name: median(ts) for name, ts in cpu.items()}
    mins = {name: min(ts) for name, ts in wall.items()}
    big, small = sizes[-1], sizes[-2]
    scale = f"plan {big} / plan {small}"
    ratios = {scale: med[f"plan {big}"] / med[f"plan {small}"]}
    for n in sizes:
        ratios[f"plan {n} / bare {n}"] = med[f"plan {n}"] / med[f"bare {n}"]
        ratios[f"plan {n} / bare+inputs {n}"] = med[f"plan {n}"] / med[f"bare+inputs {n}"]
    for label in targets:
        if f"checkov {label}" in med:
            ratios[f"checkov / policies ({label})"] = med[f"checkov {label}"] / med[f"policies {label}"]
    cpu_ratios = {
        key: med_cpu[a] / med_cpu[b]
        for key, (a, b) in {
            scale: (f"plan {big}", f"plan {small}"),
            f"plan {big} / bare {big}": (f"plan {big}", f"bare {big}"),
            f"plan {big} / bare+inputs {big}": (f"plan {big}", f"bare+inputs {big}"),
        }.items()
    }
    return {
        "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0], "load_average": os.getloadavg()[0]},
        "repeat": repeat,
        "sizes": list(sizes),
        "resources": {str(n): counts[n] for n in sizes},
        "median_seconds": med,
        "median_cpu_seconds": med_cpu,
        "min_seconds": mins,
        "ratios": ratios,
        "cpu_ratios": cpu_ratios,
        "checkov": checkov or None,
        "imports": {"total_seconds": total_imports, "slowest": slowest},
        "targets": {
            "prod plan < 3 s": med["plan prod (process)"] < 3.0,
            f"{big} models <= 10x {small} models": ratios[scale] <= 10.0,
            f"plan <= 1.5x bare engine, plain resources ({big} models)": ratios[f"plan {big} / bare {big}"] <= 1.5,
            f"plan <= 1.5x bare engine, same inputs ({big} models)": ratios[f"plan {big} / bare+inputs {big}"] <= 1.5,
            "policies >= 10x faster than Checkov": (
                all(r >= 10.0 for k, r in ratios.items() if k.startswith("checkov")) if checkov else None
            ),
        },
    }


def render(f: dict) -> str:
    """The figures as plain-text tables."""
    med, mins, cpu = f["median_seconds"], f["min_seconds"], f["median_cpu_seconds"]
    m = f["machine"]
    lines = [
        f"llm-serving benchmarks: {m['cpus']} CPUs (load average {m['load_average']:.1f}), Python {m['python']}, "
        f"{f['repeat']} interleaved rounds; medians (wall)",
        "",
        f"{'models':>6}  {'resources':>9}  {'plan':>9}  {'bare':>9}  {'bare+inputs':>11}  {'plan/bare':>9}  {'plan/bare+inputs':>16}",
    ]
    sizes = f["sizes"]
    for n in sizes:
        lines.append(
            f"{n:>6}  {f['resources'][str(n)]:>9}  {fmt(med[f'plan {n}']):>9}  {fmt(med[f'bare {n}']):>9}  {fmt(med[f'bare+inputs {n}']):>11}"
            f"  {f['ratios'][f'plan {n} / bare {n}']:>8.2f}x  {f['ratios'][f'plan {n} / bare+inputs {n}']:>15.2f}x"
        )
    lines.append(f"plan {sizes[-1]} models / plan {sizes[-2]} models: {f['ratios'][f'plan {sizes[-1]} / plan {sizes[-2]}']:.2f}x")
    lines.append("CPU-time ratios: " + ", ".join(f"{k} {v:.2f}x" for k, v in f["cpu_ratios"].items()))
    lines.append("")
    lines.append(f"{'whole process':<28}  {'median':>9}  {'min':>9}  {'CPU':>9}")
    for name in med:
        if name.startswith(("plan prod", "policies", "checkov", "python -c")):
            lines.append(f"{name:<28}  {fmt(med[name]):>9}  {fmt(mins[name]):>9}  {fmt(cpu[name]):>9}")
    for key, ratio in f["ratios"].items():
        if key.startswith("checkov"):
            lines.append(f"{key}: {ratio:.1f}x")
    if not f["checkov"]:
        lines.append("checkov: n/a (not installed; pass --checkov PATH)")
    lines.append("")
    lines.append(f"imports (python -X importtime, top level): {f['imports']['total_seconds'] * 1000:,.0f} ms; slowest:")
    for name, seconds in f["imports"]["slowest"]:
        lines.append(f"  {name:<40} {seconds * 1000:>7,.0f} ms")
    lines.append("")
    lines.append("targets:")
    for target, ok in f["targets"].items():
        lines.append(f"  {'n/a ' if ok is None else ('met ' if ok else 'MISS')} {target}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
