"""Benchmark: what each policy costs on a corpus, in one process, so that a landing that makes the check slower is
seen by name.

    python benchmarks/policy_costs.py [--folder manifests-v2] [--runs 7] [--top 25] [--json OUT] [--against OLD.json]

Each run reads the corpus afresh (the way `python -m policies check` does: policies.check.prepared) and evaluates the
whole pack on one core, every policy's check wrapped in a timer; the memoized readers (kube.evaluation_memo) are
shared as in a real run, so the first policy to need a reading pays for it. The table prints, per policy, the median
milliseconds over the runs and its share of the evaluation; then reading and evaluation totals. With ``--json`` the
medians are saved; with ``--against`` a saved file's medians are printed beside these with the ratio (this / that),
so two commits can be compared side by side (run it in each worktree). Timings vary by machine and load: this is a
benchmark, not a test; judge a change by the ratio of medians taken minutes apart on an idle machine.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, Optional

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.policies_check import CORPORA  # noqa: E402
from policies.check import prepared  # noqa: E402
from policies.framework import Policy, Violation  # noqa: E402
from policies.kube import evaluation_memo  # noqa: E402
from policies.manifests import read_manifests  # noqa: E402
from policies.registry import POLICIES, evaluate  # noqa: E402

READING = "(reading the files)"
FRAMEWORK = "(framework: scopes, views, sorting)"
EVALUATION = "(evaluation, all policies)"


def _timed(spent: dict[str, float], name: str, check: Callable[..., Any]) -> Callable[..., Any]:
    """``check`` that adds its wall time to ``spent[name]``."""

    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return check(*args, **kwargs)
        finally:
            spent[name] += time.perf_counter() - start

    return timed


def timed_pack(spent: dict[str, float]) -> list[Policy]:
    """The pack, each policy's check adding its wall time to ``spent[name]``."""
    return [
        dataclasses.replace(
            p,
            check_resource=p.check_resource and _timed(spent, p.name, p.check_resource),
            check_stack=p.check_stack and _timed(spent, p.name, p.check_stack),
        )
        for p in POLICIES
    ]


def one_run(folder: Path) -> tuple[dict[str, float], list[Violation]]:
    """Seconds per policy (and for reading, and the framework's remainder) of one evaluation of ``folder``, and the
    findings (the same as the pack's: tests/policies/test_policy_costs_benchmark.py)."""
    spent: dict[str, float] = defaultdict(float)
    policies = timed_pack(spent)
    gc.collect()
    gc.disable()  # `python -m policies check` all but pauses the collector too (policies/__main__.py); a pause here
    try:  # would be charged to whichever policy it fell in
        start = time.perf_counter()
        run = prepared(read_manifests([str(folder)]))
        read = time.perf_counter() - start
        start = time.perf_counter()
        with evaluation_memo():
            found = evaluate(run.checked, None, policies, scopes=run.groups, reported=run.reported)
        total = time.perf_counter() - start
    finally:
        gc.enable()
    spent[FRAMEWORK] = total - sum(spent.values())
    spent[READING] = read
    return dict(spent), found


def medians(folder: Path, runs: int) -> dict[str, float]:
    """Median milliseconds per row over ``runs`` runs (after one warm-up run that is not counted)."""
    one_run(folder)
    samples: dict[str, list[float]] = defaultdict(list)
    for _ in range(runs):
        for name, seconds in one_run(folder)[0].items():
            samples[name].append(seconds * 1000)
    return {name: statistics.median(values) for name, values in samples.items()}


def table(these: dict[str, float], top: int, those: Optional[dict[str, float]] = None) -> str:
    """The rows, costliest first (``top`` policies, then the totals), with ``those`` beside them when given."""
    evaluation = sum(ms for name, ms in these.items() if name != READING)
    rows = sorted((name for name in these if not name.startswith("(")), key=lambda n: -these[n])
    if those:  # the other commit's evaluation total, beside this one's
        those = {**those, EVALUATION: sum(ms for name, ms in those.items() if name != READING)}
    head = "| policy | ms (median) | share of evaluation |" + (" before ms | ratio |" if those else "")
    lines = [head, "|---|---|---|" + ("---|---|" if those else "")]

    def line(name: str, ms: float, share: str) -> str:
        row = f"| {name} | {ms:,.1f} | {share} |"
        if those:
            old = those.get(name)
            row += " – | new |" if old is None else f" {old:,.1f} | {ms / old:.2f}x |" if old else f" {old:,.1f} | – |"
        return row

    for name in rows[:top]:
        lines.append(line(name, these[name], f"{100 * these[name] / evaluation:.1f}%"))
    rest = sum(these[n] for n in rows[top:])
    lines.append(
        f"| ({len(rows) - top} other policies) | {rest:,.1f} | {100 * rest / evaluation:.1f}% |" + (" | |" if those else "")
    )
    for name in (FRAMEWORK, READING):
        lines.append(line(name, these[name], f"{100 * these[name] / evaluation:.1f}%" if name == FRAMEWORK else "–"))
    lines.append(line(EVALUATION, evaluation, "100%"))
    return "\n".join(lines)


def main(argv: Optional[list[str]] = None) -> int:
    """Time, print the table; save or compare medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", default="manifests-v2", help="a folder under the reference corpus/ (default manifests-v2)")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--top", type=int, default=25, help="policies shown, costliest first (default 25)")
    parser.add_argument("--json", help="save the medians here")
    parser.add_argument("--against", help="medians saved by --json (another commit) to print beside these")
    args = parser.parse_args(argv)
    folder = CORPORA / args.folder
    if not folder.exists():
        parser.error(f"{folder} is absent")
    if args.runs < 1 or args.top < 1:
        parser.error("--runs and --top must be at least 1")
    those = json.loads(Path(args.against).read_text())["medians_ms"] if args.against else None
    these = medians(folder, args.runs)
    print(f"{folder}: {len(POLICIES)} policies, median of {args.runs} runs, one core, Python {sys.version.split()[0]}\n")
    print(table(these, args.top, those))
    if args.json:
        Path(args.json).write_text(json.dumps({"folder": str(folder), "runs": args.runs, "medians_ms": these}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
