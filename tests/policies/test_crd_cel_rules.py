"""S26: the pinned CRDs' CEL rules (x-kubernetes-validations), evaluated as the API server does on create.

The rules live in policies/crd/cel_rules.json (tools/crd_cel_rules.py extracts them from the reference
folder's crds/); the first test regenerates them and compares, so a rule dropped or changed upstream, or
in the data file, fails here.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest
import yaml

from policies.crd import cel, validation_rules, validation_rules_unevaluated
from policies.framework import UNKNOWN, Resource
from policies.registry import evaluate
from tests.conftest import ROOT, shared_path
from tests.recording import record
from tools import crd_cel_rules

NODEPOOL = "kubernetes:karpenter.sh/v1:NodePool"
NODECLASS = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"
# aws-samples/karpenter-blueprints' GPU NodePool, as published (the reference folder's corpus/).
BLUEPRINT = ("corpus", "manifests", "aws-samples__karpenter-blueprints", "blueprints__nvidia-gpu-workload__gpu-nodepool.yaml")
POLICIES = (validation_rules.POLICY, validation_rules_unevaluated.POLICY)


@pytest.fixture
def blueprint() -> dict:
    return yaml.safe_load(shared_path(*BLUEPRINT).read_text())


def findings(obj: dict, type_token: str = NODEPOOL) -> list[tuple[str, str, str]]:
    resource = Resource(type=type_token, name="np", props=obj)
    return [(v.policy, v.enforcement, v.message) for v in evaluate([resource], policies=POLICIES)]


def test_the_rules_are_the_reference_crds_rules():
    reference = shared_path("crds").parent
    committed = cel.DATA.read_text(encoding="utf-8")
    assert crd_cel_rules.render(crd_cel_rules.extract(reference)) == committed, "run python tools/crd_cel_rules.py --write"


def test_every_create_time_rule_compiles_and_transition_rules_are_the_oldself_ones():
    rules = [r for rules in cel.rules_by_type().values() for r in rules]
    assert cel.uncompilable() == []
    transition = {r.rule for r in rules if r.is_transition}
    # Karpenter's nodeClassRef and static/dynamic rules, KubeRay's and KServe's immutable fields.
    assert transition == {r.rule for r in rules if "oldSelf" in r.rule} and len(transition) == 4
    # 143 of the reference folder's CRDs, 55 of tools/crd_sources.json's (Envoy AI Gateway, Envoy Gateway, GIE).
    assert len({r.rule for r in rules}) == 198


def test_a_published_nodepool_passes(blueprint):
    assert findings(blueprint) == []
    assert cel.evaluate(NODEPOOL, blueprint).evaluated > 0


def test_a_schedule_without_duration_is_refused_naming_the_crd_and_its_message(blueprint):
    # Karpenter v1.14.1 pkg/apis/crds/karpenter.sh_nodepools.yaml, spec.disruption.budgets:
    # self.all(x, has(x.schedule) == has(x.duration)), "'schedule' must be set with 'duration'".
    blueprint["spec"]["disruption"]["budgets"] = [{"nodes": "0", "schedule": "0 9 * * mon-fri"}]
    assert findings(blueprint) == [
        (
            "crd-validation-rules",
            "mandatory",
            "spec.disruption.budgets: the API server refuses this object: 'schedule' must be set with 'duration' "
            "(CEL rule of CRD nodepools.karpenter.sh, aws/karpenter-provider-aws v1.14.1 "
            "pkg/apis/crds/karpenter.sh_nodepools.yaml: self.all(x, has(x.schedule) == has(x.duration)))",
        )
    ]


def test_a_restricted_label_domain_is_refused_per_key(blueprint):
    # spec.template.metadata.labels: the karpenter.sh domain is Karpenter's (the discovery tag of the subnets is not a label).
    blueprint["spec"]["template"]["metadata"]["labels"]["karpenter.sh/discovery"] = "llm-prod"
    messages = [m for _, _, m in findings(blueprint)]
    assert len(messages) == 1 and 'label domain "karpenter.sh" is restricted' in messages[0], messages
    assert messages[0].startswith("spec.template.metadata.labels: ")


def test_policies_check_reports_it_and_exits_1(tmp_path, blueprint):
    blueprint["spec"]["template"]["spec"]["requirements"].append({"key": "kubernetes.io/hostname", "operator": "Exists"})
    path = tmp_path / "gpu-nodepool.yaml"
    path.write_text(yaml.safe_dump(blueprint))
    proc = subprocess.run(
        [sys.executable, "-m", "policies", "check", str(path), "--format", "json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    rows = [v for v in json.loads(proc.stdout)["violations"] if v["policy"].startswith("crd-")]
    assert [(v["policy"], v["resource"], v["message"].split(" (CEL")[0]) for v in rows] == [
        (
            "crd-validation-rules",
            "NodePool/gpu",
            'spec.template.spec.requirements[3].key: the API server refuses this object: label "kubernetes.io/hostname" is restricted',
        )
    ]


def test_engine_numbers_arrive_as_floats_and_compare_as_integers(blueprint):
    requirement = {"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g6e", "g5"], "minValues": 2.0}
    blueprint["spec"]["template"]["spec"]["requirements"].append(requirement)
    assert findings(blueprint) == []
    requirement["minValues"] = 3.0
    assert [m.split(": the")[0] for _, _, m in findings(blueprint)] == ["spec.template.spec.requirements"]


def test_transition_rules_are_skipped_and_counted(blueprint):
    outcome = cel.evaluate(NODEPOOL, blueprint)
    assert outcome.skipped_transition == 3  # replicas mode, nodeClassRef.group, nodeClassRef.kind


def test_an_evaluation_error_is_listed_not_passed(blueprint):
    blueprint["spec"]["template"]["spec"]["requirements"].append(
        {"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Gt", "values": ["one"]}
    )
    assert findings(blueprint) == [
        (
            "crd-validation-rules-unevaluated",
            "advisory",
            "spec.template.spec.requirements: CEL rule of CRD nodepools.karpenter.sh not checked, evaluation failed: "
            "INVALID_ARGUMENT: cannot convert string to int (rule: self.all(x, (x.operator == 'Gt' || x.operator == 'Lt' "
            "|| x.operator == 'Gte' || x.operator == 'Lte') ? (x.values.size() == 1 && int(x.values[0]) >= 0) : true); "
            "its message: requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer value)",
        )
    ]


def test_an_unknown_value_is_left_for_pulumi_up(blueprint):
    blueprint["spec"]["template"]["spec"]["requirements"] = UNKNOWN
    blueprint["spec"]["disruption"]["budgets"] = [{"nodes": "0", "schedule": "@daily"}]
    assert [m.split(":")[0] for _, _, m in findings(blueprint)] == ["spec.disruption.budgets"]


def test_a_node_of_the_wrong_type_is_left_to_the_schema_check(blueprint):
    # A Terraform template's "${...}" where the schema wants an object: the structural schema refuses it first.
    assert findings({"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "spec": "${x}"}, NODECLASS) == []


def test_an_ec2nodeclass_with_two_root_volumes_is_refused():
    nodeclass = {
        "apiVersion": "karpenter.k8s.aws/v1",
        "kind": "EC2NodeClass",
        "metadata": {"name": "gpu"},
        "spec": {
            "role": "KarpenterNodeRole",
            "amiSelectorTerms": [{"alias": "al2023@latest"}],
            "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "c"}}],
            "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "c"}}],
            "blockDeviceMappings": [
                {"deviceName": "/dev/xvda", "rootVolume": True, "ebs": {"volumeSize": "100Gi"}},
                {"deviceName": "/dev/xvdb", "rootVolume": True, "ebs": {"volumeSize": "500Gi"}},
            ],
        },
    }
    assert findings(copy.deepcopy(nodeclass), NODECLASS) == [
        (
            "crd-validation-rules",
            "mandatory",
            "spec.blockDeviceMappings: the API server refuses this object: must have only one blockDeviceMappings with "
            "rootVolume (CEL rule of CRD ec2nodeclasses.karpenter.k8s.aws, aws/karpenter-provider-aws v1.14.1 "
            "pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml: "
            "self.filter(x, has(x.rootVolume)?x.rootVolume==true:false).size() <= 1)",
        )
    ]
    nodeclass["spec"]["blockDeviceMappings"][1]["rootVolume"] = False
    assert findings(nodeclass, NODECLASS) == []


def test_the_prod_stacks_custom_resources_pass_the_rules_they_are_given():
    evaluated: dict[str, int] = {}
    for r in record("prod")["resources"]:
        if r["type"] in cel.rules_by_type():
            outcome = cel.evaluate(r["type"], r["inputs"])
            assert (outcome.failed, outcome.unevaluated) == ((), ()), r["name"]
            evaluated[r["type"]] = evaluated.get(r["type"], 0) + outcome.evaluated
    # The rules that apply ran: Karpenter's NodePools and EC2NodeClasses, KEDA, Istio.
    assert evaluated[NODEPOOL] > 20 and evaluated[NODECLASS] > 40, evaluated
    assert evaluated["kubernetes:keda.sh/v1alpha1:ScaledObject"] >= 1, evaluated
