"""G66 pod-group-selects-pods: a scheduler-plugins PodGroup that no pod template labels with
scheduling.x-k8s.io/pod-group gangs nothing (kubernetes-sigs/scheduler-plugins v0.34.7 pkg/coscheduling/core/core.go:
392-396); advisory."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "pod-group-selects-pods"


def _template(role: str) -> dict:
    return {
        "metadata": {"labels": {"role": "decode", "tp-role": role}},
        "spec": {
            "containers": [
                {
                    "name": f"vllm-{role}",
                    "image": "ghcr.io/example/vllm-serve:latest",
                    "resources": {"limits": {"nvidia.com/gpu": 8}},
                }
            ]
        },
    }


# aliceco01/llm-inference-stack projects/10-disaggregated/k8s/multinode-lws.yaml (spent set 39, cut down): a
# LeaderWorkerSet of 2-pod TP groups beside a PodGroup of the same name that none of its pods names.
LWS = {
    "apiVersion": "leaderworkerset.x-k8s.io/v1",
    "kind": "LeaderWorkerSet",
    "metadata": {"name": "vllm-decode-70b"},
    "spec": {
        "replicas": 2,
        "leaderWorkerTemplate": {"size": 2, "leaderTemplate": _template("leader"), "workerTemplate": _template("worker")},
    },
}
GROUP = {
    "apiVersion": "scheduling.x-k8s.io/v1alpha1",
    "kind": "PodGroup",
    "metadata": {"name": "vllm-decode-70b"},
    "spec": {"minMember": 2, "scheduleTimeoutSeconds": 600},
}


def test_a_pod_group_no_pod_names_is_advice():
    ((level, message),) = found_by([LWS, GROUP], POLICY)
    assert level == "advisory"
    assert message.startswith(
        "PodGroup default/vllm-decode-70b (minMember 2): no pod template of these files in its namespace carries the "
        "label scheduling.x-k8s.io/pod-group: vllm-decode-70b"
    )


def test_labelled_pods_stay_silent():
    # kubernetes-sigs/scheduler-plugins v0.34.7 doc/install.md:185-221: PodGroup pg1 and a Deployment whose template
    # carries scheduling.x-k8s.io/pod-group: pg1 (no schedulerName: the install replaces the default scheduler).
    pg1 = copy.deepcopy(GROUP)
    pg1["metadata"]["name"] = "pg1"
    pause = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "pause"},
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "pause"}},
            "template": {
                "metadata": {"labels": {"app": "pause", "scheduling.x-k8s.io/pod-group": "pg1"}},
                "spec": {"containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.6"}]},
            },
        },
    }
    assert found_by([pg1, pause], POLICY) == []
    # The LeaderWorkerSet with both templates labelled is silent too.
    labelled = copy.deepcopy(LWS)
    for role in ("leaderTemplate", "workerTemplate"):
        labelled["spec"]["leaderWorkerTemplate"][role]["metadata"]["labels"]["scheduling.x-k8s.io/pod-group"] = "vllm-decode-70b"
    assert found_by([labelled, GROUP], POLICY) == []


def test_operator_runs_and_other_namespaces():
    # A Kubeflow training operator labels its pods and makes its PodGroups itself: not judged.
    job = {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": {"name": "train"}, "spec": {}}
    assert found_by([LWS, GROUP, job], POLICY) == []
    # A label naming the group from another namespace does not select it.
    elsewhere = copy.deepcopy(LWS)
    elsewhere["metadata"]["namespace"] = "other"
    elsewhere["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["metadata"]["labels"]["scheduling.x-k8s.io/pod-group"] = (
        "vllm-decode-70b"
    )
    assert len(found_by([elsewhere, GROUP], POLICY)) == 1
