"""G13 gpu-engine-has-gpu-limit on a ROCm build that is privileged but claims no amd.com/gpu: privileged reaches the
devices of whatever node the pod lands on, but the scheduler reserves no GPU and may place it on a node with none.

Firing form: spent set 107 dysonfrost/arkollama-k3s@6d0bfad9 k8s/ollama/deployment.yaml (ollama/ollama:rocm, privileged, no
amd.com/gpu; label G13 missed). Careful forms: the same with an amd.com/gpu limit, and with /dev/kfd and /dev/dri
mounted from the host (a GPU reached on purpose), stay silent.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "gpu-engine-has-gpu-limit"

OLLAMA = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "ollama", "namespace": "ai"},
    "spec": {
        "selector": {"matchLabels": {"app": "ollama"}},
        "template": {
            "metadata": {"labels": {"app": "ollama"}},
            "spec": {
                "containers": [
                    {
                        "name": "ollama",
                        "image": "ollama/ollama:rocm",
                        "ports": [{"containerPort": 11434}],
                        "securityContext": {"privileged": True},
                    }
                ]
            },
        },
    },
}


def test_privileged_rocm_build_without_a_gpu_claim_is_advice():
    ((level, message),) = found_by([OLLAMA], POLICY)
    assert level == "advisory"
    assert (
        "is a ROCm build (privileged: it reaches the devices of whatever node it lands on), but the container holds no amd.com/gpu"
        in message
    )


def test_careful_forms_are_silent():
    claimed = copy.deepcopy(OLLAMA)
    claimed["spec"]["template"]["spec"]["containers"][0]["resources"] = {"limits": {"amd.com/gpu": 1}}
    assert found_by([claimed], POLICY) == []
    mounted = copy.deepcopy(OLLAMA)
    pod = mounted["spec"]["template"]["spec"]
    pod["volumes"] = [{"name": "kfd", "hostPath": {"path": "/dev/kfd"}}, {"name": "dri", "hostPath": {"path": "/dev/dri"}}]
    pod["containers"][0]["volumeMounts"] = [{"name": "kfd", "mountPath": "/dev/kfd"}, {"name": "dri", "mountPath": "/dev/dri"}]
    assert found_by([mounted], POLICY) == []
