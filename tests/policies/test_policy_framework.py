"""The framework: exemptions, config merging, enforcement overrides, ordering, config validation."""

import pytest
from policy_fixtures import PDB_TYPE, isvc, isvc_props, messages, pdb_props, resource, set_arg, vllm_container

from policies import catalog
from policies.framework import Policy, PolicyConfigError, Resource, Violation
from policies.registry import evaluate, validate_config
from policies.vllm.gpu_memory_utilization_bounds import POLICY as S1

EXEMPT = "llm-serving.io/exempt-vllm-gpu-memory-utilization-bounds"
BLANK = f"metadata.annotations: exemption annotation {EXEMPT} needs a reason; the policy still applies"


_ABSENT = object()


def too_high(annotation=_ABSENT):
    props = isvc_props()
    set_arg(vllm_container(props), "gpu-memory-utilization", "0.99")
    if annotation is not _ABSENT:
        props["metadata"]["annotations"][EXEMPT] = annotation
    return isvc(props)


def toy_policy(**overrides):
    fields = dict(
        name="toy-policy",
        description="A toy.",
        catalog="G1",
        severity="low",
        enforcement="advisory",
        remediation_steps="Do it.",
        config_schema={"limit": {"type": "integer", "minimum": 0, "default": 3, "description": "d"}},
        resource_types=("kubernetes:core/v1:ConfigMap",),
        check_resource=lambda r, c: [f"limit {c['limit']}"],
    )
    fields.update(overrides)
    return Policy(**fields)


def test_exemption_annotation_name():
    assert S1.exemption_annotation == EXEMPT


def test_exemption_with_reason_skips_the_resource():
    assert messages(S1, too_high("sidecar-free node, measured 2026-11-01")) == []


@pytest.mark.parametrize("blank", ["", "   ", None])
def test_blank_exemption_is_itself_a_violation_and_does_not_exempt(blank):
    found = messages(S1, too_high(blank))
    assert len(found) == 2
    assert found[1] == BLANK
    assert "above the maximum" in found[0]


def test_blank_exemption_on_a_compliant_resource_is_still_reported():
    props = isvc_props()
    props["metadata"]["annotations"][EXEMPT] = ""
    assert messages(S1, isvc(props)) == [BLANK]


def test_exemption_for_another_policy_does_not_apply():
    props = isvc_props()
    set_arg(vllm_container(props), "gpu-memory-utilization", "0.99")
    props["metadata"]["annotations"]["llm-serving.io/exempt-image-tag-pinned"] = "reason"
    assert len(messages(S1, isvc(props))) == 1


def test_stack_policy_exemptions_apply_by_resource_name():
    def check(resources, config):
        return [(r.name, "bad") for r in resources] + [("", "stack-wide")]

    policy = toy_policy(resource_types=(), check_resource=None, check_stack=check)
    exempt = Resource("t", "a", {"metadata": {"annotations": {policy.exemption_annotation: "why"}}})
    blank = Resource("t", "b", {"metadata": {"annotations": {policy.exemption_annotation: " "}}})
    plain = Resource("t", "c", {})
    found = [(v.resource, v.message) for v in evaluate([exempt, blank, plain], policies=[policy])]
    expected_blank = (
        f"metadata.annotations: exemption annotation {policy.exemption_annotation} needs a reason; the policy still applies"
    )
    assert found == [("", "stack-wide"), ("b", "bad"), ("b", expected_blank), ("c", "bad")]


def test_config_merges_defaults_with_user_values():
    policy = toy_policy()
    configmap = Resource("kubernetes:core/v1:ConfigMap", "cm", {})
    assert [v.message for v in evaluate([configmap], policies=[policy])] == ["limit 3"]
    assert [v.message for v in evaluate([configmap], {"toy-policy": {"limit": 7.0}}, [policy])] == ["limit 7.0"]


def test_enforcement_level_override():
    found = evaluate([too_high()], {S1.name: {"enforcementLevel": "advisory"}}, policies=[S1])
    assert [v.enforcement for v in found] == ["advisory"]


