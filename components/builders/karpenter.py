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
from ..config import GpuPoolConfig, SecurityGroupSelectorConfig, SubnetSelectorConfig
from ..facts import EKS_CLUSTER_NAME_TAG

GPU_TAINT_KEY = "nvidia.com/gpu"
# The GPU taint of the docs' GPU NodePool example (Karpenter v1.14.1 docs, NodePool taints): pods that do not
# tolerate it never land on a GPU node.
GPU_TAINT = {"key": GPU_TAINT_KEY, "value": "true", "effect": "NoSchedule"}
GPU_TOLERATION = {"key": GPU_TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"}
# The cache pools' soft GPU taint (cache_taint) needs its own toleration: a toleration matches a taint only when its
# effect is empty or equal (k8s.io/api core/v1 toleration.go ToleratesTaint), and Karpenter treats a PreferNoSchedule
# taint like a hard one when it provisions: scheduling.Taints.Tolerates checks every taint whatever its effect
# (kubernetes-sigs/karpenter v1.14.1 pkg/scheduling/taints.go:83-95), and tolerates PreferNoSchedule only as the last
# preference relaxation, after dropping zone and hostname spread (pkg/controllers/provisioning/scheduling/
# preferences.go:38-57, 132-146). A GPU pod that lacks it loses its spread before it may land on a cache pool.
GPU_SOFT_TOLERATION = {"key": GPU_TAINT_KEY, "operator": "Exists", "effect": "PreferNoSchedule"}


def gpu_tolerations() -> list[dict[str, str]]:
    """The tolerations of every pod meant for GPU nodes: the GPU taint of both effects our NodePools use.

    Two explicit effects rather than an empty one, which would also tolerate a NoExecute taint on the GPU key
    (a GPU health taint must still evict).
    """
    return [dict(GPU_TOLERATION), dict(GPU_SOFT_TOLERATION)]


POOL_LABEL = "llm-serving.io/pool"
# The node agent's fixed hostPath (kserve v0.20.0 charts/kserve-localmodel-resources/files/resources.yaml:384-386).
AGENT_HOST_PATH = "/models"
# AL2023 mounts the instance-store RAID0 array at /mnt/k8s-disks/0 (Karpenter v1.14.1 docs, instanceStorePolicy);
# AGENT_HOST_PATH is bind-mounted onto this folder of it.
NVME_CACHE_DIR = "/mnt/k8s-disks/0/kserve-models"
# Who the node agent runs as: the uid and gid of KServe's download Job, so that it can delete what the Job wrote.
# The Job's container runs as the storage-initializer image's user 1000 (kserve/kserve v0.20.0
# python/storage-initializer.Dockerfile:55, 68; the Job sets only fsGroup, pkg/controller/v1alpha1/localmodelnode/
# controller.go:191-211, 237-244) and writes 0755 folders; the agent removes a model with os.RemoveAll
# (file_utils.go:48-50), which needs write access to every one of them. Left alone, the agent runs as its image's
# user, distroless "nonroot" 65532 (localmodel-agent.Dockerfile:37; its DaemonSet sets runAsNonRoot but no
# runAsUser, charts/kserve-localmodel-resources/files/resources.yaml:363-380, and no template reads the chart's
# kserve.localmodel.agent.securityContext.runAsUser: 1000), and could never clean the cache: builders/model_source.py
# agent_user_patch makes it 1000:1000. The agent creates its models folder under the host path at start
# (file_utils.go:76-81, os.MkdirAll of <mount>/models, controller.go:87), so the folder must belong to it.
AGENT_UID = 1000
AGENT_GID = 1000
NODEPOOL_LABEL = "karpenter.sh/nodepool"
from ..builders.labels import GPU_NAME_LABEL  # noqa: E402 (defined beside the labels: the policy pack reads it)

# Subnets and security groups are found by this tag by default (Karpenter's getting-started convention).
from ..facts import DISCOVERY_TAG  # noqa: E402

# The exemption annotation of policy karpenter-gpu-nodepool-tainted (policies/framework.py EXEMPTION_PREFIX).
CACHE_TAINT_EXEMPTION = "llm-serving.io/exempt-karpenter-gpu-nodepool-tainted"
# Reasons Karpenter can budget (Karpenter v1.14.1 docs: Underutilized, Empty, Drifted; expiration is not budgetable).
WINDOWED_REASONS = ["Drifted", "Underutilized"]
HOURS_PER_WEEK = 168


def node_role_name(cluster_name: str) -> str:
    """The node IAM role's name (Karpenter's getting-started name: KarpenterNodeRole-<cluster>), fitted to IAM's 64 characters."""
    from .names import IAM_ROLE_NAME, fit

    return fit(f"KarpenterNodeRole-{cluster_name}", IAM_ROLE_NAME)


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
            {
                "deviceName": "/dev/xvda",
                "ebs": {"volumeSize": "8Gi", "volumeType": "gp3", "encrypted": True, "deleteOnTermination": True},
            },
            {"deviceName": "/dev/xvdb", "rootVolume": True, "ebs": ebs},
        ]
    return [{"deviceName": "/dev/xvda", "rootVolume": True, "ebs": ebs}]


