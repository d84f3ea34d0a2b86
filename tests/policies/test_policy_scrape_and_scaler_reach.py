"""G82 scrape-and-scaler-reach: a KEDA prometheus trigger asks Prometheus's query API, and the NetworkPolicies isolating a
model server admit the port Prometheus scrapes.

KEDA's prometheus scaler GETs <serverAddress>/api/v1/query (kedacore/keda v2.20.2 pkg/scalers/prometheus_scaler.go:207)
and fails on any status outside 2xx (:246-250). Fires: a serverAddress ending in /metrics, and one naming the vLLM
Service of the run; a Triton Deployment (ports 8000 http, 8001 grpc, 8002 metrics) isolated by a default-deny-ingress
policy plus an allow from the gateway on 8000/8001 only, scraped on 8002 by a PodMonitor and scaled by an HPA on
nv_inference_queue_duration_us (mandatory), and the same with no autoscaler (advice).
Silent: Samir-Kesare/DevOps-Optimization template.md (serverAddress
http://rancher-monitoring-devops-prometheus.cattle-monitoring-system:9090), a Service of the run selecting a
Prometheus, a policy admitting the metrics port from the monitoring namespace, a rule with no ports.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

_NS = "llm"
_VLLM = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm", "namespace": _NS},
    "spec": {
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.11.0",
                        "args": ["--model", "Qwen/Qwen2.5-1.5B-Instruct"],
                        "ports": [{"containerPort": 8000, "name": "http"}],
                        "resources": {"limits": {"nvidia.com/gpu": "1"}},
                    }
                ]
            },
        },
    },
}
_VLLM_SVC = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "vllm-service", "namespace": _NS},
    "spec": {"selector": {"app": "vllm"}, "ports": [{"name": "http", "port": 8000, "targetPort": 8000}]},
}


def _scaled(address: str) -> dict:
    return {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": "vllm-scaler", "namespace": _NS},
        "spec": {
            "scaleTargetRef": {"name": "vllm"},
            "triggers": [
                {
                    "type": "prometheus",
                    "metadata": {
                        "serverAddress": address,
                        "query": "sum(vllm:num_requests_waiting)",
                        "threshold": "5",
                    },
                }
            ],
        },
    }


_TRITON = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "triton", "namespace": _NS},
    "spec": {
        "selector": {"matchLabels": {"app": "triton"}},
        "template": {
            "metadata": {"labels": {"app": "triton"}},
            "spec": {
                "containers": [
                    {
                        "name": "triton",
                        "image": "nvcr.io/nvidia/tritonserver:25.01-py3",
                        "command": ["tritonserver", "--model-repository=s3://models/repo"],
                        "ports": [
                            {"containerPort": 8000, "name": "http"},
                            {"containerPort": 8001, "name": "grpc"},
                            {"containerPort": 8002, "name": "metrics"},
                        ],
                        "resources": {"limits": {"nvidia.com/gpu": "1"}},
                    }
                ]
            },
        },
    },
}
_DENY = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "NetworkPolicy",
    "metadata": {"name": "default-deny-ingress", "namespace": _NS},
    "spec": {"podSelector": {}, "policyTypes": ["Ingress"]},
}
_FROM_GATEWAY = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "NetworkPolicy",
    "metadata": {"name": "allow-gateway", "namespace": _NS},
    "spec": {
        "podSelector": {"matchLabels": {"app": "triton"}},
        "ingress": [
            {
                "from": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "gateway"}}}],
                "ports": [{"port": 8000}, {"port": 8001}],
            }
        ],
    },
}
_POD_MONITOR = {
    "apiVersion": "monitoring.coreos.com/v1",
    "kind": "PodMonitor",
    "metadata": {"name": "triton", "namespace": _NS},
    "spec": {"selector": {"matchLabels": {"app": "triton"}}, "podMetricsEndpoints": [{"port": "metrics"}]},
}
_HPA = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "triton", "namespace": _NS},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "triton"},
        "minReplicas": 1,
        "maxReplicas": 4,
        "metrics": [
            {
                "type": "Pods",
                "pods": {
                    "metric": {"name": "nv_inference_queue_duration_us"},
                    "target": {"type": "AverageValue", "averageValue": "50000"},
                },
            }
        ],
    },
}


def test_a_trigger_on_a_metrics_page_or_a_model_server_blocks():
    ((level, message),) = found_by([_VLLM, _VLLM_SVC, _scaled("http://vllm-service:8000/metrics")], "scrape-and-scaler-reach")
    assert level == "mandatory"
    assert "asks http://vllm-service:8000/metrics/api/v1/query" in message
    address = "http://vllm-service.llm.svc.cluster.local:8000"
    ((level, message),) = found_by([_VLLM, _VLLM_SVC, _scaled(address)], "scrape-and-scaler-reach")
    assert level == "mandatory"
    assert "whose pods are the model server Deployment/vllm, not Prometheus" in message


def _on_policies(found):
    """The findings said on the NetworkPolicies: a namespace-wide policy's finding is said on the workload too, as advice
    starting "NetworkPolicy <name> ..." (session 51, spent set 62 david66l/travelagent3, labelled G82 on the vLLM
    Deployment)."""
    return [f for f in found if not f[1].startswith("NetworkPolicy ")]


def test_a_dropped_scrape_under_an_autoscaler_blocks():
    found = found_by([_TRITON, _DENY, _FROM_GATEWAY, _POD_MONITOR, _HPA], "scrape-and-scaler-reach")
    ((level, message),) = _on_policies(found)
    assert level == "mandatory"
    assert "admits port 8002 (metrics), which PodMonitor triton scrapes" in message
    assert "HorizontalPodAutoscaler triton" in message
    ((copy_level, copy_message),) = [f for f in found if f not in _on_policies(found)]
    assert copy_level == "advisory" and copy_message.endswith(message)
    ((level, _),) = _on_policies(found_by([_TRITON, _DENY, _FROM_GATEWAY, _POD_MONITOR], "scrape-and-scaler-reach"))
    assert level == "advisory"  # only dashboards read it
    annotated = copy.deepcopy(_TRITON)
    annotated["spec"]["template"]["metadata"]["annotations"] = {"prometheus.io/scrape": "true", "prometheus.io/port": "8002"}
    ((level, message),) = _on_policies(found_by([annotated, _DENY, _FROM_GATEWAY, _HPA], "scrape-and-scaler-reach"))
    assert level == "mandatory" and "the annotation prometheus.io/port" in message


def test_careful_forms_stay_silent():
    rancher = "http://rancher-monitoring-devops-prometheus.cattle-monitoring-system:9090"
    assert found_by([_VLLM, _VLLM_SVC, _scaled(rancher)], "scrape-and-scaler-reach") == []
    prometheus = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "prometheus", "namespace": _NS},
        "spec": {
            "selector": {"matchLabels": {"app": "prometheus"}},
            "template": {
                "metadata": {"labels": {"app": "prometheus"}},
                "spec": {"containers": [{"name": "prometheus", "image": "prom/prometheus:v3.5.0"}]},
            },
        },
    }
    prom_svc = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "prometheus", "namespace": _NS},
        "spec": {"selector": {"app": "prometheus"}, "ports": [{"port": 9090}]},
    }
    assert found_by([_VLLM, prometheus, prom_svc, _scaled("http://prometheus:9090")], "scrape-and-scaler-reach") == []
    from_monitoring = copy.deepcopy(_FROM_GATEWAY)
    from_monitoring["spec"]["ingress"].append(
        {
            "from": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}}],
            "ports": [{"port": "metrics"}],
        }
    )
    assert found_by([_TRITON, _DENY, from_monitoring, _POD_MONITOR, _HPA], "scrape-and-scaler-reach") == []
    any_port = copy.deepcopy(_FROM_GATEWAY)
    del any_port["spec"]["ingress"][0]["ports"]
    assert found_by([_TRITON, _DENY, any_port, _POD_MONITOR, _HPA], "scrape-and-scaler-reach") == []
    # Not isolated for Ingress: nothing to drop.
    assert found_by([_TRITON, _POD_MONITOR, _HPA], "scrape-and-scaler-reach") == []
