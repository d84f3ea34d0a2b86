"""A container that installs its own vLLM runs that release, not the image tag's: S38's `vllm serve` rule and S1's
default both follow (cold review 29, findings 4 and 5). A requirements file or a local project the files do not show
may install vLLM, so the tag's release is unknown there too; a container that installs something else keeps it."""

from __future__ import annotations

import pytest
from policy_fixtures import found_by

from policies.reading.installs import installs_engine, installs_provider


def _deployment(script: str, image: str = "vllm/vllm-openai:v0.4.2") -> dict:
    container = {
        "name": "vllm",
        "image": image,
        "command": ["/bin/bash", "-c"],
        "args": [script],
        "resources": {"limits": {"nvidia.com/gpu": 1, "memory": "16Gi"}},
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "v", "namespace": "ml"},
        "spec": {
            "selector": {"matchLabels": {"app": "v"}},
            "template": {"metadata": {"labels": {"app": "v"}}, "spec": {"containers": [container]}},
        },
    }


@pytest.mark.parametrize(
    "argv",
    [
        ["pip3", "install", "-r", "/app/requirements.txt"],
        ["pip", "install", "--requirement=/app/req.txt"],
        ["pip", "install", "."],
        ["pip", "install", "-e", "./server"],
        ["uv", "pip", "install", "--system", "vllm==0.6.3"],
        # Cold review 29b, finding 2: lock and project files, and conda.
        ["uv", "pip", "sync", "requirements.lock"],
        ["uv", "sync", "--frozen"],
        ["poetry", "install", "--no-root"],
        ["pip-sync", "requirements.txt"],
        ["conda", "install", "-y", "-c", "conda-forge", "vllm"],
    ],
)
def test_an_install_that_may_bring_vllm_counts(argv):
    assert installs_engine(argv, "vllm")


@pytest.mark.parametrize(
    "argv", [["pip", "install", "ray[serve]==2.9.0"], ["pip", "install", "-c", "constraints.txt", "fastapi"]]
)
def test_an_install_of_something_else_does_not(argv):
    assert not installs_engine(argv, "vllm")


def test_vllm_serve_on_v0_4_2_blocks_unless_the_container_may_install_vllm():
    # The console script `vllm` first ships in 0.5.2 (v0.5.2 setup.py:492-493).
    plain = found_by([_deployment("exec vllm serve facebook/opt-125m --port 8000")], "engine-options-exist")
    assert [level for level, message in plain if "`vllm serve`" in message] == ["mandatory"]
    script = "pip3 install -r /app/requirements.txt && exec vllm serve facebook/opt-125m --port 8000"
    assert not [m for _, m in found_by([_deployment(script)], "engine-options-exist") if "`vllm serve`" in m]


def test_s1_names_no_tag_release_for_a_container_that_installs_vllm():
    script = "uv pip install --system vllm==0.6.3\nexec vllm serve facebook/opt-125m --port 8000"
    ((_, message),) = found_by([_deployment(script)], "vllm-gpu-memory-utilization-explicit")
    assert "the container installs its own vLLM" in message and "vLLM 0.4.2" not in message
    ((_, tagged),) = found_by([_deployment("exec vllm serve facebook/opt-125m")], "vllm-gpu-memory-utilization-explicit")
    assert "(vLLM 0.4.2)" in tagged


def test_s41_needs_a_release_that_reads_vllm_port():
    # vLLM reads VLLM_PORT from 0.4.3 (v0.4.3 vllm/envs.py:103-105, utils.py:290 get_open_port); v0.4.2 never names it.
    # Fresh set 28 brayanpena530/multiLLM-EKS-Deploy: v0.4.1 beside a Service named vllm, a labeller's trap.
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "vllm", "namespace": "ml"},
        "spec": {"selector": {"app": "v"}, "ports": [{"port": 8000}]},
    }
    old = _deployment("exec python3 -m vllm.entrypoints.openai.api_server --model facebook/opt-125m", "vllm/vllm-openai:v0.4.1")
    assert found_by([old, service], "service-links-spare-engine-variables") == []
    new = _deployment("exec python3 -m vllm.entrypoints.openai.api_server --model facebook/opt-125m", "vllm/vllm-openai:v0.4.3")
    assert [level for level, _ in found_by([new, service], "service-links-spare-engine-variables")] == ["mandatory"]


def _dynamo_sglang(install: str) -> dict:
    # Minimal form of alisachen-google/gcp-dynamo-cuj dynamo-disagg-sweep/dsr1-fp8-sweep/manifests/
    # ll-lowlatency-1p1d-tp4.yaml at 0dd63192144f001b35049800be0332fce4c99942: the SGLang image, and a script that
    # pip-installs NVIDIA Dynamo (PyPI ai-dynamo, which provides the dynamo package) before `python3 -m dynamo.sglang`.
    script = f"set -e\n{install}exec python3 -m dynamo.sglang --model-path /model --tp 4\n"
    return _deployment(script, image="lmsysorg/sglang:v0.5.8.post1-cu130")


def test_a_module_the_script_installs_is_not_the_images_to_ship():
    # Without the install, no SGLang release ships dynamo.sglang and the image has no Dynamo: Python exits.
    [(level, message)] = found_by([_dynamo_sglang("")], "engine-options-exist")
    assert level == "mandatory" and "python -m dynamo.sglang" in message and "has no such module" in message
    # The careful form: the script installs Dynamo first.
    installed = _dynamo_sglang('pip install --quiet "ai-dynamo-runtime==0.8.0" "ai-dynamo==0.8.0"\n')
    assert found_by([installed], "engine-options-exist") == []
    # A requirements file may name it too; an unrelated package does not provide it.
    assert found_by([_dynamo_sglang("pip install -r /app/requirements.txt\n")], "engine-options-exist") == []
    assert [lv for lv, _ in found_by([_dynamo_sglang("pip install fastapi\n")], "engine-options-exist")] == ["mandatory"]


def test_installs_provider_reads_the_module_top_level_name_as_a_word():
    assert installs_provider(["pip", "install", "ai-dynamo[sglang]==0.8.0"], "dynamo.sglang")
    assert installs_provider(["pip", "install", "-r", "req.txt"], "dynamo.sglang")
    assert not installs_provider(["pip", "install", "dynamodb-json"], "dynamo.sglang")


def test_dynamo_installed_on_the_vllm_image_as_its_readme_shows():
    # The second form of the class, as ai-dynamo/dynamo's README ("Inference Engines", vLLM) documents it:
    # `uv pip install ai-dynamo[vllm]`, then `python -m dynamo.vllm`.
    def levels(install: str) -> list[str]:
        script = f"{install}python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B\n"
        return [
            lv for lv, m in found_by([_deployment(script, "vllm/vllm-openai:v0.10.1")], "engine-options-exist") if "dynamo" in m
        ]

    assert levels("") == ["mandatory"]
    assert levels('uv pip install --system "ai-dynamo[vllm]" && ') == []
