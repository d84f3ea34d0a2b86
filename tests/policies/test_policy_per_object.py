"""Policy.per_object: a stack policy whose findings on an object rest on that object alone is handed, in a scope that
reports only some objects' findings (a folder's second variant, policies.scopes), only those objects
(framework.evaluate_policies). Each policy that declares it is held here to the declaration, on the objects of both corpora; the run
of the pack with the declarations gives what it gives without them."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest

from policies.check import resources_of, scoped
from policies.framework import Policy, Resource, evaluate_policies, run_stack_policy
from policies.kube import cluster_view, evaluation_memo
from policies.manifests import read_manifests
from policies.registry import POLICIES, evaluate
from tests.conftest import shared_path

PER_OBJECT = [p for p in POLICIES if p.per_object]
CORPORA = ("manifests", "manifests-v2")


def _scopes(folder: str) -> tuple[list[list[Resource]], list[frozenset[str] | None] | None, list[Resource]]:
    manifests = read_manifests([str(shared_path("corpus", folder))])
    resources = resources_of(manifests)
    _, groups, reported = scoped(manifests, resources)
    return groups or [resources], reported, resources


def test_only_a_stack_policy_declares_per_object():
    with pytest.raises(ValueError, match="per_object is a stack policy's"):
        Policy(
            name="demo-policy",
            description="d",
            catalog="G1",
            severity="low",
            enforcement="advisory",
            remediation_steps="r",
            resource_types=("kubernetes:core/v1:Pod",),
            check_resource=lambda r, c: [],
            per_object=True,
        )


def test_the_pack_declares_some_per_object_policies():
    assert {"no-literal-credential", "debug-switches-off", "engine-options-exist"} <= {p.name for p in PER_OBJECT}


@pytest.mark.parametrize("folder", CORPORA)
def test_a_per_object_policy_finds_in_a_whole_scope_what_it_finds_object_by_object(folder):
    # The declaration itself: over each scope of the corpus (the bigger scope), in that scope's cluster view, the
    # findings are those of the policy handed each object alone, and every one names an object of the scope.
    groups, _, _ = _scopes(folder)
    fired = 0
    for group in groups:
        names = {r.name for r in group}
        with evaluation_memo(), cluster_view(group):
            for policy in PER_OBJECT:
                values = policy.defaults()
                whole = run_stack_policy(policy, group, values)
                alone = [f for r in group for f in run_stack_policy(policy, [r], values)]
                assert Counter(whole) == Counter(alone), policy.name
                assert {name for name, _ in whole} <= names, policy.name
                fired += len(whole)
    assert fired  # the corpora exercise the declarations


@pytest.mark.parametrize("folder", CORPORA)
def test_the_declarations_change_no_finding_of_a_run(folder):
    # Corpus 1 has a folder that defines objects twice (two variants); the second reports only its own definitions.
    groups, reported, resources = _scopes(folder)
    undeclared = [dataclasses.replace(p, per_object=False) for p in POLICIES]
    got = evaluate(resources, scopes=groups, reported=reported)
    assert got == evaluate_policies(resources, None, undeclared, scopes=groups, reported=reported)
    assert got


def _pod(name: str, file: str, token: str = "", template: str = "") -> Resource:
    env = [{"name": "CUDA_LAUNCH_BLOCKING", "value": "1"}] if token else []
    props = {
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "vllm", "image": "vllm/vllm-openai:v0.10.1", "args": ["--model", "m"], "env": env}]},
    }
    return Resource(type="kubernetes:core/v1:Pod", name=f"{file}#0 Pod/{name}", props=props, template=template)


def test_a_variant_hands_a_per_object_policy_only_its_own_definitions_in_its_own_view():
    handed: list[list[str]] = []

    def check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
        handed.append([r.name for r in resources])
        return [(r.name, "on") for r in resources if r.props["spec"]["containers"][0]["env"]]

    policy = Policy(
        name="demo-policy",
        description="d",
        catalog="G1",
        severity="low",
        enforcement="mandatory",
        remediation_steps="r",
        check_stack=check,
        per_object=True,
    )
    a1, a2, b = _pod("a", "one.yaml", token="x"), _pod("a", "two.yaml", token="x"), _pod("b", "three.yaml", token="x")
    chart = _pod("c", "chart/templates/c.yaml", token="x", template="chart")
    groups = [[a1, b, chart], [a2, b, chart]]
    reported = [None, frozenset({a2.name})]
    found = evaluate_policies([a1, a2, b, chart], None, [policy], scopes=groups, reported=reported)
    assert handed[2:] == [[a2.name], [a2.name]]  # the literal run, then the one with templates: never b or the chart
    plain = evaluate_policies(
        [a1, a2, b, chart], None, [dataclasses.replace(policy, per_object=False)], scopes=groups, reported=reported
    )
    assert found == plain and {v.resource for v in found} == {a1.name, a2.name, b.name, chart.name}
