"""The platform around the model server, read as set 8 showed it was missed: Karpenter budgets per disruption reason
with a moving AMI (S12), autoscalers named generically (S8), NIMService spec.scale (S6/S8), per-pod Prometheus
queries (S7). Every firing case is a minimal hand-written form of a third-party file (provenance beside it); every
careful form beside it must stay silent."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

S12 = "karpenter-gpu-nodepool-disruption-budget"

# Tazmainiandevil/eks-gpu-inference-autoscaling platform/karpenter/nodepool.yaml at
# 5fdf82bb5715f7fc00b01c9ca517b07bac00080c (held-out set 8, labelled blocking S12;S14): the EC2NodeClass selects the
# moving alias al2023@latest and the GPU pool's only budget is limited to Underutilized and Empty.
LATEST_CLASS = {
    "apiVersion": "karpenter.k8s.aws/v1",
    "kind": "EC2NodeClass",
    "metadata": {"name": "default"},
    "spec": {
        "amiSelectorTerms": [{"alias": "al2023@latest"}],
        "role": "gpu-node-role",
        "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "demo"}}],
        "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "demo"}}],
    },
}
REASONS_ONLY_POOL = {
    "apiVersion": "karpenter.sh/v1",
    "kind": "NodePool",
    "metadata": {"name": "gpu"},
    "spec": {
        "template": {
            "spec": {
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                "taints": [{"key": "gpu", "value": "true", "effect": "NoSchedule"}],
                "requirements": [
                    {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g5.xlarge", "g6.xlarge"]}
                ],
            }
        },
        "limits": {"cpu": "64", "nvidia.com/gpu": "8"},
        "disruption": {
            "consolidationPolicy": "WhenEmpty",
            "consolidateAfter": "3m",
            "budgets": [{"nodes": "10%", "reasons": ["Underutilized", "Empty"]}],
        },
    },
}


def test_s12_drift_unbudgeted_with_a_moving_ami_blocks():
    found = found_by([LATEST_CLASS, REASONS_ONLY_POOL], S12)
    assert [level for level, _ in found] == ["mandatory"]
    message = found[0][1]
    assert "none applies to Drifted" in message and "MaxInt32" in message
    assert "its EC2NodeClass default selects amiSelectorTerms alias al2023@latest" in message


def test_s12_drift_unbudgeted_is_advice_where_the_ami_is_pinned_or_the_class_elsewhere():
    pinned = copy.deepcopy(LATEST_CLASS)
    pinned["spec"]["amiSelectorTerms"] = [{"alias": "al2023@v20250505"}]
    for objs in ([pinned, REASONS_ONLY_POOL], [REASONS_ONLY_POOL]):
        found = found_by(objs, S12)
        assert [level for level, _ in found] == ["advisory"], objs
        assert "whenever the NodePool or its EC2NodeClass changes" in found[0][1]


def test_s12_moving_ami_forms():
    """An SSM parameter AWS repoints on every release, and a v1beta1 class with only an amiFamily, move too."""
    ssm = copy.deepcopy(LATEST_CLASS)
    ssm["spec"]["amiSelectorTerms"] = [
        {"ssmParameter": "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/nvidia/recommended/image_id"}
    ]
    family = {"apiVersion": "karpenter.k8s.aws/v1beta1", "kind": "EC2NodeClass", "metadata": {"name": "default"}}
    family["spec"] = {"amiFamily": "AL2023", "role": "r"}
    for node_class, why in ((ssm, "ssmParameter /aws/service"), (family, "amiFamily AL2023 with no amiSelectorTerms")):
        found = found_by([node_class, REASONS_ONLY_POOL], S12)
        assert [level for level, _ in found] == ["mandatory"] and why in found[0][1]


def test_s12_careful_budgets_stay_silent():
    """A budget for Drifted (a window and a cap on every reason, as the builder renders and Karpenter's docs show),
    or one naming no reason, covers drift however moving the AMI."""
    for budgets in (
        [{"nodes": "10%", "reasons": ["Underutilized", "Empty"]}, {"nodes": "1", "reasons": ["Drifted"]}],
        [{"nodes": "0", "reasons": ["Drifted"], "schedule": "0 9 * * mon-fri", "duration": "8h"}, {"nodes": "1"}],
    ):
        pool = copy.deepcopy(REASONS_ONLY_POOL)
        pool["spec"]["disruption"]["budgets"] = budgets
        assert found_by([LATEST_CLASS, pool], S12) == [], budgets
