"""S38 engine-options-exist: a --reasoning-parser name the image's vLLM release does not register.

Fires: spent set 45, Nikhil-Kasam/agenticjobsearchlocal vllm-deployment.yaml (labelled S38 blocking):
``--reasoning-parser=qwen3`` on vllm/vllm-openai:v0.8.5.post1, whose wheel registers deepseek_r1 and granite only
(vllm/reasoning/__init__.py; arg_utils.py:496-499 builds the option's choices from them); qwen3 is registered from
0.9.0 (components/vllm_reasoning_parsers.json). Same class, a second public form: a models.yaml seen in public code
pins ``vllm/vllm-openai:v0.8.5`` and passes ``--reasoning-parser=qwen3`` for Qwen3.5 checkpoints; and gpt-oss's parser,
registered as GptOss in 0.10.1 and as openai_gptoss from 0.10.2.
Silent: a registered name, ``none``, a parser plugin, an image that names no release.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "engine-options-exist"

_SET45 = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm-server", "labels": {"app": "vllm"}},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.8.5.post1",
                        "command": ["python3", "-m", "vllm.entrypoints.openai.api_server"],
                        "args": ["--model=kaitchup/Qwen3.5-27B-NVFP4", "--reasoning-parser=qwen3", "--port=8000"],
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                    }
                ]
            },
        },
    },
}


def _with(image: str, *args: str) -> dict:
    changed = copy.deepcopy(_SET45)
    container = changed["spec"]["template"]["spec"]["containers"][0]
    container["image"] = image
    container["args"] = ["--model=Qwen/Qwen3-8B", *args]
    return changed


def _parser_findings(obj: dict) -> list[tuple[str, str]]:
    return [(lv, m) for lv, m in found_by([obj], POLICY) if "registers only" in m]


def test_set45_qwen3_parser_on_0_8_5_post1_blocks():
    ((level, message),) = _parser_findings(_SET45)
    assert level == "mandatory"
    assert "registers only deepseek_r1, granite" in message and "invalid choice" in message and "from vLLM 0.9.0" in message


def test_the_same_class_on_other_releases():
    ((level, _),) = _parser_findings(_with("vllm/vllm-openai:v0.8.5", "--reasoning-parser", "qwen3"))
    assert level == "mandatory"
    ((level, message),) = _parser_findings(_with("vllm/vllm-openai:v0.10.1", "--reasoning-parser=openai_gptoss"))
    assert level == "mandatory" and "GptOss" in message


def test_registered_names_and_unknowable_releases_stay_silent():
    assert _parser_findings(_with("vllm/vllm-openai:v0.9.0", "--reasoning-parser=qwen3")) == []
    assert _parser_findings(_with("vllm/vllm-openai:v0.8.5.post1", "--reasoning-parser", "deepseek_r1")) == []
    assert _parser_findings(_with("vllm/vllm-openai:v0.8.5.post1", "--reasoning-parser=none")) == []
    plugin = _with("vllm/vllm-openai:v0.8.5.post1", "--reasoning-parser=mine", "--reasoning-parser-plugin=/p.py")
    assert _parser_findings(plugin) == []
    assert _parser_findings(_with("vllm/vllm-openai:latest", "--reasoning-parser=qwen3")) == []
    assert _parser_findings(_with("acme/vllm-rebuild:v0.8.5", "--reasoning-parser=qwen3")) == []


def test_releases_that_look_the_name_up_at_start_give_advice():
    # From 0.11.1 the option takes any string and the name is looked up when the engine starts (0.34.0
    # vllm/config/reasoning.py:83-85 -> abs_reasoning_parsers.py:262-276 KeyError): advice, not proven per release.
    ((level, message),) = _parser_findings(_with("vllm/vllm-openai:v0.18.0", "--reasoning-parser=gemma4"))
    assert level == "advisory" and "from vLLM 0.19.0" in message
    # Before 0.8.3 the chat endpoint looks it up only with --enable-reasoning (0.7.3 serving_chat.py:85-92).
    assert _parser_findings(_with("vllm/vllm-openai:v0.7.3", "--reasoning-parser=qwen3")) == []
    found = _parser_findings(_with("vllm/vllm-openai:v0.7.3", "--enable-reasoning", "--reasoning-parser=qwen3"))
    assert [lv for lv, _ in found] == ["advisory"]


def test_the_tool_reads_decorated_and_lazily_registered_names(tmp_path):
    import importlib.util
    import zipfile
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location(
        "read_vllm_reasoning_parsers", root / "tools" / "read_vllm_reasoning_parsers.py"
    )
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    wheel = tmp_path / "vllm-9.9.9-cp38-abi3-manylinux1_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        z.writestr("vllm/reasoning/a_parser.py", '@ReasoningParserManager.register_module("alpha")\nclass A: ...\n')
        z.writestr("vllm/reasoning/__init__.py", '_REASONING_PARSERS_TO_REGISTER = {\n    "beta": ("b", "B"),\n}\n')
        z.writestr("vllm/engine/arg_utils.py", "x = dict(choices=list(ReasoningParserManager.reasoning_parsers))\n")
    release, names, files, choices = tool.names(wheel)
    assert (release, names, choices) == ("9.9.9", ["alpha", "beta"], True)
    assert files == ["vllm/reasoning/__init__.py", "vllm/reasoning/a_parser.py"]
