"""Replica floors and scale-down windows of KubeAI Models, KEDA HTTPScaledObjects and AIBrix PodAutoscalers
(policies/reading/scalers_ext.py cites each controller at its tag).

Third-party fixtures: KubeAI's own example (substratusai/kubeai v0.21.0 examples/priority-examples/
hello-world-llm.yaml, no minReplicas: scales to zero), an HTTPScaledObject in the form of the http-add-on's xkcd
example (kedacore/http-add-on v0.15.0 examples/xkcd/templates/httpscaledobject.yaml, rendered), and an AIBrix
PodAutoscaler as its docs write one; each has a careful form that must stay silent.
"""

from __future__ import annotations

import copy

import yaml

from policies.check import resources_of
from policies.manifests import read_manifests
from policies.registry import evaluate

_KUBEAI = {
    "apiVersion": "kubeai.org/v1",
    "kind": "Model",
    "metadata": {"name": "hello-world-llm", "namespace": "kubeai"},
    "spec": {
        "features": ["TextGeneration"],
        "url": "hf://neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8",
        "engine": "VLLM",
        "resourceProfile": "nvidia-gpu-l4:1",
    },
}
_HTTP = {
    "apiVersion": "http.keda.sh/v1alpha1",
    "kind": "HTTPScaledObject",
    "metadata": {"name": "vllm", "namespace": "llm"},
    "spec": {
        "hosts": ["llm.example.com"],
        "scalingMetric": {"concurrency": {"targetValue": 8}},
        "scaleTargetRef": {"name": "vllm", "kind": "Deployment", "apiVersion": "apps/v1", "service": "vllm", "port": 8000},
        "replicas": {"min": 0, "max": 4},
    },
}
_AIBRIX = {
    "apiVersion": "autoscaling.aibrix.ai/v1alpha1",
    "kind": "PodAutoscaler",
    "metadata": {
        "name": "llama-kpa",
        "namespace": "default",
        "annotations": {"autoscaling.aibrix.ai/scale-down-cooldown-window": "30s"},
    },
    "spec": {
        "scalingStrategy": "KPA",
        "minReplicas": 1,
        "maxReplicas": 8,
        "metricsSources": [
            {
                "metricSourceType": "pod",
                "protocolType": "http",
                "port": "8000",
                "path": "/metrics",
                "targetMetric": "gpu_cache_usage_perc",
                "targetValue": "50",
            }
        ],
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "llama"},
    },
}


def _messages(tmp_path, doc: dict, policy: str) -> list[str]:
    path = tmp_path / "scaler.yaml"
    path.write_text(yaml.safe_dump(doc))
    return [v.message for v in evaluate(resources_of(read_manifests([str(path)]))) if v.policy == policy]


def test_a_kubeai_model_without_min_replicas_scales_to_zero(tmp_path):
    assert _messages(tmp_path, _KUBEAI, "llm-no-scale-to-zero") == [
        "spec.minReplicas is not set and the Model controller takes 0, scaling to zero when idle; an LLM replica takes "
        "minutes to return (GPU node, image pull, weight load), so the first request after idling times out; set it to "
        "at least 1"
    ]
    careful = copy.deepcopy(_KUBEAI)
    careful["spec"].update({"minReplicas": 1, "maxReplicas": 3})
    assert _messages(tmp_path, careful, "llm-no-scale-to-zero") == []
    fixed = copy.deepcopy(_KUBEAI)
    fixed["spec"].update({"autoscalingDisabled": True, "replicas": 2})
    assert _messages(tmp_path, fixed, "llm-no-scale-to-zero") == []


def test_an_http_scaled_object_with_min_zero_scales_to_zero(tmp_path):
    assert len(_messages(tmp_path, _HTTP, "llm-no-scale-to-zero")) == 1
    unset = copy.deepcopy(_HTTP)
    del unset["spec"]["replicas"]["min"]
    assert "is not set" in _messages(tmp_path, unset, "llm-no-scale-to-zero")[0]
    careful = copy.deepcopy(_HTTP)
    careful["spec"]["replicas"]["min"] = 1
    assert _messages(tmp_path, careful, "llm-no-scale-to-zero") == []


def test_an_aibrix_autoscaler_keeps_one_replica_unless_told(tmp_path):
    assert _messages(tmp_path, _AIBRIX, "llm-no-scale-to-zero") == []
    unset = copy.deepcopy(_AIBRIX)
    del unset["spec"]["minReplicas"]
    assert _messages(tmp_path, unset, "llm-no-scale-to-zero") == []  # the controller's default is 1
    to_zero = copy.deepcopy(_AIBRIX)
    to_zero["metadata"]["annotations"]["autoscaling.aibrix.ai/scale-to-zero"] = "true"
    assert len(_messages(tmp_path, to_zero, "llm-no-scale-to-zero")) == 1


def test_an_aibrix_scale_down_window_below_the_floor_fires(tmp_path):
    assert _messages(tmp_path, _AIBRIX, "llm-hpa-behavior") == [
        "metadata.annotations autoscaling.aibrix.ai/scale-down-cooldown-window = '30s': the controller scales in after "
        "30 s of lower load, below 300 s; a GPU replica removed on a short dip takes minutes to come back; set it to at "
        "least 300s"
    ]
    older = copy.deepcopy(_AIBRIX)
    older["metadata"]["annotations"] = {"kpa.autoscaling.aibrix.ai/scale-down-delay": "1m"}
    assert len(_messages(tmp_path, older, "llm-hpa-behavior")) == 1
    careful = copy.deepcopy(_AIBRIX)
    careful["metadata"]["annotations"] = {"autoscaling.aibrix.ai/scale-down-cooldown-window": "10m"}
    assert _messages(tmp_path, careful, "llm-hpa-behavior") == []
    default = copy.deepcopy(_AIBRIX)
    del default["metadata"]["annotations"]
    assert _messages(tmp_path, default, "llm-hpa-behavior") == []  # 300 s by default (v0.7.0)
