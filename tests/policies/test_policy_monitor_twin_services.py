"""G42 monitor-selects-targets: a ServiceMonitor over two Services that front the same pods on the same port (a Service
and its headless twin) scrapes every pod twice (prometheus-operator v0.93.0 pkg/prometheus/promcfg.go:2139-2140,
:2177-2181 set service and job from each Service's name)."""

from __future__ import annotations

from policy_fixtures import found_by

POLICY = "monitor-selects-targets"
NS = "llm-inference"


def _service(name: str, labels: dict, headless: bool = False, target: int | str = 8000) -> dict:
    spec: dict = {"selector": {"app": "vllm"}, "ports": [{"name": "http", "port": 8000, "targetPort": target}]}
    if headless:
        spec["clusterIP"] = "None"
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": NS, "labels": labels}, "spec": spec}


_DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm-server", "namespace": NS},
    "spec": {
        "replicas": 3,
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {
                "containers": [
                    {"name": "vllm", "image": "vllm/vllm-openai:v0.10.1", "ports": [{"name": "http", "containerPort": 8000}]}
                ]
            },
        },
    },
}
_MONITOR = {
    "apiVersion": "monitoring.coreos.com/v1",
    "kind": "ServiceMonitor",
    "metadata": {"name": "vllm-metrics", "namespace": NS},
    "spec": {"selector": {"matchLabels": {"app": "vllm"}}, "endpoints": [{"port": "http", "path": "/metrics"}]},
}


def test_a_service_and_its_headless_twin_are_scraped_twice():
    # Minimal form of Ting-YuChou/LLM-Infrastructure-mvp k8s/deployments/vllm-deployment.yaml@a4516497828cb8eec6bc09e93d171e58376d225b
    # (spent set 38, labelled "none" advisory): vllm-service and vllm-headless both labelled app=vllm with port http.
    objs = [_DEPLOYMENT, _service("vllm-service", {"app": "vllm"}), _service("vllm-headless", {"app": "vllm"}, True), _MONITOR]
    ((level, message),) = found_by(objs, POLICY)
    assert level == "advisory" and "vllm-service and Service/vllm-headless" in message and "scraped twice" in message


def test_careful_forms_stay_silent():
    # The headless twin labelled apart (only one Service carries the monitor's label), or the two on different pod ports.
    apart = [
        _DEPLOYMENT,
        _service("vllm-service", {"app": "vllm"}),
        _service("vllm-headless", {"app": "vllm-peers"}, True),
        _MONITOR,
    ]
    assert found_by(apart, POLICY) == []
    other_port = [
        _DEPLOYMENT,
        _service("vllm-service", {"app": "vllm"}),
        _service("vllm-metrics", {"app": "vllm"}, target=9090),
        _MONITOR,
    ]
    assert found_by(other_port, POLICY) == []
