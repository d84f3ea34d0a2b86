"""Our controller IAM against upstream's documents for the pinned releases, statement for statement.

Upstream's files are read from the third-party location (../shared/reference/upstream-iam, see its
PROVENANCE.md), never copied into the project:

* Karpenter v1.14.1, website/content/en/docs/getting-started/getting-started-with-karpenter/cloudformation.yaml:
  the node role, the six controller policies the guide's scripts/step02-create-cluster.sh attaches
  (lines 26-31), the interruption queue, its policy and the five EventBridge rules;
* AWS Load Balancer Controller v3.5.0, docs/install/iam_policy.json.

``policy_diff`` names every action that is missing, extra, or granted on other resources or
conditions than upstream's, so a version bump that changes upstream fails with the action named.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import pytest
import yaml

from components.builders import ingress, karpenter_aws, pod_identity
from tests.conftest import shared_path

UPSTREAM = ("reference", "upstream-iam")
KARPENTER_TEMPLATE = "karpenter-v1.14.1-cloudformation.yaml"
ALB_POLICY = "aws-load-balancer-controller-v3.5.0-iam_policy.json"

CLUSTER, REGION, ACCOUNT = "llm-prod", "us-east-1", "123456789012"
# (partition, DNS suffix): the template's ${AWS::Partition} and ${AWS::URLSuffix}.
PARTITIONS = [("aws", "amazonaws.com"), ("aws-cn", "amazonaws.com.cn"), ("aws-us-gov", "amazonaws.com")]


class _CfnLoader(yaml.SafeLoader):
    """YAML loader that keeps CloudFormation's short-form intrinsics as {tag: value}."""


for _tag in ("!Sub", "!Ref", "!GetAtt"):
    _CfnLoader.add_constructor(_tag, lambda loader, node, tag=_tag: {tag: loader.construct_scalar(node)})


def _template() -> dict[str, Any]:
    return yaml.load(shared_path(*UPSTREAM, KARPENTER_TEMPLATE).read_text(), Loader=_CfnLoader)["Resources"]


def _arns(partition: str) -> tuple[str, str]:
    return (
        f"arn:{partition}:sqs:{REGION}:{ACCOUNT}:{CLUSTER}",
        f"arn:{partition}:iam::{ACCOUNT}:role/KarpenterNodeRole-{CLUSTER}",
    )


def _sub(text: str, partition: str, suffix: str) -> str:
    """CloudFormation's !Sub for the template's variables (an unknown one raises KeyError: loud on a bump)."""
    queue, role = _arns(partition)
    values = {
        "ClusterName": CLUSTER,
        "AWS::Partition": partition,
        "AWS::Region": REGION,
        "AWS::AccountId": ACCOUNT,
        "AWS::URLSuffix": suffix,
        "KarpenterNodeRole.Arn": role,
        "KarpenterInterruptionQueue.Arn": queue,
    }
    return re.sub(r"\$\{([^}]+)\}", lambda m: values[m.group(1)], text)


def _as_list(value: Any) -> list:
    return list(value) if isinstance(value, list) else [value]


