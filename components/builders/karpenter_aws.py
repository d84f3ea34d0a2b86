"""Karpenter's AWS prerequisites and its Helm release, as plain data.

Pure functions: IAM trust and permission documents, the interruption queue's settings and
policy, the EventBridge rules, and the values of the pinned Karpenter chart. Every document is
written statement for statement from the reference template of the pinned release
(aws/karpenter-provider-aws v1.14.1,
website/content/en/docs/getting-started/getting-started-with-karpenter/cloudformation.yaml): the node
role, the controller's six policies (NodeLifecycle, IAMIntegration, EKSIntegration, Interruption,
ZonalShift, ResourceDiscovery; the guide's step02-create-cluster.sh attaches all six), the queue,
its policy and the five EventBridge rules, with ``${AWS::Partition}`` taken from the provider so
the same documents work in aws-cn and aws-us-gov. tests/builders/test_upstream_iam.py diffs them
against that template, so a version bump that changes upstream fails loudly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..builders.helm import Chart, release
from . import pod_identity

# aws/karpenter-provider-aws v1.14.1, charts/karpenter (published to public ECR as an OCI chart).
KARPENTER = Chart("karpenter", "1.14.1", "oci://public.ecr.aws/karpenter")
# The CRDs as templates of their own chart: Helm never upgrades a chart's crds/ folder, so the
# karpenter chart's copies would stay at the first version installed (Helm docs, "Custom Resource Definitions": "no support at this time for upgrading or deleting CRDs using Helm").
KARPENTER_CRD = Chart("karpenter-crd", "1.14.1", "oci://public.ecr.aws/karpenter")
SERVICE_ACCOUNT = "karpenter"

# The node role's managed policies, in the reference KarpenterNodeRole's order (EKS CNI, EKS worker,
# ECR pull only, SSM for node access without SSH).
NODE_POLICIES = (
    "AmazonEKS_CNI_Policy",
    "AmazonEKSWorkerNodePolicy",
    "AmazonEC2ContainerRegistryPullOnly",
    "AmazonSSMManagedInstanceCore",
)

# EventBridge rules that feed the interruption queue (same reference template): name -> (source, detail-type).
# The capacity-reservation warning matters to pools with capacityTypes [reserved].
INTERRUPTION_RULES = {
    "scheduled-change": ("aws.health", "AWS Health Event"),
    "spot-interruption": ("aws.ec2", "EC2 Spot Instance Interruption Warning"),
    "rebalance": ("aws.ec2", "EC2 Instance Rebalance Recommendation"),
    "instance-state-change": ("aws.ec2", "EC2 Instance State-change Notification"),
    "capacity-reservation-interruption": ("aws.ec2", "EC2 Capacity Reservation Instance Interruption Warning"),
}
# Karpenter reads an interruption message within seconds; older ones are stale (reference: 300 s).
QUEUE_RETENTION_SECONDS = 300


def node_role_trust(dns_suffix: str = "amazonaws.com") -> dict[str, Any]:
    """EC2 instances assume the node role (``ec2.${AWS::URLSuffix}``: amazonaws.com.cn in China)."""
    return {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": {"Service": f"ec2.{dns_suffix}"}, "Action": ["sts:AssumeRole"]}],
    }


def node_policy_arns(partition: str) -> list[str]:
    """ARNs of the node role's managed policies."""
    return [f"arn:{partition}:iam::aws:policy/{p}" for p in NODE_POLICIES]


def controller_role_trust(cluster_arn: str, namespace: str) -> dict[str, Any]:
    """EKS Pod Identity assumes the controller role, for the karpenter service account of this cluster only."""
    return pod_identity.trust_policy(cluster_arn, namespace, SERVICE_ACCOUNT)


@dataclass(frozen=True)
class _Scope:
    """What the reference template's parameters and substitutions resolve to for one cluster."""

    cluster: str
    region: str
    account: str
    partition: str
    queue_arn: str
    node_role_arn: str

    @property
    def ec2(self) -> str:
        return f"arn:{self.partition}:ec2:{self.region}"

    @property
    def created(self) -> list[str]:
        """What RunInstances / CreateFleet create, which Karpenter tags on creation."""
        kinds = ("fleet", "instance", "volume", "network-interface", "launch-template", "spot-instances-request")
        return [f"{self.ec2}:*:{kind}/*" for kind in kinds]

    @property
    def profile(self) -> str:
        return f"arn:{self.partition}:iam::{self.account}:instance-profile/*"

    @property
    def cluster_arn(self) -> str:
        return pod_identity.cluster_arn(self.partition, self.region, self.account, self.cluster)

    @property
    def owned_resource(self) -> dict[str, str]:
        return {f"aws:ResourceTag/kubernetes.io/cluster/{self.cluster}": "owned"}

    @property
    def owned_request(self) -> dict[str, str]:
        return {
            f"aws:RequestTag/kubernetes.io/cluster/{self.cluster}": "owned",
            "aws:RequestTag/eks:eks-cluster-name": self.cluster,
        }

    @property
    def of_a_nodepool(self) -> dict[str, str]:
        """Resources a NodePool launched (Karpenter tags them with their NodePool)."""
        return {"aws:ResourceTag/karpenter.sh/nodepool": "*"}


