"""The trust policy of a role assumed through EKS Pod Identity, scoped to one cluster, namespace and service account.

EKS Pod Identity assumes the role as the service principal ``pods.eks.amazonaws.com`` with
``sts:AssumeRole`` and ``sts:TagSession``, and passes session tags that describe the pod
(Amazon EKS User Guide, "Create IAM role with trust policy required by EKS Pod Identity",
https://docs.aws.amazon.com/eks/latest/userguide/pod-id-role.html, "Setting Conditions"; the tags are
listed in "Grant Pods access to AWS resources based on tags",
https://docs.aws.amazon.com/eks/latest/userguide/pod-id-abac.html: ``eks-cluster-arn``,
``eks-cluster-name``, ``kubernetes-namespace``, ``kubernetes-service-account``,
``kubernetes-pod-name``, ``kubernetes-pod-uid``). Without conditions any Pod Identity association
in the account, on any cluster, could bind the role; with them only this cluster's association
for this namespace and service account can. The user guide's example conditions the namespace and
service account tags with ``StringEquals``; the cluster is conditioned the same way on
``eks-cluster-arn`` (an ARN carries partition, region and account, so a same-named cluster
elsewhere does not match). The associations this project creates keep session tags on (the
default; ``disableSessionTags`` would remove them and the role could not be assumed).
"""

from __future__ import annotations

from typing import Any

PRINCIPAL = "pods.eks.amazonaws.com"
ACTIONS = ["sts:AssumeRole", "sts:TagSession"]


def cluster_arn(partition: str, region: str, account: str, cluster: str) -> str:
    """The ARN of an EKS cluster."""
    return f"arn:{partition}:eks:{region}:{account}:cluster/{cluster}"


def trust_policy(cluster_arn: str, namespace: str, service_account: str) -> dict[str, Any]:
    """Only EKS Pod Identity, for ``namespace/service_account`` on the cluster ``cluster_arn``, assumes the role."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "AllowEksAuthToAssumeRoleForPodIdentity",
                "Effect": "Allow",
                "Principal": {"Service": PRINCIPAL},
                "Action": list(ACTIONS),
                "Condition": {
                    "StringEquals": {
                        "aws:RequestTag/eks-cluster-arn": cluster_arn,
                        "aws:RequestTag/kubernetes-namespace": namespace,
                        "aws:RequestTag/kubernetes-service-account": service_account,
                    }
                },
            }
        ],
    }
