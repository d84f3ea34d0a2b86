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


# kubernetes-sigs/lws docs/examples/sglang/lws.yaml at f01674b29576223329e35432c77d2b37a995b669 (cut: the leader's
# --port and the Service on SGLang's default 30000, which the worker, started without --host or --port, also uses).
LWS_ARGS = ["python3", "-m", "sglang.launch_server", "--model-path", "meta-llama/Meta-Llama-3.1-8B-Instruct", "--tp", "2"]
LWS_ARGS += ["--dist-init-addr", "$(LWS_LEADER_ADDRESS):20000", "--nnodes", "$(LWS_GROUP_SIZE)"]
LWS_ARGS += ["--node-rank", "$(LWS_WORKER_INDEX)", "--trust-remote-code"]


def lws(leader_args: list[str], *, leader: bool = True) -> dict:
    image = "lmsysorg/sglang:latest"
    worker = {"containers": [{"name": "sglang-worker", "image": image, "command": LWS_ARGS}]}
    template: dict = {"size": 2, "workerTemplate": {"spec": worker}}
    if leader:
        container = {"name": "sglang-leader", "image": image, "command": LWS_ARGS + leader_args}
        template["leaderTemplate"] = {"metadata": {"labels": {"role": "leader"}}, "spec": {"containers": [container]}}
    return {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": "sglang"},
        "spec": {"replicas": 2, "leaderWorkerTemplate": template},
    }


def lws_service(selector: dict) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "sglang-leader"},
        "spec": {"selector": selector, "ports": [{"protocol": "TCP", "port": 30000, "targetPort": 30000}]},
    }


LEADER_ONLY = {"leaderworkerset.sigs.k8s.io/name": "sglang", "role": "leader"}


@pytest.mark.parametrize(
    "selector",
    [LEADER_ONLY, {"leaderworkerset.sigs.k8s.io/name": "sglang", "leaderworkerset.sigs.k8s.io/worker-index": "0"}],
)
def test_a_leader_only_service_does_not_reach_the_workers(selector):
    # The controller labels the leader worker-index 0 and the workers 1..size-1; a Service selecting the leader
    # sends nothing to a worker bound to loopback on the same port.
    assert found_by([lws(["--host", "0.0.0.0", "--port", "30000"]), lws_service(selector)], POLICY) == []


def test_each_lws_template_meets_the_services_that_select_its_pods():
    def blocked(objs: list) -> list[str]:
        return [m.split(":")[0] for e, m in found_by(objs, POLICY) if e == "mandatory"]

    leader = "spec.leaderWorkerTemplate.leaderTemplate.spec container sglang-leader"
    worker = "spec.leaderWorkerTemplate.workerTemplate.spec container sglang-worker"
    assert blocked([lws(["--port", "30000"]), lws_service(LEADER_ONLY)]) == [leader]
    every_pod = {"leaderworkerset.sigs.k8s.io/name": "sglang"}
    assert blocked([lws(["--host", "0.0.0.0", "--port", "30000"]), lws_service(every_pod)]) == [worker]
    first_worker = every_pod | {"leaderworkerset.sigs.k8s.io/worker-index": "1"}
    assert blocked([lws(["--host", "0.0.0.0", "--port", "30000"]), lws_service(first_worker)]) == [worker]
    # Without a leader template the worker template makes the leader too (worker-index 0).
    index0 = every_pod | {"leaderworkerset.sigs.k8s.io/worker-index": "0"}
    assert blocked([lws([], leader=False), lws_service(index0)]) == [worker]


def test_odd_host_ports_do_not_raise():
    """review46a #4: an OLLAMA_HOST port of 5000 digits (int() refuses more than 4300) or "²" (isdigit but not int)."""
    for value in ("0.0.0.0:" + "9" * 5000, "0.0.0.0:²", "[::]:99999"):
        deployment = {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "x", "namespace": "n"},
            "spec": {
                "selector": {"matchLabels": {"app": "x"}},
                "template": {
                    "metadata": {"labels": {"app": "x"}},
                    "spec": {
                        "containers": [
                            {
                                "name": "a",
                                "image": "ollama/ollama:0.5.7",
                                "env": [{"name": "OLLAMA_HOST", "value": value}],
                                "readinessProbe": {"httpGet": {"path": "/", "port": 11434}},
                            }
                        ]
                    },
                },
            },
        }
        assert not [m for _, m in found_by([deployment], POLICY) if "could not be checked" in m], value
