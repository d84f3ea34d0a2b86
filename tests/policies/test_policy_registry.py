"""Meta-tests: every registered policy carries complete, consistent metadata."""

import re

import jsonschema
import pytest
from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ResourceValidationPolicy,
    Severity,
    StackValidationPolicy,
)

from policies import POLICIES
from policies.framework import validate_config
from policies.pulumi_adapter import to_pulumi
from policies.registry import catalog_order
from tests.conftest import ROOT

# The catalogue each policy's `catalog` id names a row of (the project's own, kept in the repository).
CATALOG = ROOT / "docs" / "policy-catalogue.md"

IDS = [p.name for p in POLICIES]


def test_names_are_unique():
    assert len(IDS) == len(set(IDS))


def test_registry_is_in_catalogue_order():
    assert list(POLICIES) == sorted(POLICIES, key=catalog_order)


def test_first_policies_are_registered():
    # Others join as they land; these must stay.
    assert {(p.catalog, p.name) for p in POLICIES} >= {
        ("S1", "vllm-gpu-memory-utilization-bounds"), ("S1", "vllm-kv-cache-headroom"),
        ("S2", "vllm-max-model-len-fits-kv-cache"), ("S3", "vllm-tp-matches-gpu-limit"),
        ("S4", "tensor-parallel-requires-dshm"), ("S5", "llm-no-scale-to-zero"),
        ("S6", "gpu-workload-no-resource-metric-hpa"), ("S7", "hpa-custom-metric-is-served"),
        ("S8", "llm-hpa-behavior"), ("S16", "llm-startup-probe-budget"),
        ("S18", "kuberay-gpu-hygiene"),
        ("G1", "image-tag-pinned"), ("G35", "no-literal-secret-env")}


@pytest.mark.parametrize("policy", POLICIES, ids=IDS)
def test_metadata(policy):
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", policy.name)
    assert re.fullmatch(r"^(S([1-9]|1[0-9]|20)|G[0-9]+)$", policy.catalog)
    assert policy.description.endswith(".") and policy.description.count(". ") == 0
    assert policy.severity in ("low", "medium", "high", "critical")
    assert policy.enforcement in ("mandatory", "advisory")
    assert len(policy.remediation_steps) > 40
    assert policy.exemption_annotation == f"llm-serving.io/exempt-{policy.name}"
    assert (policy.check_stack is None) == bool(policy.resource_types)


@pytest.mark.parametrize("policy", POLICIES, ids=IDS)
def test_catalogue_entry_exists(policy):
    text = CATALOG.read_text()
    if policy.catalog.startswith("S"):
        # The catalogue names one policy per S-row; companions of that row (the S1 budget
        # check) share its id, and the row's own policy must then be registered too.
        row = re.search(rf"\n\| {policy.catalog} \| `([a-z0-9-]+)` \|", text)
        assert row, policy.catalog
        assert row.group(1) in {p.name for p in POLICIES}
        assert policy.name == row.group(1) or policy.enforcement == "advisory"
    else:
        assert f"\n| {policy.catalog[1:]} | " in text


@pytest.mark.parametrize("policy", POLICIES, ids=IDS)
def test_config_schema_defaults_validate(policy):
    schema = {"type": "object", "properties": policy.config_schema, "additionalProperties": False}
    jsonschema.Draft7Validator.check_schema(schema)
    jsonschema.validate(policy.defaults(), schema, cls=jsonschema.Draft7Validator)
    for prop in policy.config_schema.values():
        assert {"type", "default", "description"} <= prop.keys()
        assert prop["description"].strip()
    assert validate_config({policy.name: policy.defaults()}) == []


@pytest.mark.parametrize("policy", POLICIES, ids=IDS)
def test_to_pulumi_builds_a_matching_sdk_policy(policy):
    built = to_pulumi(policy)
    expected = StackValidationPolicy if policy.check_stack else ResourceValidationPolicy
    assert type(built) is expected
    assert built.name == policy.name
    assert built.description == policy.description
    assert built.enforcement_level == EnforcementLevel(policy.enforcement)
    assert built.severity == Severity(policy.severity)
    assert built.remediation_steps == policy.remediation_steps
    assert isinstance(built.config_schema, PolicyConfigSchema)
    assert built.config_schema.properties == policy.config_schema


def test_duplicate_names_are_refused():
    from policies.k8s_generic import image_tag_pinned
    from policies.registry import _collect
    with pytest.raises(ValueError, match="duplicate policy names: image-tag-pinned"):
        _collect(image_tag_pinned.POLICY, image_tag_pinned.POLICY)
