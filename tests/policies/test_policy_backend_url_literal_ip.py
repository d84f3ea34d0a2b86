"""G106 backend-url-literal-ip: a client's backend URL is a literal IP address, not the Service in front of the server.

Fires (spent-set forms, labels filed none):
- set 86 alexmachulsky/devops-chatbot@3763600178d5f2925fdb1c7be5f93832b7a8ce5a k8s/deployment.yaml: OLLAMA_URL
  http://192.168.18.241:11434 while k8s/ollama-deployment.yaml defines Service ollama on 11434;
- set 66 agud97/k8s-vllm@783a7904867002eaae1136790946b97e4e121b8e gitops/apps/litellm/configmap.yaml: LiteLLM
  api_base http://89.108.125.7:32090/v1, the NodePort of Service qwen35-122b-public on a node's public address;
- set 89 sfugarino/manifests open-webui/deployment.yaml: OTEL_EXPORTER_OTLP_ENDPOINT http://198.168.1.101:4317, plain
  http to a public address.
Silent: a private address on a port no Service of the files offers (a LAN appliance), https to a public address, the
Service's DNS name, loopback, the link-local metadata address, a NO_PROXY list.
"""

from __future__ import annotations

from tests.policies.policy_fixtures import found_by

_POLICY = "backend-url-literal-ip"


def _deployment(name: str, env: list[dict], volumes: list | None = None, mounts: list | None = None) -> dict:
    container: dict = {"name": name, "image": f"example/{name}:1.0", "env": env}
    spec: dict = {"containers": [container]}
    if volumes:
        spec["volumes"] = volumes
        container["volumeMounts"] = mounts
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "llm"},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": spec},
        },
    }


def _service(name: str, port: int, node_port: int | None = None) -> dict:
    ports: dict = {"name": "http", "port": port, "targetPort": port}
    spec: dict = {"selector": {"app": name}, "ports": [ports]}
    if node_port:
        spec["type"] = "NodePort"
        ports["nodePort"] = node_port
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": "llm"}, "spec": spec}


_OLLAMA = _service("ollama", 11434)


def test_a_lan_address_on_the_port_of_a_service_of_the_files_is_advice():
    chatbot = _deployment("chatbot", [{"name": "OLLAMA_URL", "value": "http://192.168.18.241:11434"}])
    [(level, message)] = found_by([chatbot, _OLLAMA], _POLICY)
    assert level == "advisory"
    assert message.startswith(
        "container chatbot env OLLAMA_URL = http://192.168.18.241:11434 names its backend by the literal address "
        "192.168.18.241, while Service ollama of the files offers port 11434"
    )
    # careful: the Service's DNS name
    named = _deployment("chatbot", [{"name": "OLLAMA_URL", "value": "http://ollama.llm.svc.cluster.local:11434"}])
    assert found_by([named, _OLLAMA], _POLICY) == []
    # careful: a LAN host on a port no Service of the files offers (an appliance outside the cluster)
    appliance = _deployment("chatbot", [{"name": "OLLAMA_URL", "value": "http://192.168.18.241:11434"}])
    assert found_by([appliance, _service("web", 8080)], _POLICY) == []


def test_a_litellm_api_base_on_a_node_address_and_node_port_is_advice():
    config = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "litellm-config", "namespace": "llm"},
        "data": {
            "config.yaml": (
                "model_list:\n  - model_name: qwen-122b\n    litellm_params:\n      model: openai/qwen-122b\n"
                "      api_base: http://89.108.125.7:32090/v1\n      api_key: dummy\n"
            )
        },
    }
    litellm = _deployment(
        "litellm",
        [],
        volumes=[{"name": "config", "configMap": {"name": "litellm-config"}}],
        mounts=[{"name": "config", "mountPath": "/etc/litellm"}],
    )
    public = _service("qwen35-122b-public", 8000, node_port=32090)
    [(level, message)] = found_by([config, litellm, public], _POLICY)
    assert level == "advisory"
    assert "Service qwen35-122b-public of the files offers port 32090" in message


def test_plain_http_to_a_public_address_is_advice_and_https_or_special_addresses_are_not():
    webui = _deployment("open-webui", [{"name": "OTEL_EXPORTER_OTLP_ENDPOINT", "value": "http://198.168.1.101:4317"}])
    [(level, message)] = found_by([webui], _POLICY)
    assert level == "advisory"
    assert "sends plain http to the public address 198.168.1.101" in message
    for variable, value in (
        ("OTEL_EXPORTER_OTLP_ENDPOINT", "https://198.168.1.101:4317"),
        ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://192.168.1.101:4317"),
        ("OLLAMA_URL", "http://127.0.0.1:11434"),
        ("METADATA_URL", "http://169.254.169.254/latest"),
        ("NO_PROXY", "http://8.8.8.8:11434"),
        ("OLLAMA_URL", "not a url 1.2.3.4"),
    ):
        assert found_by([_deployment("open-webui", [{"name": variable, "value": value}]), _OLLAMA], _POLICY) == [], value
