"""Every Pod Identity association of the prod stack binds a role that trusts exactly that association (issue 19).

The role's trust policy names the cluster, namespace and service account in EKS Pod Identity's
session tags (builders/pod_identity.py; EKS user guide pod-id-role.html, "Setting Conditions"): an
association elsewhere (another namespace, another service account, another cluster) cannot assume it.
"""

from __future__ import annotations

import json

from stacks.mock_cloud import ACCOUNT_ID, PARTITION, computed_outputs
from tests.recording import record


def test_each_association_and_its_roles_trust_agree():
    rec = record("prod")
    # Each role by the ARN the offline engine gives it (mock_cloud.computed_outputs), as the associations name it.
    roles = {
        computed_outputs(r["type"], r["name"], r["inputs"], "us-east-1")["arn"]: r
        for r in rec["resources"]
        if r["type"] == "aws:iam/role:Role"
    }
    associations = [r for r in rec["resources"] if r["type"] == "aws:eks/podIdentityAssociation:PodIdentityAssociation"]
    assert len(associations) >= 3  # Karpenter, the load balancer controller, the 70B model's S3 reader
    for assoc in associations:
        a = assoc["inputs"]
        role = roles[a["roleArn"]]
        (statement,) = json.loads(role["inputs"]["assumeRolePolicy"])["Statement"]
        assert statement["Principal"] == {"Service": "pods.eks.amazonaws.com"}
        assert statement["Condition"] == {
            "StringEquals": {
                "aws:RequestTag/eks-cluster-arn": f"arn:{PARTITION}:eks:us-east-1:{ACCOUNT_ID}:cluster/{a['clusterName']}",
                "aws:RequestTag/kubernetes-namespace": a["namespace"],
                "aws:RequestTag/kubernetes-service-account": a["serviceAccount"],
            }
        }, assoc["name"]
        assert not a.get("disableSessionTags"), "the trust conditions read the session tags"
