"""S49 lws-group-restarts-together: restartPolicy None on a multi-node LeaderWorkerSet (kubernetes-sigs/lws v0.10.0)."""

from __future__ import annotations

import copy

import pytest
from policy_fixtures import found_by

POLICY = "lws-group-restarts-together"


def _pod(name: str) -> dict:
    return {
        "containers": [
            {
                "name": name,
                "image": "lmsysorg/sglang:v0.4.6.post1-cu124",
                "command": [
                    "python3",
                    "-m",
                    "sglang.launch_server",
                    "--model-path",
                    "deepseek-ai/DeepSeek-R1",
                    "--tp",
                    "16",
                    "--nnodes",
                    "2",
                ],
                "resources": {"limits": {"nvidia.com/gpu": "8"}},
            }
        ]
    }


# Minimal form of hustshawn/deepseek-on-eks-demo k8s-manifest/lws/lws-deepseek-r1.yaml at HEAD
# 0e1fa2a4 (blob 3b79615f91f9f66a1255068450bb54f8a4bcf008; spent set 9): SGLang DeepSeek-R1 TP16 over a group of size 2 with restartPolicy None.
LWS = {
    "apiVersion": "leaderworkerset.x-k8s.io/v1",
    "kind": "LeaderWorkerSet",
    "metadata": {"name": "lws-deepseek-r1-sglang"},
    "spec": {
        "replicas": 1,
        "leaderWorkerTemplate": {
            "size": 2,
            "restartPolicy": "None",
            "leaderTemplate": {"spec": _pod("sglang-leader")},
            "workerTemplate": {"spec": _pod("sglang-worker")},
        },
    },
}


@pytest.mark.parametrize("policy", ["None", "Default"])
def test_none_and_deprecated_default_advise(policy):
    obj = copy.deepcopy(LWS)
    obj["spec"]["leaderWorkerTemplate"]["restartPolicy"] = policy
    found = found_by([obj], POLICY)
    assert [level for level, _ in found] == ["advisory"]
    assert found[0][1].startswith(
        f"spec.leaderWorkerTemplate.restartPolicy {policy}: only the failed pod of a 2-pod group restarts"
    )


@pytest.mark.parametrize(
    "change",
    [
        lambda t: t.pop("restartPolicy"),  # the default, RecreateGroupOnPodRestart (leaderworkerset_types.go:170)
        lambda t: t.update(restartPolicy="RecreateGroupAfterStart"),
        lambda t: t.update(size=1),  # one pod per group: nothing to rejoin
        lambda t: [p["spec"]["containers"][0].pop("resources") for p in (t["leaderTemplate"], t["workerTemplate"])],  # no GPU
    ],
)
def test_careful_forms_stay_silent(change):
    obj = copy.deepcopy(LWS)
    change(obj["spec"]["leaderWorkerTemplate"])
    assert found_by([obj], POLICY) == []
