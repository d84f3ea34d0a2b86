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

from policies import POLICIES, catalog
from policies.pulumi_adapter import to_pulumi
from policies.registry import catalog_order, validate_config
from tests.conftest import ROOT

# The research behind the catalogue's rows (policies/catalog.py holds the ids themselves).
CATALOG = ROOT / "docs" / "policy-catalogue.md"

IDS = [p.name for p in POLICIES]


def test_names_are_unique():
    assert len(IDS) == len(set(IDS))


def test_registry_is_in_catalogue_order():
    assert list(POLICIES) == sorted(POLICIES, key=catalog_order)


def test_first_policies_are_registered():
    # Others join as they land; these must stay.
    assert {(p.catalog, p.name) for p in POLICIES} >= {
        ("S1", "vllm-gpu-memory-utilization-bounds"),
        ("S1", "vllm-kv-cache-headroom"),
        ("S2", "vllm-max-model-len-fits-kv-cache"),
        ("S3", "vllm-tp-matches-gpu-limit"),
        ("S4", "tensor-parallel-requires-dshm"),
        ("S5", "llm-no-scale-to-zero"),
        ("S6", "gpu-workload-no-resource-metric-hpa"),
        ("S7", "hpa-custom-metric-is-served"),
        ("S8", "llm-hpa-behavior"),
        ("S16", "llm-startup-probe-budget"),
        ("S18", "kuberay-gpu-hygiene"),
        ("G1", "image-tag-pinned"),
        ("G35", "no-literal-secret-env"),
    }


@pytest.mark.parametrize("policy", POLICIES, ids=IDS)
def test_metadata(policy):
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", policy.name)
    assert catalog.is_id(policy.catalog)
    assert policy.description.endswith(".") and policy.description.count(". ") == 0
    assert policy.severity in ("low", "medium", "high", "critical")
    assert policy.enforcement in ("mandatory", "advisory")
    assert len(policy.remediation_steps) > 40
    assert policy.exemption_annotation == f"llm-serving.io/exempt-{policy.name}"
    assert (policy.check_stack is None) == bool(policy.resource_types)


@pytest.mark.parametrize("policy", POLICIES, ids=IDS)
def test_catalogue_entry_exists(policy):
    assert catalog.is_id(policy.catalog)
    row = re.search(rf"\n\| {policy.catalog} \| `([a-z0-9-]+)` \|", CATALOG.read_text())
    if row:
        # The research document names one policy per S-row; companions of that row (the S1 budget
        # check) share its id, and the row's own policy must then be registered too.
        assert row.group(1) in {p.name for p in POLICIES}
        assert policy.name == row.group(1) or policy.enforcement == "advisory"


def test_research_document_rows_are_catalogue_ids():
    # Every row of docs/policy-catalogue.md is an id of policies/catalog.py; a general-table row
    # keeps its "check" column as the title, so the two cannot drift apart unnoticed.
    text = CATALOG.read_text()
    s_rows = re.findall(r"\n\| (S\d+) \| `[a-z0-9-]+` \|", text)
    g_rows = re.findall(r"\n\| (\d+) \| ([^|]+) \|", text)
    assert len(s_rows) >= 20 and len(g_rows) >= 44
    assert [i for i in s_rows if not catalog.is_id(i)] == []
    # ... and the other way round: every id of policies/catalog.py has its row (research and
    # citation) in the document, so a new id cannot land with only its one-line title.
    rows = set(re.findall(r"\n\| (S\d+) \| `", text)) | {f"G{n}" for n, _ in g_rows}
    assert [f"{e.series}{e.number}" for e in catalog.entries() if f"{e.series}{e.number}" not in rows] == []
    assert [
        (f"G{n}", title.strip())
        for n, title in g_rows
        if not catalog.is_id(f"G{n}") or catalog.entry(f"G{n}").title != title.strip()
    ] == []


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