def test_enforcement_level_shorthand_and_all():
    assert [v.enforcement for v in evaluate([too_high()], {S1.name: "advisory"}, [S1])] == ["advisory"]
    assert [v.enforcement for v in evaluate([too_high()], {"all": "advisory"}, [S1])] == ["advisory"]
    both = {"all": "advisory", S1.name: {"enforcementLevel": "mandatory"}}
    assert [v.enforcement for v in evaluate([too_high()], both, [S1])] == ["mandatory"]


def test_disabled_policy_reports_nothing():
    assert evaluate([too_high()], {S1.name: {"enforcementLevel": "disabled"}}, policies=[S1]) == []


def test_violation_fields_and_default_registry():
    found = [v for v in evaluate([too_high()]) if v.policy == S1.name]
    assert found == [
        Violation(
            policy=S1.name,
            catalog="S1",
            enforcement="mandatory",
            resource="chat-8b",
            message=(
                "container kserve-container: --gpu-memory-utilization=0.99 is above the maximum 0.95; CUDA "
                "graphs, NCCL buffers and other processes need the rest of the GPU, or the engine runs out of "
                "memory"
            ),
        )
    ]


def test_output_is_sorted_by_policy_resource_message():
    a = Resource("kubernetes:core/v1:ConfigMap", "b-resource", {})
    b = Resource("kubernetes:core/v1:ConfigMap", "a-resource", {})
    policy_z = toy_policy(name="z-policy", check_resource=lambda r, c: ["2", "1"])
    policy_a = toy_policy(name="a-policy")
    found = [(v.policy, v.resource, v.message) for v in evaluate([a, b], policies=[policy_z, policy_a])]
    assert found == sorted(found)
    assert found[0] == ("a-policy", "a-resource", "limit 3")


# The namespace's default deny (model-pods-network-isolated, G33): nothing but the node's probes reaches the pods.
DEFAULT_DENY = {
    "metadata": {"name": "default-deny", "namespace": "llm"},
    "spec": {"podSelector": {}, "policyTypes": ["Ingress"]},
}


def test_compliant_fixture_passes_every_registered_policy():
    netpol = resource("kubernetes:networking.k8s.io/v1:NetworkPolicy", DEFAULT_DENY)
    assert evaluate([isvc(), resource(PDB_TYPE, pdb_props()), netpol]) == []


def test_evaluate_rejects_invalid_config():
    with pytest.raises(PolicyConfigError) as raised:
        evaluate([isvc()], {S1.name: {"max": "high"}})
    assert raised.value.errors == [f"{S1.name}.max: 'high' is not of type 'number'"]


