"""`policies check` on two cores (policies/two_cores.py): the same findings, byte for byte, as on one.

Speed is benchmarks/policies_check.py's to measure; these tests pin what may not change: the split's result is the
serial one in the items' order, a child that fails costs its half being evaluated in the process (never a finding),
and the CLI's output on both corpora is identical with ``LLM_SERVING_CHECK_CORES=1`` and without it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from policies import two_cores
from tests.conftest import shared_path

ROOT = Path(__file__).resolve().parents[2]
needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork on this platform")


@pytest.fixture
def free(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two cores free, whatever runs the test (pytest-xdist's workers run threads, which keep the split off)."""
    monkeypatch.setattr(two_cores, "two_cores_free", lambda: True)


@needs_fork
def test_split_gives_each_half_in_the_items_order(free: None) -> None:
    items = list(range(40))
    parts = two_cores.split(lambda some: [(x, os.getpid()) for x in some], items)
    assert [x for x, _ in parts[0]] == items[0::2]
    assert [x for x, _ in parts[1]] == items[1::2]
    assert {pid for _, pid in parts[0]} == {os.getpid()}
    assert {pid for _, pid in parts[1]} != {os.getpid()}  # the second half came from the child


@needs_fork
def test_a_child_that_fails_costs_time_not_its_half(free: None) -> None:
    parent = os.getpid()

    def run(some: list[int]) -> list[int]:
        if os.getpid() != parent:
            raise RuntimeError("the child fails")  # exits 1 with nothing written
        return [x * 2 for x in some]

    assert two_cores.split(run, list(range(20))) == [[x * 2 for x in range(0, 20, 2)], [x * 2 for x in range(1, 20, 2)]]


def test_stays_on_one_core_when_told_or_for_few_items(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_SERVING_CHECK_CORES", "1")
    assert two_cores.two_cores_free() is False
    monkeypatch.delenv("LLM_SERVING_CHECK_CORES")
    monkeypatch.setattr(two_cores, "two_cores_free", lambda: True)
    few = list(range(two_cores.MIN_ITEMS - 1))
    assert two_cores.split(lambda some: (os.getpid(), list(some)), few) == [(os.getpid(), few)]


def test_a_debug_run_stays_on_one_core(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LLM_SERVING_CHECK_CORES", raising=False)
    monkeypatch.setattr(two_cores, "_COMMAND_LINE", [True])
    monkeypatch.setenv("LLM_SERVING_DEBUG", "1")
    assert two_cores.two_cores_free() is False


def test_only_the_command_line_splits(monkeypatch: pytest.MonkeyPatch) -> None:
    # policies.check.main called in a program's (or a test's) own process keeps every policy there.
    monkeypatch.delenv("LLM_SERVING_CHECK_CORES", raising=False)
    monkeypatch.delenv("LLM_SERVING_DEBUG", raising=False)
    monkeypatch.setattr(two_cores, "_COMMAND_LINE", [False])
    assert two_cores.two_cores_free() is False


@needs_fork
@pytest.mark.parametrize("corpus", ["manifests", "manifests-v2"])
def test_the_cli_reports_the_same_on_two_cores_as_on_one(corpus: str) -> None:
    folder = shared_path("corpus", corpus)
    outputs = []
    for cores in ("1", "2"):
        env = {**os.environ, "LLM_SERVING_CHECK_CORES": cores}
        env.pop("LLM_SERVING_DEBUG", None)
        proc = subprocess.run(
            [sys.executable, "-m", "policies", "check", str(folder), "--format", "sarif"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        outputs.append((proc.returncode, proc.stdout, proc.stderr))
    assert outputs[0][0] in (0, 1), outputs[0][2]
    assert outputs[0] == outputs[1]
