"""S64 scraped-server-serves-metrics: a scraped model server serves metrics where it is scraped.

Facts (components/serving_engines.toml, sources.metrics): ollama/ollama v0.32.15 server/routes.go registers no
/metrics; llama.cpp's llama-server serves /metrics only with --metrics (tools/server/README.md; env
LLAMA_ARG_ENDPOINT_METRICS); SGLang only with --enable-metrics (http_server.py). The firing forms are those brief
engines48 names from fresh sets (an Ollama or llama-server Deployment annotated for a Prometheus scrape, a ServiceMonitor
on it), in the minimal shape of such manifests.
"""

from __future__ import annotations

from policy_fixtures import found_by

POLICY = "scraped-server-serves-metrics"
SCRAPE = {"prometheus.io/scrape": "true", "prometheus.io/port": "8080", "prometheus.io/path": "/metrics"}


def _deployment(container: dict, annotations: dict | None = None, name: str = "llm") -> dict:
    template: dict = {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}}
    if annotations:
        template["metadata"]["annotations"] = annotations
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "llm"},
        "spec": {"selector": {"matchLabels": {"app": name}}, "template": template},
    }


def _llama(*extra: str, env: list | None = None) -> dict:
    container = {
        "name": "llama",
        "image": "ghcr.io/ggml-org/llama.cpp:server-cuda-b6000",
        "args": ["-m", "/models/m.gguf", "--host", "0.0.0.0", "--port", "8080", *extra],
        "ports": [{"name": "http", "containerPort": 8080}],
    }
    if env:
        container["env"] = env
    return container


OLLAMA = {"name": "ollama", "image": "ollama/ollama:0.6.2", "ports": [{"name": "http", "containerPort": 11434}]}


def test_llama_server_without_metrics_scraped_by_annotation_is_advice():
    ((level, message),) = found_by([_deployment(_llama(), SCRAPE)], POLICY)
    assert level == "advisory" and "only when started with --metrics" in message


def test_ollama_scraped_by_a_service_monitor_is_advice():
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "ollama", "namespace": "llm", "labels": {"app": "ollama"}},
        "spec": {"selector": {"app": "ollama"}, "ports": [{"name": "http", "port": 11434, "targetPort": 11434}]},
    }
    monitor = {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "ServiceMonitor",
        "metadata": {"name": "ollama", "namespace": "llm"},
        "spec": {"selector": {"matchLabels": {"app": "ollama"}}, "endpoints": [{"port": "http", "path": "/metrics"}]},
    }
    found = found_by([_deployment(OLLAMA, name="ollama"), service, monitor], POLICY)
    # Said on the workload and on the monitor, whose endpoint is the field to change (session 51).
    assert len(found) == 2 and all(level == "advisory" for level, _ in found)
    assert all("serves no Prometheus metrics at all" in message for _, message in found)
    assert found[1][1].endswith("(pods of Deployment ollama)")


# Spent set 88 amey2025/ollama@26c52f4c7eacd4bbae78893b28b649128a08eea0: prometheus_service_monitor.yaml selects
# app: ollama, which Service ollama (ollama_deployment_nfs.yaml) carries only as its spec.selector (no metadata.labels),
# and scrapes its port http (11434, Ollama's API); the pod's sidecar ollama-metrics is prom/node-exporter on 9100 with
# probes on 11434 misplaced on it. Labelled S64 on the ServiceMonitor; the pod's prometheus.io/port 9100 is a trap.
def _set88():
    ollama = _deployment(OLLAMA, {"prometheus.io/scrape": "true", "prometheus.io/port": "9100"}, name="ollama")
    probe = {"httpGet": {"path": "/", "port": 11434}}
    exporter = {
        "name": "ollama-metrics",
        "image": "prom/node-exporter:v1.7.0",
        "args": ["--path.procfs=/host/proc", "--collector.processes"],
        "ports": [{"containerPort": 9100, "name": "metrics"}],
        "livenessProbe": probe,
        "readinessProbe": probe,
    }
    ollama["spec"]["template"]["spec"]["containers"].append(exporter)
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "ollama", "namespace": "llm"},
        "spec": {
            "selector": {"app": "ollama"},
            "ports": [{"name": "http", "port": 11434, "targetPort": 11434}, {"name": "metrics", "port": 9100}],
        },
    }
    monitor = {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "ServiceMonitor",
        "metadata": {"name": "ollama-metrics", "namespace": "monitoring"},
        "spec": {
            "selector": {"matchLabels": {"app": "ollama"}},
            "namespaceSelector": {"matchNames": ["llm"]},
            "endpoints": [{"port": "http", "path": "/metrics"}],
        },
    }
    return ollama, service, monitor


def test_a_monitor_written_for_the_service_by_its_selector_is_said_on_the_monitor_only():
    ((level, message),) = found_by(list(_set88()), POLICY)
    assert level == "advisory" and "ServiceMonitor ollama-metrics scrapes port 11434 of this Ollama server" in message
    # Through the exporter's port it is silent: the node-exporter sidecar is no Ollama server.
    ollama, service, monitor = _set88()
    monitor["spec"]["endpoints"] = [{"port": "metrics", "path": "/metrics"}]
    assert found_by([ollama, service, monitor], POLICY) == []


def test_careful_forms_stay_silent():
    careful = [
        [_deployment(_llama("--metrics"), SCRAPE)],
        [_deployment(_llama(env=[{"name": "LLAMA_ARG_ENDPOINT_METRICS", "value": "1"}]), SCRAPE)],
        [_deployment(_llama())],  # nothing scrapes it
        [_deployment(_llama("$(EXTRA_ARGS)"), SCRAPE)],
    ]
    # An exporter sidecar on the scraped port answers for the server.
    exporter = {"name": "exporter", "image": "acme/ollama-exporter:1.0", "ports": [{"containerPort": 9400}]}
    sidecar = _deployment(OLLAMA, {"prometheus.io/scrape": "true", "prometheus.io/port": "9400"}, name="ollama")
    sidecar["spec"]["template"]["spec"]["containers"].append(exporter)
    careful.append([sidecar])
    for objects in careful:
        assert found_by(objects, POLICY) == [], objects
