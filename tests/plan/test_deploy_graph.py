"""The deploy graph of dev, staging and prod, walked from the offline engine's record.

Pulumi creates a resource after everything it depends on and deletes it before them, so the
record's dependencies decide whether a first ``pulumi up`` and a ``pulumi destroy`` work. Three
rules are checked here, each against the facts table of components/deploy_facts.py (which chart
installs which CRDs, serves which kinds, runs as which service account) but with the matching
written out again on the recorded inputs, so that a slip in the product's matching fails here:

1. every custom resource (or other kind a controller serves) waits for the release that installs
   its CRD and the release of its controller or webhook, when the stack installs that chart; and
   every release waits for the releases its chart needs first;
2. every controller release that calls AWS waits for its Pod Identity association and every IAM
   policy on that association's role;
3. every workload waits for the Secrets, ServiceAccounts, PriorityClasses, LocalModelCaches and
   Pod Identity associations it names, when the stack creates them.

A mutation that drops one recorded dependency fails them.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from components.deploy_order import CHARTS
from tests.recording import record

STACKS = ("dev", "staging", "prod")
RELEASE = "kubernetes:helm.sh/v3:Release"
# kserve-resources v0.20.0 values.yaml: kserve.localmodel.jobNamespace (the stacks leave it at its default).
JOB_NAMESPACE = "kserve-localmodel-jobs"


@pytest.fixture(scope="module", params=STACKS)
def recorded(request) -> tuple[str, list[dict]]:
    return request.param, record(request.param)["resources"]


@pytest.fixture(scope="module")
def prod() -> list[dict]:
    return record("prod")["resources"]


def _kind(r: Mapping[str, Any]) -> str | None:
    """ "<group>/<Kind>" of a recorded Kubernetes object (None for releases and cloud resources)."""
    if not r["type"].startswith("kubernetes:") or r["type"] == RELEASE or not r["custom"]:
        return None
    api = r["inputs"].get("apiVersion", "")
    return f"{api.rsplit('/', 1)[0] if '/' in api else ''}/{r['inputs'].get('kind')}"


def _chart(r: Mapping[str, Any]) -> str | None:
    return r["inputs"]["chart"].rsplit("/", 1)[-1] if r["type"] == RELEASE else None


def _ns(r: Mapping[str, Any]) -> str | None:
    if r["type"] == RELEASE:
        return r["inputs"].get("namespace")
    return (r["inputs"].get("metadata") or {}).get("namespace")


def _meta_name(r: Mapping[str, Any]) -> str | None:
    return (r["inputs"].get("metadata") or {}).get("name")


def _pairs(value: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield k, v
            yield from _pairs(v)
    elif isinstance(value, list):
        for v in value:
            yield from _pairs(v)


def _named(r: Mapping[str, Any]) -> dict[str, set[str]]:
    """What a recorded object's spec names (written out here, independent of the product's matcher)."""
    out: dict[str, set[str]] = {"sa": set(), "secret": set(), "priority": set(), "uri": set()}
    spec = {k: v for k, v in r["inputs"].items() if k not in ("metadata", "apiVersion", "kind")}
    for k, v in _pairs(spec):
        if k == "serviceAccountName":
            out["sa"].add(v)
        elif k in ("secretKeyRef", "secretRef"):
            out["secret"].add(v["name"])
        elif k == "secretName":
            out["secret"].add(v)
        elif k == "imagePullSecrets":
            out["secret"].update(x["name"] for x in v)
        elif k == "priorityClassName":
            out["priority"].add(v)
        elif k == "storageUri":
            out["uri"].add(v)
        elif k == "env":
            out["uri"].update(e["value"] for e in v if e.get("name") == "STORAGE_URI")
    if _kind(r) == "/ServiceAccount":
        out["secret"].update(x["name"] for x in r["inputs"].get("secrets") or [])
    return out


def graph_problems(resources: list[dict]) -> tuple[list[str], dict[int, int]]:
    """Missing waits by the three rules, and how many waits each rule checked."""
    problems: list[str] = []
    checked = {1: 0, 2: 0, 3: 0}
    deps = {r["name"]: set(r["dependencies"]) for r in resources}
    releases = [(r, _chart(r)) for r in resources if r["type"] == RELEASE]

    def need(rule: int, r: Mapping[str, Any], other: str, why: str) -> None:
        checked[rule] += 1
        if other not in deps[r["name"]]:
            problems.append(f"rule {rule}: {r['name']} does not wait for {other} ({why})")

    for r in resources:
        kind = _kind(r)
        if kind is not None:
            for rel, chart in releases:
                facts = CHARTS.get(chart)
                if facts and (kind in facts.crds or kind in facts.serves):
                    need(1, r, rel["name"], f"{chart} installs or serves {kind}")
        chart = _chart(r)
        if chart is not None:
            facts = CHARTS[chart]  # a chart missing from the table is a failure of its own
            for rel, other in releases:
                if other in facts.after:
                    need(1, r, rel["name"], f"{chart} needs {other}")
            if facts.service_account is not None:
                path, default = facts.service_account
                values = r["inputs"].get("values") or {}
                for part in path.split("."):
                    values = values.get(part) if isinstance(values, dict) else None
                account = (r["inputs"]["namespace"], values or default)
                for assoc in _associations(resources, account):
                    need(2, r, assoc["name"], f"Pod Identity of {account}")
                    for agent in resources:
                        if (
                            agent["type"] == "aws:eks/addon:Addon"
                            and agent["inputs"].get("addonName") == "eks-pod-identity-agent"
                        ):
                            need(2, r, agent["name"], "the Pod Identity Agent add-on")
                    roles = [d for d in assoc["dependencies"] if _type_of(resources, d) == "aws:iam/role:Role"]
                    for policy in resources:
                        if policy["type"] in (
                            "aws:iam/rolePolicy:RolePolicy",
                            "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
                        ) and set(roles) & set(policy["dependencies"]):
                            need(2, r, policy["name"], f"a policy of {roles}")
        if kind is not None:
            named, ns = _named(r), _ns(r)
            if ns is None and kind == "serving.kserve.io/LocalModelCache":
                ns = JOB_NAMESPACE  # KServe runs the cache's download jobs there
            for other in resources:
                okind, oname, ons = _kind(other), _meta_name(other), _ns(other)
                if okind == "/ServiceAccount" and oname in named["sa"] and ons == ns:
                    need(3, r, other["name"], f"names ServiceAccount {oname}")
                elif okind == "/Secret" and oname in named["secret"] and ons == ns:
                    need(3, r, other["name"], f"names Secret {oname}")
                elif okind == "scheduling.k8s.io/PriorityClass" and oname in named["priority"]:
                    need(3, r, other["name"], f"names PriorityClass {oname}")
                elif okind == "serving.kserve.io/LocalModelCache":
                    source = other["inputs"]["spec"]["sourceModelUri"]
                    if any(u == source or u.startswith(source.rstrip("/") + "/") for u in named["uri"]):
                        need(3, r, other["name"], f"reads {source} from a LocalModelCache")
            for sa in named["sa"]:
                for assoc in _associations(resources, (ns, sa)):
                    need(3, r, assoc["name"], f"Pod Identity of {ns}/{sa}")
    return problems, checked


def _associations(resources: list[dict], account: tuple[Any, Any]) -> list[dict]:
    return [
        a
        for a in resources
        if a["type"] == "aws:eks/podIdentityAssociation:PodIdentityAssociation"
        and (a["inputs"].get("namespace"), a["inputs"].get("serviceAccount")) == account
    ]


def _type_of(resources: list[dict], name: str) -> str | None:
    return next((r["type"] for r in resources if r["name"] == name), None)


def test_every_chart_the_stacks_install_is_in_the_facts_table(recorded):
    _, resources = recorded
    assert {_chart(r) for r in resources if r["type"] == RELEASE} <= set(CHARTS)


def test_the_graph_keeps_the_three_rules(recorded):
    stack, resources = recorded
    problems, checked = graph_problems(resources)
    assert problems == []
    # Each rule had waits to check in every stack (a rule that checks nothing cannot fail).
    assert checked[1] > 0 and checked[3] > 0, checked
    assert checked[2] > 0, f"{stack}: no controller release with IAM was checked"


def test_an_inference_service_waits_for_kserve_and_its_credentials(prod):
    isvc = {r["name"]: r for r in prod}["prod-llama-70b-isvc"]
    assert {
        "prod-addons-kserve",
        "prod-addons-kserve-crd",
        "prod-llama-70b-s3-reader-sa",
        "prod-llama-70b-s3-reader-pod-identity",
        "prod-hf-token",
        "prod-namespace",
    } <= set(isvc["dependencies"])


@pytest.mark.parametrize(
    "resource, dependency",
    [
        ("prod-chat-8b-isvc", "prod-addons-kserve"),  # an InferenceService's wait on KServe
        ("prod-chat-8b-isvc", "prod-addons-kserve-crd"),
        ("prod-pool-h100-node-pool", "prod-karpenter-release"),  # a NodePool's wait on Karpenter
        ("prod-pool-h100-node-class", "prod-karpenter-release"),
        ("prod-karpenter-release", "prod-karpenter-crd-release"),
        ("prod-karpenter-release", "prod-karpenter-controller-policy"),
        ("prod-karpenter-release", "prod-addons-pod-identity-agent"),
        ("prod-ingress-lb-controller-release", "prod-ingress-lb-controller-pod-identity"),
        ("prod-llama-70b-isvc", "prod-llama-70b-s3-reader-sa"),
        ("prod-llama-70b-isvc", "prod-llama-70b-s3-reader-pod-identity"),
        ("prod-chat-8b-isvc", "prod-pool-l40s-model-cache-chat-8b"),
        ("prod-llama-405b-raycluster", "prod-kuberay-operator"),
    ],
)
def test_dropping_one_dependency_fails_the_walk(prod, resource, dependency):
    mutated = copy.deepcopy(prod)
    target = next(r for r in mutated if r["name"] == resource)
    assert dependency in target["dependencies"]
    target["dependencies"].remove(dependency)
    problems, _ = graph_problems(mutated)
    assert [p for p in problems if f"{resource} does not wait for {dependency} " in p], problems


def test_json_report_lists_the_recorded_dependencies_of_every_resource(prod, planned):
    rows = planned("prod").report["resources"]  # python -m stacks plan prod --format json, exit 0
    assert {r["name"]: r["dependsOn"] for r in rows} == {r["name"]: sorted(r["dependencies"]) for r in prod}


def test_skip_await_only_on_the_buffer_and_the_pre_pull(prod):
    """pulumi-kubernetes v4.32.0 awaits a Deployment or DaemonSet until ready (provider/pkg/await/awaiters.go:184)
    unless it carries pulumi.com/skipAwait: "true" (provider/pkg/metadata/annotations.go:33, overrides.go:40;
    await.go:1100 newLegacyReadyCondition): the placeholders and the pre-pull pods wait for GPU nodes."""
    skipped = sorted(
        r["name"]
        for r in prod
        if ((r["inputs"].get("metadata") or {}).get("annotations") or {}).get("pulumi.com/skipAwait") == "true"
    )
    workloads = sorted(r["name"] for r in prod if _kind(r) in ("apps/Deployment", "apps/DaemonSet"))
    assert skipped == workloads
    assert any(n.endswith("-buffer") for n in skipped) and any(n.endswith("-image-prepull") for n in skipped)


def test_creation_waves_put_every_resource_after_what_it_waits_for(prod, tmp_path):
    from stacks.deploy_graph import creation_waves, waves_mermaid

    rows = [{"type": r["type"], "name": r["name"], "dependsOn": r["dependencies"]} for r in prod]
    waves = creation_waves(rows)
    wave_of = {n: i for i, wave in enumerate(waves) for n in wave}
    shown = [r for r in rows if r["name"] in wave_of]
    assert all(wave_of[d] < wave_of[r["name"]] for r in shown for d in r["dependsOn"] if d in wave_of)
    assert wave_of["prod-addons-kserve"] < wave_of["prod-chat-8b-isvc"]
    assert wave_of["prod-karpenter-crd-release"] < wave_of["prod-karpenter-release"] < wave_of["prod-pool-h100-node-pool"]
    chart = waves_mermaid(rows)
    assert chart[:2] == ["```mermaid", "flowchart TB"] and chart[-1] == "```"
    assert f"  w{len(waves) - 1} --> w{len(waves)}" in chart
    assert chart == waves_mermaid(list(reversed(rows)))  # the same picture whatever the order of the rows


def test_a_cycle_is_reported_not_drawn():
    from stacks.deploy_graph import creation_waves

    rows = [
        {"type": "kubernetes:core/v1:Secret", "name": "a", "dependsOn": ["b"]},
        {"type": "kubernetes:core/v1:Secret", "name": "b", "dependsOn": ["a"]},
    ]
    with pytest.raises(ValueError, match="cycle among: a, b"):
        creation_waves(rows)
