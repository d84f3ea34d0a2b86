"""What an evaluation shares between policies stays a fresh, current answer for each caller.

`policies check` runs ~110 policies over the same objects, so a few readers keep their answer for the evaluation
(policies.kube.memoized): a workload's pod specs, a container's command line (policies/reading/vllm_args.py
command_tokens, vllm_command_line). These tests pin that a caller still gets its own list, that a container whose
command, args, env, image or resources object is replaced is read again, and that `python -m policies check` gives
the collector back its threshold (policies/__main__.py runs the check with a higher one). Timings belong to
benchmarks/policies_check.py.
"""

from __future__ import annotations

import gc
import json

from policies.framework import Resource
from policies.kube import evaluation_memo, pod_specs
from policies.reading.vllm_args import command_tokens, expand_env, vllm_command_line

CONTAINER = {
    "name": "vllm",
    "image": "vllm/vllm-openai:v0.10.1",
    "args": ["--model", "$(MODEL)", "--max-model-len", "8192"],
    "env": [{"name": "MODEL", "value": "meta-llama/Llama-3.1-8B-Instruct"}],
}


def _deployment(container: dict) -> Resource:
    return Resource(
        type="kubernetes:apps/v1:Deployment",
        name="vllm",
        props={"metadata": {"name": "vllm"}, "spec": {"template": {"spec": {"containers": [container]}}}},
    )


def test_each_caller_gets_its_own_list_inside_an_evaluation():
    container = dict(CONTAINER)
    resource = _deployment(container)
    with evaluation_memo():
        first, second = command_tokens(container)[0], command_tokens(container)[0]
        assert first == second == ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192"]
        first.append("--changed-by-a-caller")
        assert command_tokens(container)[0] == second
        line = vllm_command_line(container)
        assert line == second
        assert line is not vllm_command_line(container)
        specs = pod_specs(resource)
        specs.clear()
        assert [path for path, _ in pod_specs(resource)] == ["spec.template.spec"]


def test_a_replaced_field_is_read_again():
    container = dict(CONTAINER)
    with evaluation_memo():
        assert command_tokens(container)[0][1] == "meta-llama/Llama-3.1-8B-Instruct"
        container["env"] = [{"name": "MODEL", "value": "Qwen/Qwen2.5-7B-Instruct"}]
        assert command_tokens(container)[0][1] == "Qwen/Qwen2.5-7B-Instruct"
        container["args"] = ["--model", "$(MODEL)", "--enforce-eager"]
        assert vllm_command_line(container) == ["--model", "Qwen/Qwen2.5-7B-Instruct", "--enforce-eager"]
        container["image"] = "registry.example/other:1"
        container["args"] = ["serve"]
        assert vllm_command_line(container) is None


def test_expand_env_without_a_reference_leaves_the_tokens_alone():
    tokens = ["--model", "m", "--port", "8000"]
    assert expand_env(tokens, CONTAINER) is tokens
    assert expand_env(["$(MODEL)", "$(UNSET)"], CONTAINER) == ["meta-llama/Llama-3.1-8B-Instruct", "$(UNSET)"]


def test_the_check_gives_the_collector_its_threshold_back(tmp_path, capsys):
    from policies.__main__ import cli

    manifest = tmp_path / "deployment.json"
    manifest.write_text(json.dumps(_deployment(dict(CONTAINER)).props | {"apiVersion": "apps/v1", "kind": "Deployment"}))
    before = gc.get_threshold()
    try:
        assert cli(["check", str(manifest), "--format", "json"]) in (0, 1)
        assert gc.get_threshold() == before
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()
    assert json.loads(capsys.readouterr().out)
