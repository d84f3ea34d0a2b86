"""Fuzzing the two command lines over YAML structure, each example in a capped subprocess.

`python -m policies check` gets generated manifest files; `python -m stacks plan` gets the dev
stack with one or two of its values (leaves or whole sub-trees) replaced by generated YAML. The
contract (tests/hostile/sandbox.py): exit 0, 1 or 2 within 1 GiB and 10 s CPU, no traceback, no
planted token in any output or written file. Examples are few and derandomized (CI time); the
fixed cases of every issue class are in test_regressions.py.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hostile.cases import DEV, HOLE, PLAN
from tests.hostile.sandbox import assert_contract, run_capped
from tests.hostile.strategies import hostile_nodes, manifest_files

FUZZ = settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _paths(value, path=()):
    """Every place in the dev stack's config a generated node can go (containers and leaves)."""
    if path:
        yield path
    if isinstance(value, dict):
        if set(value) == {"secure"}:
            return
        for k, v in value.items():
            yield from _paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*path, i))


STACK_PATHS = list(_paths(DEV))
# Now and then a place keeps its value, so some examples are valid stacks that run the program.
KEEP = "@keep"


def _stack_with(replacements: list[tuple[tuple, str]]) -> str:
    cfg = json.loads(json.dumps(DEV))
    holes = {}
    for n, (path, snippet) in enumerate(replacements):
        if snippet == KEEP:
            continue
        node = cfg
        try:
            for part in path[:-1]:
                node = node[part]
            node[path[-1]] = f"{HOLE}{n}"
            holes[json.dumps(f"{HOLE}{n}")] = snippet
        except (KeyError, IndexError, TypeError):
            continue  # an earlier replacement removed this place
    text = json.dumps(cfg, indent=1)
    for hole, snippet in holes.items():
        text = text.replace(hole, snippet, 1)
    return "config: " + text + "\n"


@FUZZ
@given(manifest_files)
def test_policies_check_on_generated_manifests(text):
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "m"
        folder.mkdir()
        (folder / "fuzz.yaml").write_text(text)
        assert_contract(run_capped(["-m", "policies", "check", str(folder)]))


@FUZZ
@given(
    st.lists(
        st.tuples(st.sampled_from(STACK_PATHS), st.one_of(hostile_nodes, hostile_nodes, hostile_nodes, st.just(KEEP))),
        min_size=1,
        max_size=2,
    )
)
def test_stacks_plan_on_generated_stack_files(replacements):
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "Pulumi.case.yaml").write_text(_stack_with(replacements))
        args = [part.replace("{dir}", tmp) for part in PLAN]
        result = run_capped(args)
        assert_contract(result, written=Path(tmp) / "out")
        if result.returncode == 2:
            assert not (Path(tmp) / "out").exists()
