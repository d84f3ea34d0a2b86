"""GPU NodePools of every provider's Karpenter (S11 taints, S12 budgets): a pool is a GPU pool by its GPU requirement keys
under any provider's prefix, GPU instance types of any provider, nvidia.com/gpu labels, or the node class of the files;
a pool read as one from a node class's or its own name only gets advice (spent set 22)."""

from __future__ import annotations

import copy

from policy_fixtures import RISK_ROWS
from policy_fixtures import found_by as _pack_found_by


def found_by(objs: list[dict], policy: str, config: dict | None = None) -> list[tuple[str, str]]:
    """The pack's findings with the risk rows raised (S11-S14 advise by default): proven ones block, unproven advise."""
    return _pack_found_by(objs, policy, {policy: RISK_ROWS[policy]} if config is None and policy in RISK_ROWS else config)


# Apsu/lambda-karpenter nodepool.yaml at d63a622 as held-out set 22 holds it: a GH200 pool on Lambda Cloud whose
# requirements pin only arch and capacity type; the GPU is named by its LambdaNodeClass lambda-gh200.
GH200_BY_NAME = {
    "apiVersion": "karpenter.sh/v1",
    "kind": "NodePool",
    "metadata": {"name": "gh200-pool"},
    "spec": {
        "template": {
            "metadata": {"labels": {"kubernetes.io/arch": "arm64", "karpenter.sh/capacity-type": "on-demand"}},
            "spec": {
                "nodeClassRef": {"group": "karpenter.lambda.cloud", "kind": "LambdaNodeClass", "name": "lambda-gh200"},
                "requirements": [
                    {"key": "kubernetes.io/arch", "operator": "In", "values": ["arm64"]},
                    {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
                ],
            },
        },
        "limits": {"nodes": 1},
    },
}

# Azure/karpenter-provider-azure examples/v1/general-purpose.yaml at 31f0a249bd363b56fb42d043d8f168de3d141ed8 (cut down):
# a D-family CPU pool, no taints; must stay silent.
AZURE_GENERAL = {
    "apiVersion": "karpenter.sh/v1",
    "kind": "NodePool",
    "metadata": {"name": "general-purpose"},
    "spec": {
        "disruption": {"consolidateAfter": "0s", "budgets": [{"nodes": "30%"}]},
        "template": {
            "spec": {
                "nodeClassRef": {"group": "karpenter.azure.com", "kind": "AKSNodeClass", "name": "default"},
                "expireAfter": "Never",
                "requirements": [
                    {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
                    {"key": "karpenter.azure.com/sku-family", "operator": "In", "values": ["D"]},
                ],
            }
        },
    },
}


def with_requirement(pool: dict, key: str, values: list[str], operator: str = "In") -> dict:
    pool = copy.deepcopy(pool)
    pool["spec"]["template"]["spec"]["requirements"].append({"key": key, "operator": operator, "values": values})
    return pool


def test_a_pool_named_for_a_gpu_only_is_advice():
    ((level, message),) = found_by([GH200_BY_NAME], "karpenter-gpu-nodepool-tainted")
    assert level == "advisory"
    assert message.endswith("(read as a GPU pool because its nodeClassRef LambdaNodeClass lambda-gh200 names a GPU)")
    ((level, message),) = found_by([GH200_BY_NAME], "karpenter-gpu-nodepool-disruption-budget")
    assert level == "advisory" and message.startswith("spec.disruption.budgets: GPU NodePool without explicit budgets")


def test_a_lambda_gpu_instance_type_proves_the_pool():
    # Apsu/lambda-karpenter examples/nodepool.yaml at d63a622: the same pool pinned to instance type gpu_1x_gh200.
    pool = with_requirement(GH200_BY_NAME, "node.kubernetes.io/instance-type", ["gpu_1x_gh200"])
    assert [level for level, _ in found_by([pool], "karpenter-gpu-nodepool-tainted")] == ["mandatory"]
    # A LambdaNodeClass of the files that pins GPU instance types proves it too.
    other = copy.deepcopy(GH200_BY_NAME)
    other["spec"]["template"]["spec"]["nodeClassRef"]["name"] = "with-filesystem"
    node_class = {
        "apiVersion": "karpenter.lambda.cloud/v1alpha1",
        "kind": "LambdaNodeClass",
        "metadata": {"name": "with-filesystem"},
        "spec": {"region": "us-east-3", "instanceTypeSelector": ["gpu_1x_gh200", "gpu_8x_h100"]},
    }
    assert [level for level, _ in found_by([other], "karpenter-gpu-nodepool-tainted")] == ["advisory"]  # its own name
    assert [level for level, _ in found_by([other, node_class], "karpenter-gpu-nodepool-tainted")] == ["mandatory"]


def test_gpu_requirements_of_other_providers_prove_the_pool():
    for key, values in (
        ("karpenter.azure.com/sku-gpu-manufacturer", ["nvidia"]),
        ("karpenter.azure.com/sku-gpu-name", ["A100"]),
        ("karpenter.azure.com/sku-family", ["NC"]),
        ("node.kubernetes.io/instance-type", ["Standard_NC24ads_A100_v4"]),
        ("node.kubernetes.io/instance-type", ["a3-highgpu-8g"]),
        ("node.kubernetes.io/instance-type", ["BM.GPU.H100.8"]),
    ):
        pool = with_requirement(AZURE_GENERAL, key, values)
        pool["spec"]["template"]["spec"]["requirements"] = pool["spec"]["template"]["spec"]["requirements"][-1:]
        assert [level for level, _ in found_by([pool], "karpenter-gpu-nodepool-tainted")] == ["mandatory"], key
    labelled = copy.deepcopy(AZURE_GENERAL)
    labelled["spec"]["template"]["metadata"] = {"labels": {"nvidia.com/gpu.present": "true"}}
    assert [level for level, _ in found_by([labelled], "karpenter-gpu-nodepool-tainted")] == ["mandatory"]


def test_cpu_pools_stay_silent():
    assert found_by([AZURE_GENERAL], "karpenter-gpu-nodepool-tainted") == []
    assert found_by([AZURE_GENERAL], "karpenter-gpu-nodepool-disruption-budget") == []
    # A GPU-sounding name on a pool whose requirements pin a CPU family is not a GPU pool.
    named = copy.deepcopy(AZURE_GENERAL)
    named["metadata"]["name"] = "gpu-pool"
    assert found_by([named], "karpenter-gpu-nodepool-tainted") == []
    cpu_count = with_requirement(AZURE_GENERAL, "karpenter.azure.com/sku-gpu-count", ["0"], operator="In")
    assert found_by([cpu_count], "karpenter-gpu-nodepool-tainted") == []
