"""Autoscaling misses of spent sets 16-18, read from the labelled files: a CPU HPA over an LLM server that requests no
GPU (S6), an AIBrix PodAutoscaler aimed at 0.01 (S6). Each firing case is cut from the third-party file named beside
it; each careful form beside it must stay silent."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

S6 = "gpu-workload-no-resource-metric-hpa"

# heissanjay/ollama-eks-depl kubernetes/deployment.yml at 0f871508ffb668079fbae8f41851d7a86c755782 and kubernetes/hpa.yml
# at 159ff8f1c058669af8b41b68743bd1cfa4997b09 (held-out set 16, labelled S6 advisory): ollama/ollama tolerating the GPU
# taint but requesting no nvidia.com/gpu, scaled by a 70% CPU-utilization HPA.
OLLAMA = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "ollama", "labels": {"app": "ollama"}},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "ollama"}},
        "template": {
            "metadata": {"labels": {"app": "ollama"}},
            "spec": {
                "tolerations": [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}],
                "containers": [
                    {
                        "name": "ollama",
                        "image": "ollama/ollama:latest",
                        "ports": [{"containerPort": 11434}],
                        "resources": {"limits": {"cpu": "2000m", "memory": "4Gi"}},
                    }
                ],
            },
        },
    },
}
OLLAMA_HPA = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "ollama-hpa"},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "ollama"},
        "minReplicas": 1,
        "maxReplicas": 3,
        "metrics": [
            {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}}}
        ],
    },
}


def test_cpu_hpa_over_an_llm_server_without_gpus_is_advice():
    (only,) = found_by([OLLAMA, OLLAMA_HPA], S6)
    assert only[0] == "advisory"
    assert only[1].startswith("scaleTargetRef Deployment/ollama runs a model server (ollama) and every entry of spec.metrics")


def test_cpu_hpa_over_a_web_app_or_with_a_load_metric_stays_silent():
    """The same repository's openweb-ui Deployment is no model server; an HPA that adds a Pods metric has a load signal."""
    web = copy.deepcopy(OLLAMA)
    web["metadata"]["name"] = "openweb-ui"
    # The web UI's own container: its name and port (8080), not Ollama's (a container named ollama serving 11434 is
    # read as Ollama whatever its image: the engine row's image_words, policies/reading/engine_flags.py).
    web["spec"]["template"]["spec"]["containers"][0].update(
        {"name": "openweb-ui", "image": "ghcr.io/open-webui/open-webui:main", "ports": [{"containerPort": 8080}]}
    )
    web_hpa = copy.deepcopy(OLLAMA_HPA)
    web_hpa["spec"]["scaleTargetRef"]["name"] = "openweb-ui"
    assert found_by([web, web_hpa], S6) == []
    loaded = copy.deepcopy(OLLAMA_HPA)
    loaded["spec"]["metrics"].append(
        {
            "type": "Pods",
            "pods": {"metric": {"name": "ollama_requests_in_flight"}, "target": {"type": "AverageValue", "averageValue": "2"}},
        }
    )
    assert found_by([OLLAMA, loaded], S6) == []


# umesh-khatiwada/aibrix-vllm-deployment v2/aibrix/autoscaling/metric-based-autoscaling/apa.yaml at
# 469d4835bebc23d116603418b61c73407fbf69ea (held-out set 17, labelled S6 advisory): an APA on kv_cache_usage_perc aimed at
# 0.01, maxReplicas 8.
AIBRIX_APA = {
    "apiVersion": "autoscaling.aibrix.ai/v1alpha1",
    "kind": "PodAutoscaler",
    "metadata": {"name": "qwen-coder-1-5b-instruct-apa", "namespace": "default"},
    "spec": {
        "scalingStrategy": "APA",
        "minReplicas": 1,
        "maxReplicas": 8,
        "metricsSources": [
            {
                "metricSourceType": "pod",
                "protocolType": "http",
                "port": "8000",
                "path": "metrics",
                "targetMetric": "kv_cache_usage_perc",
                "targetValue": "0.01",
            }
        ],
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "qwen-coder-1-5b-instruct"},
    },
}


def test_aibrix_target_near_zero_pins_the_maximum():
    (only,) = found_by([AIBRIX_APA], S6)
    assert only[0] == "advisory"
    assert only[1].startswith("spec.metricsSources[0].targetValue = 0.01 on kv_cache_usage_perc: a target this close to zero")