def _scalar(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _condition(cond: dict[str, Any] | None) -> str:
    """A condition block in one canonical form (single values and one-element lists compare equal)."""
    canon = {
        op: {k: sorted(_scalar(v) for v in _as_list(vals)) for k, vals in block.items()} for op, block in (cond or {}).items()
    }
    return json.dumps(canon, sort_keys=True)


def _principal(principal: Any) -> str:
    if isinstance(principal, dict):
        return json.dumps({k: sorted(_as_list(v)) for k, v in principal.items()}, sort_keys=True)
    return json.dumps(principal)


def _statement(st: dict[str, Any]) -> tuple:
    """What a statement grants, without its Sid: effect, principal, actions, resources, conditions."""
    return (
        st["Effect"],
        _principal(st.get("Principal")),
        tuple(sorted(_as_list(st["Action"]))),
        tuple(sorted(_as_list(st.get("Resource", [])))),
        _condition(st.get("Condition")),
    )


def grants(doc: dict[str, Any]) -> dict[str, Counter]:
    """Action -> the (effect, resources, condition) grants that name it."""
    out: dict[str, Counter] = {}
    for st in doc["Statement"]:
        effect, _, actions, resources, cond = _statement(st)
        for action in actions:
            out.setdefault(action, Counter())[(effect, resources, cond)] += 1
    return out


def policy_diff(ours: dict[str, Any], upstream: dict[str, Any]) -> list[str]:
    """Every difference, named by action: missing, extra, or granted on other resources or conditions."""
    mine, theirs = grants(ours), grants(upstream)
    problems = [f"{a}: missing (upstream grants it)" for a in sorted(set(theirs) - set(mine))]
    problems += [f"{a}: not in upstream" for a in sorted(set(mine) - set(theirs))]
    for action in sorted(set(mine) & set(theirs)):
        if mine[action] == theirs[action]:
            continue
        for (_, resources, cond), _ in (theirs[action] - mine[action]).items():
            problems.append(f"{action}: upstream's grant on {list(resources)} with condition {cond} is not ours")
        for (_, resources, cond), _ in (mine[action] - theirs[action]).items():
            problems.append(f"{action}: our grant on {list(resources)} with condition {cond} is not upstream's")
    # Statement for statement: the same statements, not only the same grants per action.
    if not problems and Counter(map(_statement, ours["Statement"])) != Counter(map(_statement, upstream["Statement"])):
        problems.append("the same grants are split into other statements than upstream's")
    return problems


def _actions(doc: dict[str, Any]) -> set[str]:
    return set(grants(doc))


# --- Karpenter --------------------------------------------------------------------------------


def _upstream_controller_policies(partition: str, suffix: str) -> dict[str, dict[str, Any]]:
    return {
        name: json.loads(_sub(res["Properties"]["PolicyDocument"]["!Sub"], partition, suffix))
        for name, res in _template().items()
        if res["Type"] == "AWS::IAM::ManagedPolicy"
    }


@pytest.mark.parametrize(("partition", "suffix"), PARTITIONS)
def test_karpenter_controller_policies_are_upstreams_statement_for_statement(partition, suffix):
    upstream = _upstream_controller_policies(partition, suffix)
    ours = karpenter_aws.controller_policies(CLUSTER, REGION, ACCOUNT, partition, *_arns(partition))
    # The same six documents, in the template's order, each with upstream's statements.
    assert list(ours) == list(upstream)
    assert {name: policy_diff(ours[name], upstream[name]) for name in upstream} == {name: [] for name in upstream}
    assert [st["Sid"] for d in ours.values() for st in d["Statement"]] == [
        st["Sid"] for d in upstream.values() for st in d["Statement"]
    ]


def test_karpenter_controller_grants_every_upstream_action():
    upstream = {a for d in _upstream_controller_policies("aws", "amazonaws.com").values() for a in _actions(d)}
    ours = _actions(karpenter_aws.controller_policy(CLUSTER, REGION, ACCOUNT, "aws", *_arns("aws")))
    assert ours == upstream
    # 32 distinct actions in v1.14.1's six documents: the 31 of the NodeLifecycle, IAMIntegration,
    # EKSIntegration, Interruption and ResourceDiscovery policies (incl. ec2:DescribeInstanceStatus and
    # ec2:DescribePlacementGroups) plus ZonalShiftPolicy's arc-zonal-shift:GetManagedResource.
    assert len(upstream) == 32
    assert {"ec2:DescribeInstanceStatus", "ec2:DescribePlacementGroups", "arc-zonal-shift:GetManagedResource"} <= ours


@pytest.mark.parametrize(("partition", "suffix"), PARTITIONS)
def test_node_role_is_upstreams(partition, suffix):
    role = _template()["KarpenterNodeRole"]["Properties"]
    assert karpenter_aws.node_policy_arns(partition) == [_sub(a["!Sub"], partition, suffix) for a in role["ManagedPolicyArns"]]
    assert "AmazonEC2ContainerRegistryPullOnly" in karpenter_aws.NODE_POLICIES
    trust = json.loads(
        _sub(
            json.dumps(role["AssumeRolePolicyDocument"]).replace('{"!Sub": "ec2.${AWS::URLSuffix}"}', '"ec2.${AWS::URLSuffix}"'),
            partition,
            suffix,
        )
    )
    assert policy_diff(karpenter_aws.node_role_trust(suffix), trust) == []
    assert _principal(karpenter_aws.node_role_trust(suffix)["Statement"][0]["Principal"]) == _principal(
        trust["Statement"][0]["Principal"]
    )


def test_the_five_interruption_rules_are_upstreams():
    rules = [res["Properties"] for res in _template().values() if res["Type"] == "AWS::Events::Rule"]
    upstream = sorted((r["EventPattern"]["source"], r["EventPattern"]["detail-type"]) for r in rules)
    ours = sorted((p["source"], p["detail-type"]) for p in map(karpenter_aws.event_pattern, karpenter_aws.INTERRUPTION_RULES))
    assert ours == upstream
    assert len(ours) == 5
    assert (["aws.ec2"], ["EC2 Capacity Reservation Instance Interruption Warning"]) in ours
    assert {t["Id"] for r in rules for t in r["Targets"]} == {"KarpenterInterruptionQueueTarget"}


def test_interruption_queue_and_its_policy_are_upstreams():
    resources = _template()
    queue = resources["KarpenterInterruptionQueue"]["Properties"]
    assert queue["MessageRetentionPeriod"] == karpenter_aws.QUEUE_RETENTION_SECONDS and queue["SqsManagedSseEnabled"] is True
    upstream = resources["KarpenterInterruptionQueuePolicy"]["Properties"]["PolicyDocument"]
    for st in upstream["Statement"]:
        st["Resource"] = "arn:q"  # !GetAtt KarpenterInterruptionQueue.Arn
    ours = karpenter_aws.queue_policy("arn:q")
    assert ours["Id"] == upstream["Id"]
    assert Counter(map(_statement, ours["Statement"])) == Counter(map(_statement, upstream["Statement"]))


# --- AWS Load Balancer Controller ------------------------------------------------------------------


def _upstream_alb(partition: str) -> dict[str, Any]:
    text = shared_path(*UPSTREAM, ALB_POLICY).read_text()
    return json.loads(text.replace('"arn:aws:', f'"arn:{partition}:'))


@pytest.mark.parametrize("partition", [p for p, _ in PARTITIONS])
def test_alb_controller_policy_is_upstreams_statement_for_statement(partition):
    assert policy_diff(ingress.lb_controller_policy(partition), _upstream_alb(partition)) == []


def test_alb_controller_grants_all_80_actions_with_upstreams_conditions():
    ours, upstream = ingress.lb_controller_policy("aws"), _upstream_alb("aws")
    assert _actions(ours) == _actions(upstream) and len(_actions(upstream)) == 80
    by_action = grants(ours)
    # Creating and tagging need the controller's cluster tag; tags on security groups only at creation.
    for action in ("elasticloadbalancing:CreateLoadBalancer", "elasticloadbalancing:CreateTargetGroup"):
        assert all('"aws:RequestTag/elbv2.k8s.aws/cluster": ["false"]' in cond for _, _, cond in by_action[action])
    assert any('"ec2:CreateAction": ["CreateSecurityGroup"]' in cond for _, _, cond in by_action["ec2:CreateTags"])
    assert all(cond != "{}" for _, _, cond in by_action["ec2:CreateTags"])


def test_the_diff_names_a_dropped_action_and_a_dropped_condition():
    upstream = _upstream_alb("aws")
    ours = ingress.lb_controller_policy("aws")
    last = ours["Statement"][-1]
    last["Action"] = [a for a in last["Action"] if a != "elasticloadbalancing:SetRulePriorities"]
    create = next(st for st in ours["Statement"] if "elasticloadbalancing:CreateLoadBalancer" in st["Action"])
    del create["Condition"]
    problems = policy_diff(ours, upstream)
    assert "elasticloadbalancing:SetRulePriorities: missing (upstream grants it)" in problems
    assert any(
        p.startswith("elasticloadbalancing:CreateLoadBalancer: upstream's grant") and "aws:RequestTag/elbv2.k8s.aws/cluster" in p
        for p in problems
    )
    split = ingress.lb_controller_policy("aws")
    split["Statement"][3:4] = [{**split["Statement"][3], "Action": [a]} for a in split["Statement"][3]["Action"]]
    assert policy_diff(split, upstream) == ["the same grants are split into other statements than upstream's"]


# --- Pod Identity trust -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("trust", "namespace", "service_account"),
    [
        (lambda arn: karpenter_aws.controller_role_trust(arn, "kube-system"), "kube-system", "karpenter"),
        (lambda arn: ingress.pod_identity_trust_policy(arn), "kube-system", "aws-load-balancer-controller"),
        (lambda arn: pod_identity.trust_policy(arn, "llm", "model-reader"), "llm", "model-reader"),
    ],
    ids=["karpenter", "alb-controller", "s3-reader"],
)
def test_pod_identity_trust_names_the_cluster_namespace_and_service_account(trust, namespace, service_account):
    arn = pod_identity.cluster_arn("aws", REGION, ACCOUNT, CLUSTER)
    (st,) = trust(arn)["Statement"]
    # EKS user guide, pod-id-role.html "Setting Conditions"; tag names from pod-id-abac.html.
    assert st["Principal"] == {"Service": "pods.eks.amazonaws.com"} and st["Action"] == ["sts:AssumeRole", "sts:TagSession"]
    assert st["Condition"] == {
        "StringEquals": {
            "aws:RequestTag/eks-cluster-arn": f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/{CLUSTER}",
            "aws:RequestTag/kubernetes-namespace": namespace,
            "aws:RequestTag/kubernetes-service-account": service_account,
        }
    }
