"""Networking under the offline engine (issue 19): discovery tags the stack adds, and no rule on the cluster security group."""

from __future__ import annotations

from pathlib import Path

import yaml

from stacks.mock_cloud import eks_cluster
from tests.conftest import STACKS, absolute_traffic
from tests.recording import record


def _variant(tmp_path: Path, stack: str, edit) -> str:
    doc = yaml.safe_load((STACKS / f"Pulumi.{stack}.yaml").read_text())
    edit(absolute_traffic(doc["config"]))
    path = tmp_path / f"Pulumi.{stack}.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return str(path)


def test_the_stack_tags_the_given_subnets_and_groups_before_the_node_classes_select_them(tmp_path):
    tagging = {
        "subnetIds": ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"],
        "securityGroupIds": ["sg-0123456789abcdef0"],
    }
    rec = record(_variant(tmp_path, "dev", lambda c: c["llm-serving:cluster"].update(tagForDiscovery=tagging)))
    tags = {r["name"]: r for r in rec["resources"] if r["type"] == "aws:ec2/tag:Tag"}
    cluster = yaml.safe_load((STACKS / "Pulumi.dev.yaml").read_text())["config"]["llm-serving:cluster"]["name"]
    assert {(t["inputs"]["resourceId"], t["inputs"]["key"], t["inputs"]["value"]) for t in tags.values()} == {
        (i, "karpenter.sh/discovery", cluster) for i in [*tagging["subnetIds"], *tagging["securityGroupIds"]]
    }
    node_classes = [r for r in rec["resources"] if r["type"] == "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"]
    assert node_classes
    for nc in node_classes:
        assert set(tags) <= set(nc["dependencies"]), nc["name"]
        assert nc["inputs"]["spec"]["subnetSelectorTerms"] == [{"tags": {"karpenter.sh/discovery": cluster}}]


def test_no_security_group_rule_touches_the_cluster_security_group():
    rec = record("prod")
    cluster_sg = eks_cluster("llm-prod", "us-east-1")["vpcConfig"]["clusterSecurityGroupId"]
    groups = {r["name"] for r in rec["resources"] if r["type"] == "aws:ec2/securityGroup:SecurityGroup"}
    rules = [r for r in rec["resources"] if r["type"].startswith(("aws:vpc/securityGroup", "aws:ec2/securityGroupRule"))]
    assert groups == {"prod-pool-h100-ray-efa-sg"} and len(rules) == 2
    for rule in rules:
        assert cluster_sg not in (rule["inputs"].get("securityGroupId"), rule["inputs"].get("referencedSecurityGroupId"))
        assert "prod-pool-h100-ray-efa-sg" in rule["dependencies"]
