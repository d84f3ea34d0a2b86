"""G54 pod-security-admission-admits: a Namespace of the files that enforces Pod Security baseline or restricted makes
the API server reject the pods of a template that breaks the level (cold review finding 9: G25/G26 only advised)."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "pod-security-admission-admits"

# ArchanaChetan07/ai-inference-observability-platform k8s/namespace.yaml at 468d39ab08719f89ac025b9259ae85772c630a71:
# namespace vllm enforces baseline (warns restricted).
NAMESPACE = {
    "apiVersion": "v1",
    "kind": "Namespace",
    "metadata": {
        "name": "vllm",
        "labels": {
            "pod-security.kubernetes.io/enforce": "baseline",
            "pod-security.kubernetes.io/enforce-version": "latest",
            "pod-security.kubernetes.io/warn": "restricted",
        },
    },
}
# The same repository's k8s/vllm-deployment.yaml (cut down): a plain vLLM pod that passes baseline.
DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm", "namespace": "vllm"},
    "spec": {
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.4.3",
                        "ports": [{"name": "http", "containerPort": 8000}],
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                    }
                ]
            },
        },
    },
}


def mutated(**pod) -> dict:
    deployment = copy.deepcopy(DEPLOYMENT)
    deployment["spec"]["template"]["spec"].update(pod)
    return deployment


def test_a_pod_that_breaks_the_enforced_baseline_is_refused():
    # One mutation: hostIPC, the usual wrong fix for NCCL's shared memory.
    ((level, message),) = found_by([NAMESPACE, mutated(hostIPC=True)], POLICY)
    assert level == "mandatory"
    assert message.startswith(
        "Namespace vllm enforces Pod Security baseline (pod-security.kubernetes.io/enforce), which refuses this pod "
        "(spec.template.spec.hostIPC: true): the API server's PodSecurity admission rejects every pod created from it"
    )
    privileged = copy.deepcopy(DEPLOYMENT)
    privileged["spec"]["template"]["spec"]["containers"][0]["securityContext"] = {
        "privileged": True,
        "capabilities": {"add": ["IPC_LOCK"]},
    }
    ((_, message),) = found_by([NAMESPACE, privileged], POLICY)
    assert "privileged: true" in message and "capabilities.add IPC_LOCK" in message


def test_restricted_adds_its_own_requirements():
    restricted = copy.deepcopy(NAMESPACE)
    restricted["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] = "restricted"
    ((_, message),) = found_by([restricted, DEPLOYMENT], POLICY)
    assert "allowPrivilegeEscalation is not false" in message and "runAsNonRoot is not true" in message
    careful = copy.deepcopy(DEPLOYMENT)
    careful["spec"]["template"]["spec"]["securityContext"] = {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}}
    careful["spec"]["template"]["spec"]["containers"][0]["securityContext"] = {
        "allowPrivilegeEscalation": False,
        "capabilities": {"drop": ["ALL"]},
    }
    assert found_by([restricted, careful], POLICY) == []


def test_careful_forms_stay_silent():
    # The repository's own pod passes baseline; no Namespace in the files: not judged.
    assert found_by([NAMESPACE, DEPLOYMENT], POLICY) == []
    assert found_by([mutated(hostIPC=True)], POLICY) == []
    # NVIDIA/k8s-device-plugin deployments/static/nvidia-device-plugin-privileged-with-service-account.yml at
    # 1b826acc6af3079d8923bac395c3124b8861a9a6: its namespace enforces privileged, so the privileged plugin is admitted.
    privileged_ns = copy.deepcopy(NAMESPACE)
    privileged_ns["metadata"] = {"name": "vllm", "labels": {"pod-security.kubernetes.io/enforce": "privileged"}}
    assert found_by([privileged_ns, mutated(hostIPC=True)], POLICY) == []
