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


def _found(tmp_path, doc: dict, policy: str) -> list[tuple[str, str]]:
    path = tmp_path / "scaler.yaml"
    path.write_text(yaml.safe_dump(doc))
    return [(v.enforcement, v.message) for v in evaluate(resources_of(read_manifests([str(path)]))) if v.policy == policy]


_COLD = (
    "so the Model scales to zero when idle; KubeAI's proxy holds the next request while a replica comes back (GPU "
    "node, image pull, weight load: minutes), so a client or ingress timeout shorter than that fails it; set "
    "minReplicas to at least 1 where the first request must not wait"
)


def test_a_kubeai_model_without_min_replicas_scales_to_zero(tmp_path):
    # Scale-from-zero is KubeAI's designed path (its proxy holds the request, kubeai v0.21.0
    # internal/modelproxy/handler.go:83-99): advice, not a failure the files prove.
    assert _found(tmp_path, _KUBEAI, "llm-no-scale-to-zero") == [
        ("advisory", f"spec.minReplicas is not set and KubeAI takes 0, {_COLD}")
    ]
    careful = copy.deepcopy(_KUBEAI)
    careful["spec"].update({"minReplicas": 1, "maxReplicas": 3})
    assert _messages(tmp_path, careful, "llm-no-scale-to-zero") == []
    fixed = copy.deepcopy(_KUBEAI)
    fixed["spec"].update({"autoscalingDisabled": True, "replicas": 2})
    assert _messages(tmp_path, fixed, "llm-no-scale-to-zero") == []


def test_a_kubeai_model_with_min_replicas_zero_is_advice(tmp_path):
    # maxlim0/kubeai cdr-model-qwen2-5-3b-instruct.yaml@3d8c288a7ba282a7b02223ded3cabc15b336c7cf (dev set 25): a
    # deliberate scale-from-zero Model (minReplicas 0, maxReplicas 4, targetRequests 2).
    model = copy.deepcopy(_KUBEAI)
    model["metadata"]["name"] = "qwen2-5-3b-instruct"
    model["spec"].update(
        {"url": "hf://Qwen/Qwen2.5-3B-Instruct", "resourceProfile": "doks-nvidia:1", "minReplicas": 0, "maxReplicas": 4}
    )
    model["spec"].update({"targetRequests": 2, "scaleDownDelaySeconds": 120})
    assert _found(tmp_path, model, "llm-no-scale-to-zero") == [("advisory", f"spec.minReplicas is 0, {_COLD}")]


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
    # Read by AIBrix v0.4.x only (scaler/kpa.go:70 at v0.4.1; no Go file at v0.5.0..v0.7.0 names it): the message says
    # both, and which annotation the pinned release reads.
    assert _messages(tmp_path, older, "llm-hpa-behavior") == [
        "metadata.annotations kpa.autoscaling.aibrix.ai/scale-down-delay = '1m': AIBrix before v0.5.0 scales in after "
        "60 s of lower load, below 300 s, and from v0.5.0 on ignores this annotation; a GPU replica removed on a short "
        "dip takes minutes to come back; set autoscaling.aibrix.ai/scale-down-cooldown-window to at least 300s instead"
    ]
    older["metadata"]["annotations"]["kpa.autoscaling.aibrix.ai/scale-down-delay"] = "10m"
    assert _messages(tmp_path, older, "llm-hpa-behavior") == []  # long enough on v0.4; ignored, 300 s, from v0.5
    careful = copy.deepcopy(_AIBRIX)
    careful["metadata"]["annotations"] = {"autoscaling.aibrix.ai/scale-down-cooldown-window": "10m"}
    assert _messages(tmp_path, careful, "llm-hpa-behavior") == []
    default = copy.deepcopy(_AIBRIX)
    del default["metadata"]["annotations"]
    assert _messages(tmp_path, default, "llm-hpa-behavior") == []  # 300 s by default (v0.7.0)


# NVIDIA Dynamo: the vLLM aggregated example (ai-dynamo/dynamo examples/backends/vllm/deploy/agg.yaml, read at
# c6fcf991079c), read with the operator's component defaults (policies/dynamo_defaults.py).
_DYNAMO = {
    "apiVersion": "nvidia.com/v1alpha1",
    "kind": "DynamoGraphDeployment",
    "metadata": {"name": "vllm-agg", "namespace": "llm"},
    "spec": {
        "services": {
            "Frontend": {
                "dynamoNamespace": "vllm-agg",
                "componentType": "frontend",
                "replicas": 1,
                "extraPodSpec": {"mainContainer": {"image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.7.1"}},
            },
            "VllmDecodeWorker": {
                "envFromSecret": "hf-token-secret",
                "dynamoNamespace": "vllm-agg",
                "componentType": "worker",
                "replicas": 1,
                "resources": {"limits": {"gpu": "1"}},
                "extraPodSpec": {
                    "mainContainer": {
                        "image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.7.1",
                        "workingDir": "/workspace/examples/backends/vllm",
                        "command": ["python3", "-m", "dynamo.vllm"],
                        "args": ["--model", "Qwen/Qwen3-0.6B"],
                    }
                },
            },
        }
    },
}


