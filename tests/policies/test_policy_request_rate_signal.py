"""S6 autoscaling-signal-not-throughput widened: a generic request counter (HTTP handler, Istio, ingress-nginx, cloud
load balancer) or Knative's rps metric scaling an LLM server is advice; the same counter on a web tier stays silent."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "autoscaling-signal-not-throughput"


def found(objs: list[dict], config=None) -> list[tuple[str, str]]:
    return found_by(objs, POLICY, config)


def scaled_object(name: str, target: str, query: str) -> dict:
    return {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": name, "namespace": "operator-powercapping-system"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": target},
            "minReplicaCount": 1,
            "maxReplicaCount": 10,
            "triggers": [
                {
                    "type": "prometheus",
                    "metadata": {
                        "serverAddress": "http://prometheus-k8s.monitoring.svc.cluster.local:9090",
                        "metricName": "http_requests_total",
                        "query": query,
                        "threshold": "100",
                    },
                }
            ],
        },
    }


# Climatik-Project/Climatik-Project deploy/climatik-operator/manifests/scaleobject.yaml at
# afd7ca58a8c2a36dbff7517020f9a95587537008: KEDA scales Deployment mistral-7b on sum(rate(http_requests_total[2m])),
# threshold 100; the Deployment is in another file.
MISTRAL_SO = scaled_object("mistral-7b-scaleobject", "mistral-7b", 'sum(rate(http_requests_total{job="http"}[2m]))')


def test_a_request_rate_on_a_model_server_named_elsewhere_is_advice():
    assert found([MISTRAL_SO]) == [
        (
            "advisory",
            "spec.triggers[0]: prometheus trigger scales on the rate of http_requests_total (its target is in no file "
            "read, but scaleTargetRef.name 'mistral-7b' names a model server (mistral)): the counter counts answered "
            "requests, so its rate levels off once the replicas saturate while the queue keeps growing, and a streamed "
            "answer counts only when it ends, tens of seconds after its load arrived; scale on queue depth "
            "(vllm:num_requests_waiting) or running requests",
        )
    ]


def gpu_vllm(name: str) -> dict:
    labels = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "llm"},
        "spec": {
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "containers": [
                        {
                            "name": "vllm",
                            "image": "vllm/vllm-openai:v0.22.1",
                            "args": ["--model=Qwen/Qwen2.5-7B-Instruct"],
                            "resources": {"limits": {"nvidia.com/gpu": "1"}},
                        }
                    ]
                },
            },
        },
    }


def hpa(target: str, metric: dict) -> dict:
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": f"{target}-hpa", "namespace": "llm"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": target},
            "minReplicas": 1,
            "maxReplicas": 4,
            "metrics": [metric],
        },
    }


def test_istio_and_ingress_request_rates_on_a_gpu_server_of_the_files_are_advice():
    # The prometheus-adapter's default rename of istio_requests_total, as a Pods metric; the target runs vLLM on a GPU.
    istio = hpa(
        "vllm",
        {
            "type": "Pods",
            "pods": {"metric": {"name": "istio_requests_per_second"}, "target": {"type": "AverageValue", "averageValue": "5"}},
        },
    )
    ((level, message),) = found([gpu_vllm("vllm"), istio])
    assert level == "advisory"
    assert message.startswith(
        "spec.metrics[0].pods: metric istio_requests_per_second is a request rate (its target is a GPU model server)"
    )
    nginx = scaled_object("vllm-so", "vllm", 'sum(rate(nginx_ingress_controller_requests{ingress="vllm"}[1m]))')
    nginx["metadata"]["namespace"] = "llm"
    ((_, message),) = found([gpu_vllm("vllm"), nginx])
    assert "prometheus trigger scales on the rate of nginx_ingress_controller_requests" in message
    alb = copy.deepcopy(nginx)
    alb["spec"]["triggers"] = [
        {"type": "aws-cloudwatch", "metadata": {"namespace": "AWS/ApplicationELB", "metricName": "RequestCountPerTarget"}}
    ]
    ((_, message),) = found([gpu_vllm("vllm"), alb])
    assert "aws-cloudwatch trigger scales on the rate of RequestCountPerTarget" in message


# Climatik-Project/Climatik-Project deploy/climatik-operator/manifests/deployment-mistral-7b.yaml at afd7ca58: the
# Deployment the ScaledObject names is an nginx:latest placeholder, no GPU. kedacore/keda docs/content/scalers/
# prometheus.md: the scaler's own sample, sum(rate(http_requests_total{deployment="my-deployment"}[2m])) on a web app.
NGINX_MISTRAL = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "mistral-7b", "namespace": "operator-powercapping-system"},
    "spec": {
        "selector": {"matchLabels": {"app": "mistral-7b"}},
        "template": {
            "metadata": {"labels": {"app": "mistral-7b"}},
            "spec": {"containers": [{"name": "mistral-7b", "image": "nginx:latest", "ports": [{"containerPort": 80}]}]},
        },
    },
}


def test_a_request_rate_on_a_web_tier_or_a_queue_metric_is_silent():
    keda_sample = scaled_object(
        "prometheus-scaledobject", "my-deployment", 'sum(rate(http_requests_total{deployment="my-deployment"}[2m]))'
    )
    # The counter itself, not its rate, is no signal this rule reads (a gauge-like query of the total).
    total_only = scaled_object("llama-so", "llama2-7b", "sum(http_requests_total)")
    waiting = scaled_object("vllm-so", "vllm", "sum(vllm:num_requests_waiting)")
    assert found([MISTRAL_SO, NGINX_MISTRAL, keda_sample, total_only, waiting]) == []


def knative_service(annotations: dict) -> dict:
    return {
        "apiVersion": "serving.knative.dev/v1",
        "kind": "Service",
        "metadata": {"name": "vllm-gemma", "namespace": "llm"},
        "spec": {
            "template": {
                "metadata": {"annotations": annotations},
                "spec": {
                    "containers": [
                        {
                            "image": "vllm/vllm-openai:v0.8.5",
                            "args": ["--model=google/gemma-2-2b-it"],
                            "resources": {"limits": {"nvidia.com/gpu": "1"}},
                        }
                    ]
                },
            }
        },
    }


def test_knative_rps_on_a_model_server_is_advice_and_concurrency_is_silent():
    rps = knative_service({"autoscaling.knative.dev/metric": "rps", "autoscaling.knative.dev/target": "10"})
    ((level, message),) = found([rps])
    assert level == "advisory"
    assert message.startswith(
        "spec.template.metadata.annotations: autoscaling.knative.dev/metric is rps, so Knative's KPA scales this model "
        "server on requests per second: an LLM request holds a batch slot"
    )
    isvc = {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "llama", "namespace": "llm", "annotations": {"serving.kserve.io/deploymentMode": "Serverless"}},
        "spec": {
            "predictor": {
                "scaleMetric": "rps",
                "scaleTarget": 5,
                "model": {"modelFormat": {"name": "huggingface"}, "resources": {"limits": {"nvidia.com/gpu": "1"}}},
            }
        },
    }
    ((_, message),) = found([isvc])
    assert message.startswith("spec.predictor.scaleMetric is rps: deploymentMode Serverless (annotation)")
    concurrency = knative_service({"autoscaling.knative.dev/metric": "concurrency", "autoscaling.knative.dev/target": "32"})
    raw = copy.deepcopy(isvc)
    raw["metadata"]["annotations"]["serving.kserve.io/deploymentMode"] = "RawDeployment"
    assert found([concurrency, raw]) == []
