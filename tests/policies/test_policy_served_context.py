"""S54 client-context-within-server on every engine of the table (session 54), and the served-context reader.

Fixtures (spent sets 107 and 110, reduced):
- dysonfrost/arkollama-k3s@6d0bfad96ce98d722b22f2b3b2351cd821178b1d k8s/ark/model-config-qwen.yaml and
  model-config-hermes.yaml: Ark Models annotated model.ark.mckinsey.com/context-window 262144 / 32768 whose baseUrl is
  Service ollama-service (k8s/ollama/service.yaml) in front of k8s/ollama/deployment.yaml, ollama/ollama:rocm with no
  OLLAMA_CONTEXT_LENGTH. As written the tag moves (the newest release fits its default to the GPUs' memory): silent;
  pinned to a release whose default is a figure it fires.
- hydazz/home-ops@426fa8a57b64e55191a1367a7cb2a560733e8199 kubernetes/apps/ai/local-ai/app/helmrelease.yaml: LocalAI
  (app-template values) with env CONTEXT_SIZE 512: S36's short context, now read through LocalAI's spelling.
- pocharlies-org/k8s-litellm-pocharlies k8s/manifest.yaml (set 110): ConfigMap litellm-config whose script sends up to
  FAST_CTX_LIMIT = 73000 tokens to the fast route, whose model_info context_window is 32768.
"""

from __future__ import annotations

import copy

import pytest
from policy_fixtures import found_by

from components.engine_context import EngineContext, _row
from policies.reading.served_context import _per_slot

POLICY = "client-context-within-server"

_MODEL = {
    "apiVersion": "ark.mckinsey.com/v1alpha1",
    "kind": "Model",
    "metadata": {"name": "qwen3.5-9b", "annotations": {"model.ark.mckinsey.com/context-window": "262144"}},
    "spec": {
        "config": {"openai": {"baseUrl": {"value": "http://ollama-service.ollama-system.svc.cluster.local:11434/v1"}}},
        "model": {"value": "qwen3.5:9b"},
        "provider": "openai",
    },
}
_OLLAMA = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "ollama", "namespace": "ollama-system"},
    "spec": {
        "selector": {"matchLabels": {"app": "ollama"}},
        "template": {
            "metadata": {"labels": {"app": "ollama"}},
            "spec": {"containers": [{"name": "ollama", "image": "ollama/ollama:rocm", "args": ["serve"]}]},
        },
    },
}
_SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "ollama-service", "namespace": "ollama-system"},
    "spec": {"selector": {"app": "ollama"}, "ports": [{"port": 11434, "targetPort": 11434}]},
}


def _ollama(image: str, env: dict | None = None) -> dict:
    server = copy.deepcopy(_OLLAMA)
    container = server["spec"]["template"]["spec"]["containers"][0]
    container["image"] = image
    if env:
        container["env"] = [{"name": k, "value": v} for k, v in env.items()]
    return server


def test_an_annotated_window_above_ollamas_default_at_its_release_is_advice():
    ((level, message),) = found_by([_MODEL, _ollama("ollama/ollama:0.6.2-rocm"), _SERVICE], POLICY)
    assert level == "advisory"
    assert message == (
        "metadata.annotations model.ark.mckinsey.com/context-window=262144 tells the application a context window larger "
        "than the server behind Service ollama-service serves, 2048 tokens a request (Ollama 0.6.2's default with "
        "OLLAMA_CONTEXT_LENGTH unset (unless a model's own Modelfile PARAMETER num_ctx sets more)): it truncates a longer "
        "prompt to it silently (a warning in its log), and the OpenAI-compatible /v1 API has no way to ask for more (no "
        "num_ctx); state at most 2048, or raise the server's context where its memory allows"
    )
    ((_, message),) = found_by([_MODEL, _ollama("ollama/ollama:0.9.0"), _SERVICE], POLICY)
    assert "4096 tokens a request (Ollama 0.9.0's default" in message


def test_ollama_at_an_unknown_or_fitted_default_or_a_window_it_serves_stays_silent():
    # As written: a moving tag (the newest release fits its default to the GPUs' memory, up to 262,144).
    assert found_by([_MODEL, _OLLAMA, _SERVICE], POLICY) == []
    assert found_by([_MODEL, _ollama("ollama/ollama:0.15.5"), _SERVICE], POLICY) == []
    served = _ollama("ollama/ollama:0.6.2", {"OLLAMA_CONTEXT_LENGTH": "262144"})
    assert found_by([_MODEL, served, _SERVICE], POLICY) == []
    ((_, message),) = found_by([_MODEL, _ollama("ollama/ollama:latest", {"OLLAMA_CONTEXT_LENGTH": "32768"}), _SERVICE], POLICY)
    assert "32768 tokens a request (Ollama OLLAMA_CONTEXT_LENGTH=32768" in message
    other = copy.deepcopy(_MODEL)
    other["spec"]["config"]["openai"]["baseUrl"]["value"] = "http://ollama-service.elsewhere:11434/v1"
    assert found_by([other, _ollama("ollama/ollama:0.6.2"), _SERVICE], POLICY) == []


