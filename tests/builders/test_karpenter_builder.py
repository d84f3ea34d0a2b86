"""The GPU pool builders: EC2NodeClass and NodePool fields that matter, asserted on the rendered dicts."""

from __future__ import annotations

import pytest

from components.builders import karpenter as build
from components.capacity.gpus import INSTANCES
from components.capacity.plan import plan_stack
from components.capacity.pools import plan_pools
from components.config import load_stack_config
from tests.conftest import stack_config
from tests.kube_schemas import validate_object


def pools_of(raw):
    cfg = load_stack_config(raw)
    plans = plan_stack(cfg)
    return cfg, plans, plan_pools(cfg.gpu_pools, cfg.models, plans)


@pytest.fixture(scope="module")
def prod():
    return pools_of(stack_config("prod"))


def rendered(prod, name):
    cfg, _, pool_plans = prod
    pool = next(p for p in cfg.gpu_pools if p.name == name)
    return (
        pool,
        pool_plans[name],
        build.ec2_node_class(pool, pool_plans[name], cfg.cluster.name, "KarpenterNodeRole-llm-prod"),
        build.node_pool(pool, pool_plans[name]),
    )


@pytest.mark.parametrize("name", ["l40s", "h100", "h100-ray"])
def test_node_class_and_node_pool_pass_the_crd_schemas(prod, name):
    _, _, node_class, node_pool = rendered(prod, name)
    assert validate_object(node_class) == []
    assert validate_object(node_pool) == []


def test_node_pool_requirements_taint_and_gpu_limit(prod):
    pool, plan, _, node_pool = rendered(prod, "l40s")
    spec = node_pool["spec"]["template"]["spec"]
    reqs = {r["key"]: r for r in spec["requirements"]}
    assert reqs["node.kubernetes.io/instance-type"]["values"] == ["g6e.12xlarge", "g6e.2xlarge", "g6e.4xlarge"]
    assert reqs["karpenter.sh/capacity-type"]["values"] == ["on-demand"]
    assert reqs["karpenter.k8s.aws/instance-gpu-name"]["values"] == ["l40s"]
    # l40s holds chat-8b's LocalModelCache: KServe's download jobs tolerate nothing (test_controller_contracts.py).
    assert spec["taints"] == [{"key": "nvidia.com/gpu", "value": "true", "effect": "PreferNoSchedule"}]
    assert rendered(prod, "h100")[3]["spec"]["template"]["spec"]["taints"] == [
        {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}
    ]
    assert node_pool["spec"]["limits"] == {"nvidia.com/gpu": 24} and pool.gpu_limit == 24
    assert node_pool["spec"]["template"]["metadata"]["labels"]["llm-serving.io/pool"] == "l40s"
    assert spec["nodeClassRef"] == {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "l40s"}


def test_gpus_per_node_come_from_the_instance_catalogue(prod):
    _, _, pool_plans = prod
    assert pool_plans["l40s"].gpus_per_node == {"g6e.2xlarge": 1, "g6e.4xlarge": 1, "g6e.12xlarge": 4}
    assert pool_plans["h100"].gpus_per_node == {"p5.48xlarge": INSTANCES["p5.48xlarge"].gpu_count} == {"p5.48xlarge": 8}
    assert pool_plans["h100"].efa == {"p5.48xlarge": True}


def test_node_class_pins_the_ami_requires_imdsv2_and_encrypts_the_root_volume(prod):
    pool, plan, node_class, _ = rendered(prod, "h100")
    spec = node_class["spec"]
    assert spec["amiSelectorTerms"] == [{"alias": pool.ami_alias}] and "latest" not in pool.ami_alias
    assert spec["metadataOptions"]["httpTokens"] == "required"
    assert spec["metadataOptions"]["httpPutResponseHopLimit"] == 1
    (root,) = spec["blockDeviceMappings"]
    assert root["rootVolume"] is True
    assert root["ebs"]["encrypted"] is True and root["ebs"]["volumeType"] == "gp3"
    assert root["ebs"]["volumeSize"] == f"{plan.root_volume_gib}Gi"
    assert spec["role"] == "KarpenterNodeRole-llm-prod"
    assert spec["subnetSelectorTerms"] == [{"tags": {"karpenter.sh/discovery": "llm-prod"}}]
    assert spec["securityGroupSelectorTerms"] == [{"tags": {"karpenter.sh/discovery": "llm-prod"}}]


def test_raid0_where_every_instance_type_has_nvme_and_weights_then_stay_off_the_root_volume(prod):
    _, plan, node_class, _ = rendered(prod, "h100")
    assert plan.local_nvme_gb == 30400
    assert node_class["spec"]["instanceStorePolicy"] == "RAID0"
    assert plan.root_volume_gib == 60