def _doc(*statements: dict[str, Any]) -> dict[str, Any]:
    return {"Version": "2012-10-17", "Statement": list(statements)}


def _node_lifecycle(s: _Scope) -> dict[str, Any]:
    """NodeLifecyclePolicy: launching, tagging and terminating the instances and launch templates of this cluster's NodePools."""
    return _doc(
        {
            "Sid": "AllowScopedEC2InstanceAccessActions",
            "Effect": "Allow",
            "Resource": [
                f"{s.ec2}::image/*",
                f"{s.ec2}::snapshot/*",
                f"{s.ec2}:*:security-group/*",
                f"{s.ec2}:*:subnet/*",
                f"{s.ec2}:*:capacity-reservation/*",
                f"{s.ec2}:*:placement-group/*",
            ],
            "Action": ["ec2:RunInstances", "ec2:CreateFleet"],
        },
        {
            "Sid": "AllowScopedEC2LaunchTemplateAccessActions",
            "Effect": "Allow",
            "Resource": f"{s.ec2}:*:launch-template/*",
            "Action": ["ec2:RunInstances", "ec2:CreateFleet"],
            "Condition": {"StringEquals": s.owned_resource, "StringLike": s.of_a_nodepool},
        },
        {
            "Sid": "AllowScopedEC2InstanceActionsWithTags",
            "Effect": "Allow",
            "Resource": s.created,
            "Action": ["ec2:RunInstances", "ec2:CreateFleet", "ec2:CreateLaunchTemplate"],
            "Condition": {"StringEquals": s.owned_request, "StringLike": {"aws:RequestTag/karpenter.sh/nodepool": "*"}},
        },
        {
            "Sid": "AllowScopedResourceCreationTagging",
            "Effect": "Allow",
            "Resource": s.created,
            "Action": "ec2:CreateTags",
            "Condition": {
                "StringEquals": {**s.owned_request, "ec2:CreateAction": ["RunInstances", "CreateFleet", "CreateLaunchTemplate"]},
                "StringLike": {"aws:RequestTag/karpenter.sh/nodepool": "*"},
            },
        },
        {
            "Sid": "AllowScopedResourceTagging",
            "Effect": "Allow",
            "Resource": f"{s.ec2}:*:instance/*",
            "Action": "ec2:CreateTags",
            "Condition": {
                "StringEquals": s.owned_resource,
                "StringLike": s.of_a_nodepool,
                "StringEqualsIfExists": {"aws:RequestTag/eks:eks-cluster-name": s.cluster},
                "ForAllValues:StringEquals": {"aws:TagKeys": ["eks:eks-cluster-name", "karpenter.sh/nodeclaim", "Name"]},
            },
        },
        {
            "Sid": "AllowScopedDeletion",
            "Effect": "Allow",
            "Resource": [f"{s.ec2}:*:instance/*", f"{s.ec2}:*:launch-template/*"],
            "Action": ["ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"],
            "Condition": {"StringEquals": s.owned_resource, "StringLike": s.of_a_nodepool},
        },
    )


