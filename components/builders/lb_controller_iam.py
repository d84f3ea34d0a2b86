"""The IAM policy of the pinned AWS Load Balancer Controller, as plain data.

kubernetes-sigs/aws-load-balancer-controller v3.5.0, docs/install/iam_policy.json, statement for
statement and in its order (the ``arn:aws`` of its resources becomes ``arn:<partition>``; upstream
ships iam_policy_cn.json and iam_policy_us-gov.json that differ only there). Creating a load
balancer, target group or security group requires the ``elbv2.k8s.aws/cluster`` request tag;
changing or deleting one requires that tag on the resource; tags may only be added at creation
(``ec2:CreateAction``, ``elasticloadbalancing:CreateAction``) or to resources that already carry it.
tests/builders/test_upstream_iam.py diffs this against the upstream file.
"""

from __future__ import annotations

from typing import Any

_REQUEST_TAG = "aws:RequestTag/elbv2.k8s.aws/cluster"
_RESOURCE_TAG = "aws:ResourceTag/elbv2.k8s.aws/cluster"

# Upstream's second statement: what the controller reads to reconcile (unscoped).
_DESCRIBE_ACTIONS = (
    "ec2:DescribeAccountAttributes",
    "ec2:DescribeAddresses",
    "ec2:DescribeAvailabilityZones",
    "ec2:DescribeInternetGateways",
    "ec2:DescribeVpcs",
    "ec2:DescribeVpcPeeringConnections",
    "ec2:DescribeSubnets",
    "ec2:DescribeSecurityGroups",
    "ec2:DescribeInstances",
    "ec2:DescribeNetworkInterfaces",
    "ec2:DescribeTags",
    "ec2:GetCoipPoolUsage",
    "ec2:DescribeCoipPools",
    "ec2:GetSecurityGroupsForVpc",
    "ec2:DescribeIpamPools",
    "ec2:DescribeRouteTables",
    "elasticloadbalancing:DescribeLoadBalancers",
    "elasticloadbalancing:DescribeLoadBalancerAttributes",
    "elasticloadbalancing:DescribeListeners",
    "elasticloadbalancing:DescribeListenerCertificates",
    "elasticloadbalancing:DescribeSSLPolicies",
    "elasticloadbalancing:DescribeRules",
    "elasticloadbalancing:DescribeTargetGroups",
    "elasticloadbalancing:DescribeTargetGroupAttributes",
    "elasticloadbalancing:DescribeTargetHealth",
    "elasticloadbalancing:DescribeTags",
    "elasticloadbalancing:DescribeTrustStores",
    "elasticloadbalancing:DescribeListenerAttributes",
    "elasticloadbalancing:DescribeCapacityReservation",
)

# Upstream's third statement: Cognito, certificates, WAF and Shield, which Ingress annotations name.
_INTEGRATION_ACTIONS = (
    "cognito-idp:DescribeUserPoolClient",
    "acm:ListCertificates",
    "acm:DescribeCertificate",
    "iam:ListServerCertificates",
    "iam:GetServerCertificate",
    "waf-regional:GetWebACL",
    "waf-regional:GetWebACLForResource",
    "waf-regional:AssociateWebACL",
    "waf-regional:DisassociateWebACL",
    "wafv2:GetWebACL",
    "wafv2:GetWebACLForResource",
    "wafv2:AssociateWebACL",
    "wafv2:DisassociateWebACL",
    "shield:GetSubscriptionState",
    "shield:DescribeProtection",
    "shield:CreateProtection",
    "shield:DeleteProtection",
)

# Changes to a load balancer or target group that carries the controller's cluster tag.
_MODIFY_TAGGED_ACTIONS = (
    "elasticloadbalancing:ModifyLoadBalancerAttributes",
    "elasticloadbalancing:SetIpAddressType",
    "elasticloadbalancing:SetSecurityGroups",
    "elasticloadbalancing:SetSubnets",
    "elasticloadbalancing:DeleteLoadBalancer",
    "elasticloadbalancing:ModifyTargetGroup",
    "elasticloadbalancing:ModifyTargetGroupAttributes",
    "elasticloadbalancing:DeleteTargetGroup",
    "elasticloadbalancing:ModifyListenerAttributes",
    "elasticloadbalancing:ModifyCapacityReservation",
    "elasticloadbalancing:ModifyIpPools",
)

# Upstream's last statement: listener and rule changes (unscoped).
_LISTENER_ACTIONS = (
    "elasticloadbalancing:SetWebAcl",
    "elasticloadbalancing:ModifyListener",
    "elasticloadbalancing:AddListenerCertificates",
    "elasticloadbalancing:RemoveListenerCertificates",
    "elasticloadbalancing:ModifyRule",
    "elasticloadbalancing:SetRulePriorities",
)


def _on_tagged() -> dict[str, Any]:
    """The resource carries the controller's cluster tag."""
    return {"Null": {_RESOURCE_TAG: "false"}}