def test_without_nvme_the_root_volume_holds_the_largest_download():
    raw = stack_config("dev")
    cfg, plans, pool_plans = pools_of(raw)
    # Every catalogue g6e type has NVMe; pretend one has none by reading the same plan with nvme 0.
    plan = pool_plans["l40s"]
    assert plan.local_nvme_gb == 450
    from dataclasses import replace

    from components.capacity import pools

    no_nvme = replace(plan, local_nvme_gb=0)
    node_class = build.ec2_node_class(cfg.gpu_pools[0], no_nvme, "llm-dev", "role")
    assert "instanceStorePolicy" not in node_class["spec"]
    weights = plans["chat-8b"].resources.ephemeral_storage_gib
    assert pools.IMAGE_AND_SYSTEM_GIB + weights > pools.IMAGE_AND_SYSTEM_GIB


def test_bottlerocket_puts_images_on_the_data_volume():
    raw = stack_config("dev")
    raw["llm-serving:gpuPools"][0]["amiAlias"] = "bottlerocket@1.55.0"
    cfg, _, pool_plans = pools_of(raw)
    node_class = build.ec2_node_class(cfg.gpu_pools[0], pool_plans["l40s"], "llm-dev", "role")
    devices = node_class["spec"]["blockDeviceMappings"]
    assert [d["deviceName"] for d in devices] == ["/dev/xvda", "/dev/xvdb"]
    assert devices[1]["rootVolume"] is True
    assert validate_object(node_class) == []


def test_drift_and_consolidation_only_in_the_weekly_window(prod):
    pool, _, _, node_pool = rendered(prod, "l40s")
    d = node_pool["spec"]["disruption"]
    assert d["consolidationPolicy"] == "WhenEmptyOrUnderutilized"
    assert d["consolidateAfter"] == "15m"
    # Default window Sunday 03:00-07:00 UTC: blocked from 07:00 Sunday for 164 hours.
    assert d["budgets"] == [
        {"nodes": "0", "reasons": ["Drifted", "Underutilized"], "schedule": "0 7 * * 0", "duration": "164h"},
        {"nodes": "1"},
    ]


def test_a_window_crossing_midnight_moves_the_block_to_the_next_day():
    raw = stack_config("dev")
    raw["llm-serving:gpuPools"][0]["disruption"] = {"window": {"weekday": 6, "startHour": 22, "hours": 4}}
    cfg, _, pool_plans = pools_of(raw)
    budgets = build.disruption_budgets(cfg.gpu_pools[0])
    assert budgets[0]["schedule"] == "0 2 * * 0" and budgets[0]["duration"] == "164h"


def test_termination_grace_period_covers_the_longest_drain_in_whole_hours(prod):
    cfg, plans, pool_plans = prod
    _, _, _, node_pool = rendered(prod, "l40s")
    tgp = node_pool["spec"]["template"]["spec"]["terminationGracePeriod"]
    # The longest drain + replacement of the pool's models, rounded up to whole hours: the field is in the NodePool's
    # drift hash (kubernetes-sigs/karpenter v1.14.1 pkg/apis/v1/nodepool.go:336-342, nodeclaim.go:73), so a value to
    # the second would turn every startup-budget change into a drift of every node.
    on_pool = [plans[m.name] for m in cfg.models if m.pool == "l40s"]
    need = max(p.termination_grace_seconds + p.startup_failure_threshold * p.startup_period_seconds for p in on_pool)
    assert tgp.endswith("h") and (int(tgp[:-1]) - 1) * 3600 < need <= int(tgp[:-1]) * 3600
    assert all(int(tgp[:-1]) * 3600 >= p.termination_grace_seconds for p in on_pool)


def test_a_startup_budget_change_inside_the_hour_is_not_a_drift(prod):
    import dataclasses

    _, _, pool_plans = prod
    plan = pool_plans["l40s"]
    moved = dataclasses.replace(plan, drain_seconds=plan.drain_seconds + 60)
    assert build.termination_grace_period(moved) == build.termination_grace_period(plan)


def test_the_multi_node_pool_holds_drift_and_sets_no_grace_period(prod):
    # With terminationGracePeriod set, drift is an eventual disruption that neither a PDB nor karpenter.sh/do-not-disrupt
    # holds back (v1.14.1 pkg/controllers/disruption/types.go:189-193, drift.go:115): an AMI bump would roll both nodes
    # of the 405B, one after the other, each a multi-node cold start. So the pool that hosts it sets none, and a
    # Drifted budget of zero nodes at all times (the most restrictive active budget wins: nodepool.go:363-377).
    _, _, _, node_pool = rendered(prod, "h100-ray")
    spec = node_pool["spec"]
    assert "terminationGracePeriod" not in spec["template"]["spec"]
    assert {"nodes": "0", "reasons": ["Drifted"]} in spec["disruption"]["budgets"]
    # h100-ray hosts the two-node 405B engine: expiry would replace both nodes together (config/cross_checks.py).
    assert spec["template"]["spec"]["expireAfter"] == "Never"
    # S14 (karpenter-gpu-expiry) refuses Never with drift held for good, unless exempted with the planned roll as reason.
    assert "planned roll" in node_pool["metadata"]["annotations"]["llm-serving.io/exempt-karpenter-gpu-expiry"]
    assert validate_object(node_pool) == []
    _, _, _, l40s = rendered(prod, "l40s")
    assert {"nodes": "0", "reasons": ["Drifted"]} not in l40s["spec"]["disruption"]["budgets"]


