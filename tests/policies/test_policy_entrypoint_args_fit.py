"""G80 entrypoint-args-fit: args written for another entrypoint, and a health probe on a path the server has no route for.

vllm/vllm-openai's ENTRYPOINT is `vllm serve` (docker/Dockerfile vllm-openai stage at v0.33.0 and dead20ba), earlier
`python3 -m vllm.entrypoints.openai.api_server` (01da4491, 0000977e); Ollama's routes are server/routes.go's (no health
path at any tag v0.0.1-v0.32.15), llama-cpp-python's llama_cpp/server/app.py's (none at v0.1.29-v0.3.35). The forms are
those the brief of session 46 names from fresh sets (`args: ["serve", MODEL]` on vllm/vllm-openai; /health probes on
llama-cpp-python's server and on Ollama), written in the minimal shape of such a Deployment.
"""

from __future__ import annotations

from policy_fixtures import found_by

from components.image_contents import servers

POLICY = "entrypoint-args-fit"


def _deployment(*containers: dict) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "llm"},
        "spec": {
            "selector": {"matchLabels": {"app": "llm"}},
            "template": {"metadata": {"labels": {"app": "llm"}}, "spec": {"containers": list(containers)}},
        },
    }


def _vllm(*args: str, image: str = "vllm/vllm-openai:v0.10.1") -> dict:
    return {"name": "vllm", "image": image, "args": list(args), "ports": [{"containerPort": 8000}]}


def _get(path: str, port: object) -> dict:
    return {"httpGet": {"path": path, "port": port}, "periodSeconds": 10}


LLAMA_CPP_PYTHON = {
    "name": "llama",
    "image": "python:3.11-slim",
    "command": ["python3", "-m", "llama_cpp.server", "--model", "/models/m.gguf", "--host", "0.0.0.0", "--port", "8080"],
    "ports": [{"name": "http", "containerPort": 8080}],
    "readinessProbe": _get("/health", "http"),
}


def test_the_route_table_reads():
    by_family = {s.family: s for s in servers()}
    assert by_family["ollama"].health_routes == frozenset() and by_family["ollama"].port == 11434
    assert by_family["llama-cpp-python"].modules == ("llama_cpp.server",)


# vllm-project/vllm examples/online_serving/prometheus_grafana/k8s-monitoring/vllm-deployment.yaml at
# cf6f12c20b258469cb45d5d0f2fe3edb110aed43 (the manifests corpus, row 30): vllm/vllm-openai:latest given
# args ["serve", "Qwen/Qwen3-235B-A22B", "--tensor-parallel-size=4", ...] and no command.
VLLM_EXAMPLE = _deployment(_vllm("serve", "Qwen/Qwen3-235B-A22B", "--tensor-parallel-size=4", image="vllm/vllm-openai:latest"))


def test_serve_repeated_before_a_model_blocks():
    ((level, message),) = found_by([VLLM_EXAMPLE], POLICY)
    assert level == "mandatory" and "`vllm serve serve Qwen/Qwen3-235B-A22B ...`" in message
    ((level, message),) = found_by([_deployment(_vllm("serve", "Qwen/Qwen2.5-7B-Instruct", "--port", "8000"))], POLICY)
    assert level == "mandatory"
    assert message.startswith(
        "container vllm: args begin with 'serve', but the vLLM image vllm/vllm-openai:v0.10.1 already runs `vllm serve`"
    )
    assert "unrecognized arguments" in message
    # Behind a mirror of the publisher's repository, the same.
    mirrored = _vllm("serve", "m", image="registry.local/vllm/vllm-openai:latest")
    assert [lv for lv, _ in found_by([_deployment(mirrored)], POLICY)] == ["mandatory"]


def test_serve_before_options_only_is_advice():
    found = found_by([_deployment(_vllm("serve", "--model", "Qwen/Qwen2.5-7B-Instruct"))], POLICY)
    assert [lv for lv, _ in found] == ["advisory"]