def subnet_selector_terms(selector: SubnetSelectorConfig, cluster_name: str) -> list[dict[str, Any]]:
    """subnetSelectorTerms: one term per ID (terms are ORed), or one term of tags (default: the discovery tag)."""
    if selector.ids:
        return [{"id": i} for i in selector.ids]
    return [{"tags": dict(selector.tags) if selector.tags else {DISCOVERY_TAG: cluster_name}}]


def security_group_selector_terms(
    selector: SecurityGroupSelectorConfig, cluster_name: str, extra_ids: tuple[str, ...] = ()
) -> list[dict[str, Any]]:
    """securityGroupSelectorTerms: the configured groups, plus ``extra_ids`` (a pool's own EFA group)."""
    if selector.ids:
        terms: list[dict[str, Any]] = [{"id": i} for i in selector.ids]
    elif selector.eks_cluster_security_group:
        # EKS tags the cluster security group it creates aws:eks:cluster-name=<cluster>.
        terms = [{"tags": {EKS_CLUSTER_NAME_TAG: cluster_name}}]
    else:
        terms = [{"tags": dict(selector.tags) if selector.tags else {DISCOVERY_TAG: cluster_name}}]
    return terms + [{"id": i} for i in extra_ids]


def efa_security_group(name: str, cluster_name: str) -> dict[str, Any]:
    """Arguments of the EFA pool's own security group (pulumi-aws ``aws.ec2.SecurityGroup``, rules separate).

    EFA needs all traffic allowed to and from the group itself (AWS EFA user guide, "Prepare an
    EFA-enabled security group"). The EKS cluster security group is never edited for it: EKS owns
    that group's rules (it already holds self rules, and re-creating them fails with
    InvalidPermission.Duplicate). The pool's nodes get this group in addition to the selected ones:
    Karpenter puts every security group its EC2NodeClass resolves on each EFA interface it launches
    (v1.14.1 pkg/providers/launchtemplate/launchtemplate.go:334-344, ``Groups`` of each EFA interface).
    """
    return {
        "description": f"EFA traffic between the nodes of {name} (self rules only)",
        "tags": {"Name": f"{name}-efa", "llm-serving.io/purpose": "efa", "llm-serving.io/cluster": cluster_name},
        # No inline rules: the self rules are separate resources (efa_security_group_rules), and pulumi-aws
        # would otherwise fight them over the group's rule set.
        "revoke_rules_on_delete": True,
    }


def efa_security_group_rules(name: str) -> list[dict[str, Any]]:
    """The self-referencing all-traffic rules on the EFA group (``aws.vpc.SecurityGroupIngressRule`` / ``EgressRule`` args)."""
    common = {"ip_protocol": "-1", "tags": {"Name": f"{name}-efa", "llm-serving.io/purpose": "efa"}}
    return [
        {"kind": "ingress", "description": "EFA: all traffic from nodes in this security group", **common},
        {"kind": "egress", "description": "EFA: all traffic to nodes in this security group", **common},
    ]


