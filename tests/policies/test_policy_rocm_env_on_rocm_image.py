"""G74 rocm-env-on-rocm-image: HSA_OVERRIDE_GFX_VERSION (read by ROCm's libhsakmt, ROCm/ROCR-Runtime@c7785a6d
libhsakmt/src/topology.c:1218-1224) on a model server whose image tag names a Vulkan or CUDA build."""

from __future__ import annotations

import copy

import pytest
from policy_fixtures import found_by

POLICY = "rocm-env-on-rocm-image"


def _server(image: str, env: list[dict], command: list[str] | None = None) -> dict:
    container: dict = {"name": "server", "image": image, "env": env, "ports": [{"containerPort": 11434}]}
    if command:
        container["command"] = command
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "llm"},
        "spec": {
            "selector": {"matchLabels": {"app": "llm"}},
            "template": {"metadata": {"labels": {"app": "llm"}}, "spec": {"containers": [container]}},
        },
    }


# rrumana/k8s-homelab-2@3e8775d58e4833738d973b4b35dc39f77d6a0d2f cluster/apps/ai/llama-backend/
# llama-static-a-deployment.yaml (spent set 111), trimmed: llama-server of llama-swap's Vulkan build.
RRUMANA = _server(
    "harbor.rcrumana.xyz/mirror/mostlygeek/llama-swap:v174-vulkan",
    [{"name": "HSA_OVERRIDE_GFX_VERSION", "value": "11.5.1"}],
    ["/app/llama-server"],
)
RRUMANA["spec"]["template"]["spec"]["containers"][0]["args"] = ["--model", "/models/model.gguf", "--port", "8000"]

# dysonfrost/arkollama-k3s@6d0bfad96ce98d722b22f2b3b2351cd821178b1d k8s/ollama/deployment.yaml (spent set 107):
# ollama/ollama:rocm with HSA_OVERRIDE_GFX_VERSION 10.3.0.
DYSONFROST = _server("ollama/ollama:rocm", [{"name": "HSA_OVERRIDE_GFX_VERSION", "value": "10.3.0"}])
DYSONFROST["spec"]["template"]["spec"]["containers"][0]["args"] = ["serve"]


def test_override_on_a_vulkan_build_is_advised():
    assert found_by([RRUMANA], POLICY) == [
        (
            "advisory",
            "container server: env HSA_OVERRIDE_GFX_VERSION is a setting of ROCm's runtime (libhsakmt reads it to "
            "report an AMD GPU's gfx target), but image harbor.rcrumana.xyz/mirror/mostlygeek/llama-swap:v174-vulkan is "
            "a Vulkan build, which loads no ROCm runtime: the override never applies; drop it, or run the image's ROCm "
            "build if the GPU needs it",
        )
    ]


@pytest.mark.parametrize("image", ["ghcr.io/ggml-org/llama.cpp:server-cuda", "ghcr.io/ggml-org/llama.cpp:server-cuda12-b6080"])
def test_override_on_a_cuda_build_is_advised(image):
    obj = copy.deepcopy(RRUMANA)
    obj["spec"]["template"]["spec"]["containers"][0]["image"] = image
    [(level, message)] = found_by([obj], POLICY)
    assert level == "advisory" and "is a CUDA build" in message


@pytest.mark.parametrize("image", ["ollama/ollama:rocm", "ghcr.io/ggml-org/llama.cpp:server-rocm", "ollama/ollama:latest"])
def test_rocm_or_unnamed_builds_stay_silent(image):
    obj = copy.deepcopy(DYSONFROST)
    obj["spec"]["template"]["spec"]["containers"][0]["image"] = image
    assert found_by([obj], POLICY) == []


def test_a_variable_a_script_reads_stays_silent():
    obj = copy.deepcopy(RRUMANA)
    obj["spec"]["template"]["spec"]["containers"][0]["command"] = [
        "/bin/sh",
        "-c",
        "echo $HSA_OVERRIDE_GFX_VERSION; exec /app/llama-server",
    ]
    assert found_by([obj], POLICY) == []
