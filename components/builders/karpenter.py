"""Manifests of one Karpenter GPU pool: its EC2NodeClass (karpenter.k8s.aws/v1) and NodePool (karpenter.sh/v1).

Pure functions from the pool's config and its capacity plan (components/capacity/pools.py) to
manifest dicts. Field names and rules follow the Karpenter v1.14.1 CRDs: kubernetes-sigs/karpenter
pkg/apis/crds/karpenter.sh_nodepools.yaml and aws/karpenter-provider-aws
pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml (tag v1.14.1), and that repository's
website/content/en/docs/concepts/{scheduling,nodeclasses}.md.
"""

from __future__ import annotations

from typing import Any

from ..builders.labels import recommended_labels
from ..capacity.pools import PoolPlan
from ..config import GpuPoolConfig

GPU_TAINT_KEY = "nvidia.com/gpu"
# The GPU taint of the docs' GPU NodePool example (karpenter.md, NodePool taints): pods that do not
# tolerate it never land on a GPU node.
GPU_TAINT = {"key": GPU_TAINT_KEY, "value": "true", "effect": "NoSchedule"}
GPU_TOLERATION = {"key": GPU_TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"}
POOL_LABEL = "llm-serving.io/pool"
NODEPOOL_LABEL = "karpenter.sh/nodepool"
from ..builders.labels import GPU_NAME_LABEL  # noqa: E402 (defined beside the labels: the policy pack reads it)
# Subnets and security groups are found by this tag (Karpenter's getting-started convention).
DISCOVERY_TAG = "karpenter.sh/discovery"
# Reasons Karpenter can budget (karpenter.md: Underutilized, Empty, Drifted; expiration is not budgetable).
WINDOWED_REASONS = ["Drifted", "Underutilized"]
HOURS_PER_WEEK = 168


def node_role_name(cluster_name: str) -> str:
    """The node IAM role's name (Karpenter's getting-started name: KarpenterNodeRole-<cluster>)."""
    return f"KarpenterNodeRole-{cluster_name}"


def _block_devices(pool: GpuPoolConfig, plan: PoolPlan) -> list[dict[str, Any]]:
    ebs = {
        "volumeSize": f"{plan.root_volume_gib}Gi",
        "volumeType": "gp3",
        "encrypted": True,
        "deleteOnTermination": True,
        # gp3's baseline is 3000 IOPS / 125 MiB/s; image layers unpack faster with more throughput.
        "iops": 6000,
        "throughput": 500,
    }
    if pool.ami_alias.startswith("bottlerocket@"):
        # Bottlerocket: a small OS volume and a data volume for images and ephemeral storage.
        return [
            {"deviceName": "/dev/xvda", "ebs": {"volumeSize": "8Gi", "volumeType": "gp3", "encrypted": True, "deleteOnTermination": True}},
            {"deviceName": "/dev/xvdb", "rootVolume": True, "ebs": ebs},
        ]
    return [{"deviceName": "/dev/xvda", "rootVolume": True, "ebs": ebs}]


def ec2_node_class(pool: GpuPoolConfig, plan: PoolPlan, cluster_name: str, node_role: str) -> dict[str, Any]:
    """The EC2NodeClass of a GPU pool: pinned NVIDIA-capable AMI, encrypted gp3 root, IMDSv2, NVMe RAID0."""
    spec: dict[str, Any] = {
        # With an alias Karpenter picks the EKS-optimized accelerated (NVIDIA) AMI for GPU types (karpenter.md).
        "amiSelectorTerms": [{"alias": pool.ami_alias}],
        "role": node_role,
        "subnetSelectorTerms": [{"tags": {DISCOVERY_TAG: cluster_name}}],
        "securityGroupSelectorTerms": [{"tags": {DISCOVERY_TAG: cluster_name}}],
        "blockDeviceMappings": _block_devices(pool, plan),
        # IMDSv2 only, and a hop limit of 1 so pods cannot reach the node role's credentials.
        "metadataOptions": {"httpEndpoint": "enabled", "httpProtocolIPv6": "disabled", "httpPutResponseHopLimit": 1, "httpTokens": "required"},
        "tags": {POOL_LABEL: pool.name, "llm-serving.io/cluster": cluster_name},
    }
    if plan.local_nvme_gb:
        # RAID0 over the instance-store NVMe: ephemeral storage and the model cache live there
        # (/mnt/k8s-disks/0 on AL2023; karpenter.md, instanceStorePolicy).
        spec["instanceStorePolicy"] = "RAID0"
    return {
        "apiVersion": "karpenter.k8s.aws/v1",
        "kind": "EC2NodeClass",
        "metadata": {"name": pool.name, "labels": recommended_labels(pool.name, component="gpu-node-class")},
        "spec": spec,
    }


def disruption_budgets(pool: GpuPoolConfig) -> list[dict[str, Any]]:
    """Budgets that allow drift and consolidation of serving nodes only inside the weekly window.

    Karpenter applies the most restrictive active budget, so the window is expressed as a
    ``nodes: "0"`` budget active from the window's end until its next start (168h minus the window),
    plus ``nodes: "1"`` at all times: never more than one serving node at once, for any reason.
    """
    w = pool.disruption.window
    end_hour = w.start_hour + w.hours
    day = (w.weekday + end_hour // 24) % 7
    budgets: list[dict[str, Any]] = []
    if w.hours < HOURS_PER_WEEK:
        budgets.append(
            {"nodes": "0", "reasons": list(WINDOWED_REASONS), "schedule": f"0 {end_hour % 24} * * {day}", "duration": f"{HOURS_PER_WEEK - w.hours}h"}
        )
    budgets.append({"nodes": "1"})
    return budgets


def termination_grace_period(plan: PoolPlan) -> str:
    """The NodePool's terminationGracePeriod: the longest drain of a serving pod on the pool (at least 5 minutes)."""
    return f"{max(plan.drain_seconds, 300)}s"


def node_pool(pool: GpuPoolConfig, plan: PoolPlan, labels: dict[str, str] | None = None) -> dict[str, Any]:
    """The NodePool of a GPU pool: its instance types, the GPU taint, the GPU limit and serving-aware disruption."""
    d = pool.disruption
    template_spec: dict[str, Any] = {
        "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": pool.name},
        "requirements": [
            {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": sorted(pool.instance_types)},
            {"key": "karpenter.sh/capacity-type", "operator": "In", "values": list(pool.capacity_types)},
            {"key": GPU_NAME_LABEL, "operator": "In", "values": [plan.karpenter_gpu_name]},
            {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
        ],
        "taints": [dict(GPU_TAINT)],
        "expireAfter": d.expire_after,
        "terminationGracePeriod": termination_grace_period(plan),
    }
    return {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": pool.name, "labels": recommended_labels(pool.name, component="gpu-node-pool")},
        "spec": {
            "template": {"metadata": {"labels": {POOL_LABEL: pool.name, **(labels or {})}}, "spec": template_spec},
            "disruption": {
                "consolidationPolicy": d.consolidation_policy,
                "consolidateAfter": d.consolidate_after,
                "budgets": disruption_budgets(pool),
            },
            "limits": {GPU_TAINT_KEY: plan.gpu_limit},
        },
    }

