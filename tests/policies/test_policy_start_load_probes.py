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
