"""G91 ray-worker-group-grows: a worker group's maxReplicas above its replicas needs enableInTreeAutoscaling.

Fires on the form of spent set 79 djleeam/kuberay-eks@517dd105b288b762e78ee5b62ab2d3a5113f6dc0
clusters/ray-cluster.complete.yaml (RayCluster, worker group small-group replicas 1, minReplicas 1, maxReplicas 10, no
enableInTreeAutoscaling) and apps/mobilenet/ray-service.mobilenet.yaml (RayService, maxReplicas 5). KubeRay keeps a
group at replicas clamped to [minReplicas, maxReplicas] (ray-project/kuberay v1.7.0 ray-operator/controllers/ray/
utils/util.go:389-407); only the autoscaler it injects with enableInTreeAutoscaling (common/pod.go:242-243) grows it.
"""

import copy

from policy_fixtures import found_by

_WORKER = {
    "replicas": 1,
    "minReplicas": 1,
    "maxReplicas": 10,
    "groupName": "small-group",
    "rayStartParams": {},
    "template": {"spec": {"containers": [{"name": "ray-worker", "image": "rayproject/ray:2.8.0-latest-aarch64"}]}},
}
_HEAD = {
    "rayStartParams": {"dashboard-host": "0.0.0.0"},
    "template": {"spec": {"containers": [{"name": "ray-head", "image": "rayproject/ray:2.8.0-latest-aarch64"}]}},
}
CLUSTER = {
    "apiVersion": "ray.io/v1",
    "kind": "RayCluster",
    "metadata": {"name": "raycluster-complete"},
    "spec": {"rayVersion": "2.8.0", "headGroupSpec": _HEAD, "workerGroupSpecs": [_WORKER]},
}
SERVICE = {
    "apiVersion": "ray.io/v1",
    "kind": "RayService",
    "metadata": {"name": "rayservice-mobilenet"},
    "spec": {
        "serveConfigV2": "applications: []\n",
        "rayClusterConfig": {
            "rayVersion": "2.9.0",
            "headGroupSpec": _HEAD,
            "workerGroupSpecs": [{**_WORKER, "groupName": "worker", "maxReplicas": 5}],
        },
    },
}
POLICY = "ray-worker-group-grows"


def test_spent_set_79_ray_cluster_fires():
    found = found_by([CLUSTER], POLICY)
    assert len(found) == 1
    enforcement, message = found[0]
    assert enforcement == "advisory"
    assert "spec.workerGroupSpecs[0] (small-group): maxReplicas 10 above replicas 1" in message
    assert "stays at 1 pod(s)" in message


def test_spent_set_79_ray_service_fires():
    (found,) = found_by([SERVICE], POLICY)
    assert "spec.rayClusterConfig.workerGroupSpecs[0] (worker): maxReplicas 5 above replicas 1" in found[1]
    assert "spec.rayClusterConfig.enableInTreeAutoscaling is not true" in found[1]


def test_replicas_unset_reads_min_replicas():
    cluster = copy.deepcopy(CLUSTER)
    del cluster["spec"]["workerGroupSpecs"][0]["replicas"]
    (found,) = found_by([cluster], POLICY)
    assert "maxReplicas 10 above minReplicas 1" in found[1]


def test_in_tree_autoscaling_is_silent():
    cluster = copy.deepcopy(CLUSTER)
    cluster["spec"]["enableInTreeAutoscaling"] = True
    assert found_by([cluster], POLICY) == []


def test_fixed_size_groups_are_silent():
    for top in (1, None, 2147483647, "{{ .Values.max }}"):
        cluster = copy.deepcopy(CLUSTER)
        worker = cluster["spec"]["workerGroupSpecs"][0]
        if top is None:
            del worker["maxReplicas"]
        else:
            worker["maxReplicas"] = top
        assert found_by([cluster], POLICY) == [], top


def test_bad_input_is_silent():
    for spec in ({"workerGroupSpecs": "x"}, {"workerGroupSpecs": [None, {"maxReplicas": 3}]}, None, "x"):
        assert found_by([{**CLUSTER, "spec": spec}], POLICY) == []