def cache_user_data() -> str:
    """AL2023 user data that puts KServe's fixed ``/models`` on the instance-store RAID0 before the kubelet starts.

    Karpenter wraps a non-MIME user data in its own MIME archive (v1.14.1
    pkg/providers/amifamily/bootstrap/nodeadm.go:141-151); a MIME archive is merged as is, which is
    what this is. nodeadm sets up the RAID0 (``setup-local-disks``, mounted at /mnt/k8s-disks/0) in
    its *run* phase, after cloud-init's scripts and just before it starts the kubelet (amazon-eks-ami
    v20260724 nodeadm/cmd/nodeadm/init/init.go:140-152; nodeadm-run.service runs After=cloud-final), so
    a boot script cannot bind-mount onto the array yet. The script therefore adds a kubelet drop-in
    whose ExecStartPre does it when the kubelet starts: the array is mounted by then, and the node
    agent's pod (hostPath /models, DirectoryOrCreate) mounts the bind mount. The cache folder belongs to the
    agent's uid and gid (``AGENT_UID``/``AGENT_GID``): the agent runs as non-root and creates its folders there.
    """
    mount = (
        f"mkdir -p {NVME_CACHE_DIR} {AGENT_HOST_PATH} && chown {AGENT_UID}:{AGENT_GID} {NVME_CACHE_DIR} && "
        f"(mountpoint -q {AGENT_HOST_PATH} || mount --bind {NVME_CACHE_DIR} {AGENT_HOST_PATH})"
    )
    script = "\n".join(
        [
            "#!/bin/bash",
            "set -eu",
            "mkdir -p /etc/systemd/system/kubelet.service.d",
            f"printf '%s\\n' '[Service]' 'ExecStartPre=/bin/sh -c \"{mount}\"' > /etc/systemd/system/kubelet.service.d/90-kserve-models.conf",
            "systemctl daemon-reload",
        ]
    )
    boundary = "LLMSERVINGKSERVEMODELS"
    return "\n".join(
        [
            "MIME-Version: 1.0",
            f'Content-Type: multipart/mixed; boundary="{boundary}"',
            "",
            f"--{boundary}",
            'Content-Type: text/x-shellscript; charset="us-ascii"',
            "",
            script,
            "",
            f"--{boundary}--",
            "",
        ]
    )


def cache_taint() -> dict[str, str]:
    """The GPU taint of a pool whose nodes hold a LocalModelCache: PreferNoSchedule.

    KServe v0.20.0's download Job pins itself to the node by ``kubernetes.io/hostname`` and carries no
    tolerations (pkg/controller/v1alpha1/localmodelnode/controller.go:191-210; ``enhanceDownloadJob``
    is a no-op, platform_default.go:32), and no value of the chart or of ``localModel`` adds any. A
    NoSchedule taint would keep the job Pending for good; PreferNoSchedule lets it run while the
    scheduler still keeps other pods off the GPU nodes when anything else fits.
    """
    return {"key": GPU_TAINT_KEY, "value": "true", "effect": "PreferNoSchedule"}


# The reason the cache pools' NodePools carry for the exemption from the NoSchedule taint policy (S11).
CACHE_TAINT_REASON = (
    "KServe 0.20 LocalModel download jobs carry no tolerations (localmodelnode/controller.go); the GPU taint is "
    "PreferNoSchedule on pools that hold a model cache"
)