@pytest.mark.parametrize(
    "config, errors",
    [
        (None, []),
        ({}, []),
        ({S1.name: {"min": 0.85, "max": 0.9, "enforcementLevel": "advisory"}}, []),
        ({"llm-startup-probe-budget": {"minBudgetSeconds": 900.0}}, []),
        ({"no-such-policy": {}}, ["no-such-policy: no such policy in the llm-serving pack"]),
        ({S1.name: {"max": "0.9"}}, [f"{S1.name}.max: '0.9' is not of type 'number'"]),
        ({S1.name: {"max": 1.5}}, [f"{S1.name}.max: 1.5 is greater than the maximum of 1"]),
        ({S1.name: {"min": 0}}, [f"{S1.name}.min: 0 is less than or equal to the minimum of 0"]),
        ({S1.name: {"maximum": 0.9}}, [f"{S1.name}: Additional properties are not allowed ('maximum' was unexpected)"]),
        (
            {S1.name: {"enforcementLevel": "strict"}},
            [f"{S1.name}.enforcementLevel: 'strict' is not one of ['mandatory', 'advisory', 'disabled']"],
        ),
        ({S1.name: "strict"}, [f"{S1.name}: 'strict' is not one of ['mandatory', 'advisory', 'disabled']"]),
        ({S1.name: 3}, [f"{S1.name}: 3 is neither an enforcement level nor a mapping of settings"]),
        ({"all": "remediate"}, ["all: 'remediate' is not one of ['mandatory', 'advisory', 'disabled']"]),
        # The settings session 50 added (S15's admission plugin, G15's floor, G40's scale-target version check).
        (
            {"gpu-pod-tolerates-and-targets": {"extendedResourceToleration": "yes"}},
            ["gpu-pod-tolerates-and-targets.extendedResourceToleration: 'yes' is not of type 'boolean'"],
        ),
        (
            {"hpa-min-replicas-floor": {"minReplicasFloor": 0}},
            ["hpa-min-replicas-floor.minReplicasFloor: 0 is less than the minimum of 1"],
        ),
        # S16's download rate (session 56, crossfile56): a number, 0 turning the check off.
        (
            {"llm-startup-probe-budget": {"assumedDownloadGiBps": "fast"}},
            ["llm-startup-probe-budget.assumedDownloadGiBps: 'fast' is not of type 'number'"],
        ),
        (
            {"llm-startup-probe-budget": {"assumedDownloadGiBps": -1}},
            ["llm-startup-probe-budget.assumedDownloadGiBps: -1 is less than the minimum of 0"],
        ),
        (
            {"scale-target-version-served": {"kubernetesVersion": "latest"}},
            ["scale-target-version-served.kubernetesVersion: 'latest' does not match '^[0-9]+[.][0-9]+([.][0-9]+)?$'"],
        ),
        # The setting session 51 added (S10's model-caller-drains-calls, the longest model call assumed).
        (
            {"model-caller-drains-calls": {"maxRequestSeconds": 0}},
            ["model-caller-drains-calls.maxRequestSeconds: 0 is less than the minimum of 1"],
        ),
        (
            {"model-caller-drains-calls": {"maxRequestSeconds": "5m"}},
            ["model-caller-drains-calls.maxRequestSeconds: '5m' is not of type 'number'"],
        ),
        (
            {"llm-startup-probe-budget": {"minBudgetSeconds": 90.5}},
            ["llm-startup-probe-budget.minBudgetSeconds: 90.5 is not of type 'integer'"],
        ),
        (
            {"image-tag-pinned": {"disallowedTags": ["latest", 1]}},
            ["image-tag-pinned.disallowedTags.1: 1 is not of type 'string'"],
        ),
        ([], ["policy config must be a mapping of policy name to settings, not list"]),
        ({"api-version-served": {"karpenterVersion": "1.14", "kubernetesVersion": "1.33"}}, []),
        (
            {"api-version-served": {"karpenterVersion": "latest"}},
            ["api-version-served.karpenterVersion: 'latest' does not match '^$|^v?[0-9]+[.][0-9]+([.][0-9]+)?$'"],
        ),
        (
            {"api-version-served": {"kubernetesVersion": "one.thirty"}},
            ["api-version-served.kubernetesVersion: 'one.thirty' does not match '^[0-9]+[.][0-9]+([.][0-9]+)?$'"],
        ),
    ],
)
def test_validate_config(config, errors):
    assert validate_config(config) == errors


# The first S id the catalogue does not list (policies/catalog.py defines the set).
_NEXT_S = f"S{max(e.number for e in catalog.entries() if e.series == 'S') + 1}"


@pytest.mark.parametrize(
    "overrides, problem",
    [
        ({"name": "Not_Kebab"}, "name 'Not_Kebab' is not kebab-case"),
        ({"catalog": _NEXT_S}, f"catalog '{_NEXT_S}' is not an id of the policy catalogue (policies/catalog.py)"),
        ({"catalog": "G999"}, "catalog 'G999' is not an id of the policy catalogue (policies/catalog.py)"),
        ({"severity": "severe"}, "severity 'severe' is not one of"),
        ({"enforcement": "disabled"}, "enforcement 'disabled' is not mandatory or advisory"),
        ({"check_stack": lambda rs, c: []}, "exactly one of check_resource and check_stack must be set"),
        ({"resource_types": ()}, "a resource policy needs resource_types"),
        ({"config_schema": {"x": {"type": "integer"}}}, "config property x lacks default, description"),
        (
            {"config_schema": {"enforcementLevel": {"type": "string", "default": "", "description": ""}}},
            "enforcementLevel is reserved",
        ),
    ],
)
def test_policy_metadata_is_validated_at_construction(overrides, problem):
    with pytest.raises(ValueError, match="toy-policy|Not_Kebab") as raised:
        toy_policy(**overrides)
    assert problem in str(raised.value)
