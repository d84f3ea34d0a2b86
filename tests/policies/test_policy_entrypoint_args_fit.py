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


def test_serve_before_model_flag_blocks_and_before_options_only_is_advice():
    """review46a #8: FlexibleArgumentParser.parse_args (vllm/utils/argparse_utils.py @00da11e3) moves the --model value
    to the front, `serve M serve`, and argparse refuses the second positional word."""
    for model in (["--model", "Qwen/Qwen2.5-7B-Instruct"], ["--model=Qwen/Qwen2.5-7B-Instruct"]):
        ((level, message),) = found_by([_deployment(_vllm("serve", *model, "--port", "8001"))], POLICY)
        assert level == "mandatory" and "unrecognized arguments: serve" in message
    found = found_by([_deployment(_vllm("serve", "--config", "/etc/vllm/config.yaml"))], POLICY)
    assert [lv for lv, _ in found] == ["advisory"]


def test_serve_repeated_after_a_command_or_in_one_string_blocks():
    """review46a #10."""
    repeated = {**_vllm("serve", "Qwen/Qwen2.5-7B-Instruct", "--port", "8000"), "command": ["vllm", "serve"]}
    ((level, message),) = found_by([_deployment(repeated)], POLICY)
    assert level == "mandatory" and "`vllm serve serve Qwen/Qwen2.5-7B-Instruct ...`" in message
    ((level, message),) = found_by([_deployment(_vllm("serve Qwen/Qwen2.5-7B-Instruct --port 8002"))], POLICY)
    assert level == "mandatory" and "one string" in message


def test_kuberay_args_are_not_the_image_entrypoints():
    """review46a #3: KubeRay runs `ray start ... && <command> <args>` (ray-project/kuberay
    ray-operator/controllers/ray/common/pod.go BuildPod at 00ac1468): `serve run` is Ray Serve's CLI there."""
    ray = {
        "apiVersion": "ray.io/v1",
        "kind": "RayCluster",
        "metadata": {"name": "llm"},
        "spec": {
            "headGroupSpec": {
                "rayStartParams": {"dashboard-host": "0.0.0.0"},
                "template": {
                    "spec": {
                        "containers": [
                            {
                                "name": "ray-head",
                                "image": "vllm/vllm-openai:v0.10.1",
                                "args": ["serve", "run", "/config/serve.yaml"],
                            }
                        ]
                    }
                },
            }
        },
    }
    assert found_by([ray], POLICY) == []


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
        "image": "ollama/ollama:0.5.7",
        "ports": [{"containerPort": 11434}],
        "livenessProbe": _get("/api/health", 11434),
    }
    ((level, message),) = found_by([_deployment(ollama)], POLICY)
    assert level == "mandatory" and "livenessProbe GETs /api/health on port 11434" in message and "restarts" in message


def test_an_image_no_release_read_covers_is_advice():
    """review46a #9: latest, untagged, a newer release or a mirror path may hold routes the table did not read."""
    for image in ("ollama/ollama:latest", "ollama/ollama", "ollama/ollama:0.40.0", "registry.local/mirror/ollama/ollama:0.5.7"):
        ollama = {"name": "ollama", "image": image, "ports": [{"containerPort": 11434}], "readinessProbe": _get("/health", 11434)}
        assert [lv for lv, _ in found_by([_deployment(ollama)], POLICY)] == ["advisory"], image


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


def test_an_unsettled_port_or_a_sidecar_on_it_stays_silent():
    """review46a #5: OLLAMA_HOST from an envFrom source, and an auth proxy sidecar that owns the probed port."""
    config_map = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "ollama-env"},
        "data": {"OLLAMA_HOST": "127.0.0.1:11435"},
    }
    ollama = {
        "name": "ollama",
        "image": "ollama/ollama:0.5.7",
        "envFrom": [{"configMapRef": {"name": "ollama-env"}}],
        "readinessProbe": _get("/healthz", 11434),
    }
    proxy = {"name": "auth-proxy", "image": "quay.io/oauth2-proxy/oauth2-proxy:v7.6.0", "ports": [{"containerPort": 11434}]}
    assert found_by([config_map, _deployment(ollama, proxy)], POLICY) == []
    assert found_by([_deployment(ollama)], POLICY) == []  # the ConfigMap is not in the files: the port is unknown
    # The ConfigMap in the files moves the port to 11435; with no sidecar, a probe there blocks.
    moved = {**ollama, "readinessProbe": _get("/healthz", 11435)}
    assert [lv for lv, _ in found_by([config_map, _deployment(moved)], POLICY)] == ["mandatory"]
    # A ConfigMap of the files that leaves OLLAMA_HOST out settles the default port.
    other = {**config_map, "data": {"OLLAMA_KEEP_ALIVE": "5m"}}
    assert [lv for lv, _ in found_by([other, _deployment(ollama)], POLICY)] == ["mandatory"]


def test_llama_cpp_python_port_precedence():
    """review46a #12: `python -m llama_cpp.server` reads PORT over --port (llama_cpp/server/__main__.py v0.3.35 L93);
    under uvicorn PORT is not read."""
    env_wins = {**LLAMA_CPP_PYTHON, "env": [{"name": "PORT", "value": "9000"}], "readinessProbe": _get("/health", 9000)}
    assert [lv for lv, _ in found_by([_deployment(env_wins)], POLICY)] == ["mandatory"]
    flag_loses = {**env_wins, "readinessProbe": _get("/health", 8080)}
    assert found_by([_deployment(flag_loses)], POLICY) == []
    uvicorn = {
        "name": "llama",
        "image": "python:3.11-slim",
        "command": ["uvicorn", "--factory", "llama_cpp.server.app:create_app", "--host", "0.0.0.0"],
        "env": [{"name": "PORT", "value": "9000"}],
        "readinessProbe": _get("/health", 8000),
    }
    assert [lv for lv, _ in found_by([_deployment(uvicorn)], POLICY)] == ["mandatory"]
    assert found_by([_deployment({**uvicorn, "readinessProbe": _get("/health", 9000)})], POLICY) == []


