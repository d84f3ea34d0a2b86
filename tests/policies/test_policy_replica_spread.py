"""G16 autoscaler-replica-spread: an HPA or KEDA ScaledObject whose floor equals its ceiling never scales."""

from __future__ import annotations

import copy

import pytest
from policy_fixtures import found_by

POLICY = "autoscaler-replica-spread"

# Minimal form of GUGA12/llm-infra-platform deploy/inference/keda-scaledobject.yaml at
# 439fe5e8599a371faf06588711388313aa767568 (set 41, label G16): minReplicaCount 1, maxReplicaCount 1 on a vLLM queue
# trigger ("raise maxReplicaCount only after adding GPU capacity").
PINNED = {
    "apiVersion": "keda.sh/v1alpha1",
    "kind": "ScaledObject",
    "metadata": {"name": "vllm-scaler", "namespace": "inference"},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "inference-qwen25-1-5b-deployment-vllm"},
        "minReplicaCount": 1,
        "maxReplicaCount": 1,
        "triggers": [
            {
                "type": "prometheus",
                "metadata": {
                    "serverAddress": "http://prometheus:9090",
                    "query": "sum(vllm:num_requests_waiting)",
                    "threshold": "5",
                },
            }
        ],
    },
}

HPA = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "vllm"},
    "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "vllm"}, "maxReplicas": 1},
}


def test_a_pinned_scaled_object_is_advised():
    assert found_by([PINNED], POLICY) == [
        (
            "advisory",
            "spec.minReplicaCount = 1 equals spec.maxReplicaCount = 1: the target always runs 1 replica and its "
            "triggers can never add or remove one; raise spec.maxReplicaCount to the replicas the pool can hold, or "
            "drop the autoscaler and set the workload's replicas",
        )
    ]


def test_an_hpa_at_its_default_floor_with_max_one_is_advised():
    found = found_by([HPA], POLICY)
    assert [m for _, m in found] == [
        "spec.minReplicas = 1 equals spec.maxReplicas = 1: the target always runs 1 replica and its metrics can never "
        "add or remove one; raise spec.maxReplicas to the replicas the pool can hold, or drop the autoscaler and set "
        "the workload's replicas"
    ]


@pytest.mark.parametrize(
    "change",
    [
        {"maxReplicaCount": 2},
        {"minReplicaCount": 0},  # KEDA scales 0 <-> 1 itself
        {"idleReplicaCount": 0},  # idle 0, then 1: KEDA still moves
        {"minReplicaCount": None, "maxReplicaCount": None},  # defaults 0 and 100
    ],
)
def test_a_scaled_object_with_room_is_silent(change):
    so = copy.deepcopy(PINNED)
    for key, value in change.items():
        if value is None:
            so["spec"].pop(key)
        else:
            so["spec"][key] = value
    assert found_by([so], POLICY) == []


def test_the_hpa_keda_renders_is_silent():
    # abdulfahad66-png/scale-to-zero-gpu-inference-poc artifacts/evidence/keda-scaledobjects.yaml at
    # a1dc7659b81ef13dd22262dd58625eb72b9f0410 (set 25, trap G17): keda-hpa-vllm-autoscaler, minReplicas 1,
    # maxReplicas 1, owned by the ScaledObject vllm-autoscaler (0..1), which KEDA itself scales from zero.
    hpa = copy.deepcopy(HPA)
    hpa["metadata"] = {
        "name": "keda-hpa-vllm-autoscaler",
        "labels": {"app.kubernetes.io/managed-by": "keda-operator"},
        "ownerReferences": [{"apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject", "name": "vllm-autoscaler"}],
    }
    hpa["spec"]["minReplicas"] = 1
    assert found_by([hpa], POLICY) == []


def test_an_hpa_with_room_is_silent():
    hpa = copy.deepcopy(HPA)
    hpa["spec"]["maxReplicas"] = 4
    assert found_by([hpa], POLICY) == []
