"""Catalogue rows for problems reviewers labelled on spent held-out sets that no row covered ("none" labels): each
with a third-party form that fires and a careful third-party form that stays silent (minimal hand-written shapes of
the cited upstream files, not copies)."""

from __future__ import annotations

import copy

from policy_fixtures import found_by


def lws(name: str, leader: dict, worker: dict) -> dict:
    return {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": name},
        "spec": {
            "replicas": 1,
            "leaderWorkerTemplate": {
                "size": 2,
                "leaderTemplate": {"metadata": {"labels": {"role": "leader"}}, "spec": leader},
                "workerTemplate": {"spec": worker},
            },
        },
    }


def deployment(name: str, podspec: dict) -> dict:
    labels = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "llm"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": podspec},
        },
    }


# S42 model-server-not-pinned-to-one-node --------------------------------------------------------------------------

_SGLANG = {
    "name": "sglang",
    "image": "lmsysorg/sglang:v0.5.2-cu126",
    "command": ["bash", "-c"],
    "args": [
        "python3 -m sglang.launch_server --model /models/GLM-5-FP8 --tensor-parallel-size 16 --nnodes $LWS_GROUP_SIZE "
        "--node-rank $LWS_WORKER_INDEX --dist-init-addr $LWS_LEADER_ADDRESS:20000 --port 8000"
    ],
    "resources": {"limits": {"nvidia.com/gpu": "8"}, "requests": {"nvidia.com/gpu": "8"}},
    "volumeMounts": [{"name": "nfs-vol", "mountPath": "/models"}],
}
_NFS = [{"name": "nfs-vol", "nfs": {"server": "172.17.124.39", "path": "/mnt/disk2/models"}}]


def _pinned(host: str) -> dict:
    return {"nodeSelector": {"kubernetes.io/hostname": host}, "containers": [_SGLANG], "volumes": _NFS}


# zhaotyer/lws_usage sglang_glm5.yaml at 1569983b5283fd52190bfa60ca3b62a6ebc219ef (held-out set 8, labelled "none"):
# an SGLang leader pinned to host dev32 and its worker to dev39, the model on NFS.
GLM5 = lws("sglang", _pinned("dev32"), _pinned("dev39"))


def test_an_lws_pinned_to_two_hosts_is_advised_per_template():
    assert found_by([GLM5], "model-server-not-pinned-to-one-node") == [
        (
            "advisory",
            f"spec.leaderWorkerTemplate.{role}Template.spec: the model server is pinned to node {host} (nodeSelector "
            "kubernetes.io/hostname): when that node fails, is drained or replaced, its pods have nowhere to "
            "reschedule and the model is down; select nodes by a pool or GPU-type label instead of one hostname",
        )
        for role, host in (("leader", "dev32"), ("worker", "dev39"))
    ]


def test_node_name_and_a_one_value_required_affinity_pin_too():
    by_name = deployment("vllm", {"nodeName": "gpu-7", "containers": [_SGLANG], "volumes": _NFS})
    ((level, message),) = found_by([by_name], "model-server-not-pinned-to-one-node")
    assert level == "advisory" and "pinned to node gpu-7 (spec.nodeName)" in message
    term = {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["gpu-7"]}]}
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}
    by_affinity = deployment("vllm", {"affinity": affinity, "containers": [_SGLANG], "volumes": _NFS})
    ((_, message),) = found_by([by_affinity], "model-server-not-pinned-to-one-node")
    assert "pinned to node gpu-7 (required node affinity on kubernetes.io/hostname)" in message


def test_several_hosts_a_pool_label_or_node_data_stay_silent():
    two = {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["gpu-7", "gpu-8"]}]}
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [two]}}}
    pool = {"nodeSelector": {"karpenter.sh/nodepool": "gpu"}, "containers": [_SGLANG], "volumes": _NFS}
    # Tennsoku/k8s-llm-serving-public kubernetes/deploy-vllm.yaml at 3135340af62cbc16308c445ffe6c6fd6268fbe5c (held-out
    # set 7, a trap): pinned to the one GB10 host whose model directory is a hostPath on that node.
    spark = {
        "nodeSelector": {"kubernetes.io/hostname": "spark-4151"},
        "containers": [{**_SGLANG, "volumeMounts": [{"name": "model", "mountPath": "/models", "readOnly": True}]}],
        "volumes": [{"name": "model", "hostPath": {"path": "/home/tensoku/models/Qwen3-8B", "type": "Directory"}}],
    }
    for podspec in ({"affinity": affinity, "containers": [_SGLANG]}, pool, spark):
        assert found_by([deployment("vllm", podspec)], "model-server-not-pinned-to-one-node") == []
    # A pod that serves no model (a CPU tool pinned to a host) is not this row's business.
    tool = copy.deepcopy(pool)
    tool["nodeSelector"] = {"kubernetes.io/hostname": "n1"}
    tool["containers"] = [{"name": "busybox", "image": "busybox:1.36", "command": ["sleep", "3600"]}]
    assert found_by([deployment("tool", tool)], "model-server-not-pinned-to-one-node") == []
