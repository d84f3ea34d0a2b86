"""A container that installs its own vLLM runs that release, not the image tag's: S38's `vllm serve` rule and S1's
default both follow (cold review 29, findings 4 and 5). A requirements file or a local project the files do not show
may install vLLM, so the tag's release is unknown there too; a container that installs something else keeps it."""

from __future__ import annotations

import pytest
from policy_fixtures import found_by

from policies.vllm.flags_exist import installs_engine


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
