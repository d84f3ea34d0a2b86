"""S51 server-listens-on-pod-ip: a server bound to loopback that a probe or Service reaches on the pod IP.

Fixture: held-out set 12 iminierai-aig/gpu-k8s-inference manifests/sglang-deployment.yaml at
25bf8bda8c5524fc1213a8b69e60082d0557dfcf (SGLang started with --port 8001 and no --host, a ClusterIP Service on 8001).
"""

import copy

import pytest
from policy_fixtures import found_by

from components.serving_engines import ENGINES

POLICY = "server-listens-on-pod-ip"


def workload(container: dict, labels: dict | None = None) -> dict:
    labels = labels or {"app": "sglang"}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "sglang-server", "namespace": "ai-lab"},
        "spec": {
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [container]}},
        },
    }


def service(port: int | str = 8001, selector: dict | None = None) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "sglang-service", "namespace": "ai-lab"},
        "spec": {"selector": selector or {"app": "sglang"}, "ports": [{"port": 8001, "targetPort": port}]},
    }


SGLANG = {
    "name": "sglang",
    "image": "lmsysorg/sglang:v0.4.6",
    "args": ["python3", "-m", "sglang.launch_server", "--model-path", "TinyLlama/TinyLlama-1.1B-Chat-v1.0", "--port", "8001"],
    "ports": [{"containerPort": 8001}],
    "resources": {"limits": {"nvidia.com/gpu": 1}},
}


def with_args(*extra: str, base: dict = SGLANG) -> dict:
    container = copy.deepcopy(base)
    container["args"] = container["args"] + list(extra)
    return container


def test_sglang_without_host_behind_a_service_blocks():
    assert found_by([workload(SGLANG), service()], POLICY) == [
        (
            "mandatory",
            "container sglang: SGLang listens on 127.0.0.1:8001 only (its default with --host unset), so the connections "
            "of Service sglang-service to the pod IP are refused and the server is unreachable from outside its pod; "
            "set --host 0.0.0.0",
        )
    ]


def test_a_probe_on_the_port_is_a_target_too():
    container = copy.deepcopy(SGLANG) | {"readinessProbe": {"httpGet": {"path": "/health", "port": 8001}}}
    assert [m.split(", so ")[1][:40] for _, m in found_by([workload(container)], POLICY)] == [
        "the connections of readinessProbe to the"
    ]


@pytest.mark.parametrize(
    "objs",
    [
        [workload(with_args("--host", "0.0.0.0")), service()],
        [workload(with_args("--host=::")), service()],
        [workload(SGLANG)],  # nothing outside the pod reaches the port
        [workload(SGLANG), service(port=8080)],  # a proxy in the pod on 8080 forwards to loopback
        [workload(SGLANG), service(selector={"app": "other"})],
        [workload(SGLANG | {"readinessProbe": {"httpGet": {"host": "127.0.0.1", "path": "/health", "port": 8001}}})],
        [workload(SGLANG | {"readinessProbe": {"exec": {"command": ["curl", "-f", "localhost:8001/health"]}}})],
    ],
)
def test_a_server_reached_where_it_listens_is_silent(objs):
    assert found_by(objs, POLICY) == []


def test_a_config_file_may_set_the_host():
    found = found_by([workload(with_args("--config", "/etc/sglang/config.yaml")), service()], POLICY)
    assert [e for e, _ in found] == ["advisory"]


LLAMA = {
    "name": "llama-server",
    "image": "ghcr.io/ggml-org/llama.cpp:server-cuda-b6000",
    "args": ["--model", "/models/m.gguf", "--port", "8080"],
    "readinessProbe": {"httpGet": {"path": "/health", "port": 8080}},
}


def test_the_llama_cpp_server_image_listens_on_every_address():
    assert found_by([workload(LLAMA)], POLICY) == []


