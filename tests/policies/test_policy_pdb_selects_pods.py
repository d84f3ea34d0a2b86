"""G18 pdb-selects-pods: a PodDisruptionBudget whose selector selects no pod of its run protects nothing.

Firing third-party form: askulkarni2/ray-serve-with-eks-auto@534ddcc0bc5eb8c9cd3f5b2376a9307b531ffbc8
app/ray-serve-vllm-ha.yaml (spent set 112): RayService vllm-serve with PDBs on ``ray.io/node-type: head`` +
``ray.io/cluster: vllm-serve`` (the RayService's cluster is named vllm-serve-<random>) and ``ray.io/group-name:
gpu-workers`` (KubeRay writes ray.io/group). Careful third-party form: the same repository's
app/ray-serve-vllm-v0.11.yaml, PDBs on ``ray.io/node-type`` and ``ray.io/serve: "true"`` (a label KubeRay sets on a
RayService's pods): silent.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by, manifest

from policies.framework import Resource
from policies.k8s_generic.pdb_selects_pods import POLICY
from policies.registry import evaluate

RAY_SERVICE = {
    "apiVersion": "ray.io/v1",
    "kind": "RayService",
    "metadata": {"name": "vllm-serve", "namespace": "default"},
    "spec": {
        "rayClusterConfig": {
            "headGroupSpec": {
                "rayStartParams": {"num-cpus": "0"},
                "template": {"spec": {"containers": [{"name": "ray-head", "image": "rayproject/ray:2.50.0-py311-gpu"}]}},
            },
            "workerGroupSpecs": [
                {
                    "replicas": 3,
                    "minReplicas": 3,
                    "maxReplicas": 3,
                    "groupName": "gpu-workers",
                    "template": {
                        "metadata": {"labels": {"ray.io/group": "gpu-workers"}},
                        "spec": {
                            "containers": [
                                {
                                    "name": "ray-worker",
                                    "image": "rayproject/ray:2.50.0-py311-gpu",
                                    "resources": {"limits": {"nvidia.com/gpu": "1"}},
                                }
                            ]
                        },
                    },
                }
            ],
        }
    },
}


def _pdb(name, labels):
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": labels}},
    }


def test_a_rayservice_name_as_ray_cluster_and_a_key_kuberay_never_sets_fire():
    head = _pdb("vllm-serve-head-pdb", {"ray.io/node-type": "head", "ray.io/cluster": "vllm-serve"})
    worker = _pdb("vllm-serve-worker-pdb", {"ray.io/group-name": "gpu-workers", "ray.io/cluster": "vllm-serve"})
    found = found_by([RAY_SERVICE, head, worker], POLICY.name)
    assert [level for level, _ in found] == ["advisory", "advisory"]
    assert "ray.io/cluster is the generated name of the RayCluster KubeRay makes (vllm-serve-<random>" in found[0][1]
    assert "KubeRay never sets ray.io/group-name on its pods and no template does" in found[1][1]


def test_the_careful_form_stays_silent():
    head = _pdb("vllm-serve-head-pdb", {"ray.io/node-type": "head", "ray.io/serve": "true"})
    worker = _pdb("vllm-serve-worker-pdb", {"ray.io/node-type": "worker", "ray.io/serve": "true"})
    assert found_by([RAY_SERVICE, head, worker], POLICY.name) == []
    # A RayCluster's own name is its pods' ray.io/cluster; the worker group's name is its ray.io/group.
    cluster = copy.deepcopy(RAY_SERVICE["spec"]["rayClusterConfig"])
    ray = {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": {"name": "vllm-serve", "namespace": "default"}}
    ray["spec"] = cluster
    pdb = _pdb("w", {"ray.io/cluster": "vllm-serve", "ray.io/group": "gpu-workers"})
    assert found_by([ray, pdb], POLICY.name) == []


def test_a_template_label_of_the_key_counts():
    ray = copy.deepcopy(RAY_SERVICE)
    ray["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["template"]["metadata"]["labels"]["ray.io/group-name"] = "gpu-workers"
    assert found_by([ray, _pdb("w", {"ray.io/group-name": "gpu-workers"})], POLICY.name) == []


def test_a_namespace_with_pods_the_files_do_not_show_stays_silent():
    other = {"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {"name": "x", "namespace": "default"}}
    assert found_by([RAY_SERVICE, other, _pdb("w", {"ray.io/group-name": "gpu-workers"})], POLICY.name) == []


def test_a_worker_groups_own_labels_are_on_its_pods():
    # review54b: kuberay v1.5.0+ puts a group's ``labels`` on its pods (common/pod.go mergeLabels); the older G18
    # serving-app-pdb read them neither.
    ray = copy.deepcopy(RAY_SERVICE)
    ray["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["labels"] = {"pool": "gpu-serving"}
    pdb = _pdb("w", {"ray.io/node-type": "worker", "pool": "gpu-serving"})
    assert found_by([ray, pdb], POLICY.name) == []
    assert found_by([ray, pdb], "serving-app-pdb") == []
    assert len(found_by([RAY_SERVICE, pdb], POLICY.name)) == 1


LWS = {
    "apiVersion": "leaderworkerset.x-k8s.io/v1",
    "kind": "LeaderWorkerSet",
    "metadata": {"name": "vllm", "namespace": "serving"},
    "spec": {
        "replicas": 2,
        "leaderWorkerTemplate": {
            "size": 2,
            "workerTemplate": {"spec": {"containers": [{"name": "vllm", "image": "vllm/vllm-openai:v0.8.5"}]}},
        },
    },
}


def test_leaderworkerset_keys():
    pdb = _pdb("lws", {"leaderworkerset.sigs.k8s.io/set-name": "vllm"})
    pdb["metadata"]["namespace"] = "serving"
    ((level, message),) = found_by([LWS, pdb], POLICY.name)
    assert level == "advisory" and "LeaderWorkerSet never sets leaderworkerset.sigs.k8s.io/set-name" in message
    pdb["spec"]["selector"]["matchLabels"] = {"leaderworkerset.sigs.k8s.io/name": "vllm"}
    assert found_by([LWS, pdb], POLICY.name) == []
    # review54b: a LeaderWorkerSet's pods are StatefulSets' pods, with that controller's keys.
    pdb["spec"]["selector"]["matchLabels"]["apps.kubernetes.io/pod-index"] = "0"
    assert found_by([LWS, pdb], POLICY.name) == []


def _from(path, obj):
    return Resource(type=manifest(obj).type, name=f"{path}#0 {obj['kind']}/{obj['metadata']['name']}", props=obj)


DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm", "namespace": "default"},
    "spec": {
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {"metadata": {"labels": {"app": "vllm"}}, "spec": {"containers": [{"name": "vllm", "image": "x"}]}},
    },
}


def test_a_workload_of_the_folder_with_the_keys_but_other_values():
    pdb = _pdb("vllm-pdb", {"app": "vllm-server"})
    objs = [_from("k8s/deployment.yaml", DEPLOYMENT), _from("k8s/pdb.yaml", pdb)]
    ((level, message),) = [(v.enforcement, v.message) for v in evaluate(objs, None, policies=[POLICY])]
    assert "the pods carry app=vllm, not vllm-server" in message and level == "advisory"
    # In another folder the pods may be another repository's; and a matching selector is silent.
    objs = [_from("k8s/deployment.yaml", DEPLOYMENT), _from("other/pdb.yaml", pdb)]
    assert evaluate(objs, None, policies=[POLICY]) == []
    objs = [_from("k8s/deployment.yaml", DEPLOYMENT), _from("k8s/pdb.yaml", _pdb("vllm-pdb", {"app": "vllm"}))]
    assert evaluate(objs, None, policies=[POLICY]) == []
