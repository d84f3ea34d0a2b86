"""G74 engine-env-known: a variable under an engine's own prefix is one the image's release of the engine reads
(components/engine_env_names.json settings).

Firing form: kcirtapfromspace/gemma4 apps/ollama/deployment.yaml at 938e1b558169874898eab5021388ce2ed8b63f88 (spent
set 43, label filed none): a Jetson rebuild of Ollama run as ``ollama serve`` with ``OLLAMA_GPU_MEMORY: 5GiB``; no
release of ollama/ollama reads that name (envconfig/config.go knows OLLAMA_GPU_OVERHEAD). Second form of the class: the
publisher's image with its own entrypoint and ``OLLAMA_KEEPALIVE`` (for OLLAMA_KEEP_ALIVE).

Careful forms that stay silent: names Ollama reads (stjohnb/homelab apps/ollama/deployment.yaml@a2d66d9, set 43:
OLLAMA_HOST, OLLAMA_KEEP_ALIVE ...); a name a shell command reads (``ollama pull $OLLAMA_PULL_MODELS``); a client
container (OLLAMA_BASE_URL in an app that calls Ollama); a rebuilt image not shown to be Ollama's (no port 11434). A
rebuild under Ollama's name serving 11434 with its own entrypoint is hedged advice (brief engines50b, spent set 82).
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
            "that name: components/engine_env_names.json settings.ollama), so the value is silently ignored and the setting "
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
    del rebuilt["command"], rebuilt["args"], rebuilt["ports"]
    assert found_by([_deployment(rebuilt)], G74) == []  # no port of Ollama's: not known to be a rebuild of it


def test_a_rebuild_with_its_own_entrypoint_is_hedged_advice():
    # Brief engines50b (spent set 82 olafkfreund/SOW-generator deployment/k8s-pod.yaml: ollama-amd:latest, no command,
    # containerPort 11434, OLLAMA_GPU): a rebuild of Ollama under its name (engine_flags.rebuilt_image) runs Ollama's
    # binary, but its entrypoint may be a wrapper that reads the variable, so the advice says so.
    rebuilt = copy.deepcopy(JETSON)
    del rebuilt["command"], rebuilt["args"]
    ((level, message),) = found_by([_deployment(rebuilt)], G74)
    assert level == "advisory" and message.startswith("container ollama: env OLLAMA_GPU_MEMORY is no setting Ollama reads")
    assert message.endswith("(unless this rebuilt image's own entrypoint reads it)")


_ROW = {"prefix": "OLLAMA_", "images": ["ollama/ollama"], "release_tag": "v?(\\d+\\.\\d+\\.\\d+)", "releases": ["0.1.0", "0.2.0"]}


@pytest.mark.parametrize(
    "row, field",
    [
        ({**_ROW, "prefix": "ollama", "names": {"OLLAMA_HOST": ["0.1.0", "0.2.0"]}, "source": "x"}, "prefix"),
        ({**_ROW, "names": {"VLLM_PORT": ["0.1.0", "0.2.0"]}, "source": "x"}, "names"),
        ({**_ROW, "names": {}, "source": "x"}, "names"),
        ({**_ROW, "names": {"OLLAMA_HOST": ["0.2.0", "0.1.0"]}, "source": "x"}, "names"),
        ({**_ROW, "names": {"OLLAMA_HOST": ["0.1.0", "0.3.0"]}, "source": "x"}, "names"),
        ({**_ROW, "releases": ["0.2.0", "0.1.0"], "names": {"OLLAMA_HOST": ["0.1.0", "0.2.0"]}, "source": "x"}, "releases"),
        ({**_ROW, "release_tag": "latest", "names": {"OLLAMA_HOST": ["0.1.0", "0.2.0"]}, "source": "x"}, "release_tag"),
        ({**_ROW, "names": {"OLLAMA_HOST": ["0.1.0", "0.2.0"]}}, "source"),
    ],
)
def test_a_bad_settings_row_names_its_field(row, field):
    with pytest.raises(EngineEnvError, match=rf"\[settings\.ollama\]\.{field}"):
        engine_env_of({"settings": {"ollama": row}})


# llama.cpp's LLAMA_ARG_ variables (components/engine_env_names.json settings.llama-cpp, written by
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


# Names per release (components/engine_env_names.json settings.ollama names = {NAME = [FIRST, LAST]}, written by
# tools/read_engine_env.py ollama over every release tag v0.0.1 to v0.32.15): OLLAMA_PORT is read by v0.0.1 to v0.0.19
# only (ollama/ollama v0.0.1 cmd/cmd.go:161 os.Getenv("OLLAMA_PORT"); later releases read the port from OLLAMA_HOST).
def test_a_name_only_old_releases_read_is_advice_at_the_images_release():
    for image, at in (
        ("ollama/ollama:latest", "0.32.15 (the tag latest follows the newest release)"),
        ("ollama/ollama", "0.32.15 (an untagged image is the newest release)"),
        ("docker.io/ollama/ollama:0.5.4", "0.5.4 (the image's tag)"),
    ):
        container = {"name": "ollama", "image": image, "env": [{"name": "OLLAMA_PORT", "value": "11434"}]}
        ((level, message),) = found_by([_deployment(container)], G74)
        assert level == "advisory"
        assert f"env OLLAMA_PORT is no setting Ollama {at} reads (only its releases 0.0.1 to 0.0.19 read it" in message


def test_a_name_the_images_release_reads_stays_silent():
    old = {"name": "ollama", "image": "ollama/ollama:0.0.5", "env": [{"name": "OLLAMA_PORT", "value": "11434"}]}
    assert found_by([_deployment(old)], G74) == []
    # a tag that names no release (a rebuild, a tag of its own) is judged by every release read: silent
    for image in ("ollama/ollama:0.0.5-custom", "registry.local/team/ollama:v3"):
        other = dict(old, image=image)
        assert found_by([_deployment(other)], G74) == []
    # a name newer releases read, on the newest: silent (OLLAMA_CONTEXT_LENGTH from 0.5.13)
    newest = {"name": "ollama", "image": "ollama/ollama:latest", "env": [{"name": "OLLAMA_CONTEXT_LENGTH", "value": "8192"}]}
    assert found_by([_deployment(newest)], G74) == []
    older = dict(newest, image="ollama/ollama:0.3.12")
    ((_, message),) = found_by([_deployment(older)], G74)
    assert "env OLLAMA_CONTEXT_LENGTH is no setting Ollama 0.3.12 (the image's tag) reads (only its releases 0.5" in message


def test_llama_builds_between_read_tags_are_judged_by_both():
    from components.engine_env import ENV_SETTINGS

    settings = ENV_SETTINGS["llama-cpp"]
    first, last = settings.spans["LLAMA_ARG_CACHE_RAM"]
    assert (first, last) == ("b6790", "b8914")
    assert "LLAMA_ARG_CACHE_RAM" in settings.read_at("b6500")  # between b6427 and b6790: either may read it
    assert "LLAMA_ARG_CACHE_RAM" not in settings.read_at("b6427")
    assert settings.read_at("b9999") is None  # newer than the newest read: the union is used
    container = copy.deepcopy(LLAMA)
    container["env"].append({"name": "LLAMA_ARG_CACHE_RAM", "value": "8192"})
    ((level, message),) = found_by([_deployment(container)], G74)  # server-cuda-b6080
    assert "env LLAMA_ARG_CACHE_RAM is no setting llama.cpp server b6080 (the image's tag) reads" in message
    container["image"] = "ghcr.io/ggml-org/llama.cpp:server-cuda-b6500"
    assert found_by([_deployment(container)], G74) == []


# Another engine's setting on this engine's container (components/engine_env_names.json foreign.ENGINE, written by
# tools/read_engine_env.py foreign): LocalAI reads PRELOAD_MODELS (mudler/LocalAI v4.9.0 core/cli/run.go, kong env
# LOCALAI_PRELOAD_MODELS,PRELOAD_MODELS); no release of Ollama's Go sources names it.
def test_another_engines_setting_is_advice():
    container = {
        "name": "ollama",
        "image": "ollama/ollama:latest",
        "env": [{"name": "PRELOAD_MODELS", "value": "llama3.2"}, {"name": "OLLAMA_KEEP_ALIVE", "value": "24h"}],
    }
    ((level, message),) = found_by([_deployment(container)], G74)
    assert level == "advisory"
    assert message.startswith(
        "container ollama: Ollama given LocalAI's PRELOAD_MODELS: env PRELOAD_MODELS is a setting of LocalAI, and no "
        "release of Ollama read names it (components/engine_env_names.json foreign.ollama)"
    )
    llama = copy.deepcopy(LLAMA)
    llama["env"].append({"name": "NUM_SHARD", "value": "2"})
    ((_, message),) = found_by([_deployment(llama)], G74)
    assert (
        message.startswith("container llama: llama.cpp server given ") and "'s NUM_SHARD: env NUM_SHARD is a setting" in message
    )


def test_another_engines_setting_careful_forms_stay_silent():
    # a script that reads it, a name the engine's own sources name (HF_TOKEN on llama.cpp), a ConfigMap's keys
    scripted = {
        "name": "ollama",
        "image": "ollama/ollama:latest",
        "command": ["/bin/sh", "-c"],
        "args": ["ollama serve & sleep 5; ollama pull $PRELOAD_MODELS; wait"],
        "env": [{"name": "PRELOAD_MODELS", "value": "llama3.2"}],
    }
    assert found_by([_deployment(scripted)], G74) == []
    llama = copy.deepcopy(LLAMA)
    llama["env"].append({"name": "HF_TOKEN", "value": "x"})
    assert found_by([_deployment(llama)], G74) == []
    localai = {"name": "local-ai", "image": "localai/localai:latest", "env": [{"name": "PRELOAD_MODELS", "value": "x"}]}
    assert found_by([_deployment(localai)], G74) == []