def test_careful_vllm_args_stay_silent():
    for container in (
        _vllm("Qwen/Qwen2.5-7B-Instruct", "--port", "8000"),
        _vllm("--model", "Qwen/Qwen2.5-7B-Instruct"),
        {**_vllm("serve", "m"), "command": ["vllm"]},  # command replaces the entrypoint: `vllm serve m`
        _vllm("serve", "m", image="acme/vllm-custom:1.0"),  # a rebuild whose ENTRYPOINT the files do not show
        _vllm("vllm", "serve", "m"),  # G46's
    ):
        assert found_by([_deployment(container)], POLICY) == [], container


def test_a_health_probe_on_a_server_without_that_route_blocks():
    ((level, message),) = found_by([_deployment(LLAMA_CPP_PYTHON)], POLICY)
    assert level == "mandatory"
    assert message.startswith(
        "container llama: readinessProbe GETs /health on port 8080, a route the llama-cpp-python server does not have"
    )
    ollama = {
        "name": "ollama",
        "image": "ollama/ollama:latest",
        "ports": [{"containerPort": 11434}],
        "livenessProbe": _get("/api/health", 11434),
    }
    ((level, message),) = found_by([_deployment(ollama)], POLICY)
    assert level == "mandatory" and "livenessProbe GETs /api/health on port 11434" in message and "restarts" in message


def test_careful_probes_stay_silent():
    ollama = {"name": "ollama", "image": "ollama/ollama:0.5.7", "ports": [{"containerPort": 11434}]}
    careful = [
        {**ollama, "readinessProbe": _get("/", 11434), "livenessProbe": _get("/api/version", 11434)},
        {**ollama, "readinessProbe": _get("/api/tags", 11434)},
        {**ollama, "readinessProbe": _get("/health", 8080)},  # another port: a sidecar may answer it
        {**ollama, "env": [{"name": "OLLAMA_HOST", "value": "0.0.0.0:8080"}], "readinessProbe": _get("/health", 11434)},
        {**LLAMA_CPP_PYTHON, "readinessProbe": _get("/v1/models", "http")},
        {**LLAMA_CPP_PYTHON, "readinessProbe": {"tcpSocket": {"port": 8080}}},
        {**LLAMA_CPP_PYTHON, "command": ["python3", "-m", "llama_cpp.server", "--port", "$(PORT)"]},
        # A server with no [[server]] row (vLLM answers /health).
        {**_vllm("m"), "readinessProbe": _get("/health", 8000)},
    ]
    for container in careful:
        assert found_by([_deployment(container)], POLICY) == [], container


def test_the_port_moved_by_ollama_host_is_followed():
    moved = {
        "name": "ollama",
        "image": "ollama/ollama:0.5.7",
        "env": [{"name": "OLLAMA_HOST", "value": "0.0.0.0:8080"}],
        "readinessProbe": _get("/healthz", 8080),
    }
    assert [lv for lv, _ in found_by([_deployment(moved)], POLICY)] == ["mandatory"]


def test_bad_input_does_not_raise():
    for container in (
        {"name": "x", "image": "ollama/ollama", "readinessProbe": {"httpGet": {"path": None, "port": True}}},
        {"name": "x", "image": "ollama/ollama", "readinessProbe": {"httpGet": "bad"}},
        {
            "name": "x",
            "image": "ollama/ollama",
            "env": [{"name": "OLLAMA_HOST", "value": 3}],
            "livenessProbe": _get("/health", 11434),
        },
        {"name": "x", "image": None, "args": ["serve", None]},
        {"name": "x", "image": "vllm/vllm-openai", "args": "serve m"},
        {
            "name": "x",
            "image": "python:3",
            "command": ["python", "-m", "llama_cpp.server", "--port"],
            "readinessProbe": _get("/health", 8000),
        },
    ):
        found_by([_deployment(container)], POLICY)
