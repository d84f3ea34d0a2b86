"""G32 widened: a NodePort Service in front of a model server that asks for no API key says it publishes the
unauthenticated API on every node (advice). Minimal hand-written shapes of the cited files."""

from __future__ import annotations

from policy_fixtures import found_by

POLICY = "no-load-balancer-service"


def _server(name: str, image: str, port: int, args: list[str] | None = None) -> dict:
    container = {"name": name, "image": image, "ports": [{"containerPort": port}], **({"args": args} if args else {})}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}},
        },
    }


def _node_port(name: str, app: str, port: int, node_port: int | None = None) -> dict:
    spec_port = {"port": port, "targetPort": port, **({"nodePort": node_port} if node_port else {})}
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name},
        "spec": {"type": "NodePort", "selector": {"app": app}, "ports": [spec_port]},
    }


# Set 20: alaasalmo/ollama-kubernetes ollama/ollama-deployment.yaml at 3512339dad2f0d9cf5901f610ea7b300da75c804.
ALAASALMO = [_server("ollama", "alaasalmo/ollama:1.1.1.1", 11434), _node_port("ollama-service", "ollama", 11434, 30134)]
# heissanjay/ollama-eks-depl kubernetes/service.yml (Service svc-ollama, NodePort) with kubernetes/deployment.yml at
# 0f871508ffb668079fbae8f41851d7a86c755782 (ollama/ollama).
HEISSANJAY = [_server("ollama", "ollama/ollama:latest", 11434), _node_port("svc-ollama", "ollama", 11434)]


def test_a_node_port_in_front_of_an_unkeyed_model_server_is_advice_that_says_so():
    ((level, message),) = found_by(ALAASALMO, POLICY)
    assert (level, message) == (
        "advisory",
        "spec.type: NodePort 30134 publishes the model server's API, which asks for no API key (no --api-key or key "
        "variable; Ollama has none), on every node's address: anyone who reaches a node can call it (Ollama's API also "
        "pulls and deletes models); use ClusterIP behind an authenticating gateway, or set the server's API key",
    )
    ((level, message),) = found_by(HEISSANJAY, POLICY)
    assert level == "advisory" and message.startswith("spec.type: NodePort publishes the model server's API")


def test_a_keyed_server_keeps_the_plain_node_port_advice_and_cluster_ip_stays_silent():
    keyed = [
        _server("vllm", "vllm/vllm-openai:v0.10.0", 8000, ["--model", "Qwen/Qwen2.5-7B-Instruct", "--api-key", "$(KEY)"]),
        _node_port("vllm", "vllm", 8000),
    ]
    ((level, message),) = found_by(keyed, POLICY)
    assert level == "advisory" and "asks for no API key" not in message and message.startswith("spec.type: NodePort opens")
    cluster_ip = [ALAASALMO[0], {**ALAASALMO[1], "spec": {"selector": {"app": "ollama"}, "ports": [{"port": 11434}]}}]
    assert found_by(cluster_ip, POLICY) == []
