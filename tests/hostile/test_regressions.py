"""Issue 6's classes of hostile input as fixed cases, each in a capped subprocess (1 GiB, 10 s CPU):
refused with exit 2 (or flagged with exit 1), named, no traceback, no token in any output or file."""

from __future__ import annotations

import pytest

from tests.hostile.cases import CHECK_CASES, SIZE_CASES, STACK_CASES, Case
from tests.hostile.sandbox import assert_contract, run_capped

ALL = STACK_CASES + CHECK_CASES + SIZE_CASES


@pytest.mark.parametrize("case", ALL, ids=[c.id for c in ALL])
def test_hostile_case(tmp_path, case: Case):
    args = case.write(tmp_path)
    result = run_capped(args, stdin=case.stdin)
    assert_contract(result, allowed=case.allowed, written=tmp_path / "out")
    assert case.stderr_has in result.stderr, result.describe()
    assert case.stdout_has in result.stdout, result.describe()
    if result.returncode == 2 and case.command[:3] == ["-m", "stacks", "plan"]:
        assert not (tmp_path / "out").exists(), "a refused plan wrote files"
