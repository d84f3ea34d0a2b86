"""Property: on any generated YAML structure the bounded loader raises nothing but LoadError, the
C and pure-Python parsers give the same answer, and where PyYAML's safe loader also reads the
text, the data is the same."""

from __future__ import annotations

import dataclasses
import math

import yaml
from hypothesis import HealthCheck, given, settings

from components.loading import MANIFESTS, LoadError, load_yaml_documents
from tests.hostile.strategies import manifest_files

# A smaller node budget: the comparison below expands aliases, which must stay cheap.
LIMITS = dataclasses.replace(MANIFESTS, max_nodes=20_000)


def _canon(value):
    """Comparable form: NaN equal to itself, dict order ignored (merge keys order them differently)."""
    if isinstance(value, float) and math.isnan(value):
        return ("nan",)
    if isinstance(value, dict):
        return ("map", sorted((repr(k), _canon(v)) for k, v in value.items()))
    if isinstance(value, list):
        return ("seq", [_canon(v) for v in value])
    return value


def _ours(text: str, pure: bool):
    try:
        return [_canon(d.data) for d in load_yaml_documents("fuzz.yaml", LIMITS, text=text, pure=pure)]
    except LoadError as exc:
        assert str(exc).startswith("fuzz.yaml: ")
        return LoadError


@settings(
    max_examples=80,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(manifest_files)
def test_loader_agrees_with_itself_and_with_pyyaml(text):
    fast, pure = _ours(text, False), _ours(text, True)
    assert fast == pure
    if fast is LoadError:
        return
    try:
        reference = [
            _canon(d) for d in yaml.load_all(text, Loader=yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader)
        ]
    except (yaml.YAMLError, ValueError, RecursionError):
        return  # PyYAML refuses what we read ("<<" as a plain value) or recurses too deep
    assert fast == reference
