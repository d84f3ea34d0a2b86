"""G61 proxy-backend-in-pod: a LiteLLM route to localhost in a proxy pod that runs no model server.

Fixture: spent set 28 paytm-temp/deepseek-using-vllm-on-eks llm-proxy/litellm-config.yaml and
llm-proxy/litellm-proxy.yaml @21da7bc: ConfigMap/litellm-config routes gpt-3.5-turbo to http://localhost:8000/v1 and
Deployment/litellm-proxy mounts it and runs only ghcr.io/berriai/litellm on 8080 (labelled none, blocking). A second
spelling of the class (127.0.0.1 and Ollama's port) is written here; no other repository's form was found (public
LiteLLM configs with localhost routes are for a proxy run beside the server on one host, where localhost is right).
Careful forms, silent: the model server in the proxy's pod (a sidecar); a route to a Service; a ConfigMap no workload
of the files mounts.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

_POLICY = "proxy-backend-in-pod"


def _config(api_base: str) -> dict:
    text = (
        "model_list:\n"
        "  - model_name: gpt-3.5-turbo\n"
        "    litellm_params:\n"
        "      model: local-model\n"
        f'      api_base: "{api_base}"\n'
        "router_settings:\n"
        "  num_retries: 3\n"
    )
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "litellm-config"}, "data": {"config.yaml": text}}


_PROXY = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "litellm-proxy"},
    "spec": {
        "selector": {"matchLabels": {"app": "litellm-proxy"}},
        "template": {
            "metadata": {"labels": {"app": "litellm-proxy"}},
            "spec": {
                "containers": [
                    {
                        "name": "litellm-proxy",
                        "image": "ghcr.io/berriai/litellm:main",
                        "ports": [{"containerPort": 8080}],
                        "env": [{"name": "PORT", "value": "8080"}],
                        "volumeMounts": [{"name": "config-volume", "mountPath": "/app/config"}],
                    }
                ],
                "volumes": [{"name": "config-volume", "configMap": {"name": "litellm-config"}}],
            },
        },
    },
}


def test_a_route_to_localhost_in_a_proxy_pod_without_a_model_server_is_advice():
    found = found_by([_config("http://localhost:8000/v1"), _PROXY], _POLICY)
    assert found == [
        (
            "advisory",
            "data.config.yaml model_list[0] (gpt-3.5-turbo): api_base http://localhost:8000/v1 is the proxy pod's own "
            "address, and no container of Deployment/litellm-proxy (which mounts this ConfigMap) is a model server or "
            "declares port 8000: every completion on this route fails with a connection error; point api_base at the "
            "model server's Service (http://SERVICE.NAMESPACE.svc.cluster.local:PORT/v1)",
        )
    ]


def test_the_loopback_address_spelling_is_read_too():
    found = found_by([_config("http://127.0.0.1:11434"), _PROXY], _POLICY)
    assert len(found) == 1 and "declares port 11434" in found[0][1]


def test_a_model_server_in_the_proxy_pod_is_silent():
    proxy = copy.deepcopy(_PROXY)
    proxy["spec"]["template"]["spec"]["containers"].append(
        {"name": "vllm", "image": "vllm/vllm-openai:v0.9.1", "args": ["--model", "Qwen/Qwen2.5-0.5B-Instruct"]}
    )
    assert found_by([_config("http://localhost:8000/v1"), proxy], _POLICY) == []


def test_a_route_to_a_service_is_silent():
    assert found_by([_config("http://vllm.default.svc.cluster.local:8000/v1"), _PROXY], _POLICY) == []


def test_a_config_no_workload_mounts_is_silent():
    assert found_by([_config("http://localhost:8000/v1")], _POLICY) == []
