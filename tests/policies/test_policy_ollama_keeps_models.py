"""G77 ollama-keeps-models-loaded: an Ollama server keeps the models it serves loaded between requests.

Fires (labels filed NONE, now described):
- Spent set 27: leoho0722/gpu-delegater-based-on-kubeai backend/k8s/deploy/kubeai/llama3.3-70b-builtin.yaml@016fa665, a
  KubeAI Model with env OLLAMA_KEEP_ALIVE "0s", appended after KubeAI's own 999999h (kubeai v0.21.0
  internal/modelcontroller/engine_ollama.go:22-55); zero is "no keep alive" (ollama v0.32.15 envconfig/config.go:126-146).
- Spent set 38: ahoffer/aiagent k8s/ollama.yaml@42ed47fa, OLLAMA_MAX_LOADED_MODELS "1" from a ConfigMap while the init
  container pulls qwen3:14b and nomic-embed-text (ollama v0.32.15 server/sched.go:226-267 unloads one to make room).
- Second repository of the second form: ahoffer/aiforge k8s/ollama.yaml@4c8d0f7a (spent set 26, no label on it),
  qwen2.5-coder:14b and nomic-embed-text with OLLAMA_MAX_LOADED_MODELS "1".
Careful forms stay silent: the aiagent form with OLLAMA_MAX_LOADED_MODELS "2" or one model pulled, KEEP_ALIVE "-1"
or "24h", and a KubeAI Model of another engine.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

G77 = "ollama-keeps-models-loaded"

KUBEAI = {
    "apiVersion": "kubeai.org/v1",
    "kind": "Model",
    "metadata": {"name": "llama3.3-70b", "namespace": "default"},
    "spec": {
        "features": ["TextGeneration"],
        "url": "ollama://llama3.3:70b",
        "engine": "OLlama",
        "minReplicas": 1,
        "env": {"OLLAMA_KEEP_ALIVE": "0s"},
        "resourceProfile": "cpu:20",
    },
}


def _aiagent(models: tuple[str, ...] = ("qwen3:14b", "nomic-embed-text"), loaded: str = "1") -> list[dict]:
    """ahoffer/aiagent k8s/ollama.yaml@42ed47fa, cut to the ConfigMap, the puller and the server."""
    config = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "ollama-config", "namespace": "aiforge"},
        "data": {
            "OLLAMA_HOST": "0.0.0.0:11434",
            "OLLAMA_KEEP_ALIVE": "-1",
            "OLLAMA_MAX_LOADED_MODELS": loaded,
            **{f"MODEL_{i}": m for i, m in enumerate(models)},
        },
    }
    pulls = "\n".join(f'timeout 600 ollama pull "$MODEL_{i}" || echo "pull failed"' for i in range(len(models)))
    puller = {
        "name": "model-puller",
        "image": "ollama/ollama:0.16.1",
        "command": ["/bin/sh", "-c"],
        "args": [f"ollama serve &\nsleep 5\n{pulls}\n"],
        "env": [
            {"name": f"MODEL_{i}", "valueFrom": {"configMapKeyRef": {"name": "ollama-config", "key": f"MODEL_{i}"}}}
            for i in range(len(models))
        ],
    }
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "ollama", "namespace": "aiforge"},
        "spec": {
            "selector": {"matchLabels": {"app": "ollama"}},
            "template": {
                "metadata": {"labels": {"app": "ollama"}},
                "spec": {
                    "initContainers": [puller],
                    "containers": [
                        {
                            "name": "ollama",
                            "image": "ollama/ollama:0.16.1",
                            "envFrom": [{"configMapRef": {"name": "ollama-config"}}],
                            "resources": {"limits": {"nvidia.com/gpu": 1}},
                        }
                    ],
                },
            },
        },
    }
    return [config, deployment]


def test_kubeai_model_keep_alive_zero() -> None:
    found = found_by([KUBEAI], G77)
    assert found == [
        (
            "advisory",
            "spec.env: OLLAMA_KEEP_ALIVE=0s comes after KubeAI's own OLLAMA_KEEP_ALIVE=999999h and wins: it turns "
            "Ollama's keep-alive off (zero is 'no keep alive'), so the server unloads the model when each request ends "
            "and the next request reads the weights from disk again; leave it unset (5m) or set a long or negative "
            "duration (-1 keeps the model loaded)",
        )
    ]


def test_one_loaded_model_for_two_pulled() -> None:
    found = found_by(_aiagent(), G77)
    assert [e for e, _ in found] == ["advisory"]
    assert found[0][1].startswith(
        "container ollama: OLLAMA_MAX_LOADED_MODELS=1 keeps one model in memory, but the pod pulls 2 (qwen3:14b, "
        "nomic-embed-text:latest)"
    )


def test_second_repository_aiforge() -> None:
    found = found_by(_aiagent(models=("qwen2.5-coder:14b", "nomic-embed-text")), G77)
    assert len(found) == 1 and "pulls 2 (qwen2.5-coder:14b, nomic-embed-text:latest)" in found[0][1]


def test_room_for_the_models_or_one_model_stays_silent() -> None:
    assert found_by(_aiagent(loaded="2"), G77) == []
    # one model named twice (nomic-embed-text is nomic-embed-text:latest)
    assert found_by(_aiagent(models=("nomic-embed-text", "nomic-embed-text:latest")), G77) == []


def test_long_keep_alive_and_other_engines_stay_silent() -> None:
    day = copy.deepcopy(KUBEAI)
    day["spec"]["env"] = {"OLLAMA_KEEP_ALIVE": "24h"}
    forever = copy.deepcopy(KUBEAI)
    forever["spec"]["env"] = {"OLLAMA_KEEP_ALIVE": "-1"}
    vllm = copy.deepcopy(KUBEAI)
    vllm["spec"]["engine"] = "VLLM"
    vllm["spec"]["env"] = {"OLLAMA_KEEP_ALIVE": "0"}
    for model in (day, forever, vllm):
        assert found_by([model], G77) == []
