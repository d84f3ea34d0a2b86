"""karpenter-node-choice: Karpenter's provisioning rules (components/derive/karpenter.py) over a set of manifests."""

from __future__ import annotations

import copy

from policy_fixtures import messages, resource

from policies.karpenter import node_choice

NODEPOOL = {
    "apiVersion": "karpenter.sh/v1",
    "kind": "NodePool",
    "metadata": {"name": "l40s"},
    "spec": {
        "template": {
            "spec": {
                "requirements": [
                    {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g6e.2xlarge", "g6e.12xlarge"]},
                    {"key": "karpenter.k8s.aws/instance-gpu-name", "operator": "In", "values": ["l40s"]},
                ],
                "taints": [{"key": "nvidia.com/gpu", "value": "true", "effect": "PreferNoSchedule"}],
            }
        },
        "limits": {"nvidia.com/gpu": 8},
    },
}
TOLERATIONS = [
    {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "PreferNoSchedule"},
]


def isvc(tolerations: list, replicas: int = 2) -> dict:
    return {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "chat", "namespace": "llm"},
        "spec": {
            "predictor": {
                "minReplicas": replicas,
                "nodeSelector": {"karpenter.sh/nodepool": "l40s"},
                "tolerations": tolerations,
                "topologySpreadConstraints": [
                    {
                        "maxSkew": 1,
                        "topologyKey": "topology.kubernetes.io/zone",
                        "whenUnsatisfiable": "ScheduleAnyway",
                        "labelSelector": {"matchLabels": {"serving.kserve.io/inferenceservice": "chat"}},
                    }
                ],
                "containers": [
                    {
                        "name": "kserve-container",
                        "image": "vllm/vllm-openai:v0.33.0",
                        "resources": {"requests": {"cpu": "6", "memory": "48Gi"}, "limits": {"nvidia.com/gpu": "1"}},
                    }
                ],
            }
        },
    }


def _set(*objs):
    return [resource(f"kubernetes:{o['apiVersion']}:{o['kind']}", o) for o in objs]


def test_a_careful_set_is_quiet():
    assert messages(node_choice.POLICY, *_set(copy.deepcopy(NODEPOOL), isvc(TOLERATIONS))) == []


def test_a_pod_that_lacks_the_soft_toleration_is_placed_only_after_relaxing():
    # kubernetes-sigs/karpenter v1.14.1 preferences.go:38-57, 132-146: the zone spread goes first, then the toleration.
    (msg,) = messages(node_choice.POLICY, *_set(copy.deepcopy(NODEPOOL), isvc(TOLERATIONS[:1])))
    assert msg.startswith("chat: Karpenter places its pods only after it added a toleration of every PreferNoSchedule taint")
    assert "removed ScheduleAnyway spread on topology.kubernetes.io/zone" in msg


def test_replicas_above_the_pool_limit_get_no_node():
    # scheduler.go:708-727: no instance type fits the NodePool's remaining limit.
    pool = copy.deepcopy(NODEPOOL)
    pool["spec"]["limits"]["nvidia.com/gpu"] = 1
    found = messages(node_choice.POLICY, *_set(pool, isvc(TOLERATIONS)))
    assert found == [
        "llm/chat-predictor-1: Karpenter provisions no node for it: l40s: no instance type holds the pod within the pool's limits"
    ]


def test_a_nodepool_the_api_server_refuses_is_reported_not_crashed_on():
    # Cold review finding 14 (/tmp/review/fuzz/np.yaml): requirements written as strings raised AttributeError (exit 3).
    from policy_fixtures import found_by

    pool = copy.deepcopy(NODEPOOL)
    pool["spec"]["template"]["spec"]["requirements"] = ["karpenter.k8s.aws/instance-family In g5"]
    pool["spec"]["template"]["spec"]["taints"] = ["nvidia.com/gpu=true:PreferNoSchedule"]
    # The pool takes no pod without its instance-type requirement; the refused object holds no pool at all anyway.
    assert [m.split(": ", 1)[0] for m in messages(node_choice.POLICY, *_set(pool, isvc(TOLERATIONS)))] == [
        "llm/chat-predictor-0",
        "llm/chat-predictor-1",
    ]
    schema = [m for level, m in found_by([pool], "crd-validation-rules") if level == "mandatory"]
    assert schema and schema[0].startswith("spec.template.spec.requirements[0]: the API server refuses this object")
    # Metadata that is not a mapping is not read either.
    odd = resource("kubernetes:karpenter.sh/v1:NodePool", pool | {"metadata": "l40s"}, name="NodePool/l40s")
    assert messages(node_choice.POLICY, odd, *_set(isvc(TOLERATIONS))) == []
