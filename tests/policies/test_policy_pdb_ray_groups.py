"""G19 pdb-allows-disruption resolved against the pods KubeRay creates (kuberay v1.7.0 common/pod.go labelPod).

Third-party form (held-out set 10, now development material, /work/eval10/PROVENANCE.md): askulkarni2/ray-serve-with-
eks-auto app/ray-serve-vllm.yaml@534ddcc, a RayService whose one GPU worker group is fixed at 1 replica
(replicas = minReplicas = maxReplicas = 1) and a PDB minAvailable 1 selecting ``ray.io/group-name: gpu-workers``.
Minimal hand-written form below.
"""

import copy

from policy_fixtures import RAISED, manifest

from policies.k8s_generic.pdb_allows_disruption import POLICY
from policies.registry import evaluate

RAY_SERVICE = {
    "apiVersion": "ray.io/v1",
    "kind": "RayService",
    "metadata": {"name": "vllm-serve", "namespace": "default"},
    "spec": {
        "rayClusterConfig": {
            "headGroupSpec": {
                "rayStartParams": {"num-gpus": "0"},
                "template": {"spec": {"containers": [{"name": "ray-head", "image": "rayproject/ray:2.50.0-py311-gpu"}]}},
            },
            "workerGroupSpecs": [
                {
                    "replicas": 1,
                    "minReplicas": 1,
                    "maxReplicas": 1,
                    "groupName": "gpu-workers",
                    "rayStartParams": {"num-gpus": "1"},
                    "template": {
                        "spec": {
                            "containers": [
                                {
                                    "name": "ray-worker",
                                    "image": "rayproject/ray:2.50.0-py311-gpu",
                                    "resources": {"limits": {"nvidia.com/gpu": "1"}},
                                }
                            ]
                        }
                    },
                }
            ],
        }
    },
}


def _pdb(labels, min_available=1):
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "vllm-serve-worker-pdb", "namespace": "default"},
        "spec": {"minAvailable": min_available, "selector": {"matchLabels": labels}},
    }


def _found(*objs):
    return [
        (v.enforcement, v.message)
        for v in evaluate([manifest(o) for o in objs], {POLICY.name: RAISED[POLICY.name]}, policies=[POLICY])
    ]


def test_a_selector_that_selects_nothing_is_left_to_g18():
    # policies/k8s_generic/pdb_selects_pods.py (G18) says it; G19 judges only the budgets of pods it selects.
    assert _found(RAY_SERVICE, _pdb({"ray.io/group-name": "gpu-workers"})) == []


def test_min_available_over_a_fixed_one_pod_worker_group_blocks():
    ((level, message),) = _found(RAY_SERVICE, _pdb({"ray.io/group": "gpu-workers"}))
    assert level == "mandatory" and "not below the 1 pod(s)" in message and "worker group gpu-workers" in message
    # Selecting by node type reaches the same group.
    ((level, _),) = _found(RAY_SERVICE, _pdb({"ray.io/node-type": "worker"}))
    assert level == "mandatory"


def test_a_head_with_gpus_may_carry_one_engine_over_nodes_advice():
    ray = copy.deepcopy(RAY_SERVICE)
    ray["spec"]["rayClusterConfig"]["headGroupSpec"]["rayStartParams"] = {"num-gpus": "1"}
    ((level, _),) = _found(ray, _pdb({"ray.io/group": "gpu-workers"}))
    assert level == "advisory"


def test_careful_forms_stay_silent():
    # Two fixed workers and minAvailable 1: one eviction allowed.
    ray = copy.deepcopy(RAY_SERVICE)
    group = ray["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]
    group.update({"replicas": 2, "minReplicas": 2, "maxReplicas": 2})
    assert _found(ray, _pdb({"ray.io/group": "gpu-workers"})) == []
    # In-tree autoscaling may add workers above the floor: not proven.
    ray = copy.deepcopy(RAY_SERVICE)
    ray["spec"]["rayClusterConfig"]["enableInTreeAutoscaling"] = True
    ray["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["maxReplicas"] = 4
    assert _found(ray, _pdb({"ray.io/group": "gpu-workers"})) == []
    # A template label of the group's own is honoured (KubeRay merges template labels).
    ray = copy.deepcopy(RAY_SERVICE)
    group = ray["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]
    group.update({"replicas": 2, "minReplicas": 2, "maxReplicas": 2})
    group["template"]["metadata"] = {"labels": {"ray.io/group-name": "gpu-workers"}}
    assert _found(ray, _pdb({"ray.io/group-name": "gpu-workers"})) == []
