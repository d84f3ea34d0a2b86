"""G69 affinity-selects-pods: an affinity term on a label the pods' controller never writes selects no pod.

Firing third-party form: askulkarni2/ray-serve-with-eks-auto@534ddcc0bc5eb8c9cd3f5b2376a9307b531ffbc8
app/ray-serve-vllm-ha.yaml (spent set 112), the head's podAntiAffinity on ``ray.io/group-name In [gpu-workers]``.
Careful third-party form: the workers' own podAntiAffinity in the same file, on ``ray.io/group In [gpu-workers]``.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

from policies.k8s_generic.affinity_selects_pods import POLICY


def _anti(key, required=False):
    term = {
        "labelSelector": {"matchExpressions": [{"key": key, "operator": "In", "values": ["gpu-workers"]}]},
        "topologyKey": "kubernetes.io/hostname",
    }
    if required:
        return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    return {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 100, "podAffinityTerm": term}]}}


RAY_SERVICE = {
    "apiVersion": "ray.io/v1",
    "kind": "RayService",
    "metadata": {"name": "vllm-serve", "namespace": "default"},
    "spec": {
        "rayClusterConfig": {
            "headGroupSpec": {
                "rayStartParams": {"num-cpus": "0"},
                "template": {
                    "spec": {
                        "affinity": _anti("ray.io/group-name"),
                        "containers": [{"name": "ray-head", "image": "rayproject/ray:2.50.0-py311-gpu"}],
                    }
                },
            },
            "workerGroupSpecs": [
                {
                    "replicas": 3,
                    "groupName": "gpu-workers",
                    "template": {
                        "metadata": {"labels": {"ray.io/group": "gpu-workers"}},
                        "spec": {
                            "affinity": _anti("ray.io/group", required=True),
                            "containers": [{"name": "ray-worker", "image": "rayproject/ray:2.50.0-py311-gpu"}],
                        },
                    },
                }
            ],
        }
    },
}


def test_the_heads_term_on_a_key_kuberay_never_sets_is_advice():
    ((level, message),) = found_by([RAY_SERVICE], POLICY.name)
    assert level == "advisory"
    assert message.startswith("spec.rayClusterConfig.headGroupSpec.template.spec.affinity.podAntiAffinity.")
    assert "names ray.io/group-name, which KubeRay never sets" in message and "has no effect" in message


def test_careful_forms_stay_silent():
    ray = copy.deepcopy(RAY_SERVICE)
    ray["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["affinity"] = _anti("ray.io/group")
    assert found_by([ray], POLICY.name) == []
    # A template that writes the key itself.
    ray = copy.deepcopy(RAY_SERVICE)
    ray["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["template"]["metadata"]["labels"]["ray.io/group-name"] = "x"
    assert found_by([ray], POLICY.name) == []
    # A term reaching other namespaces is not read.
    ray = copy.deepcopy(RAY_SERVICE)
    term = ray["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["affinity"]["podAntiAffinity"]
    term["preferredDuringSchedulingIgnoredDuringExecution"][0]["podAffinityTerm"]["namespaceSelector"] = {}
    assert found_by([ray], POLICY.name) == []