def _all(tmp_path, doc: dict) -> list[tuple[str, str, str]]:
    path = tmp_path / "dgd.yaml"
    path.write_text(yaml.safe_dump(doc))
    return [(v.policy, v.enforcement, v.message) for v in evaluate(resources_of(read_manifests([str(path)])))]


def test_dynamo_worker_is_read_with_the_operator_defaults(tmp_path):
    found = _all(tmp_path, _DYNAMO)
    # The frontend routes requests and holds no model; the operator gives both components their probes.
    assert [m for _, _, m in found if "Frontend" in m] == []
    assert {p for p, _, _ in found} >= {"serving-memory-limit", "serving-resource-requests"}
    assert "serving-readiness-probe" not in {p for p, _, _ in found}
    assert "vllm-tp-matches-gpu-limit" not in {p for p, _, _ in found}  # resources.limits.gpu is nvidia.com/gpu


def test_a_careful_dynamo_graph_has_no_blocking_finding(tmp_path):
    careful = copy.deepcopy(_DYNAMO)
    worker = careful["spec"]["services"]["VllmDecodeWorker"]
    worker["resources"] = {"requests": {"cpu": "8", "memory": "48Gi", "gpu": "1"}, "limits": {"memory": "48Gi", "gpu": "1"}}
    worker["extraPodSpec"]["nodeSelector"] = {"karpenter.k8s.aws/instance-gpu-name": "l40s"}
    worker["extraPodSpec"]["tolerations"] = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    # dynamo.vllm is vLLM's engine (components/serving_engines.toml): its Hub model is pinned like any vLLM server's.
    worker["extraPodSpec"]["mainContainer"]["args"] += ["--revision", "c1899de289a04d12100db370d81485cdf75e47ca"]
    assert [v for v in _all(tmp_path, careful) if v[1] == "mandatory"] == []


def _deployment(container: dict, kind: str = "Deployment") -> dict:
    return {
        "apiVersion": "apps/v1" if kind != "Job" else "batch/v1",
        "kind": kind,
        "metadata": {"name": "trtllm", "namespace": "llm"},
        "spec": {
            "selector": {"matchLabels": {"app": "trtllm"}},
            "template": {"metadata": {"labels": {"app": "trtllm"}}, "spec": {"containers": [container]}},
        },
    }


# TensorRT-LLM behind the image's own server script (the shape of NVIDIA's TensorRT-LLM on Kubernetes samples: an
# in-house image, `python3 server.py`, GPUs requested): no engine row names it, yet it is the pod's model server.
_CUSTOM = {
    "name": "server",
    "image": "registry.example.com/llm/trtllm-server:1.4.2",
    "command": ["python3", "/app/server.py", "--engine-dir", "/engines/llama-8b"],
    "resources": {"limits": {"nvidia.com/gpu": "1"}, "requests": {"nvidia.com/gpu": "1"}},
}


def test_a_gpu_server_started_by_its_own_script_is_a_model_server(tmp_path):
    found = {p for p, _, _ in _all(tmp_path, _deployment(_CUSTOM))}
    assert {"serving-readiness-probe", "serving-memory-limit", "serving-resource-requests"} <= found
    careful = {
        **_CUSTOM,
        "readinessProbe": {"httpGet": {"path": "/health", "port": 8000}},
        "resources": {
            "limits": {"nvidia.com/gpu": "1", "memory": "48Gi"},
            "requests": {"nvidia.com/gpu": "1", "memory": "48Gi", "cpu": "8"},
        },
    }
    assert {"serving-readiness-probe", "serving-memory-limit", "serving-resource-requests"} & {
        p for p, _, _ in _all(tmp_path, _deployment(careful))
    } == set()


def test_gpu_placeholders_and_batch_jobs_are_no_model_servers(tmp_path):
    pause = {"name": "pause", "image": "registry.k8s.io/pause:3.10", "resources": {"limits": {"nvidia.com/gpu": "1"}}}
    assert "serving-readiness-probe" not in {p for p, _, _ in _all(tmp_path, _deployment(pause))}
    assert "serving-readiness-probe" not in {p for p, _, _ in _all(tmp_path, _deployment(_CUSTOM, "Job"))}


