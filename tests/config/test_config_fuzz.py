"""Bad input never escapes as anything but a ConfigError (property test over random damage to real stacks)."""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from components.capacity.plan import plan_stack
from components.config import load_stack_config
from components.errors import ConfigError
from tests.conftest import stack_config

STACKS = {name: stack_config(name) for name in ("dev", "staging", "prod")}

junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**40), 2**40),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.lists(st.integers(-3, 3), max_size=3),
    st.dictionaries(st.text(max_size=6), st.integers(), max_size=2),
    st.just({"secure": "v1:SECRET_SHOULD_NOT_PRINT"}),
)


def _paths(node, prefix=()):
    """Every path to a value inside the config (mapping keys and list indices)."""
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, prefix + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, prefix + (index,))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stack=st.sampled_from(sorted(STACKS)), data=st.data(), value=junk, action=st.sampled_from(["replace", "delete", "add"]))
def test_any_damage_gives_a_config_error_or_a_valid_plan(stack, data, value, action):
    cfg = copy.deepcopy(STACKS[stack])
    paths = [p for p in _paths(cfg) if p]
    path = data.draw(st.sampled_from(paths))
    parent = cfg
    for part in path[:-1]:
        parent = parent[part]
    last = path[-1]
    if action == "replace":
        parent[last] = value
    elif action == "delete":
        del parent[last]
    elif isinstance(parent, dict):
        parent[f"{last}X"] = value
    else:
        parent.append(value)
    try:
        plan_stack(load_stack_config(cfg))
    except ConfigError as exc:
        text = str(exc)
        assert text.startswith("invalid configuration:\n")
        assert "SECRET_SHOULD_NOT_PRINT" not in text
        assert all(p.path and p.rule for p in exc.problems)