def expire_after(pool: GpuPoolConfig, plan: PoolPlan) -> str:
    """The NodePool's expireAfter: the configured value, else Never.

    Expiry is forceful in Karpenter v1.14.1: the expiration controller deletes a NodeClaim once its creation time plus
    expireAfter has passed, with no look at disruption budgets, the maintenance window or karpenter.sh/do-not-disrupt
    (kubernetes-sigs/karpenter v1.14.1 pkg/controllers/nodeclaim/expiration/controller.go:70-84). Nodes launched
    together (a first ``up``, a scale-out) would then be replaced together, at whatever hour they reach the age, each
    model cold-starting outside the window. With Never, nodes get new AMIs by drift (a new pinned ``amiAlias``),
    which the pool's budgets keep inside the maintenance window; a pool that hosts a multi-node engine must keep Never
    (config/cross_checks.py). ``plan`` is kept for the builder's signature.
    """
    del plan
    if pool.disruption.expire_after is not None:
        return pool.disruption.expire_after
    return "Never"


def ec2_node_class(
    pool: GpuPoolConfig,
    plan: PoolPlan,
    cluster_name: str,
    node_role: str,
    subnets: SubnetSelectorConfig | None = None,
    security_groups: SecurityGroupSelectorConfig | None = None,
    efa_security_group_id: str | None = None,
) -> dict[str, Any]:
    """The EC2NodeClass of a GPU pool: pinned NVIDIA-capable AMI, encrypted gp3 root, IMDSv2, NVMe RAID0.

    Subnets and security groups as configured (default: the discovery tag); an EFA pool also gets its own EFA group.
    """
    extra = (efa_security_group_id,) if efa_security_group_id else ()
    spec: dict[str, Any] = {
        # With an alias Karpenter picks the EKS-optimized accelerated (NVIDIA) AMI for GPU types (Karpenter v1.14.1 docs).
        "amiSelectorTerms": [{"alias": pool.ami_alias}],
        "role": node_role,
        "subnetSelectorTerms": subnet_selector_terms(subnets or SubnetSelectorConfig(), cluster_name),
        "securityGroupSelectorTerms": security_group_selector_terms(
            security_groups or SecurityGroupSelectorConfig(), cluster_name, extra
        ),
        "blockDeviceMappings": _block_devices(pool, plan),
        # IMDSv2 only, and a hop limit of 1 so pods cannot reach the node role's credentials.
        "metadataOptions": {
            "httpEndpoint": "enabled",
            "httpProtocolIPv6": "disabled",
            "httpPutResponseHopLimit": 1,
            "httpTokens": "required",
        },
        "tags": {POOL_LABEL: pool.name, "llm-serving.io/cluster": cluster_name},
    }
    if plan.local_nvme_gb:
        # RAID0 over the instance-store NVMe: ephemeral storage and the model cache live there
        # (/mnt/k8s-disks/0 on AL2023; Karpenter v1.14.1 docs, instanceStorePolicy).
        spec["instanceStorePolicy"] = "RAID0"
    if plan.cached_models:
        # KServe's node agent reads /models; put it on the NVMe array (config/cross_checks.py refuses Bottlerocket here).
        spec["userData"] = cache_user_data()
    if pool.capacity_reservations:
        # Reserved capacity comes only from the reservations these terms select (config/cross_checks.py requires them with "reserved").
        spec["capacityReservationSelectorTerms"] = [r.term() for r in pool.capacity_reservations]
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
            {
                "nodes": "0",
                "reasons": list(WINDOWED_REASONS),
                "schedule": f"0 {end_hour % 24} * * {day}",
                "duration": f"{HOURS_PER_WEEK - w.hours}h",
            }
        )
    budgets.append({"nodes": "1"})
    return budgets


# A budget that stops drift at all times: the nodes of a multi-node engine are rolled by hand (docs/platform.md,
# "Rolling the nodes of a multi-node engine"). Karpenter applies the most restrictive active budget for a reason
# (v1.14.1 pkg/apis/v1/nodepool.go:363-380, GetAllowedDisruptionsByReason: the minimum over the active budgets), so nodes "0" for Drifted wins over the window.
DRIFT_HELD = {"nodes": "0", "reasons": ["Drifted"]}
# The exemption the held pools carry from karpenter-gpu-expiry (S14 refuses expireAfter Never with drift blocked
# for good, because nodes would never be patched: here they are, by the planned roll).
EXPIRY_EXEMPTION = "llm-serving.io/exempt-karpenter-gpu-expiry"
PLANNED_ROLL_REASON = (
    "hosts a multi-node engine: drift is held (Drifted budget nodes 0, no terminationGracePeriod) and the nodes get "
    "new AMIs by the planned roll of docs/platform.md (all of the engine's nodes at once, one cold start)"
)


