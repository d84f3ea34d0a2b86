"""Refactoring keeps what is rendered: dev, staging and prod plan to the recorded bytes.

tests/plan/plans.sha256 holds one SHA-256 per file each plan writes and per report (JSON and
Markdown). A change that is meant to alter a plan rewrites it (`python tools/plan_digest.py --write`)
in the same commit and names the change; any other difference fails here, listing the files.
"""

from __future__ import annotations

import importlib.util

import pytest

from tests.conftest import ROOT

_spec = importlib.util.spec_from_file_location("plan_digest", ROOT / "tools" / "plan_digest.py")
plan_digest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(plan_digest)


@pytest.fixture(scope="module")
def actual():
    return plan_digest.plan_digest()


def test_plans_are_byte_identical_to_the_recorded_digest(actual):
    expected = plan_digest.parse(plan_digest.DIGEST.read_text())
    lines = plan_digest.differences(expected, actual)
    assert not lines, (
        "the plans differ from tests/plan/plans.sha256; if the change is intended, run "
        "`python tools/plan_digest.py --write` and name it in the commit message:\n" + "\n".join(lines)
    )


def test_the_digest_covers_every_stack_its_reports_and_its_files(actual):
    for stack in plan_digest.STACKS:
        names = [name for name in actual if name.startswith(f"{stack}/")]
        assert f"{stack}/report.json" in names and f"{stack}/report.markdown" in names
        assert any(name.startswith(f"{stack}/kubernetes/") for name in names)
        assert any(name.startswith(f"{stack}/aws/") for name in names)


def test_a_changed_byte_is_named():
    expected = {"prod/kubernetes/a.yaml": "0" * 64, "prod/report.json": "1" * 64}
    actual = {"prod/kubernetes/a.yaml": "2" * 64, "prod/report.json": "1" * 64, "prod/aws/b.json": "3" * 64}
    assert plan_digest.differences(expected, actual) == ["new:     prod/aws/b.json", "changed: prod/kubernetes/a.yaml"]
    assert plan_digest.parse(plan_digest.render(actual)) == actual
