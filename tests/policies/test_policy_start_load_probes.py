"""Probe budgets read from when each engine listens (session 47, probes47): S16 llm-startup-probe-budget and G4
serving-readiness-probe for servers that download or load before they listen, whatever the engine and pod template.

- LocalAI listens only after application.New() returns (mudler/LocalAI v4.9.0 core/cli/run.go L756, L777, L810), and
  New() applies LOCALAI_PRELOAD_MODELS (core/application/startup.go L464-468), installs the positional/LOCALAI_MODELS
  model URLs (L403) and loads LOCALAI_LOAD_TO_MEMORY (L510-519) first: the row's start_loads
  (components/serving_engines.toml). With one set, a liveness window no fetch fits restarts it before it ever
  listens; with none, LocalAI listens at once and a short liveness is right.
- Ollama listens at once and pulls on demand (ollama/ollama v0.32.15 server/routes.go L1877-1878): never held to it.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

S16 = "llm-startup-probe-budget"
G4 = "serving-readiness-probe"


def _deployment(name: str, container: dict) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}},
        },
    }


def _get(path: str, port: int, **timing: int) -> dict:
    return {"httpGet": {"path": path, "port": port}, **timing}


# The fresh-set form: LocalAI preloading a gallery model, a livenessProbe at 3 s every 5 s, no startupProbe.
LOCALAI = _deployment(
    "local-ai",
    {
        "name": "local-ai",
        "image": "localai/localai:v2.26.0-cublas-cuda12",
        "env": [
            {
                "name": "LOCALAI_PRELOAD_MODELS",
                "value": '[{"url": "github:mudler/LocalAI/gallery/phi-2.yaml@master", "name": "phi-2"}]',
            }
        ],
        "ports": [{"containerPort": 8080}],
        "resources": {"limits": {"nvidia.com/gpu": 1}},
        "livenessProbe": _get("/readyz", 8080, initialDelaySeconds=3, periodSeconds=5),
        "readinessProbe": _get("/readyz", 8080, initialDelaySeconds=3, periodSeconds=5),
    },
)


def _localai() -> dict:
    return copy.deepcopy(LOCALAI)


def _server(obj: dict) -> dict:
    return obj["spec"]["template"]["spec"]["containers"][0]


def test_localai_preload_under_a_short_liveness_blocks() -> None:
    found = found_by([LOCALAI], S16)
    assert [e for e, _ in found] == ["mandatory"]
    assert "LocalAI (with env LOCALAI_PRELOAD_MODELS it fetches models before it listens)" in found[0][1]
    assert "add a startupProbe on GET /readyz" in found[0][1]


def test_localai_positional_model_and_flag_and_load_to_memory_count_too() -> None:
    positional = _localai()
    del _server(positional)["env"]
    _server(positional)["args"] = ["https://gist.example/phi-2.yaml"]
    assert [e for e, _ in found_by([positional], S16)] == ["mandatory"]
    flagged = _localai()
    del _server(flagged)["env"]
    _server(flagged)["args"] = ["--load-to-memory", "phi-2"]
    assert "with --load-to-memory" in found_by([flagged], S16)[0][1]


def test_localai_with_nothing_to_preload_listens_at_once_and_stays_silent() -> None:
    bare = _localai()
    del _server(bare)["env"]
    assert found_by([bare], S16) == []
    empty = _localai()
    _server(empty)["env"][0]["value"] = ""
    assert found_by([empty], S16) == []


def test_localai_preload_with_a_long_startup_probe_stays_silent() -> None:
    started = _localai()
    _server(started)["startupProbe"] = _get("/readyz", 8080, periodSeconds=10, failureThreshold=180)
    assert found_by([started], S16) == []


def test_localai_preload_under_a_liveness_of_minutes_is_advice() -> None:
    slow = _localai()
    _server(slow)["livenessProbe"] = _get("/healthz", 8080, initialDelaySeconds=60, periodSeconds=30)
    assert [e for e, _ in found_by([slow], S16)] == ["advisory"]


def test_ollama_with_a_short_liveness_stays_silent() -> None:
    ollama = _deployment(
        "ollama",
        {
            "name": "ollama",
            "image": "ollama/ollama:0.6.5",
            "env": [{"name": "OLLAMA_KEEP_ALIVE", "value": "24h"}],
            "ports": [{"containerPort": 11434}],
            "livenessProbe": _get("/", 11434, initialDelaySeconds=3, periodSeconds=5),
            "readinessProbe": _get("/", 11434, initialDelaySeconds=3, periodSeconds=5),
        },
    )
    assert found_by([ollama], S16) == []


# A KServe ServingRuntime running llama-server with no readiness or startup probe (fresh-set form): KServe gives the
# kserve-container a TCP readinessProbe (policies/operator_defaults.py, kserve v0.20.0 deployment_reconciler.go
# setDefaultPodSpec), which passes while llama-server loads and answers 503 on /health (engine row
# listens_while_loading).
RUNTIME = {
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "ServingRuntime",
    "metadata": {"name": "llama-cpp"},
    "spec": {
        "supportedModelFormats": [{"name": "gguf", "version": "1", "autoSelect": True}],
        "containers": [
            {
                "name": "kserve-container",
                "image": "ghcr.io/ggml-org/llama.cpp:server-cuda",
                "args": ["--model", "/mnt/models/model.gguf", "--host", "0.0.0.0", "--port", "8080", "-ngl", "99"],
                "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                "resources": {"limits": {"nvidia.com/gpu": 1}},
            }
        ],
    },
}
ISVC = {
    "apiVersion": "serving.kserve.io/v1beta1",
    "kind": "InferenceService",
    "metadata": {"name": "llama"},
    "spec": {
        "predictor": {
            "model": {
                "modelFormat": {"name": "gguf"},
                "runtime": "llama-cpp",
                "storageUri": "hf://bartowski/Llama-3.2-1B-Instruct-GGUF",
            }
        }
    },
}


def _runtime_server(runtime: dict) -> dict:
    return runtime["spec"]["containers"][0]


def test_serving_runtime_llama_server_ready_by_kserve_tcp_probe_is_advice() -> None:
    found = found_by([RUNTIME, ISVC], G4)
    assert [e for e, _ in found] == ["advisory"]
    assert found[0][1].startswith("container kserve-container: no readinessProbe on this llama.cpp server container")
    assert "KServe gives it a TCP one" in found[0][1] and "probe GET /health (port 8080 unless moved)" in found[0][1]
    assert [e for e, _ in found_by([RUNTIME, ISVC], S16)] == ["advisory"]  # no startupProbe, read on the runtime


def test_cluster_serving_runtime_and_custom_predictor_too() -> None:
    cluster = copy.deepcopy(RUNTIME)
    cluster["kind"] = "ClusterServingRuntime"
    assert len(found_by([cluster], G4)) == 1
    custom = copy.deepcopy(ISVC)
    custom["spec"]["predictor"] = {"containers": [copy.deepcopy(_runtime_server(RUNTIME))]}
    assert len(found_by([custom], G4)) == 1


def test_serving_runtime_with_its_own_readiness_or_startup_probe_stays_silent() -> None:
    ready = copy.deepcopy(RUNTIME)
    _runtime_server(ready)["readinessProbe"] = _get("/health", 8080, periodSeconds=10)
    assert found_by([ready], G4) == []
    started = copy.deepcopy(RUNTIME)
    _runtime_server(started)["startupProbe"] = _get("/health", 8080, periodSeconds=10, failureThreshold=90)
    assert found_by([started], G4) == []


def test_serving_runtime_of_an_engine_that_listens_only_when_loaded_stays_silent() -> None:
    vllm = copy.deepcopy(RUNTIME)
    server = _runtime_server(vllm)
    server["image"] = "vllm/vllm-openai:v0.8.5"
    server["command"] = ["python3", "-m", "vllm.entrypoints.openai.api_server"]
    server["args"] = ["--model", "/mnt/models", "--port", "8080"]
    assert found_by([vllm], G4) == []


# vLLM with no startupProbe and a livenessProbe at 300 s, 10 x 30 s, a model of unknown size (fresh-set form): the
# kubelet restarts on the 10th failure in a row, at 300 + 9 x 30 = 570 s (kubernetes/kubernetes
# pkg/kubelet/prober/worker.go at 00421113e1c6 run() :175 probes before its first wait), under the 600 s minimum: advice.
def _vllm(liveness: dict) -> dict:
    return _deployment(
        "vllm",
        {
            "name": "vllm",
            "image": "vllm/vllm-openai:v0.8.5",
            "args": ["--model", "acme/private-chat", "--port", "8000"],
            "ports": [{"containerPort": 8000}],
            "resources": {"limits": {"nvidia.com/gpu": 1}},
            "livenessProbe": liveness,
            "readinessProbe": _get("/health", 8000, periodSeconds=10),
        },
    )


def test_vllm_liveness_restarting_one_period_before_the_minimum_is_advice() -> None:
    found = found_by([_vllm(_get("/health", 8000, initialDelaySeconds=300, periodSeconds=30, failureThreshold=10))], S16)
    assert [e for e, _ in found] == ["advisory"]
    assert "livenessProbe without a startupProbe restarts the pod while vLLM is still loading the model" in found[0][1]


def test_vllm_liveness_restarting_after_the_minimum_stays_silent() -> None:
    # spent set 39's trap: aliceco01/llm-inference-stack, liveness at 600 s with 10 x 30 s (restart at 870 s)
    assert found_by([_vllm(_get("/health", 8000, initialDelaySeconds=600, periodSeconds=30, failureThreshold=10))], S16) == []
