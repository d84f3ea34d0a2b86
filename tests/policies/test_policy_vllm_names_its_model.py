"""S55 vllm-names-its-model: a vLLM command line with no model loads vLLM's default (engine table default_models).

Spent set 24 AnticipatedD/AMD_Instinct manifests/vllm-deployment.yaml (label NONE, now covered): vllm/vllm-openai:latest
run with env MODEL=Qwen/Qwen2.5-1.5B-Instruct and no args; the image's entrypoint is `vllm serve`, which reads no MODEL
variable, so vLLM loads ModelConfig.model's default (facebook/opt-125m to 0.9.x: vllm 0.9.2 vllm/config.py L233;
Qwen/Qwen3-0.6B from 0.10.0: 0.10.0 vllm/config.py L231). Careful forms: the model as args, as --model, from a variable
the shell expands, in a private image whose own script may pass it, or with envFrom variables a script may read.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

S55 = "vllm-names-its-model"

# AnticipatedD/AMD_Instinct manifests/vllm-deployment.yaml, cut (its invalid ://amd.com resource left out).
AMD = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm-qwen-amd", "namespace": "default"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "vllm-engine"}},
        "template": {
            "metadata": {"labels": {"app": "vllm-engine"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm-rocm-core",
                        "image": "vllm/vllm-openai:latest",
                        "ports": [{"containerPort": 8000}],
                        "env": [{"name": "MODEL", "value": "Qwen/Qwen2.5-1.5B-Instruct"}],
                    }
                ]
            },
        },
    },
}


def _container(obj: dict) -> dict:
    return obj["spec"]["template"]["spec"]["containers"][0]


def test_no_model_on_the_line_loads_vllm_s_default():
    assert found_by([AMD], S55) == [
        (
            "advisory",
            "container vllm-rocm-core: the vLLM command line names no model (no `vllm serve MODEL`, no --model), so vLLM "
            "loads its built-in default model (facebook/opt-125m from 0.4.0, Qwen/Qwen3-0.6B from 0.10.0; the image "
            "names no release), not the model env MODEL=Qwen/Qwen2.5-1.5B-Instruct names (vLLM reads no such "
            "variable), and the pod serves it as if it were the one meant; pass the model as args: [MODEL] (the "
            "image's entrypoint is `vllm serve`) or --model",
        )
    ]


def test_the_release_the_tag_names_picks_the_default():
    for tag, model in (("v0.9.2", "facebook/opt-125m"), ("v0.10.0", "Qwen/Qwen3-0.6B")):
        pinned = copy.deepcopy(AMD)
        _container(pinned)["image"] = f"vllm/vllm-openai:{tag}"
        command = copy.deepcopy(pinned)
        _container(command)["command"] = ["vllm", "serve"]
        _container(command)["args"] = ["--port", "8000"]
        for obj in (pinned, command):
            [(_, message)] = found_by([obj], S55)
            assert f"loads its default model {model} (vLLM {tag[1:]})" in message


def test_a_model_given_or_possibly_given_is_silent():
    forms = []
    for args in (["Qwen/Qwen2.5-1.5B-Instruct"], ["--model", "Qwen/Qwen2.5-1.5B-Instruct"], ["$(MODEL)"]):
        given = copy.deepcopy(AMD)
        _container(given)["args"] = args
        forms.append(given)
    private = copy.deepcopy(AMD)
    _container(private)["image"] = "registry.example.com/team/vllm:0.9"
    shared = copy.deepcopy(AMD)
    _container(shared)["envFrom"] = [{"configMapRef": {"name": "vllm-config"}}]
    for careful in (*forms, private, shared):
        assert found_by([careful], S55) == []
