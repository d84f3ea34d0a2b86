"""S35: a GPU NodePool's limits admit the instance types it allows (policies/karpenter/limits_admit_instances.py).

Fixtures follow third-party NodePools: aws-samples/karpenter-blueprints blueprints/nvidia-gpu-workload/gpu-nodepool.yaml
(categories g and p, limits cpu 100, memory 100Gi) and its EKS Auto Mode variant, and an ai-on-eks-style p5 pool
(infra/static-nodepool/nodepools/gpu-p5-48xlarge-static.yaml, made dynamic). Karpenter v1.14.1 drops every instance type
whose capacity exceeds what the limits leave (scheduling/scheduler.go:707-725, :1067-1085).
"""

from __future__ import annotations

import copy

from policy_fixtures import messages, resource

from components.hardware import INSTANCES
from policies.karpenter.limits_admit_instances import BIGGEST, POLICY, allowed_types, capacity


def _pool(requirements: list[dict], limits: dict, **spec) -> dict:
    return {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": "gpu"},
        "spec": {
            "limits": limits,
            "template": {
                "spec": {
                    "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
                    "requirements": requirements,
                    "taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}],
                }
            },
            **spec,
        },
    }


_P5 = [
    {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["p5.48xlarge"]},
    {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["reserved"]},
]
_BLUEPRINT = [
    {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
    {"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": ["g", "p"]},
    {"key": "karpenter.k8s.aws/instance-gpu-manufacturer", "operator": "In", "values": ["nvidia"]},
]


def _found(policy, props) -> list[str]:
    return messages(policy, resource("kubernetes:karpenter.sh/v1:NodePool", copy.deepcopy(props)))


def test_a_pool_whose_limits_admit_none_of_its_types_launches_nothing():
    assert _found(POLICY, _pool(_P5, {"cpu": 100, "nvidia.com/gpu": 64})) == [
        "spec.limits: cpu 100 is below one node of every instance type the NodePool allows (the smallest, p5.48xlarge "
        "(192 vCPU, 2,048 GiB, 8 GPUs)): Karpenter charges a node's capacity against the limits before it launches it, "
        "so this pool launches nothing; raise the limits above one node of each type it should launch"
    ]
    # The GPU limit is the pool's cap, read by S13 and the plan's pool sizing, not by this rule.
    assert _found(POLICY, _pool(_P5, {"nvidia.com/gpu": 4})) == []


def test_limits_that_admit_a_node_and_static_pools_are_silent():
    assert _found(POLICY, _pool(_P5, {"cpu": 1000, "memory": "4Ti", "nvidia.com/gpu": 64})) == []
    exact = capacity(INSTANCES["p5.48xlarge"])["cpu"]
    assert _found(POLICY, _pool(_P5, {"cpu": exact})) == []  # exactly one node: capacity == limit admits it
    static = _pool(_P5, {"nodes": 2}, replicas=2)
    assert _found(POLICY, static) == [] and _found(BIGGEST, static) == []


def test_memory_is_charged_less_the_vm_overhead():
    """aws/karpenter-provider-aws charges memory less VM_MEMORY_OVERHEAD (7.5 %): a limit at that figure admits one
    node, one MiB below it does not."""
    cap = capacity(INSTANCES["p5.48xlarge"])["memory"]
    assert _found(POLICY, _pool(_P5, {"memory": str(int(cap))})) == []
    assert len(_found(POLICY, _pool(_P5, {"memory": str(int(cap) - 2**20)}))) == 1


def test_the_largest_multi_gpu_type_shut_out_is_advisory_when_smaller_types_launch():
    limits = {"cpu": 100, "memory": "100Gi", "nvidia.com/gpu": 5}
    assert _found(POLICY, _pool(_BLUEPRINT, limits)) == []  # g5.xlarge and others still launch
    [message] = _found(BIGGEST, _pool(_BLUEPRINT, limits))
    assert message.startswith("spec.limits: cpu 100, memory 100Gi is below one node of p6-b300.48xlarge")
    # The GPU limit alone is the pool's cap (S13), not reported here; limits that admit the largest type are silent.
    assert _found(BIGGEST, _pool(_BLUEPRINT, {"nvidia.com/gpu": 5})) == []
    assert _found(BIGGEST, _pool(_BLUEPRINT, {"cpu": 2000, "memory": "8Ti"})) == []


def test_a_pool_that_does_not_enumerate_its_types_is_never_blocked():
    """Selecting by category alone, a type outside the catalogue might fit: the pool is not judged to launch nothing."""
    g_only = [{"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": ["p"]}]
    assert _found(POLICY, _pool(g_only, {"cpu": 8})) == []
    assert (
        len(
            _found(
                BIGGEST,
                _pool(
                    g_only + [{"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Lt", "values": ["9"]}], {"cpu": 100}
                ),
            )
        )
        == 1
    )


def test_requirements_this_reading_cannot_evaluate_leave_the_pool_unjudged():
    odd = _BLUEPRINT + [{"key": "karpenter.k8s.aws/instance-hypervisor", "operator": "In", "values": ["nitro"]}]
    assert allowed_types(_pool(odd, {})) is None
    assert _found(BIGGEST, _pool(odd, {"cpu": 100})) == []
    # A label of the pool's own narrows no type.
    own = _BLUEPRINT + [{"key": "team", "operator": "In", "values": ["llm"]}]
    assert allowed_types(_pool(own, {})) == allowed_types(_pool(_BLUEPRINT, {}))


def test_eks_auto_mode_labels_read_as_karpenters():
    auto = [
        {"key": "eks.amazonaws.com/instance-category", "operator": "In", "values": ["g"]},
        {"key": "eks.amazonaws.com/instance-gpu-manufacturer", "operator": "In", "values": ["nvidia"]},
    ]
    types, enumerated = allowed_types(_pool(auto, {}))
    assert types and all(t.name.startswith("g") for t in types) and not enumerated
    [message] = _found(BIGGEST, _pool(auto, {"cpu": 100, "memory": "100Gi", "nvidia.com/gpu": 5}))
    assert "g7e.48xlarge" in message or "g6e.48xlarge" in message
