"""Shared fixtures: the project root, the third-party reference folder, stack files.

The reference folder holds third-party material some tests read: upstream CRDs (crds/), the pinned
Helm charts' data files (charts/), a corpus of public manifests (corpus/) and reference notes
(reference/). It lives outside the repository, at ``$LLM_SERVING_REFERENCE`` (default: ``../shared``
beside the checkout); ``python tools/fetch_reference.py`` fills it at the pinned versions. Tests that
need it skip when it is absent, and pytest then prints one line saying so; with ``CI=true`` they fail
instead, so CI never passes without them.
"""

from __future__ import annotations

import ast
import collections
import copy
import dataclasses
import gc
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

REFERENCE_ENV = "LLM_SERVING_REFERENCE"
SHARED = Path(os.environ.get(REFERENCE_ENV) or ROOT.parent / "shared").resolve()
STACKS = ROOT / "stacks"
FETCH = "python tools/fetch_reference.py"


def parse_python(source: str) -> ast.Module:
    """``ast.parse`` with the cyclic collector paused. CPython 3.11.7's parser fails with "AST constructor recursion
    depth mismatch" (cpython gh-106905) when a collection it triggers runs finalizers that themselves parse or log,
    which the pending asyncio tasks of earlier in-process Pulumi runs do; under pytest-xdist any test may follow
    those in its worker, so every test that parses Python source goes through here."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return ast.parse(source)
    finally:
        if was_enabled:
            gc.enable()


def in_ci() -> bool:
    """True where CI runs the suite (CI=true), which must have every reference file."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def shared_path(*parts: str) -> Path:
    """A path in the reference folder; absent, the test skips (and is counted), or fails under CI."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        message = f"{path} is absent: set {REFERENCE_ENV} to the reference folder, or run `{FETCH}` to fill {SHARED}"
        if in_ci():
            pytest.fail(f"CI=true: {message}", pytrace=False)
        pytest.skip(message)
    return path


def reference_skips(reports) -> collections.Counter[str]:
    """Skipped test reports whose reason is an absent reference file -> count per top-level folder."""
    counts: collections.Counter[str] = collections.Counter()
    marker = f" is absent: set {REFERENCE_ENV} "
    for report in reports:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) and len(report.longrepr) == 3 else ""
        if marker in reason:
            missing = Path(reason.removeprefix("Skipped: ").split(marker)[0])
            try:
                counts[missing.relative_to(SHARED).parts[0]] += 1
            except (ValueError, IndexError):
                counts["."] += 1
    return counts


def plural(n: int, noun: str) -> str:
    """'1 test', '2 tests'."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def pytest_terminal_summary(terminalreporter, exitstatus, config):  # noqa: ARG001 (pytest's hook signature)
    """One visible line when tests skipped because the reference folder is absent."""
    counts = reference_skips(terminalreporter.stats.get("skipped", []))
    if counts:
        parts = ", ".join(f"{name}/ {n}" for name, n in sorted(counts.items()))
        terminalreporter.write_line(
            f"reference folder absent: {plural(sum(counts.values()), 'test')} skipped ({parts}); set {REFERENCE_ENV}=PATH "
            f"(now {SHARED}; default ../shared beside the checkout) or run `{FETCH}` to fill it (docs/reference-data.md)",
            yellow=True,
            bold=True,
        )


def stack_config(name: str) -> dict:
    """The config: mapping of stacks/Pulumi.<name>.yaml (a deep copy, safe to mutate). A model's slo.traffic is
    relative to the stack file, so it is made absolute: the mapping plans the same from any folder."""
    return absolute_traffic(copy.deepcopy(yaml.safe_load((STACKS / f"Pulumi.{name}.yaml").read_text())["config"]))


def absolute_traffic(cfg: dict) -> dict:
    """``cfg`` (a stack file's config: mapping) with each model's slo.traffic made absolute from stacks/, so a copy
    of a stack file written elsewhere plans the same."""
    for m in cfg.get("llm-serving:models", []):
        ref = m.get("slo", {}).get("traffic")
        if isinstance(ref, str) and not Path(ref).is_absolute():
            m["slo"]["traffic"] = str((STACKS / ref).resolve())
    return cfg


@pytest.fixture
def dev_config() -> dict:
    """The dev stack's config mapping."""
    return stack_config("dev")


@pytest.fixture
def prod_config() -> dict:
    """The prod stack's config mapping."""
    return stack_config("prod")


@dataclasses.dataclass(frozen=True)
class Planned:
    """One ``python -m stacks plan STACK --format json --out OUT`` of a shipped stack, exit 0."""

    out: Path  # the folder it wrote (the same files as without --format json)
    proc: subprocess.CompletedProcess  # its stdout (the JSON report) and stderr

    @property
    def report(self) -> dict:
        """The JSON report, parsed afresh for each caller."""
        return json.loads(self.proc.stdout)


@pytest.fixture(scope="session")
def planned(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Planned]:
    """``python -m stacks plan STACK --format json`` (run_plan: a fresh interpreter, exit 0 asserted) rendered once per
    stack and test process for the tests that only read what it wrote or printed: each render is ~4 s of CPU, and
    tests of eight modules read prod's. Never write into its folder."""
    done: dict[str, Planned] = {}

    def plan(stack: str) -> Planned:
        if stack not in done:
            out = tmp_path_factory.mktemp(f"plan-{stack}")
            proc = run_plan(stack, out, "--format", "json")
            assert proc.returncode == 0, proc.stderr
            done[stack] = Planned(out, proc)
        return done[stack]

    return plan


def check_in_process(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    """``python -m policies check ARGS`` run by this process (policies.check.main) from the repository root.

    The exit code, stdout and stderr are the command's (text, as ``subprocess.run(..., text=True)`` returns them),
    without the ~1 s of CPU a fresh interpreter spends loading the pack. What only a real process shows (the entry
    point, two cores, the imports of a run, a help that exits) stays with subprocess runs: each test file that uses
    this keeps at least one real run of the same contract (stdin, exit 1, exit 2) beside it.
    """
    import contextlib
    import io

    from policies.check import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(ROOT), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args), stdin=io.BytesIO(stdin.encode()))
        except SystemExit as exc:  # argparse's --help
            code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    return subprocess.CompletedProcess(["python", "-m", "policies", "check", *args], code, out.getvalue(), err.getvalue())


def run_plan(stack: str, out: Path, *flags: str) -> subprocess.CompletedProcess:
    """``python -m stacks plan STACK --out OUT [FLAGS]`` in a fresh interpreter from the repository root."""
    return subprocess.run(
        [sys.executable, "-m", "stacks", "plan", stack, "--out", str(out), *flags],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
