"""policies/crd/schema.py clears a valid custom resource without loading jsonschema or translating its schema
(_surely_valid, which reads the pinned node as _json_schema does): it may only say "valid" where the validator, given
the translated schema, finds no error, for every pinned schema. Issue 32: the validator's import is ~30 ms of a
`policies check` whose custom resources are valid, which the corpora's all are."""

from __future__ import annotations

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policies.crd import schema

TYPES = sorted(schema.schemas_by_type())
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=False, width=16),
    st.sampled_from([1.0, 2.5, "", "x", "1", "On", "true"]),
)


def _value(draw, node: dict, depth: int = 0):
    """A value shaped like ``node`` most of the time (its properties, items, enum values, types), anything at times."""
    if depth > 6 or draw(st.integers(0, 9)) == 0:
        return draw(SCALARS)
    types = [t for t in node.get("type", []) if t != "null"]
    if node.get("enum") and draw(st.booleans()):
        return draw(st.sampled_from(node["enum"]))
    if "object" in types or "properties" in node:
        properties = node.get("properties", {})
        names = draw(st.lists(st.sampled_from(sorted(properties)), unique=True)) if properties else []
        value = {name: _value(draw, properties[name], depth + 1) for name in names}
        if isinstance(node.get("additionalProperties"), dict) and draw(st.booleans()):
            value["extra"] = _value(draw, node["additionalProperties"], depth + 1)
        return value
    if "array" in types:
        return [_value(draw, node.get("items", {}), depth + 1) for _ in range(draw(st.integers(0, 2)))]
    return draw(SCALARS)


@pytest.mark.parametrize("type_token", TYPES)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_surely_valid_only_where_the_validator_finds_nothing(type_token, data):
    translated = schema._translated(type_token)
    value = _value(data.draw, translated)
    errors = list(jsonschema.Draft7Validator(translated).iter_errors(value))
    if schema._surely_valid(schema.schemas_by_type()[type_token].spec, value):
        assert errors == [], (type_token, value, [e.message for e in errors])


def test_a_required_field_missing_is_left_to_the_validator():
    # The fixture shape of test_policy_crd_schema_valid.py: nodeClassRef without its group.
    pinned = schema.schemas_by_type()["kubernetes:karpenter.sh/v1:NodePool"].spec
    spec = {"template": {"spec": {"nodeClassRef": {"kind": "EC2NodeClass", "name": "default"}, "requirements": []}}}
    assert not schema._surely_valid(pinned, spec)
    spec["template"]["spec"]["nodeClassRef"]["group"] = "karpenter.k8s.aws"
    assert schema._surely_valid(pinned, spec)