def _iam_integration(s: _Scope) -> dict[str, Any]:
    """IAMIntegrationPolicy: passing the node role, and managing the instance profiles of this cluster's EC2NodeClasses."""
    return _doc(
        {
            "Sid": "AllowPassingInstanceRole",
            "Effect": "Allow",
            "Resource": s.node_role_arn,
            "Action": "iam:PassRole",
            "Condition": {"StringEquals": {"iam:PassedToService": ["ec2.amazonaws.com", "ec2.amazonaws.com.cn"]}},
        },
        {
            "Sid": "AllowScopedInstanceProfileCreationActions",
            "Effect": "Allow",
            "Resource": s.profile,
            "Action": ["iam:CreateInstanceProfile"],
            "Condition": {
                "StringEquals": {**s.owned_request, "aws:RequestTag/topology.kubernetes.io/region": s.region},
                "StringLike": {"aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*"},
            },
        },
        {
            "Sid": "AllowScopedInstanceProfileTagActions",
            "Effect": "Allow",
            "Resource": s.profile,
            "Action": ["iam:TagInstanceProfile"],
            "Condition": {
                "StringEquals": {
                    **s.owned_resource,
                    "aws:ResourceTag/topology.kubernetes.io/region": s.region,
                    **s.owned_request,
                    "aws:RequestTag/topology.kubernetes.io/region": s.region,
                },
                "StringLike": {
                    "aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*",
                    "aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*",
                },
            },
        },
        {
            "Sid": "AllowScopedInstanceProfileActions",
            "Effect": "Allow",
            "Resource": s.profile,
            "Action": ["iam:AddRoleToInstanceProfile", "iam:RemoveRoleFromInstanceProfile", "iam:DeleteInstanceProfile"],
            "Condition": {
                "StringEquals": {**s.owned_resource, "aws:ResourceTag/topology.kubernetes.io/region": s.region},
                "StringLike": {"aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*"},
            },
        },
    )


def _eks_integration(s: _Scope) -> dict[str, Any]:
    """EKSIntegrationPolicy: reading the cluster's API server endpoint."""
    return _doc(
        {"Sid": "AllowAPIServerEndpointDiscovery", "Effect": "Allow", "Resource": s.cluster_arn, "Action": "eks:DescribeCluster"},
    )


def _interruption(s: _Scope) -> dict[str, Any]:
    """InterruptionPolicy: reading and deleting the interruption queue's messages."""
    return _doc(
        {
            "Sid": "AllowInterruptionQueueActions",
            "Effect": "Allow",
            "Resource": s.queue_arn,
            "Action": ["sqs:DeleteMessage", "sqs:GetQueueUrl", "sqs:ReceiveMessage"],
        },
    )


def _zonal_shift(s: _Scope) -> dict[str, Any]:
    """ZonalShiftPolicy: reading the cluster's ARC zonal shift status."""
    return _doc(
        {
            # Karpenter avoids zones an ARC zonal shift moved the cluster away from (v1.14.1
            # pkg/providers/arczonalshift/arczonalshift.go:66; probed at start, pkg/operator/operator.go:377).
            "Sid": "AllowZonalShiftStatusReadOnly",
            "Effect": "Allow",
            "Resource": "*",
            "Action": ["arc-zonal-shift:GetManagedResource"],
            "Condition": {"StringEquals": {"arc-zonal-shift:ResourceIdentifier": s.cluster_arn}},
        },
    )


def _resource_discovery(s: _Scope) -> dict[str, Any]:
    """ResourceDiscoveryPolicy: reading instance types, offerings, prices, images, subnets and security groups in the region."""
    return _doc(
        {
            "Sid": "AllowRegionalReadActions",
            "Effect": "Allow",
            "Resource": "*",
            "Action": [
                "ec2:DescribeCapacityReservations",
                "ec2:DescribeImages",
                "ec2:DescribeInstances",
                # Required since 1.12: without it the instance-status health checks turn off
                # (v1.14.1 pkg/controllers/interruption/instancestatus_controller.go:98 logs that and stops).
                "ec2:DescribeInstanceStatus",
                "ec2:DescribeInstanceTypeOfferings",
                "ec2:DescribeInstanceTypes",
                "ec2:DescribeLaunchTemplates",
                # Placement groups an EC2NodeClass names (v1.14.1 pkg/providers/placementgroup/provider.go:80).
                "ec2:DescribePlacementGroups",
                "ec2:DescribeSecurityGroups",
                "ec2:DescribeSpotPriceHistory",
                "ec2:DescribeSubnets",
            ],
            "Condition": {"StringEquals": {"aws:RequestedRegion": s.region}},
        },
        {
            "Sid": "AllowSSMReadActions",
            "Effect": "Allow",
            "Resource": f"arn:{s.partition}:ssm:{s.region}::parameter/aws/service/*",
            "Action": "ssm:GetParameter",
        },
        {"Sid": "AllowPricingReadActions", "Effect": "Allow", "Resource": "*", "Action": "pricing:GetProducts"},
        # IAM's List APIs take no resource scope; the instance-profile garbage collector lists them.
        {
            "Sid": "AllowUnscopedInstanceProfileListAction",
            "Effect": "Allow",
            "Resource": "*",
            "Action": "iam:ListInstanceProfiles",
        },
        {"Sid": "AllowInstanceProfileReadActions", "Effect": "Allow", "Resource": s.profile, "Action": "iam:GetInstanceProfile"},
    )


