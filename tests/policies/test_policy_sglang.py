"""SGLang servers read in vLLM's vocabulary (policies/reading/engines.py), from the shapes SGLang's docs and the Gateway API
Inference Extension publish: `python3 -m sglang.launch_server --model-path M --tp N --context-length L ...`.

Flag names and aliases: sgl-project/sglang python/sglang/srt/server_args.py (commit
001067fffe33427bee0ed2f007fb7551a1d76b44): model_path (--model-path, alias --model), context_length
(--context-length, default None = the model's config), tp_size (--tp-size, alias --tensor-parallel-size;
--tp by argparse prefix), mem_fraction_static (--mem-fraction-static, default None = chosen at start).
"""

from __future__ import annotations

import copy

import pytest
from policy_fixtures import DEPLOYMENT_TYPE, deployment_props, messages, resource

from policies.gpu import ephemeral_storage
from policies.reading.engines import sglang_args, sglang_servers
from policies.vllm import max_model_len_unset, startup_probe_budget

SGLANG = {
    "name": "sglang",
    "image": "lmsysorg/sglang:v0.5.2-cu126",
    "command": ["python3", "-m", "sglang.launch_server"],
    "args": [
        "--model-path",
        "Qwen/Qwen3-8B",
        "--revision",
        "b968826d9c46dd6066d109eabc6255188de91218",
        "--host",
        "0.0.0.0",
        "--port",
        "8000",
        "--tp",
        "1",
        "--context-length",
        "32768",
        "--mem-fraction-static",
        "0.85",
    ],
    "resources": {
        "limits": {"nvidia.com/gpu": 1, "memory": "48Gi"},
        "requests": {"nvidia.com/gpu": 1, "memory": "48Gi", "cpu": "8", "ephemeral-storage": "40Gi"},
    },
    "startupProbe": {"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10, "failureThreshold": 90},
    "readinessProbe": {"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 5},
}


def sglang(edit=None):
    props = deployment_props()
    container = copy.deepcopy(SGLANG)
    if edit:
        edit(container)
    props["spec"]["template"]["spec"]["containers"] = [container]
    return resource(DEPLOYMENT_TYPE, props)


def drop(flag):
    def edit(c):
        i = c["args"].index(flag)
        del c["args"][i : i + 2]

    return edit


@pytest.mark.parametrize(
    "tokens,expected",
    [
        (["--tp", "2"], {"tensor-parallel-size": "2"}),
        (["--tp-size=4"], {"tensor-parallel-size": "4"}),
        (["--tensor-parallel-size", "8"], {"tensor-parallel-size": "8"}),
        (["--context-length=8192"], {"max-model-len": "8192"}),
        (["--mem-fraction-static", "0.9"], {"gpu-memory-utilization": "0.9"}),
        (["--model-path", "Qwen/Qwen3-8B"], {"model": "Qwen/Qwen3-8B"}),
    ],
)
def test_sglang_flags_in_vllms_names(tokens, expected):
    assert sglang_args({"command": ["python3", "-m", "sglang.launch_server", *tokens]}) == expected


def test_the_server_is_found_with_its_model():
    (server,) = sglang_servers(sglang())
    assert (server.engine, server.model, server.args["max-model-len"]) == ("sglang", "Qwen/Qwen3-8B", "32768")


@pytest.mark.parametrize("module", [max_model_len_unset, startup_probe_budget, ephemeral_storage])
def test_the_careful_sglang_server_stays_quiet(module):
    assert messages(module.POLICY, sglang()) == []


def test_unset_context_length_fires():
    assert messages(max_model_len_unset.POLICY, sglang(drop("--context-length"))) == [
        "container sglang: --context-length is not set, so SGLang serves the model's full context (40,960 tokens for "
        "Qwen/Qwen3-8B); its KV cache must hold one such request or long prompts are refused; set the length you serve"
    ]


def test_no_startup_probe_fires():
    (msg,) = messages(startup_probe_budget.POLICY, sglang(lambda c: c.pop("startupProbe")))
    assert msg.startswith("container sglang: no startupProbe; SGLang serves nothing until the model is ")


def test_download_without_ephemeral_storage_fires():
    (msg,) = messages(ephemeral_storage.POLICY, sglang(lambda c: c["resources"]["requests"].pop("ephemeral-storage")))
    assert msg.startswith("container sglang: downloads Qwen/Qwen3-8B from the Hugging Face Hub into /root/.cache/huggingface/hub")
