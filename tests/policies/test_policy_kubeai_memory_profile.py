"""G10 serving-memory-limit reads a KubeAI Model's resourceProfile (advice).

Firing form: leoho0722/gpu-delegater-based-on-kubeai backend/k8s/deploy/kubeai/llama3.3-70b-builtin.yaml (spent set 27,
labelled G10): ``resourceProfile: cpu:20``; KubeAI's stock cpu profile (substratusai/kubeai 2f32ef49
charts/kubeai/values.yaml:99-108) requests 1 CPU and 2Gi and limits nothing, and the controller multiplies requests and
limits (internal/modelcontroller/model_controller.go:274-306): 40Gi requested, no memory limit.
Careful forms: a profile the stock values do not define (the cluster's own, which may limit memory), and a Model with no
resourceProfile.
"""

import copy

from policy_fixtures import manifest

from policies.k8s_generic.serving_memory_limit import POLICY
from policies.registry import evaluate

MODEL = {
    "apiVersion": "kubeai.org/v1",
    "kind": "Model",
    "metadata": {"name": "llama3.3-70b", "namespace": "default"},
    "spec": {
        "features": ["TextGeneration"],
        "image": "ghcr.io/leoho0722/ollama-builtin-llama3.3-70b:0.1.0",
        "url": "ollama://llama3.3:70b",
        "engine": "OLlama",
        "minReplicas": 1,
        "resourceProfile": "cpu:20",
    },
}


def _found(*objs):
    return [(v.enforcement, v.message) for v in evaluate([manifest(o) for o in objs], None, policies=[POLICY])]


def test_stock_profile_gives_no_memory_limit():
    ((level, message),) = _found(MODEL)
    assert level == "advisory"
    assert message.startswith("spec.resourceProfile cpu:20: KubeAI's stock profile cpu sets no memory limit")
    assert "times 20" in message


def test_careful_forms_stay_silent():
    own = copy.deepcopy(MODEL)
    own["spec"]["resourceProfile"] = "team-a100-guaranteed:1"
    assert _found(own) == []
    none = copy.deepcopy(MODEL)
    del none["spec"]["resourceProfile"]
    assert _found(none) == []