def controller_policies(
    cluster: str, region: str, account: str, partition: str, queue_arn: str, node_role_arn: str
) -> dict[str, dict[str, Any]]:
    """The controller's six policy documents, keyed by the reference template's resource names, in its order."""
    scope = _Scope(cluster, region, account, partition, queue_arn, node_role_arn)
    return {
        "NodeLifecyclePolicy": _node_lifecycle(scope),
        "IAMIntegrationPolicy": _iam_integration(scope),
        "EKSIntegrationPolicy": _eks_integration(scope),
        "InterruptionPolicy": _interruption(scope),
        "ZonalShiftPolicy": _zonal_shift(scope),
        "ResourceDiscoveryPolicy": _resource_discovery(scope),
    }


def controller_policy(
    cluster: str, region: str, account: str, partition: str, queue_arn: str, node_role_arn: str
) -> dict[str, Any]:
    """The six reference documents as one inline policy (their Sids are distinct), in the template's order."""
    docs = controller_policies(cluster, region, account, partition, queue_arn, node_role_arn)
    return {"Version": "2012-10-17", "Statement": [st for d in docs.values() for st in d["Statement"]]}


def queue_name(cluster: str) -> str:
    """The interruption queue's name: the cluster's (Karpenter's reference template), fitted to SQS's 80 characters."""
    from .names import SQS_QUEUE_NAME, fit

    return fit(cluster, SQS_QUEUE_NAME)


def controller_role_name(cluster: str) -> str:
    """The controller role's name (KarpenterControllerRole-<cluster>), fitted to IAM's 64 characters."""
    from .names import IAM_ROLE_NAME, fit

    return fit(f"KarpenterControllerRole-{cluster}", IAM_ROLE_NAME)


def event_rule_name(cluster: str, rule: str) -> str:
    """An interruption rule's name (karpenter-<cluster>-<rule>), fitted to EventBridge's 64 characters."""
    from .names import EVENT_RULE_NAME, fit

    return fit(f"karpenter-{cluster}-{rule}", EVENT_RULE_NAME)


def queue_policy(queue_arn: str) -> dict[str, Any]:
    """Only EventBridge (and SQS itself) may send to the interruption queue, and only over TLS."""
    return {
        "Version": "2012-10-17",
        "Id": "EC2InterruptionPolicy",
        "Statement": [
            {
                "Sid": "AllowEventBridge",
                "Effect": "Allow",
                "Principal": {"Service": ["events.amazonaws.com", "sqs.amazonaws.com"]},
                "Action": "sqs:SendMessage",
                "Resource": queue_arn,
            },
            {
                "Sid": "DenyHTTP",
                "Effect": "Deny",
                "Principal": "*",
                "Action": "sqs:*",
                "Resource": queue_arn,
                "Condition": {"Bool": {"aws:SecureTransport": "false"}},
            },
        ],
    }


def event_pattern(rule: str) -> dict[str, Any]:
    """The EventBridge pattern of one interruption rule."""
    source, detail_type = INTERRUPTION_RULES[rule]
    return {"source": [source], "detail-type": [detail_type]}


def karpenter_values(cluster: str, queue_name: str, capacity_buffer: bool) -> dict[str, Any]:
    """Values of the pinned Karpenter chart: this cluster, its interruption queue, and the CapacityBuffer gate."""
    return {
        "serviceAccount": {"name": SERVICE_ACCOUNT},
        "settings": {
            "clusterName": cluster,
            "interruptionQueue": queue_name,
            # Off by default in 1.14.1 (Karpenter v1.14.1 docs, "CapacityBuffer API"); on when a pool keeps its
            # warm headroom with a CapacityBuffer instead of placeholder pods.
            "featureGates": {"capacityBuffer": capacity_buffer},
        },
        "controller": {"resources": {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"memory": "1Gi"}}},
    }


def karpenter_release(namespace: str, cluster: str, queue_name: str, capacity_buffer: bool) -> dict[str, Any]:
    """The Karpenter Helm release as plain data; its crds/ are skipped (the karpenter-crd release owns them)."""
    return {
        **release(KARPENTER, "karpenter", namespace, karpenter_values(cluster, queue_name, capacity_buffer)),
        "skipCrds": True,
    }


def karpenter_crd_release(namespace: str) -> dict[str, Any]:
    """The karpenter-crd Helm release (no values: its values.yaml has only additionalAnnotations)."""
    return release(KARPENTER_CRD, "karpenter-crd", namespace, {})