# NVIDIA NIM: the operator's sample NIMService with autoscaling on (NVIDIA/k8s-nim-operator v3.1.2
# config/samples/apps_v1alpha1_nimservice.yaml shape, scale.enabled with an HPA block and no metrics).
_NIM = {
    "apiVersion": "apps.nvidia.com/v1alpha1",
    "kind": "NIMService",
    "metadata": {"name": "meta-llama3-8b-instruct", "namespace": "nim-service"},
    "spec": {
        "image": {"repository": "nvcr.io/nim/meta/llama-3.1-8b-instruct", "tag": "1.3.3", "pullSecrets": ["ngc-secret"]},
        "authSecret": "ngc-api-secret",
        "storage": {"nimCache": {"name": "meta-llama3-8b-instruct", "profile": ""}},
        "resources": {"limits": {"nvidia.com/gpu": 1}},
        "scale": {"enabled": True, "hpa": {"minReplicas": 1, "maxReplicas": 4}},
        "expose": {"service": {"type": "ClusterIP", "port": 8000}},
    },
}


def test_a_nim_service_hpa_on_cpu_fires_and_on_a_load_metric_does_not(tmp_path):
    found = [m for p, _, m in _all(tmp_path, _NIM) if p == "gpu-workload-no-resource-metric-hpa"]
    assert found and "spec.scale.hpa.metrics is empty, so the HPA scales on its default of 80% CPU" in found[0]
    careful = copy.deepcopy(_NIM)
    careful["spec"]["scale"]["hpa"]["metrics"] = [
        {
            "type": "Pods",
            "pods": {"metric": {"name": "num_requests_running"}, "target": {"type": "AverageValue", "averageValue": "10"}},
        }
    ]
    assert [p for p, _, _ in _all(tmp_path, careful) if p == "gpu-workload-no-resource-metric-hpa"] == []


def test_a_nim_service_short_scale_down_window_fires(tmp_path):
    short = copy.deepcopy(_NIM)
    short["spec"]["scale"]["hpa"]["behavior"] = {"scaleDown": {"stabilizationWindowSeconds": 60}}
    assert len([p for p, _, _ in _all(tmp_path, short) if p == "llm-hpa-behavior"]) == 1
    assert [p for p, _, _ in _all(tmp_path, _NIM) if p == "llm-hpa-behavior"] == []


def test_a_gpu_kubeai_model_left_at_the_default_scale_down_delay_is_advice(tmp_path):
    # Fresh set 47 (S8 advisory x2): cbtham/kubeai-huaweicloud optimized-models/qwencoder2.5-vllm.yaml and
    # llama3.2-vllm.yaml at 2619eb92dd492c745f6602a36a5b31835d8fd527 (resourceProfile nvidia-gpu-t4:1, no
    # scaleDownDelaySeconds: KubeAI v0.21.0 api/k8s/v1/model_types.go:118-121 defaults it to 30). The second form is
    # _KUBEAI, cut from KubeAI's own catalogue (substratusai/kubeai v0.21.0 manifests/models/
    # llama-3.1-8b-instruct-fp8-l4.yaml, 6babe2c9: nvidia-gpu-l4:1, no scaleDownDelaySeconds).
    t4 = copy.deepcopy(_KUBEAI)
    t4["metadata"]["name"] = "llama3.2-1b-vllm"
    t4["spec"].update({"url": "hf://kmk4444/llama3.2-1b-vllm", "resourceProfile": "nvidia-gpu-t4:1"})
    for model in (t4, _KUBEAI):
        found = _found(tmp_path, model, "llm-hpa-behavior")
        assert [e for e, _ in found] == ["advisory"]
        assert found[0][1].startswith("spec.scaleDownDelaySeconds is not set, so KubeAI scales this GPU Model in 30 s")


def test_a_kubeai_model_that_sets_its_delay_runs_on_cpu_or_does_not_scale_is_silent(tmp_path):
    # The careful form: cbtham/kubeai-huaweicloud custom-models.yaml's qwen2.5coder-7b-ollama-t4 (same commit):
    # minReplicas 1, maxReplicas 1, scaleDownDelaySeconds 7200.
    careful = copy.deepcopy(_KUBEAI)
    careful["spec"].update({"minReplicas": 1, "maxReplicas": 1, "scaleDownDelaySeconds": 7200})
    cpu = copy.deepcopy(_KUBEAI)
    cpu["spec"]["resourceProfile"] = "cpu:1"
    fixed = copy.deepcopy(_KUBEAI)
    fixed["spec"].update({"autoscalingDisabled": True, "replicas": 1})
    pinned = copy.deepcopy(_KUBEAI)
    pinned["spec"].update({"minReplicas": 2, "maxReplicas": 2})
    for model in (careful, cpu, fixed, pinned):
        assert _messages(tmp_path, model, "llm-hpa-behavior") == []
