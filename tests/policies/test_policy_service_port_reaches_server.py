"""S51 service-port-reaches-server: a Service port sent where nothing in the selected model-server pods listens.

Fixture: spent set 26 FawwadAhmed11/llm-serving-infra k8s/vllm/service.yaml and k8s/vllm/deployment.yaml
@dac7501ceacbfe59eba2920c62e23b273c6c130c: Service/vllm-service port metrics 8001 -> targetPort 8001 on a pod whose
only container runs vLLM with --port 8000 (it declares containerPort 8001 "metrics", which opens nothing): vLLM serves
/metrics on its API port (engine table, components/serving_engines.toml metrics_port), so the scrape is refused
(labelled none, advisory).
Second form: vllm-project/aibrix samples/autoscaling/deploy.yaml@e3e10f9 (reference corpus; pinned in
tests/policies/test_policy_corpus.py): Service port 8080 -> 8080 on a pod whose only container runs vllm serve
--port 8000 (the AIBrix runtime sidecar that serves 8080 in other samples is not in it).
Careful forms, silent: a targetPort equal to the engine's default port with no containerPort declared; a port a
sidecar container serves; a container that starts the server from a shell (a Ray head may listen beside it); a named
targetPort a container declares.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

_POLICY = "service-port-reaches-server"

_DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm", "namespace": "default"},
    "spec": {
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:latest",
                        "args": ["--model", "Qwen/Qwen2.5-0.5B-Instruct", "--port", "8000", "--max-model-len", "2048"],
                        "ports": [{"containerPort": 8000, "name": "http"}, {"containerPort": 8001, "name": "metrics"}],
                        "resources": {"limits": {"nvidia.com/gpu": "1"}},
                    }
                ]
            },
        },
    },
}


def _service(*ports: dict) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "vllm-service", "namespace": "default"},
        "spec": {"selector": {"app": "vllm"}, "ports": list(ports)},
    }


_HTTP = {"name": "http", "port": 80, "targetPort": 8000}
_METRICS = {"name": "metrics", "port": 8001, "targetPort": 8001}


def test_a_metrics_port_where_vllm_does_not_listen_is_advice():
    found = found_by([_DEPLOYMENT, _service(_HTTP, _METRICS)], _POLICY)
    assert found == [
        (
            "advisory",
            "spec.ports: port 8001 targets 8001 on the pods of Deployment/vllm, where vLLM listens on 8000 only (its "
            "metrics too) and no other container runs, so connections to it are refused (a containerPort declares "
            "nothing; the server's port setting decides); target 8000",
        )
    ]


def test_a_named_target_no_container_declares_is_advice():
    found = found_by([_DEPLOYMENT, _service({"port": 9000, "targetPort": "prometheus"})], _POLICY)
    assert [m for _, m in found] == [
        "spec.ports: port 9000 targets the named port prometheus, which no container of Deployment/vllm declares, so "
        "the Service has no endpoint on it"
    ]


def test_the_engine_default_port_without_a_container_port_is_silent():
    deployment = copy.deepcopy(_DEPLOYMENT)
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    container["args"] = ["--model", "Qwen/Qwen2.5-0.5B-Instruct"]
    del container["ports"]
    assert found_by([deployment, _service({"port": 80, "targetPort": 8000})], _POLICY) == []
    assert found_by([_DEPLOYMENT, _service(_HTTP, {"port": 8000, "targetPort": "http"})], _POLICY) == []


def test_a_sidecar_port_is_silent():
    deployment = copy.deepcopy(_DEPLOYMENT)
    deployment["spec"]["template"]["spec"]["containers"].append(
        {"name": "exporter", "image": "prom/statsd-exporter:v0.26.0", "ports": [{"containerPort": 8001}]}
    )
    assert found_by([deployment, _service(_HTTP, _METRICS)], _POLICY) == []


def test_a_server_started_from_a_shell_is_silent():
    deployment = copy.deepcopy(_DEPLOYMENT)
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    container["command"] = ["/bin/sh", "-c"]
    container["args"] = ["ray start --head --port=6379 && vllm serve Qwen/Qwen2.5-0.5B-Instruct --port 8000"]
    assert found_by([deployment, _service(_HTTP, {"port": 6379, "targetPort": 6379})], _POLICY) == []
