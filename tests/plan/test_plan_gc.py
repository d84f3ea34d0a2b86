"""The plan command's garbage-collector handling (stacks/__main__.py main, stacks/simulate.py own_garbage_collected):
off while `plan` runs, the caller's setting back afterwards, and the simulation's own collections on."""

from __future__ import annotations

import gc

import pytest

from stacks.__main__ import main
from stacks.simulate import own_garbage_collected


def test_plan_runs_without_the_collector_and_restores_it(tmp_path, monkeypatch):
    seen = []
    import stacks.plan

    real = stacks.plan.run_plan

    def spy(*args, **kwargs):
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(stacks.plan, "run_plan", spy)
    assert gc.isenabled()
    assert main(["plan", "dev", "--out", str(tmp_path / "out"), "--format", "json"]) == 0
    assert seen == [False]
    assert gc.isenabled()  # an in-process caller gets its collector back


def test_plan_exiting_leaves_the_collector_off(tmp_path):
    try:
        assert main(["plan", "dev", "--out", str(tmp_path / "out"), "--format", "json"], exiting=True) == 0
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_other_commands_keep_the_collector(monkeypatch):
    seen = []
    import stacks.simulate

    def fake(args):
        seen.append(gc.isenabled())
        return 0

    monkeypatch.setattr(stacks.simulate, "main_simulate", fake)
    assert main(["simulate", "prod", "--traffic", "x.yaml"], exiting=True) == 0
    assert seen == [True] and gc.isenabled()


def test_bad_arguments_restore_the_collector():
    # Bad arguments are exit 2 returned, not SystemExit raised (so the JSON modes can answer in JSON).
    assert main(["plan"]) == 2
    assert gc.isenabled()


@pytest.mark.parametrize("was_on", [True, False])
def test_simulation_collects_its_own_garbage(was_on):
    (gc.enable if was_on else gc.disable)()
    try:
        with own_garbage_collected():
            assert gc.isenabled() and gc.get_freeze_count() > 0
        assert gc.isenabled() == was_on and gc.get_freeze_count() == 0
    finally:
        gc.enable()
