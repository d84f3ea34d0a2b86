"""G103 gpu-node-label-is-set: a pod's node selection asks for a GPU node label no component sets (advice).

Firing form: spent set 93 xinhangl44-blip/llm-inference-optimization@5d87a8658246eb12ec571e6865207128d61038b3
k8s/vllm-server.yaml (required node affinity ``key: nvidia.com/gpu, operator: Exists``; labelled none, advisory); the
nodeSelector form ``nvidia.com/gpu: "true"`` is spent set 68 jirong-spec/fab-sop-rag k8s/vllm/deployment.yaml (labelled
S15 advisory). GPU feature discovery labels nodes <resource>.<suffix> (NVIDIA/k8s-device-plugin v0.20.0
internal/lm/resource.go L153-177), never the resource name itself.
"""

from __future__ import annotations

import copy

import pytest
from policy_fixtures import found_by

POLICY = "gpu-node-label-is-set"

AFFINITY = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": "nvidia.com/gpu", "operator": "Exists"}]}]
        }
    }
}
VLLM = {
    "name": "vllm-container",
    "image": "vllm/vllm-openai:v0.8.5",
    "args": ["--model", "Qwen/Qwen2.5-7B-Instruct-AWQ", "--quantization", "awq_marlin"],
    "resources": {"limits": {"nvidia.com/gpu": "1", "memory": "12Gi"}, "requests": {"nvidia.com/gpu": "1", "memory": "12Gi"}},
}


def deployment(**pod) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "vllm-server"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "vllm"}},
            "template": {"metadata": {"labels": {"app": "vllm"}}, "spec": {"containers": [VLLM], **pod}},
        },
    }


NODEPOOL = {
    "apiVersion": "karpenter.sh/v1",
    "kind": "NodePool",
    "metadata": {"name": "gpu"},
    "spec": {
        "template": {
            "metadata": {"labels": {"nvidia.com/gpu": "true"}},
            "spec": {
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
                "requirements": [{"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g5"]}],
                "taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}],
            },
        }
    },
}


def test_required_affinity_on_the_resource_name_is_advice():
    ((level, message),) = found_by([deployment(affinity=AFFINITY)], POLICY)
    assert level == "advisory"
    assert "its required node affinity asks for a node label nvidia.com/gpu, which no component sets" in message
    assert "nvidia.com/gpu.present" in message


def test_a_node_selector_on_it_is_advice():
    ((level, message),) = found_by([deployment(nodeSelector={"nvidia.com/gpu": "true"})], POLICY)
    assert level == "advisory" and "nodeSelector nvidia.com/gpu: true" in message


def test_amds_resource_name_as_a_label_is_advice():
    ((_, message),) = found_by([deployment(nodeSelector={"amd.com/gpu": "true"})], POLICY)
    assert "amd.com/gpu.family" in message


def test_a_nodepool_of_the_files_that_sets_it_silences():
    assert found_by([NODEPOOL, deployment(nodeSelector={"nvidia.com/gpu": "true"})], POLICY) == []
    # A NodePool that only taints with the key does not label nodes with it.
    tainted = copy.deepcopy(NODEPOOL)
    tainted["spec"]["template"]["metadata"]["labels"] = {"workload": "gpu"}
    assert len(found_by([tainted, deployment(nodeSelector={"nvidia.com/gpu": "true"})], POLICY)) == 1


def test_a_node_feature_rule_or_kubectl_label_silences():
    rule = {
        "apiVersion": "nfd.k8s-sigs.io/v1alpha1",
        "kind": "NodeFeatureRule",
        "metadata": {"name": "gpu"},
        "spec": {"rules": [{"name": "nvidia", "labels": {"nvidia.com/gpu": "true"}, "matchFeatures": []}]},
    }
    assert found_by([rule, deployment(affinity=AFFINITY)], POLICY) == []
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "label"},
        "spec": {
            "template": {
                "spec": {
                    "restartPolicy": "Never",
                    "containers": [
                        {
                            "name": "k",
                            "image": "bitnami/kubectl:1.31",
                            "command": ["kubectl", "label", "node", "gpu-1", "nvidia.com/gpu=true"],
                        }
                    ],
                }
            }
        },
    }
    assert found_by([job, deployment(affinity=AFFINITY)], POLICY) == []


@pytest.mark.parametrize(
    "pod",
    [
        {"nodeSelector": {"nvidia.com/gpu.present": "true"}},
        {"nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-A10G"}},
        {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]},
        # NotIn / DoesNotExist: a node without the label satisfies it.
        {
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [{"matchExpressions": [{"key": "nvidia.com/gpu", "operator": "DoesNotExist"}]}]
                    }
                }
            }
        },
        # Another term that asks for no such key: the pod can still schedule there.
        {
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchExpressions": [{"key": "nvidia.com/gpu", "operator": "Exists"}]},
                            {"matchExpressions": [{"key": "nvidia.com/gpu.present", "operator": "In", "values": ["true"]}]},
                        ]
                    }
                }
            }
        },
        # Preferred affinity only.
        {
            "affinity": {
                "nodeAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 1, "preference": {"matchExpressions": [{"key": "nvidia.com/gpu", "operator": "Exists"}]}}
                    ]
                }
            }
        },
    ],
)
def test_careful_forms_stay_silent(pod):
    assert found_by([deployment(**pod)], POLICY) == []


def test_other_pod_templates_get_it():
    lws = {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": "vllm"},
        "spec": {
            "leaderWorkerTemplate": {
                "size": 2,
                "leaderTemplate": {"spec": {"containers": [VLLM], "nodeSelector": {"nvidia.com/gpu": "true"}}},
                "workerTemplate": {"spec": {"containers": [VLLM], "nodeSelector": {"nvidia.com/gpu": "true"}}},
            }
        },
    }
    assert len(found_by([lws], POLICY)) == 2
    ray = {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": "r"},
        "spec": {
            "headGroupSpec": {"template": {"spec": {"containers": [{"name": "h", "image": "rayproject/ray:2.40.0"}]}}},
            "workerGroupSpecs": [
                {
                    "groupName": "gpu",
                    "replicas": 1,
                    "template": {"spec": {"containers": [VLLM], "affinity": AFFINITY}},
                }
            ],
        },
    }
    assert len(found_by([ray], POLICY)) == 1


def test_a_key_that_is_not_a_string_is_read_without_error():
    """review52b: a requirements or matchExpressions key written as a list or a map raised TypeError (unhashable)."""
    pool = {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": "gpu"},
        "spec": {"template": {"spec": {"requirements": [{"key": ["nvidia.com/gpu"], "operator": "Exists"}]}}},
    }
    odd = copy.deepcopy(AFFINITY)
    odd["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]["matchExpressions"].append(
        {"key": {"a": 1}, "operator": "In", "values": ["x"]}
    )
    assert [lvl for lvl, _ in found_by([deployment(affinity=AFFINITY), pool], POLICY)] == ["advisory"]
    assert [lvl for lvl, _ in found_by([deployment(affinity=odd)], POLICY)] == ["advisory"]
