"""G74 engine-env-known: a variable under an engine's own prefix is one some release of the engine reads
(components/engine_env.toml [settings]).

Firing form: kcirtapfromspace/gemma4 apps/ollama/deployment.yaml at 938e1b558169874898eab5021388ce2ed8b63f88 (spent
set 43, label filed none): a Jetson rebuild of Ollama run as ``ollama serve`` with ``OLLAMA_GPU_MEMORY: 5GiB``; no
release of ollama/ollama reads that name (envconfig/config.go knows OLLAMA_GPU_OVERHEAD). Second form of the class: the
publisher's image with its own entrypoint and ``OLLAMA_KEEPALIVE`` (for OLLAMA_KEEP_ALIVE).

Careful forms that stay silent: names Ollama reads (stjohnb/homelab apps/ollama/deployment.yaml@a2d66d9, set 43:
OLLAMA_HOST, OLLAMA_KEEP_ALIVE ...); a name a shell command reads (``ollama pull $OLLAMA_PULL_MODELS``); a client
container (OLLAMA_BASE_URL in an app that calls Ollama); a rebuilt image whose own entrypoint may read it.
"""

from __future__ import annotations

import copy

import pytest
from policy_fixtures import found_by

from components.engine_env import EngineEnvError, engine_env_of

G74 = "engine-env-known"


def _deployment(container: dict) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "ollama", "namespace": "gemma4"},
        "spec": {
            "selector": {"matchLabels": {"app": "ollama"}},
            "template": {"metadata": {"labels": {"app": "ollama"}}, "spec": {"containers": [container]}},
        },
    }


JETSON = {
    "name": "ollama",
    "image": "192.168.25.201:5050/ollama-jetson:r36.4.0",
    "command": ["ollama"],
    "args": ["serve"],
    "env": [
        {"name": "OLLAMA_HOST", "value": "0.0.0.0:11434"},
        {"name": "OLLAMA_MODELS", "value": "/models"},
        {"name": "OLLAMA_GPU_MEMORY", "value": "5GiB"},
    ],
    "ports": [{"containerPort": 11434}],
}


def test_a_name_no_release_reads_is_advice_naming_the_closest():
    assert found_by([_deployment(JETSON)], G74) == [
        (
            "advisory",
            "container ollama: env OLLAMA_GPU_MEMORY is no setting Ollama reads (no release of it reads a variable of "
            "that name: components/engine_env.toml [settings.ollama]), so the value is silently ignored and the setting "
            "meant never applies; the closest variable it reads is OLLAMA_GPU_OVERHEAD; use the engine's own name for "
            "it, or drop the variable",
        )
    ]
    publisher = {"name": "ollama", "image": "ollama/ollama:0.5.4", "env": [{"name": "OLLAMA_KEEPALIVE", "value": "24h"}]}
    [(level, message)] = found_by([_deployment(publisher)], G74)
    assert level == "advisory" and message.endswith(
        "the closest variable it reads is OLLAMA_KEEP_ALIVE; use the engine's own name for it, or drop the variable"
    )


def test_careful_forms_stay_silent():
    known = copy.deepcopy(JETSON)
    known["env"][2] = {"name": "OLLAMA_GPU_OVERHEAD", "value": "536870912"}
    known["env"].append({"name": "OLLAMA_KEEP_ALIVE", "value": "24h"})
    assert found_by([_deployment(known)], G74) == []
    scripted = {
        "name": "ollama",
        "image": "ollama/ollama:latest",
        "command": ["/bin/sh", "-c"],
        "args": ["ollama serve & sleep 5; ollama pull $OLLAMA_PULL_MODELS; wait"],
        "env": [{"name": "OLLAMA_PULL_MODELS", "value": "llama3.2"}],
    }
    assert found_by([_deployment(scripted)], G74) == []
    client = {
        "name": "webui",
        "image": "ghcr.io/open-webui/open-webui:main",
        "env": [{"name": "OLLAMA_BASE_URL", "value": "http://ollama:11434"}],
    }
    assert found_by([_deployment(client)], G74) == []
    rebuilt = copy.deepcopy(JETSON)
    del rebuilt["command"], rebuilt["args"]
    assert found_by([_deployment(rebuilt)], G74) == []


@pytest.mark.parametrize(
    "row, field",
    [
        ({"prefix": "ollama", "names": ["OLLAMA_HOST"], "source": "x"}, "prefix"),
        ({"prefix": "OLLAMA_", "names": ["VLLM_PORT"], "source": "x"}, "names"),
        ({"prefix": "OLLAMA_", "names": [], "source": "x"}, "names"),
        ({"prefix": "OLLAMA_", "names": ["OLLAMA_HOST"]}, "source"),
    ],
)
def test_a_bad_settings_row_names_its_field(row, field):
    with pytest.raises(EngineEnvError, match=rf"\[settings\.ollama\]\.{field}"):
        engine_env_of({"settings": {"ollama": row}})


# llama.cpp's LLAMA_ARG_ variables (components/engine_env.toml [settings.llama-cpp], written by
# tools/read_source_options.py --env from common/arg.cpp set_env at 17 build tags and the history of common/ and
# tools/server/): the server image's own entrypoint (/app/llama-server, .devops/cuda.Dockerfile b8914 L97) reads them.
LLAMA = {
    "name": "llama",
    "image": "ghcr.io/ggml-org/llama.cpp:server-cuda-b6080",
    "ports": [{"containerPort": 8080}],
    "env": [
        {"name": "LLAMA_ARG_MODEL", "value": "/models/m.gguf"},
        {"name": "LLAMA_ARG_CTX_SIZE", "value": "4096"},
        {"name": "LLAMA_ARG_NO_MMAP", "value": "1"},
    ],
}


def test_a_llama_arg_name_no_build_reads_is_advice():
    container = copy.deepcopy(LLAMA)
    container["env"].append({"name": "LLAMA_ARG_GPU_LAYERS", "value": "99"})
    ((level, message),) = found_by([_deployment(container)], G74)
    assert level == "advisory"
    assert "env LLAMA_ARG_GPU_LAYERS is no setting llama.cpp server reads" in message
    assert "the closest variable it reads is LLAMA_ARG_N_GPU_LAYERS" in message


def test_llama_arg_names_a_build_reads_stay_silent():
    container = copy.deepcopy(LLAMA)
    container["env"] += [
        {"name": "LLAMA_ARG_N_GPU_LAYERS", "value": "99"},
        {"name": "LLAMA_ARG_HOST", "value": "0.0.0.0"},
        {"name": "LLAMA_ARG_FLASH_ATTN", "value": "on"},
    ]
    assert found_by([_deployment(container)], G74) == []
