"""The rules preflight applies, one at a time: certificate names, web ACL ARNs, principals, the ALB's subnet eligibility."""

from __future__ import annotations

import boto3
import pytest
from botocore.stub import Stubber

from components.config import load_stack_config
from stacks import preflight as pf
from stacks import preflight_edge as edge
from tests.conftest import stack_config


@pytest.mark.parametrize(
    ("name", "host", "covers"),
    [
        ("*.llm.example.com", "chat-8b.llm.example.com", True),
        ("*.LLM.example.com", "chat-8b.llm.example.com.", True),  # no case, a trailing dot is the same name
        ("*.llm.example.com", "llm.example.com", False),  # a wildcard is one whole label, never none
        ("*.llm.example.com", "a.chat-8b.llm.example.com", False),  # ... and never two
        ("*.example.com", "chat-8b.llm.example.com", False),
        ("chat-8b.llm.example.com", "chat-8b.llm.example.com", True),
        ("chat-8b.llm.example.com", "qwen3-32b.llm.example.com", False),
    ],
)
def test_certificate_names_cover_hosts_by_rfc_6125_wildcards(name, host, covers):
    assert edge.name_covers(name, host) is covers


def test_the_hosts_a_certificate_must_cover_are_the_models():
    prod = load_stack_config(stack_config("prod"))
    assert edge.ingress_hosts(prod) == [f"{m}.llm.example.com" for m in ("chat-8b", "llama-405b", "llama-70b", "qwen3-32b")]


def test_web_acl_arns_give_region_scope_name_and_id():
    arn = "arn:aws:wafv2:us-east-1:381492650173:regional/webacl/llm-prod/3c9e7a51-0b2d-4f68-8e14-a7d25b6c90f3"
    assert edge.web_acl_parts(arn) == ("us-east-1", "REGIONAL", "llm-prod", "3c9e7a51-0b2d-4f68-8e14-a7d25b6c90f3")
    assert edge.web_acl_parts(arn.replace("regional/", "global/"))[1] == "CLOUDFRONT"
    assert edge.web_acl_parts("arn:aws:wafv2:us-east-1:381492650173:regional/ipset/x/y") is None


def test_an_assumed_role_session_is_its_role_whatever_the_path():
    session = "arn:aws:sts::381492650173:assumed-role/deployer/jane"
    assert pf.principal_arn(session) == "arn:aws:iam::381492650173:role/deployer"
    assert pf.principal_arn("arn:aws:iam::381492650173:user/ci") == "arn:aws:iam::381492650173:user/ci"
    assert pf._same_principal("arn:aws:iam::381492650173:role/platform/deployer", "arn:aws:iam::381492650173:role/deployer")
    assert not pf._same_principal("arn:aws:iam::111122223333:role/deployer", "arn:aws:iam::381492650173:role/deployer")
    assert not pf._same_principal("arn:aws:iam::381492650173:user/deployer", "arn:aws:iam::381492650173:role/deployer")


def _alb_row(subnets: list[dict]) -> pf.Check:
    """The ALB subnets row of prod (internet-facing) when EC2 returns ``subnets`` as the role-tagged ones."""
    prod = load_stack_config(stack_config("prod"))
    session = boto3.Session(aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="secret", region_name="us-east-1")
    clients = pf.Clients(session, "us-east-1")
    ec2 = session.client("ec2", region_name="us-east-1")
    clients.put("ec2", ec2)
    stub = Stubber(ec2)
    filters = [{"Name": "vpc-id", "Values": ["vpc-1"]}, {"Name": "tag:kubernetes.io/role/elb", "Values": ["", "1"]}]
    stub.add_response("describe_subnets", {"Subnets": subnets}, {"Filters": filters})
    stub.activate()
    (row,) = edge.check_alb_subnets(prod, clients, "vpc-1")
    stub.assert_no_pending_responses()
    return row


def _subnet(i: int, zone: str, free: int = 250, tags: dict[str, str] | None = None) -> dict:
    return {
        "SubnetId": f"subnet-{i}",
        "AvailabilityZone": zone,
        "VpcId": "vpc-1",
        "AvailableIpAddressCount": free,
        "Tags": [{"Key": k, "Value": v} for k, v in (tags or {}).items()],
    }


def test_alb_subnets_follow_the_controllers_eligibility():
    """aws-load-balancer-controller v3.5.0 subnet_resolver.go: other clusters' subnets and nearly full ones are left out."""
    ok = _alb_row([_subnet(1, "us-east-1a"), _subnet(2, "us-east-1b", tags={"kubernetes.io/cluster/llm-prod": "shared"})])
    assert ok.result == pf.OK and ok.detail == "2 public subnets tagged kubernetes.io/role/elb in us-east-1a, us-east-1b"
    other = _alb_row([_subnet(1, "us-east-1a"), _subnet(2, "us-east-1b", tags={"kubernetes.io/cluster/other": "owned"})])
    assert other.result == pf.MISSING
    assert other.detail.startswith("1 public subnets tagged kubernetes.io/role/elb in 1 zone(s); 1 left out")
    full = _alb_row([_subnet(1, "us-east-1a"), _subnet(2, "us-east-1b", free=edge.MIN_FREE_ADDRESSES - 1)])
    assert full.result == pf.MISSING and full.detail.endswith("an ALB needs 2 zones")
    one_zone = _alb_row([_subnet(1, "us-east-1a"), _subnet(2, "us-east-1a")])
    assert one_zone.result == pf.MISSING and "in 1 zone(s)" in one_zone.detail
