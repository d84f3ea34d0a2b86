"""benchmarks/policy_costs.py times each policy by wrapping its check: the wrapped pack must find exactly what the pack
finds (the timer changes nothing), and the evaluation's time is charged to the policies' rows."""

from __future__ import annotations

import importlib.util

from policies.check import prepared
from policies.kube import evaluation_memo
from policies.manifests import read_manifests
from policies.registry import evaluate
from tests.conftest import ROOT, shared_path


def _benchmark():
    spec = importlib.util.spec_from_file_location("policy_costs", ROOT / "benchmarks" / "policy_costs.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_timed_pack_finds_what_the_pack_finds():
    corpus = shared_path("corpus", "manifests-v2")
    costs = _benchmark()
    run = prepared(read_manifests([str(corpus)]))
    with evaluation_memo():
        plain = evaluate(run.checked, None, scopes=run.groups, reported=run.reported)
    rows, found = costs.one_run(corpus)
    assert len(plain) > 50 and found == plain
    assert rows[costs.READING] > 0
    policies = [name for name in rows if not name.startswith("(")]
    assert len(policies) > 100, "most policies run on manifests-v2, each charged on its own row"
    table = costs.table({name: ms * 1000 for name, ms in rows.items()}, 5)
    assert f"({len(policies) - 5} other policies)" in table and "(evaluation, all policies)" in table