def test_single_node_models_pools_drift_in_their_window_beside_the_held_pool(prod):
    # Review of issue 30, finding 4: llama-70b shared the held pool, so its p5s never drifted either. On a pool of its
    # own (config/cross_checks.py refuses it on the engine's pool) it drifts inside the window, with a whole-hour
    # terminationGracePeriod (in the drift hash: v1.14.1 nodeclaim.go:73) and expiry.
    _, plan, _, node_pool = rendered(prod, "h100")
    assert plan.multi_node_models == () and plan.drift == "window"
    spec = node_pool["spec"]
    assert {"nodes": "0", "reasons": ["Drifted"]} not in spec["disruption"]["budgets"]
    assert spec["template"]["spec"]["terminationGracePeriod"] == "1h"
    assert spec["template"]["spec"]["expireAfter"] == "Never"
    assert "annotations" not in node_pool["metadata"]
    assert rendered(prod, "h100-ray")[1].drift == "held"


# --- Subnets and security groups (issue 19) --------------------------------------------


def _node_class_with(cluster: dict, efa_sg=None):
    raw = stack_config("prod")
    raw["llm-serving:cluster"].update(cluster)
    cfg, _, pool_plans = pools_of(raw)
    pool = cfg.gpu_pools[1]
    node_class = build.ec2_node_class(
        pool, pool_plans[pool.name], cfg.cluster.name, "r", cfg.cluster.subnets, cfg.cluster.security_groups, efa_sg
    )
    assert validate_object(node_class) == []
    return node_class["spec"]


@pytest.mark.parametrize(
    ("cluster", "subnets", "groups"),
    [
        ({}, [{"tags": {"karpenter.sh/discovery": "llm-prod"}}], [{"tags": {"karpenter.sh/discovery": "llm-prod"}}]),
        (
            {
                "subnets": {"ids": ["subnet-0123456789abcdef0", "subnet-0123456789abcdef1"]},
                "securityGroups": {"ids": ["sg-0123456789abcdef0"]},
            },
            [{"id": "subnet-0123456789abcdef0"}, {"id": "subnet-0123456789abcdef1"}],
            [{"id": "sg-0123456789abcdef0"}],
        ),
        (
            {"subnets": {"tags": {"tier": "private"}}, "securityGroups": {"eksClusterSecurityGroup": True}},
            [{"tags": {"tier": "private"}}],
            [{"tags": {"aws:eks:cluster-name": "llm-prod"}}],
        ),
        (
            {"securityGroups": {"tags": {"team": "*"}}},
            [{"tags": {"karpenter.sh/discovery": "llm-prod"}}],
            [{"tags": {"team": "*"}}],
        ),
    ],
    ids=["default-discovery-tag", "ids", "tags-and-eks-cluster-name", "tag-wildcard"],
)
def test_subnets_and_security_groups_are_selected_as_configured(cluster, subnets, groups):
    spec = _node_class_with(cluster)
    assert spec["subnetSelectorTerms"] == subnets
    assert spec["securityGroupSelectorTerms"] == groups


def test_the_efa_group_is_added_to_the_selected_ones():
    """Karpenter v1.14.1 puts all resolved groups on each EFA interface (pkg/providers/launchtemplate/launchtemplate.go:334-344)."""
    spec = _node_class_with({"securityGroups": {"eksClusterSecurityGroup": True}}, efa_sg="sg-0efa0000000000000")
    # Karpenter ORs the terms: the nodes get the cluster's group and the pool's own EFA group.
    assert spec["securityGroupSelectorTerms"] == [{"tags": {"aws:eks:cluster-name": "llm-prod"}}, {"id": "sg-0efa0000000000000"}]


def test_efa_group_and_rules_are_self_only_and_name_no_other_group():
    group = build.efa_security_group("prod-pool-h100", "llm-prod")
    assert group["tags"]["llm-serving.io/purpose"] == "efa" and "ingress" not in group and "egress" not in group
    rules = build.efa_security_group_rules("prod-pool-h100")
    assert sorted(r["kind"] for r in rules) == ["egress", "ingress"]
    assert all(r["ip_protocol"] == "-1" and "security_group_id" not in r for r in rules)
