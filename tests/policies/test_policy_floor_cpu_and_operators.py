"""G15 hpa-min-replicas-floor on a model server that runs on CPU, and on the HPA an operator renders from its own block.

Forms (spent sets, labels G15 missed at stop 53):
- set 114 SecureCloudOps/llm-rag-infra-platform@5c772f91cfa74806d2476c25c296b941f65bb1c0 k8s/vllm/hpa.yaml: HPA vllm,
  minReplicas 1, on k8s/vllm/deployment.yaml's Deployment vllm (vllm/vllm-openai, no GPU): S8 leaves a CPU engine's
  windows alone, but the one replica still loads a model for minutes after a restart.
- set 113 redhat-na-ssa/nvaie-guide@d661aa19c9c9bff654304b5b2ce6ffc616883bc8 configs/software/nim/meta-service-hpa.yaml:
  NIMService meta-llama3-8b-instruct with scale.enabled and scale.hpa.minReplicas 1 (the NIM operator renders that
  block as the Deployment's HPA verbatim: k8s-nim-operator v3.1.2 api/apps/v1alpha1/nimservice_types.go:1698-1724).
"""

from __future__ import annotations

from policy_fixtures import found_by

FLOOR = "hpa-min-replicas-floor"


def cpu_vllm():
    container = {"name": "vllm", "image": "vllm/vllm-openai:latest", "args": ["--model", "Qwen/Qwen2.5-0.5B-Instruct"]}
    container["resources"] = {"requests": {"cpu": "500m"}, "limits": {"cpu": "1"}}
    spec = {"selector": {"matchLabels": {"app": "vllm"}}, "template": {"metadata": {"labels": {"app": "vllm"}}}}
    spec["template"]["spec"] = {"containers": [container]}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "vllm", "namespace": "ai-system"}, "spec": spec}


def cpu_hpa(minimum=1):
    spec = {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "vllm"},
        "minReplicas": minimum,
        "maxReplicas": 3,
        "metrics": [
            {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 75}}}
        ],
    }
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "vllm", "namespace": "ai-system"},
        "spec": spec,
    }


def nim_service(hpa=None, enabled=True):
    spec = {
        "image": {"repository": "nvcr.io/nim/meta/llama-3.1-8b-instruct", "tag": "1.3.3"},
        "authSecret": "ngc-api-secret",
        "replicas": 1,
        "resources": {"limits": {"nvidia.com/gpu": 1}},
        "expose": {"service": {"type": "ClusterIP", "port": 8000}},
        "scale": {"enabled": enabled, "hpa": hpa if hpa is not None else {"maxReplicas": 2, "minReplicas": 1}},
    }
    return {
        "apiVersion": "apps.nvidia.com/v1alpha1",
        "kind": "NIMService",
        "metadata": {"name": "meta-llama3-8b-instruct"},
        "spec": spec,
    }


def test_cpu_engine_target_gets_the_floor():
    ((level, message),) = found_by([cpu_vllm(), cpu_hpa()], FLOOR)
    assert level == "advisory" and message.startswith("spec.minReplicas = 1: the autoscaler may hold this model server")


def test_nim_service_stated_floor():
    ((level, message),) = found_by([nim_service()], FLOOR)
    assert level == "advisory" and message.startswith("spec.scale.hpa.minReplicas = 1: the autoscaler may hold")


def test_careful_forms_are_silent():
    assert found_by([cpu_vllm(), cpu_hpa(minimum=2)], FLOOR) == []
    assert found_by([nim_service({"maxReplicas": 4, "minReplicas": 2})], FLOOR) == []
    assert found_by([nim_service({"maxReplicas": 4})], FLOOR) == []  # the operator's unstated default: its choice
    assert found_by([nim_service(enabled=False)], FLOOR) == []  # no HPA rendered
    # A KServe predictor that states no floor: KServe's default 1 is left to S5/S8, not called out here.
    isvc = {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "llm", "annotations": {"serving.kserve.io/deploymentMode": "RawDeployment"}},
        "spec": {
            "predictor": {
                "maxReplicas": 3,
                "model": {"modelFormat": {"name": "huggingface"}, "resources": {"limits": {"nvidia.com/gpu": 1}}},
            }
        },
    }
    assert found_by([isvc], FLOOR) == []
    isvc["spec"]["predictor"]["minReplicas"] = 2
    assert found_by([isvc], FLOOR) == []
    isvc["spec"]["predictor"]["minReplicas"] = 1
    ((_, message),) = found_by([isvc], FLOOR)
    assert message.startswith("spec.predictor.minReplicas = 1")


def test_bad_input_is_silent():
    assert found_by([nim_service({"maxReplicas": 2, "minReplicas": "{{ .Values.min }}"})], FLOOR) == []
    assert found_by([nim_service({"maxReplicas": 2, "minReplicas": [1]})], FLOOR) == []