def test_odd_port_values_do_not_raise():
    """review46a #4: "²".isdigit() is true but int() refuses it; so does a port of more than 4300 digits."""
    for extra in (
        {"command": ["python", "-m", "llama_cpp.server", "--port=²"]},
        {"command": ["python", "-m", "llama_cpp.server"], "env": [{"name": "PORT", "value": "¹"}]},
        {"command": ["python", "-m", "llama_cpp.server", "--port", "9" * 5000]},
        {"image": "ollama/ollama:0.5.7", "command": None, "env": [{"name": "OLLAMA_HOST", "value": "0.0.0.0:" + "9" * 5000}]},
    ):
        container = {"name": "a", "image": "python:3", "readinessProbe": _get("/health", 8000), **extra}
        if container["command"] is None:
            del container["command"]
        assert found_by([_deployment(container)], POLICY) == [], extra


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


# Session 48 (brief engines48 item 1): images whose ENTRYPOINT starts no server. Triton's NGC images run
# /opt/nvidia/nvidia_entrypoint.sh (triton-inference-server/server v2.71.0 build.py L1482, L1593), which execs its
# arguments and /bin/bash when there are none (docker/cpu_only/nvidia_entrypoint.sh L44-50); lmsysorg/sglang sets no
# ENTRYPOINT nor CMD (sgl-project/sglang docker/Dockerfile @004740a9) or CMD ["/bin/bash"] (docker/Dockerfile.rocm
# @010871b2). The forms are those fresh sets showed (the server image run with no command, or with the server's
# options alone as args), written in the minimal shape of such a Deployment.
def _server(image: str, *args: str, **extra: object) -> dict:
    container: dict = {"name": "server", "image": image, "ports": [{"containerPort": 8000}], **extra}
    if args:
        container["args"] = list(args)
    return container


def test_the_engine_table_says_which_images_start_no_server():
    from components.serving_engines import engine_named

    assert engine_named("triton").no_server_images == ("nvidia/tritonserver",)
    assert engine_named("sglang").no_server_images == ("lmsysorg/sglang",)
    assert engine_named("vllm").no_server_images == () and engine_named("vllm").entrypoint == "vllm serve"


def test_a_no_server_image_given_nothing_to_run_blocks():
    for image, shown in (("nvcr.io/nvidia/tritonserver:24.08-py3", "tritonserver"), ("lmsysorg/sglang:v0.5.5", "sglang")):
        ((level, message),) = found_by([_deployment(_server(image))], POLICY)
        assert level == "mandatory" and "neither command nor args" in message and shown in message
        assert "no_server_images" in message


def test_a_no_server_image_given_options_as_args_blocks():
    found = found_by([_deployment(_server("nvcr.io/nvidia/tritonserver:24.08-py3", "--model-repository=/models"))], POLICY)
    ((level, message),) = found
    assert level == "mandatory" and "'--model-repository=/models' is executed as a program" in message
    sglang = _server("lmsysorg/sglang:latest", "--model-path", "Qwen/Qwen2.5-7B-Instruct", "--port", "8000")
    assert [lv for lv, _ in found_by([_deployment(sglang)], POLICY)] == ["mandatory"]


def test_careful_no_server_image_forms_stay_silent():
    triton = "nvcr.io/nvidia/tritonserver:24.12-py3"
    careful = [
        _server(triton, "tritonserver", "--model-repository=/models"),  # the entrypoint execs the server
        _server(triton, command=["tritonserver"], args=["--model-repository=/models"]),
        _server(triton, command=["/bin/bash", "-c"], args=["tritonserver --model-repository=/models"]),
        _server("lmsysorg/sglang:v0.5.5", "python3", "-m", "sglang.launch_server", "--model-path", "m"),
        _server(triton, "--", "tritonserver"),  # bash's exec reads -- as its own end of options
        _server(triton, "$(SERVER_ARGS)"),
        _server("registry.local/acme/tritonserver-custom:1.0"),  # a rebuild may set its own CMD
        _server("vllm/vllm-openai:v0.10.1"),  # its ENTRYPOINT starts the server
    ]
    for container in careful:
        assert found_by([_deployment(container)], POLICY) == [], container
    # An init container that exits is how init containers end.
    pod = _deployment(_server("vllm/vllm-openai:v0.10.1"))
    pod["spec"]["template"]["spec"]["initContainers"] = [{"name": "init", "image": triton}]
    assert found_by([pod], POLICY) == []


def test_a_servingruntime_leaves_its_args_to_the_inferenceservice():
    """KServe appends an InferenceService's args to its runtime's (kserve v0.20.0 utils.go:253-263), so a runtime with
    no args is silent; one whose args begin with an option is reported (appended args come after it), as advice: the
    framework reads a runtime as a template another object completes (policies/framework.py _COMPLETED_ELSEWHERE)."""

    def runtime(*args: str) -> dict:
        return {
            "apiVersion": "serving.kserve.io/v1alpha1",
            "kind": "ServingRuntime",
            "metadata": {"name": "triton"},
            "spec": {
                "supportedModelFormats": [{"name": "triton", "version": "2"}],
                "containers": [_server("nvcr.io/nvidia/tritonserver:24.08-py3", *args, name="kserve-container")],
            },
        }

    assert found_by([runtime()], POLICY) == []
    assert [lv for lv, _ in found_by([runtime("--model-store=/mnt/models")], POLICY)] == ["advisory"]
