"""S38 engine-options-exist, args appended after a whole ``vllm serve TAG`` command.

Fires: set 42, johnahull/llmd-gke pattern1/manifests/llmisvc-pattern1-tpu.yaml@b8103397425f661af250bc9079f5f8c7c82c5ff4:
the LLMInferenceService's main container gives only args, one string "python3 -m vllm.entrypoints.openai.api_server
--model=/mnt/models ..."; KServe keeps the preset's ``vllm serve /mnt/models --port 8000 ...`` and appends the args as
``$@`` (kserve v0.20.0 config/llmisvcconfig/config-llm-template.yaml:166-179), so vLLM gets python3 as a second
positional and exits. Second third-party form: johnahull/llm-d-xks-gke 7630140c
deployments/llm-d-infra-xks-gke-tpu-native-gateway/manifests/llmisvc-gpu-pattern3.yaml (spent set 5; pinned in
tests/policies/test_policy_engine_start.py). Same class in a Deployment: ``command: [vllm, serve, MODEL]`` with args that begin with a word.
Silent: set 42, NA-FSI-Services/RHOAI-MAAS day-2/manifests/models/llama-3-1-8b-instruct/llm/model.yaml
@4d457058f37d2904b63258a4139ae5a41817e8bb (its own command ``python -m vllm.entrypoints.openai.api_server`` and
option args: the preset's command is replaced); args that are options only; a command of ``vllm serve`` alone with the
model as the first arg. Advice: VLLM_ADDITIONAL_ARGS in the env (it precedes the args on the preset's line).
"""

from __future__ import annotations

import copy

from policy_fixtures import manifest

from policies.registry import evaluate

_LLMISVC = {
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "LLMInferenceService",
    "metadata": {"name": "qwen2-3b-pattern1", "namespace": "llm-d-inference-scheduling"},
    "spec": {
        "model": {"uri": "hf://Qwen/Qwen2.5-3B-Instruct", "name": "Qwen/Qwen2.5-3B-Instruct"},
        "replicas": 1,
        "template": {
            "containers": [
                {
                    "name": "main",
                    "image": "registry.redhat.io/rhaiis/vllm-tpu-rhel9:3.2.5",
                    "args": [
                        "python3 -m vllm.entrypoints.openai.api_server \\\n  --model=/mnt/models \\\n  --dtype=half \\\n"
                        "  --max-model-len=2048 \\\n  --tensor-parallel-size=4 \\\n  --disable-log-requests\n"
                    ],
                    "resources": {"limits": {"google.com/tpu": "4"}, "requests": {"google.com/tpu": "4"}},
                }
            ]
        },
    },
}
_DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm"},
    "spec": {
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.10.2",
                        "command": ["vllm", "serve", "Qwen/Qwen2.5-1.5B-Instruct"],
                        "args": ["python3", "-m", "vllm.entrypoints.openai.api_server", "--port", "8000"],
                        "resources": {"limits": {"nvidia.com/gpu": "1"}},
                    }
                ]
            },
        },
    },
}


def _stray(*objs: dict) -> list[tuple[str, str]]:
    return [
        (v.enforcement, v.message)
        for v in evaluate([manifest(o) for o in objs], None)
        if v.policy == "engine-options-exist" and "args begin with" in v.message
    ]


def test_llmisvc_args_written_as_a_command_block():
    found = _stray(_LLMISVC)
    assert [e for e, _ in found] == ["mandatory"], found
    assert "python3" in found[0][1] and "config-llm-template.yaml" in found[0][1]


def test_deployment_args_after_a_whole_serve_command_block():
    found = _stray(_DEPLOYMENT)
    assert [e for e, _ in found] == ["mandatory"], found
    assert "kubelet appends args" in found[0][1]


def test_own_command_and_option_args_are_silent():
    own = copy.deepcopy(_LLMISVC)
    main = own["spec"]["template"]["containers"][0]
    main["command"] = ["python", "-m", "vllm.entrypoints.openai.api_server"]
    main["args"] = ["--served-model-name={{.Name}}", "--model=/mnt/models", "--max-model-len=8192"]
    assert _stray(own) == []
    options = copy.deepcopy(_LLMISVC)
    options["spec"]["template"]["containers"][0]["args"] = ["--dtype=half", "--max-model-len=2048"]
    assert _stray(options) == []
    serve_alone = copy.deepcopy(_DEPLOYMENT)
    container = serve_alone["spec"]["template"]["spec"]["containers"][0]
    container["command"], container["args"] = ["vllm", "serve"], ["Qwen/Qwen2.5-1.5B-Instruct", "--port", "8000"]
    assert _stray(serve_alone) == []


def test_additional_args_env_makes_it_advice():
    env = copy.deepcopy(_LLMISVC)
    env["spec"]["template"]["containers"][0]["env"] = [{"name": "VLLM_ADDITIONAL_ARGS", "value": "--enforce-eager"}]
    assert [e for e, _ in _stray(env)] == ["advisory"]