def test_a_client_of_ollamas_native_api_may_ask_a_larger_num_ctx():
    # review54b: OLLAMA_NUM_CTX beside a native-API base URL, and a LiteLLM ollama_chat route passing num_ctx, ask Ollama
    # for that context per request (options.num_ctx); only its OpenAI-compatible /v1 path cannot.
    def client(url: str) -> dict:
        env = [{"name": "OLLAMA_BASE_URL", "value": url}, {"name": "OLLAMA_NUM_CTX", "value": "16384"}]
        return {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "rag-api", "namespace": "ollama-system"},
            "spec": {"containers": [{"name": "api", "image": "ghcr.io/acme/rag-api:1.4.0", "env": env}]},
        }

    server = _ollama("ollama/ollama:0.9.0")
    assert found_by([client("http://ollama-service:11434"), server, _SERVICE], POLICY) == []
    route = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "litellm-config", "namespace": "ollama-system"},
        "data": {
            "config.yaml": "model_list:\n- model_name: llama3\n  litellm_params:\n    model: ollama_chat/llama3.1:8b\n"
            "    api_base: http://ollama-service:11434\n    num_ctx: 32768\n  model_info:\n    max_input_tokens: 32768\n"
        },
    }
    assert found_by([route, server, _SERVICE], POLICY) == []
    ((_, message),) = found_by([client("http://ollama-service:11434/v1"), server, _SERVICE], POLICY)
    assert message.startswith("spec container api env OLLAMA_NUM_CTX=16384 tells the application a context window larger")


def _llama(args: list[str]) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "llm-fast", "namespace": "llm"},
        "spec": {
            "selector": {"matchLabels": {"app": "llm-fast"}},
            "template": {
                "metadata": {"labels": {"app": "llm-fast"}},
                "spec": {
                    "containers": [{"name": "server", "image": "ghcr.io/ggml-org/llama.cpp:server-cuda-b6500", "args": args}]
                },
            },
        },
    }


_FAST_SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "llm-fast", "namespace": "llm"},
    "spec": {"selector": {"app": "llm-fast"}, "ports": [{"port": 8210, "targetPort": 8080}]},
}


def _litellm(info: str) -> dict:
    config = (
        "model_list:\n  - model_name: fast\n    litellm_params:\n      model: openai/qwen35-9b\n"
        f"      api_base: http://llm-fast.llm.svc.cluster.local:8210/v1\n    model_info:\n{info}"
    )
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "litellm-config", "namespace": "litellm"},
        "data": {"config.yaml": config},
    }


def test_a_litellm_window_above_a_llama_cpp_slot_is_advice():
    server = _llama(["-m", "/models/q.gguf", "--ctx-size", "65536", "--parallel", "4"])
    ((level, message),) = found_by([_litellm("      max_input_tokens: 32768\n"), server, _FAST_SERVICE], POLICY)
    assert level == "advisory"
    assert message.startswith("data config.yaml model_list[0].model_info max_input_tokens=32768 tells the application")
    assert "16384 tokens a request (llama.cpp server --ctx-size 65536 over --parallel 4 slots)" in message
    # A unified KV cache lets one slot take the whole context (b8914): the whole --ctx-size bounds it.
    unified = _llama(["-m", "/models/q.gguf", "--ctx-size", "65536", "--parallel", "4", "--kv-unified"])
    assert found_by([_litellm("      max_input_tokens: 32768\n"), unified, _FAST_SERVICE], POLICY) == []
    alone = _llama(["-m", "/models/q.gguf", "-c", "32768"])
    assert found_by([_litellm("      max_input_tokens: 32768\n      max_tokens: 8192\n"), alone, _FAST_SERVICE], POLICY) == []


def test_the_slot_split_pads_as_llama_cpp_does():
    assert _per_slot({"np": "4"}, 262144) == (65536, "262144 over --parallel 4 slots")
    assert _per_slot({"parallel": "3"}, 8192) == (2816, "8192 over --parallel 3 slots")
    assert _per_slot({"np": "4", "kvu": None}, 8192) == (8192, "")
    assert _per_slot({"n-parallel": "1"}, 8192) == (8192, "")
    assert _per_slot({"np": "-1"}, 8192) == (8192, "")