def holds_drift(plan: PoolPlan) -> bool:
    """True for a pool whose nodes roll only by the planned procedure: it hosts a multi-node engine."""
    return bool(plan.multi_node_models)


def pool_disruption_budgets(pool: GpuPoolConfig, plan: PoolPlan) -> list[dict[str, Any]]:
    """The pool's budgets: the window's (:func:`disruption_budgets`), plus drift held for good where it holds drift."""
    budgets = disruption_budgets(pool)
    return [dict(DRIFT_HELD), *budgets] if holds_drift(plan) else budgets


def termination_grace_period(plan: PoolPlan) -> str | None:
    """The NodePool's terminationGracePeriod: the pool's longest drain rounded up to whole hours; none on a held pool.

    The field is part of the NodePool's drift hash (v1.14.1 pkg/apis/v1/nodepool.go:336-342 hashes
    spec.template; nodeclaim.go:73 does not tag it ``hash:"ignore"``), so a value derived to the second from
    the models' startup budgets would make every budget change a drift of every node of the pool. Whole hours
    move only when a drain crosses an hour. With it set, drift is an eventual disruption that neither a PDB nor
    ``karpenter.sh/do-not-disrupt`` holds back (pkg/controllers/disruption/types.go:189-193, drift.go:115), so a
    pool that hosts a multi-node engine gets none: its drain waits for the pods, and its roll is planned.
    """
    if holds_drift(plan):
        return None
    return f"{-(-max(plan.drain_seconds, 300) // 3600)}h"


def node_pool(pool: GpuPoolConfig, plan: PoolPlan, labels: dict[str, str] | None = None) -> dict[str, Any]:
    """The NodePool of a GPU pool: its instance types, the GPU taint, the GPU limit and serving-aware disruption."""
    d = pool.disruption
    template_spec: dict[str, Any] = {
        "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": pool.name},
        "requirements": [
            {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": sorted(pool.instance_types)},
            {"key": "karpenter.sh/capacity-type", "operator": "In", "values": list(pool.capacity_types)},
            {"key": GPU_NAME_LABEL, "operator": "In", "values": [plan.karpenter_gpu_name]},
            # The instance records' arch (hardware.toml): arm64 for Graviton/Grace types such as g5g.
            {"key": "kubernetes.io/arch", "operator": "In", "values": [plan.arch]},
        ],
        "taints": [cache_taint() if plan.cached_models else dict(GPU_TAINT)],
        "expireAfter": expire_after(pool, plan),
    }
    tgp = termination_grace_period(plan)
    if tgp is not None:
        template_spec["terminationGracePeriod"] = tgp
    annotations: dict[str, str] = {}
    if plan.cached_models:
        annotations[CACHE_TAINT_EXEMPTION] = CACHE_TAINT_REASON
    if holds_drift(plan):
        annotations[EXPIRY_EXEMPTION] = PLANNED_ROLL_REASON
    return {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {
            "name": pool.name,
            "labels": recommended_labels(pool.name, component="gpu-node-pool"),
            **({"annotations": annotations} if annotations else {}),
        },
        "spec": {
            "template": {"metadata": {"labels": {POOL_LABEL: pool.name, **(labels or {})}}, "spec": template_spec},
            "disruption": {
                "consolidationPolicy": d.consolidation_policy,
                "consolidateAfter": d.consolidate_after,
                "budgets": pool_disruption_budgets(pool, plan),
            },
            "limits": {GPU_TAINT_KEY: plan.gpu_limit},
        },
    }