def test_aibrix_fraction_target_or_latency_target_stays_silent():
    """0.5 of the KV cache is a real per-replica target; a 0.01 s latency target is a real choice too."""
    half = copy.deepcopy(AIBRIX_APA)
    half["spec"]["metricsSources"][0]["targetValue"] = "0.5"
    assert found_by([half], S6) == []
    latency = copy.deepcopy(AIBRIX_APA)
    latency["spec"]["metricsSources"][0]["targetMetric"] = "time_to_first_token_seconds"
    assert found_by([latency], S6) == []


G20 = "pdb-below-autoscaler-floor"

# riya0920/asr-serving-vllm-k8s infra/k8s/deployment.yaml at 3a132ebd01681c99c618589845747f872911cce4 and
# infra/keda/scaledobject.yaml at 13c4dd2e4839939a65ee89795bd59f31804a9797 (held-out set 18, labelled G20 advisory): a
# Deployment with no replicas, KEDA minReplicaCount 2, and a PDB minAvailable 2 "matching" it.
WHISPER = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "whisper-asr", "namespace": "asr", "labels": {"app": "whisper-asr"}},
    "spec": {
        "selector": {"matchLabels": {"app": "whisper-asr"}},
        "template": {
            "metadata": {"labels": {"app": "whisper-asr"}},
            "spec": {
                "containers": [
                    {"name": "asr", "image": "vllm/vllm-omni:v0.11.0rc1", "resources": {"limits": {"nvidia.com/gpu": 1}}}
                ]
            },
        },
    },
}
WHISPER_PDB = {
    "apiVersion": "policy/v1",
    "kind": "PodDisruptionBudget",
    "metadata": {"name": "whisper-asr", "namespace": "asr"},
    "spec": {"minAvailable": 2, "selector": {"matchLabels": {"app": "whisper-asr"}}},
}
WHISPER_SO = {
    "apiVersion": "keda.sh/v1alpha1",
    "kind": "ScaledObject",
    "metadata": {"name": "whisper-asr", "namespace": "asr"},
    "spec": {
        "scaleTargetRef": {"name": "whisper-asr"},
        "minReplicaCount": 2,
        "maxReplicaCount": 16,
        "triggers": [
            {
                "type": "prometheus",
                "metadata": {
                    "serverAddress": "http://prometheus.monitoring:9090",
                    "query": "sum(vllm_omni:num_requests_waiting)",
                    "threshold": "4",
                },
            }
        ],
    },
}


def test_pdb_min_available_at_the_keda_floor_is_advice():
    (only,) = found_by([WHISPER, WHISPER_PDB, WHISPER_SO], G20)
    assert only[0] == "advisory"
    assert only[1].startswith(
        "PodDisruptionBudget whisper-asr: minAvailable 2 is not below the minReplicaCount 2 of ScaledObject"
    )


def test_pdb_below_the_floor_or_with_no_floor_stays_silent():
    """minAvailable one below the floor leaves an eviction; KEDA's default floor 0 and a PDB in another namespace say
    nothing; an HPA over spec.replicas is pdb-allows-disruption's (G19) to judge."""
    one = copy.deepcopy(WHISPER_PDB)
    one["spec"]["minAvailable"] = 1
    assert found_by([WHISPER, one, WHISPER_SO], G20) == []
    unfloored = copy.deepcopy(WHISPER_SO)
    del unfloored["spec"]["minReplicaCount"]
    assert found_by([WHISPER, WHISPER_PDB, unfloored], G20) == []
    elsewhere = copy.deepcopy(WHISPER_PDB)
    elsewhere["metadata"]["namespace"] = "other"
    assert found_by([WHISPER, elsewhere, WHISPER_SO], G20) == []
    fixed = copy.deepcopy(WHISPER)
    fixed["spec"]["replicas"] = 2
    hpa = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "whisper-asr", "namespace": "asr"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "whisper-asr"},
            "minReplicas": 2,
            "maxReplicas": 4,
        },
    }
    assert found_by([fixed, WHISPER_PDB, hpa], G20) == []


S7 = "hpa-custom-metric-is-served"