def test_llama_server_in_another_image_is_advice():
    container = copy.deepcopy(LLAMA) | {"image": "registry.example.com/llm/llama-cpp:1.2", "command": ["llama-server"]}
    found = found_by([workload(container)], POLICY)
    assert [e for e, _ in found] == ["advisory"]
    assert "llama.cpp server listens on 127.0.0.1:8080 only (its default with --host unset)" in found[0][1]
    container["env"] = [{"name": "LLAMA_ARG_HOST", "value": "0.0.0.0"}]
    assert found_by([workload(container)], POLICY) == []


def test_an_explicit_loopback_host_blocks_on_any_engine():
    ollama = {
        "name": "ollama",
        "image": "ollama/ollama:0.6.5",
        "env": [{"name": "OLLAMA_HOST", "value": "127.0.0.1:11434"}],
        "readinessProbe": {"httpGet": {"path": "/", "port": 11434}},
    }
    assert [e for e, _ in found_by([workload(ollama)], POLICY)] == ["mandatory"]
    vllm = {"name": "vllm", "image": "vllm/vllm-openai:v0.8.5", "args": ["--model", "Qwen/Qwen2-0.5B", "--host", "localhost"]}
    assert [e for e, _ in found_by([workload(vllm, {"app": "sglang"}), service(port=8000)], POLICY)] == ["mandatory"]
    vllm["args"] = vllm["args"][:2]  # vLLM binds every address by default
    assert found_by([workload(vllm), service(port=8000)], POLICY) == []


def test_the_ollama_image_sets_its_host():
    ollama = {"name": "ollama", "image": "ollama/ollama:0.6.5", "readinessProbe": {"httpGet": {"path": "/", "port": 11434}}}
    assert found_by([workload(ollama)], POLICY) == []


def test_every_row_with_listens_names_its_host_setting_and_source():
    rows = {e.name: (e.listens, e.images_listen_all) for e in ENGINES if e.listens}
    assert rows == {
        "vllm": ("all", False),
        "sglang": ("loopback", False),
        "tgi": ("all", False),
        "llama-cpp": ("loopback", True),
        "ollama": ("loopback", True),
    }
    assert all("host" in e.flags or e.env.get("host") for e in ENGINES if e.listens)
    assert all(e.sources.get("listens") for e in ENGINES if e.listens)


def test_args_alone_to_an_image_the_row_does_not_name_are_advice():
    # Its own entrypoint runs first and may add --host; with a command, or on lmsysorg/sglang, the line is all there is.
    private = copy.deepcopy(SGLANG) | {"image": "registry.example.com/ml/sglang-server:1.0"}
    assert [e for e, _ in found_by([workload(private), service()], POLICY)] == ["advisory"]
    private["command"] = private.pop("args")
    assert [e for e, _ in found_by([workload(private), service()], POLICY)] == ["mandatory"]


# Finding 10: TGI v3.3.7 launcher/src/main.rs:769-770 `#[clap(default_value = "0.0.0.0", long, env)] hostname` reads
# HOSTNAME, which every Kubernetes container has (the pod name); router/src/server.rs:1906-1911 binds 0.0.0.0 for a
# hostname that is no IP address. So only an IP literal binds loopback; one from the environment alone is advice.
TGI = {
    "name": "tgi",
    "image": "ghcr.io/huggingface/text-generation-inference:3.3.7",
    "args": ["--model-id", "Qwen/Qwen2-0.5B", "--port", "8001"],
    "resources": {"limits": {"nvidia.com/gpu": 1}},
}


def test_tgi_reads_an_ip_literal_hostname_only():
    assert [e for e, _ in found_by([workload(with_args("--hostname", "127.0.0.1", base=TGI)), service()], POLICY)] == [
        "mandatory"
    ]
    for name in ("localhost", "tgi-0"):
        assert found_by([workload(with_args("--hostname", name, base=TGI)), service()], POLICY) == [], name
    for value, levels in (("127.0.0.1", ["advisory"]), ("tgi-0", []), ("localhost", [])):
        container = {**TGI, "env": [{"name": "HOSTNAME", "value": value}]}
        assert [e for e, _ in found_by([workload(container), service()], POLICY)] == levels, value
    assert found_by([workload(TGI), service()], POLICY) == []