def test_a_client_env_above_localais_context_size_is_advice():
    local_ai = _llama([])
    container = local_ai["spec"]["template"]["spec"]["containers"][0]
    container.update(image="localai/localai:v3.3.0-gpu-nvidia-cuda-12", env=[{"name": "CONTEXT_SIZE", "value": "4096"}])
    del container["args"]
    client = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "app", "namespace": "llm"},
        "data": {"OPENAI_BASE_URL": "http://llm-fast:8210/v1", "MAX_CONTEXT_TOKENS": "8192"},
    }
    ((_, message),) = found_by([client, local_ai, _FAST_SERVICE], POLICY)
    assert "4096 tokens a request (LocalAI CONTEXT_SIZE=4096 (unless a model's own YAML context_size sets more))" in message
    client["data"]["MAX_CONTEXT_TOKENS"] = "4096"
    assert found_by([client, local_ai, _FAST_SERVICE], POLICY) == []


def test_localais_short_context_size_is_s36_advice():
    release = {
        "apiVersion": "helm.toolkit.fluxcd.io/v2",
        "kind": "HelmRelease",
        "metadata": {"name": "local-ai"},
        "spec": {
            "chartRef": {"kind": "OCIRepository", "name": "app-template"},
            "values": {
                "controllers": {
                    "local-ai": {
                        "containers": {
                            "app": {
                                "image": {"repository": "docker.io/localai/localai", "tag": "v3.3.0-gpu-nvidia-cuda-12"},
                                "env": {"CONTEXT_SIZE": 512, "MODELS_PATH": "/models"},
                            }
                        }
                    }
                }
            },
        },
    }
    short = [m for _, m in found_by([release], "debug-switches-off") if "caps prompt" in m]
    assert short == [
        "spec.values.controllers.local-ai container app: LocalAI CONTEXT_SIZE=512 caps prompt plus answer at 512 tokens, a "
        "benchmark setting: it runs every model without a context_size of its own at it: longer prompts are truncated or "
        "refused by the backend, so most chat conversations fail; serve at least 2048 (or the model's context)"
    ]
    release["spec"]["values"]["controllers"]["local-ai"]["containers"]["app"]["env"]["CONTEXT_SIZE"] = 8192
    assert [m for _, m in found_by([release], "debug-switches-off") if "caps prompt" in m] == []


_ROUTER = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "litellm-config", "namespace": "litellm"},
    "data": {
        "config.yaml": "model_list:\n  - model_name: fast\n    litellm_params:\n      model: openai/qwen35-9b\n"
        "      api_base: http://llm-fast.llm.svc.cluster.local:8210/v1\n    model_info:\n      max_tokens: 32768\n"
        "      context_window: 32768\n",
        "strip_params.py": "ROUTER_MODELS = {'router', 'auto'}\nFAST_CTX_LIMIT = 73000\nTHINK_MARKERS = ('/think',)\n",
    },
}


def test_a_router_limit_above_its_routes_window_is_advice():
    ((level, message),) = found_by([_ROUTER], POLICY)
    assert level == "advisory"
    assert message == (
        "data strip_params.py FAST_CTX_LIMIT=73000 lets the router send prompts of up to 73000 tokens to route fast, whose "
        "window is 32768 (ConfigMap/litellm-config data config.yaml model_list[0].model_info context_window): prompts "
        "between the two fail or are cut; keep FAST_CTX_LIMIT at most 32768, or send longer prompts to a route that "
        "holds them"
    )


@pytest.mark.parametrize(
    "script", ["FAST_CTX_LIMIT = 30000\n", "SLOW_CTX_LIMIT = 73000\n", "# FAST_CTX_LIMIT = 73000 (old)\n", "fast = 73000\n"]
)
def test_a_router_limit_within_its_route_or_for_no_route_stays_silent(script):
    router = copy.deepcopy(_ROUTER)
    router["data"]["strip_params.py"] = script
    assert found_by([router], POLICY) == []


def test_the_context_table_refuses_a_bad_row():
    with pytest.raises(ValueError, match=r"context\]: fields are"):
        _row("x", {"beyond": "b"})
    with pytest.raises(ValueError, match=r"defaults: 'v1' = 2048 is not RELEASE = tokens"):
        _row("x", {"beyond": "b", "source": "s", "defaults": {"v1": 2048}})
    facts = _row("x", {"beyond": "b", "source": "s", "defaults": {"0.6.7": 4096, "0.1.0": 2048, "0.15.5": 0}})
    assert isinstance(facts, EngineContext)
    assert [facts.default_at(r) for r in ("0.0.9", "0.1.0", "0.6.6", "0.6.7", "0.15.4", "0.15.5", None, "x")] == [
        None,
        2048,
        2048,
        4096,
        4096,
        None,
        None,
        None,
    ]