# kevinmeix1/kserve-model-serving-platform kserve/llm-inference-readiness.yaml at 4ff90273fe3f2c0a6d60051dcbf30a173ad1a34b
# (held-out set 17, labelled S7 advisory): Pods metrics vllm_time_per_output_token_ms and vllm_kv_cache_utilization, no
# adapter rule in the repository.
DECODE_HPA = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "policy-assistant-decode", "namespace": "mlops-serving"},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "policy-assistant-decode"},
        "minReplicas": 3,
        "maxReplicas": 12,
        "metrics": [
            {
                "type": "Pods",
                "pods": {
                    "metric": {"name": "vllm_time_per_output_token_ms"},
                    "target": {"type": "AverageValue", "averageValue": "65"},
                },
            },
            {
                "type": "Pods",
                "pods": {
                    "metric": {"name": "vllm_kv_cache_utilization"},
                    "target": {"type": "AverageValue", "averageValue": "750m"},
                },
            },
        ],
    },
}


def test_hpa_metric_named_for_no_vllm_series_is_advice():
    found = found_by([DECODE_HPA], S7)
    assert [level for level, _ in found] == ["advisory", "advisory"]
    assert found[0][1].startswith("spec.metrics[0].pods.metric.name vllm_time_per_output_token_ms matches no vllm series")
    assert found[1][1].startswith("spec.metrics[1].pods.metric.name vllm_kv_cache_utilization matches no vllm series")


def test_the_usual_adapter_rename_gets_only_the_no_adapter_advice():
    """vllm_num_requests_waiting is how Prometheus Adapter rules commonly rename vllm:num_requests_waiting (the KServe
    docs' form): not a misnamed series; with no adapter in the files, only the no-adapter advice (brief autoscale50)."""
    renamed = copy.deepcopy(DECODE_HPA)
    renamed["spec"]["metrics"] = [
        {
            "type": "Pods",
            "pods": {"metric": {"name": "vllm_num_requests_waiting"}, "target": {"type": "AverageValue", "averageValue": "5"}},
        }
    ]
    found = found_by([renamed], S7)
    assert [level for level, _ in found] == ["advisory"]
    assert "vllm_num_requests_waiting: the files hold no Prometheus Adapter configuration" in found[0][1]
    other = copy.deepcopy(DECODE_HPA)
    for metric in other["spec"]["metrics"]:
        metric["pods"]["metric"]["name"] = "inference_queue_depth"
    assert all("matches no" not in m for _, m in found_by([other], S7))


S6_THROUGHPUT = "autoscaling-signal-not-throughput"

# jdluther2025/aiml-on-aws-eks-with-nim-operator nim/nimservices.yaml at 3e88c1248624e2508393ad5a586c42e29055af65
# (held-out set 17, labelled S6;S7 advisory): a GPU
# NIMService whose spec.scale.hpa scales on the Object metric request_success_total of its Service, target Value 10.
NIM = {
    "apiVersion": "apps.nvidia.com/v1alpha1",
    "kind": "NIMService",
    "metadata": {"name": "meta-llama-3-2-1b-instruct", "namespace": "nim-service"},
    "spec": {
        "image": {"repository": "nvcr.io/nim/meta/llama-3.2-1b-instruct", "tag": "1.6.0"},
        "authSecret": "ngc-api-secret",
        "replicas": 1,
        "resources": {"limits": {"nvidia.com/gpu": 1}},
        "expose": {"service": {"type": "ClusterIP", "port": 8000}},
        "scale": {
            "enabled": True,
            "hpa": {
                "maxReplicas": 3,
                "minReplicas": 1,
                "metrics": [
                    {
                        "type": "Object",
                        "object": {
                            "metric": {"name": "request_success_total"},
                            "describedObject": {"apiVersion": "v1", "kind": "Service", "name": "meta-llama-3-2-1b-instruct"},
                            "target": {"type": "Value", "value": 10},
                        },
                    }
                ],
            },
        },
    },
}


def test_nim_hpa_on_a_success_counter_is_advice():
    (only,) = found_by([NIM], S6_THROUGHPUT)
    assert only[0] == "advisory"
    assert only[1].startswith("spec.scale.hpa.metrics[0].object: metric request_success_total is a throughput rate (served")


def test_nim_hpa_on_queue_depth_or_disabled_stays_silent():
    queue = copy.deepcopy(NIM)
    queue["spec"]["scale"]["hpa"]["metrics"][0]["object"]["metric"]["name"] = "num_requests_waiting"
    assert found_by([queue], S6_THROUGHPUT) == []
    off = copy.deepcopy(NIM)
    off["spec"]["scale"]["enabled"] = False
    assert found_by([off], S6_THROUGHPUT) == []