def _retag() -> dict[str, Any]:
    """Tags change only on a resource that carries the cluster tag, and not by a request that sets it."""
    return {"Null": {_REQUEST_TAG: "true", _RESOURCE_TAG: "false"}}


def _discovery_statements() -> list[dict[str, Any]]:
    """Upstream's statements 1-3: the service-linked role and the unscoped reads."""
    return [
        {
            "Effect": "Allow",
            "Action": ["iam:CreateServiceLinkedRole"],
            "Resource": "*",
            "Condition": {"StringEquals": {"iam:AWSServiceName": "elasticloadbalancing.amazonaws.com"}},
        },
        {"Effect": "Allow", "Resource": "*", "Action": list(_DESCRIBE_ACTIONS)},
        {"Effect": "Allow", "Resource": "*", "Action": list(_INTEGRATION_ACTIONS)},
    ]


def _security_group_statements(arn: str) -> list[dict[str, Any]]:
    """Upstream's statements 4-8: security groups, tagged at creation and changed only when tagged."""
    security_groups = f"{arn}:ec2:*:*:security-group/*"
    return [
        {"Effect": "Allow", "Action": ["ec2:AuthorizeSecurityGroupIngress", "ec2:RevokeSecurityGroupIngress"], "Resource": "*"},
        {"Effect": "Allow", "Action": ["ec2:CreateSecurityGroup"], "Resource": "*"},
        {
            "Effect": "Allow",
            "Action": ["ec2:CreateTags"],
            "Resource": security_groups,
            "Condition": {"StringEquals": {"ec2:CreateAction": "CreateSecurityGroup"}, "Null": {_REQUEST_TAG: "false"}},
        },
        {"Effect": "Allow", "Action": ["ec2:CreateTags", "ec2:DeleteTags"], "Resource": security_groups, "Condition": _retag()},
        {
            "Effect": "Allow",
            "Resource": "*",
            "Condition": _on_tagged(),
            "Action": ["ec2:AuthorizeSecurityGroupIngress", "ec2:RevokeSecurityGroupIngress", "ec2:DeleteSecurityGroup"],
        },
    ]


def _load_balancer_statements(arn: str) -> list[dict[str, Any]]:
    """Upstream's statements 9-16: load balancers, target groups, listeners and their tags."""
    elb = f"{arn}:elasticloadbalancing:*:*"
    balancers = [f"{elb}:targetgroup/*/*", f"{elb}:loadbalancer/net/*/*", f"{elb}:loadbalancer/app/*/*"]
    tag_actions = ["elasticloadbalancing:AddTags", "elasticloadbalancing:RemoveTags"]
    return [
        {
            "Effect": "Allow",
            "Action": ["elasticloadbalancing:CreateLoadBalancer", "elasticloadbalancing:CreateTargetGroup"],
            "Resource": "*",
            "Condition": {"Null": {_REQUEST_TAG: "false"}},
        },
        {
            "Effect": "Allow",
            "Resource": "*",
            "Action": [
                "elasticloadbalancing:CreateListener",
                "elasticloadbalancing:DeleteListener",
                "elasticloadbalancing:CreateRule",
                "elasticloadbalancing:DeleteRule",
            ],
        },
        {"Effect": "Allow", "Action": list(tag_actions), "Resource": balancers, "Condition": _retag()},
        {
            "Effect": "Allow",
            "Action": list(tag_actions),
            "Resource": [
                f"{elb}:listener/net/*/*/*",
                f"{elb}:listener/app/*/*/*",
                f"{elb}:listener-rule/net/*/*/*",
                f"{elb}:listener-rule/app/*/*/*",
            ],
        },
        {"Effect": "Allow", "Resource": "*", "Condition": _on_tagged(), "Action": list(_MODIFY_TAGGED_ACTIONS)},
        {
            "Effect": "Allow",
            "Action": ["elasticloadbalancing:AddTags"],
            "Resource": list(balancers),
            "Condition": {
                "StringEquals": {"elasticloadbalancing:CreateAction": ["CreateTargetGroup", "CreateLoadBalancer"]},
                "Null": {_REQUEST_TAG: "false"},
            },
        },
        {
            "Effect": "Allow",
            "Action": ["elasticloadbalancing:RegisterTargets", "elasticloadbalancing:DeregisterTargets"],
            "Resource": f"{elb}:targetgroup/*/*",
        },
        {"Effect": "Allow", "Resource": "*", "Action": list(_LISTENER_ACTIONS)},
    ]


def lb_controller_policy(partition: str = "aws") -> dict[str, Any]:
    """The controller's IAM policy document for ``partition`` (aws, aws-cn, aws-us-gov), upstream's 16 statements in order."""
    arn = f"arn:{partition}"
    statements = [*_discovery_statements(), *_security_group_statements(arn), *_load_balancer_statements(arn)]
    return {"Version": "2012-10-17", "Statement": statements}
