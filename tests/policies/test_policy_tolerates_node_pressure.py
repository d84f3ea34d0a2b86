"""G59 model-server-avoids-troubled-nodes: a model server tolerating the taints of nodes in trouble.

Fixture that fires: set 34, Jneville0815/llama-k8s-platform infrastructure/kubernetes/manifests/model-server/
model-server-deployment.yaml@a26e4776531d93385f82c074b6ecc4a6dd4e4177: the vLLM model server tolerates
node.kubernetes.io/disk-pressure:NoSchedule while it writes up to 30Gi of emptyDir. Second form of the class: a
blanket toleration (operator Exists, no key), which also keeps the pod on a failed node for ever. Silent: a DaemonSet
(its controller adds these tolerations itself), a plain GPU toleration, a NoExecute not-ready toleration with
tolerationSeconds.
"""

from __future__ import annotations

import copy

from policy_fixtures import manifest

from policies.registry import evaluate

_DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "llama-model-server", "namespace": "llama-platform"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "llama-model-server"}},
        "template": {
            "metadata": {"labels": {"app": "llama-model-server"}},
            "spec": {
                "tolerations": [{"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"}],
                "containers": [
                    {
                        "name": "vllm-server",
                        "image": "vllm/vllm-openai:v0.8.5",
                        "args": ["--model", "meta-llama/Llama-3.2-3B-Instruct"],
                        "ports": [{"containerPort": 8000}],
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                        "volumeMounts": [{"name": "model-cache", "mountPath": "/models"}],
                    }
                ],
                "volumes": [{"name": "model-cache", "emptyDir": {"sizeLimit": "20Gi"}}],
            },
        },
    },
}


def _g59(obj: dict) -> list[tuple[str, str]]:
    return [
        (v.enforcement, v.message) for v in evaluate([manifest(obj)], None) if v.policy == "model-server-avoids-troubled-nodes"
    ]


def _with(tolerations: list, kind: str = "Deployment") -> dict:
    obj = copy.deepcopy(_DEPLOYMENT)
    obj["kind"] = kind
    obj["spec"]["template"]["spec"]["tolerations"] = tolerations
    return obj


def test_tolerating_disk_pressure_is_advice():
    ((level, message),) = _g59(_DEPLOYMENT)
    assert level == "advisory"
    assert message.startswith(
        "spec.template.spec.tolerations[0]: tolerates node.kubernetes.io/disk-pressure:NoSchedule, so the scheduler "
        "places this model server on nodes under disk pressure, where the kubelet evicts pods by their use of what runs short"
    )


def test_a_blanket_toleration_is_advice():
    ((level, message),) = _g59(_with([{"operator": "Exists"}]))
    assert level == "advisory"
    assert message.startswith("spec.template.spec.tolerations[0]: operator Exists with no key tolerates every taint")
    assert "node.kubernetes.io/not-ready and node.kubernetes.io/unreachable:NoExecute for ever" in message


def test_careful_forms_stay_silent():
    assert _g59(_with(_DEPLOYMENT["spec"]["template"]["spec"]["tolerations"], kind="DaemonSet")) == []
    assert _g59(_with([{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}])) == []
    assert _g59(_with([{"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}])) == []
    timed = {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
    assert _g59(_with([timed])) == []
    # A blanket toleration of NoSchedule GPU taints only still tolerates pressure taints (NoSchedule): reported.
    assert len(_g59(_with([{"operator": "Exists", "effect": "NoSchedule"}]))) == 1
