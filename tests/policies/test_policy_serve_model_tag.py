"""`vllm serve TAG ... --model X`: the positional model tag wins over --model (vllm 0.33.0 vllm/entrypoints/cli/
serve.py:56-57), read by served_model and checked by S38 engine-options-exist."""

import pytest
from policy_fixtures import found_by

from policies.reading.vllm_args import serve_model_tag


def vllm_deployment(container: dict) -> dict:
    """A Deployment with one vLLM container on two GPUs."""
    container = {"name": "vllm", "image": "vllm/vllm-openai:v0.8.5", **container}
    container.setdefault("resources", {"limits": {"nvidia.com/gpu": 2}})
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "qwen25-coder-7b"},
        "spec": {
            "selector": {"matchLabels": {"app": "qwen"}},
            "template": {"metadata": {"labels": {"app": "qwen"}}, "spec": {"containers": [container]}},
        },
    }


def script(line: str) -> dict:
    return {"command": ["/bin/sh", "-c"], "args": [line]}


# Set 12: spangreen/K8s-Ollama-Setup manifests/qwen25-coder-7b.yaml at 0b5833e59cc1926caa3f993563bc005264ae353a.
MIXED = "vllm serve vllm.entrypoints.openai.api_server --model Qwen/Qwen2.5-Coder-7B --tensor-parallel-size 2\n"


def test_a_module_as_the_model_tag_blocks_once():
    # S38 reports it; G46 container-can-start leaves this case to S38, so it is reported once.
    objs = [vllm_deployment(script(MIXED))]
    assert found_by(objs, "engine-options-exist") == [
        (
            "mandatory",
            "container vllm: vllm serve vllm.entrypoints.openai.api_server: the positional argument is vLLM's model tag, "
            "which wins over --model Qwen/Qwen2.5-Coder-7B (vllm/entrypoints/cli/serve.py: args.model = args.model_tag), "
            "and vllm.entrypoints.openai.api_server is a program to run, not a model, so vLLM looks up a model of that "
            "name and exits before serving; drop it and name the model once (`vllm serve MODEL` or --model)",
        )
    ]
    assert found_by(objs, "container-can-start") == []


def test_a_module_passed_to_the_images_vllm_serve_blocks():
    # The vllm/vllm-openai entrypoint is `vllm serve`: args that start with the module make it the model tag.
    args = ["vllm.entrypoints.openai.api_server", "--model", "Qwen/Qwen2.5-Coder-7B"]
    objs = [vllm_deployment({"args": args})]
    assert found_by(objs, "engine-options-exist") == [
        (
            "mandatory",
            "container vllm: vllm serve vllm.entrypoints.openai.api_server: the positional argument is vLLM's model tag, "
            "which wins over --model Qwen/Qwen2.5-Coder-7B (vllm/entrypoints/cli/serve.py: args.model = args.model_tag), "
            "and vllm.entrypoints.openai.api_server is a program to run, not a model, so vLLM looks up a model of that "
            "name and exits before serving; drop it and name the model once (`vllm serve MODEL` or --model)",
        )
    ]
    assert found_by(objs, "container-can-start") == []


def test_a_tag_that_differs_from_model_is_advice_and_is_what_is_served():
    container = script("vllm serve Qwen/Qwen2.5-7B --model Qwen/Qwen2.5-Coder-7B")
    assert found_by([vllm_deployment(container)], "engine-options-exist") == [
        (
            "advisory",
            "container vllm: vllm serve Qwen/Qwen2.5-7B ... --model Qwen/Qwen2.5-Coder-7B: the positional model tag wins "
            "over --model (vllm/entrypoints/cli/serve.py: args.model = args.model_tag), so the server loads "
            "Qwen/Qwen2.5-7B, not Qwen/Qwen2.5-Coder-7B; name the model once",
        )
    ]
    assert "Qwen/Qwen2.5-7B" in " ".join(m for _, m in found_by([vllm_deployment(container)], "model-source-pinned"))


@pytest.mark.parametrize(
    "container",
    [
        script("vllm serve Qwen/Qwen2.5-Coder-7B --tensor-parallel-size 2"),
        script("vllm serve --model Qwen/Qwen2.5-Coder-7B --tensor-parallel-size 2"),
        script("vllm serve Qwen/Qwen2.5-Coder-7B --model Qwen/Qwen2.5-Coder-7B"),
        {"command": ["python3", "-m", "vllm.entrypoints.openai.api_server"], "args": ["--model", "Qwen/Qwen2.5-Coder-7B"]},
        {"args": ["--model", "Qwen/Qwen2.5-Coder-7B", "--tensor-parallel-size", "2"]},
        {"args": ["Qwen/Qwen2.5-Coder-7B", "--tensor-parallel-size", "2"]},
    ],
)
def test_one_model_named_once_is_silent(container):
    assert found_by([vllm_deployment(container)], "engine-options-exist") == []


def test_the_tag_is_read_only_for_vllm_serve():
    assert serve_model_tag({"image": "vllm/vllm-openai:v0.8.5", "args": ["serve", "Qwen/Qwen2.5-7B"]}) == "Qwen/Qwen2.5-7B"
    module = {"command": ["python3", "-m", "vllm.entrypoints.openai.api_server", "Qwen/Qwen2.5-7B"], "image": "x"}
    assert serve_model_tag(module) is None
    assert serve_model_tag({"image": "vllm/vllm-openai:v0.8.5", "args": ["--port", "8000"]}) is None
