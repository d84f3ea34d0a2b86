"""G32 no-load-balancer-service: a model server with no API key published on its node (hostPort, hostNetwork): advice.

Fixtures: fresh set 47 zeldafan3421/romm-assist k8s/llamacpp-deployment.yaml (labelled G32 advisory: llama.cpp's
server with hostPort 8080, its LLAMA_API_KEY Secret commented out, settings from the ConfigMap llamacpp-env); spent
set 42 johnahull/llmd-gke pattern4/pattern4-poc-lws.yaml (a LeaderWorkerSet on hostNetwork: the leader's vLLM API port
8000 is on its node's address, the workers declare no port).
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "no-load-balancer-service"

CONFIG = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "llamacpp-env"},
    "data": {
        "LLAMA_CACHE": "/models",
        "LLAMA_ARG_HF_REPO": "Qwen/Qwen2.5-1.5B-Instruct-GGUF",
        "LLAMA_ARG_HOST": "0.0.0.0",
        "LLAMA_ARG_PORT": "8080",
    },
}
LLAMACPP = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "llamacpp"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "llamacpp"}},
        "template": {
            "metadata": {"labels": {"app": "llamacpp"}},
            "spec": {
                "containers": [
                    {
                        "name": "llamacpp",
                        "image": "ghcr.io/ggml-org/llama.cpp:server",
                        "args": ["--jinja"],
                        "envFrom": [{"configMapRef": {"name": "llamacpp-env"}}],
                        "ports": [{"name": "http", "containerPort": 8080, "hostPort": 8080}],
                    }
                ]
            },
        },
    },
}
LWS = {
    "apiVersion": "leaderworkerset.x-k8s.io/v1",
    "kind": "LeaderWorkerSet",
    "metadata": {"name": "pattern4-moe-poc"},
    "spec": {
        "replicas": 1,
        "leaderWorkerTemplate": {
            "size": 2,
            "leaderTemplate": {
                "spec": {
                    "hostNetwork": True,
                    "containers": [
                        {
                            "name": "vllm-leader",
                            "image": "vllm/vllm-openai:v0.11.0",
                            "args": ["--model", "mistralai/Mixtral-8x7B-Instruct-v0.1", "--tensor-parallel-size", "8"],
                            "ports": [{"containerPort": 8000}],
                            "resources": {"limits": {"nvidia.com/gpu": 4}},
                        }
                    ],
                }
            },
            "workerTemplate": {
                "spec": {
                    "hostNetwork": True,
                    "containers": [
                        {
                            "name": "vllm-worker",
                            "image": "vllm/vllm-openai:v0.11.0",
                            "command": ["sh", "-c", "ray start --block --address=$(LWS_LEADER_ADDRESS):6379"],
                            "resources": {"limits": {"nvidia.com/gpu": 4}},
                        }
                    ],
                }
            },
        },
    },
}


def _node(objs: list[dict]) -> list[tuple[str, str]]:
    return [(e, m) for e, m in found_by(objs, POLICY) if "on the node's" in m]


def test_a_keyless_llama_cpp_server_on_a_host_port_is_advice():
    ((enforcement, message),) = _node([LLAMACPP, CONFIG])
    assert enforcement == "advisory"
    assert message.startswith("container llamacpp: ports hostPort 8080 publishes it on the node's address")


def test_a_leader_on_host_network_is_advice_and_its_portless_workers_are_not():
    found = _node([LWS])
    assert [e for e, _ in found] == ["advisory"]
    assert "vllm-leader: hostNetwork: true puts its port 8000" in found[0][1]


def test_a_key_or_no_host_port_is_silent():
    # The careful forms: the file's own commented-out fix (LLAMA_API_KEY from a Secret), the key in the ConfigMap, and
    # the port left to a Service (no hostPort).
    secret = copy.deepcopy(LLAMACPP)
    secret["spec"]["template"]["spec"]["containers"][0]["envFrom"].append({"secretRef": {"name": "llamacpp-secret"}})
    keyed = copy.deepcopy(CONFIG)
    keyed["data"]["LLAMA_API_KEY"] = "change-me-in-a-secret"
    plain = copy.deepcopy(LLAMACPP)
    plain["spec"]["template"]["spec"]["containers"][0]["ports"][0].pop("hostPort")
    assert _node([secret, CONFIG]) == []
    assert _node([LLAMACPP, keyed]) == []
    assert _node([plain, CONFIG]) == []
