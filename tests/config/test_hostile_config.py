"""Hostile stack config: anchored patterns (a trailing newline passes no rule), control characters,
credential-shaped text in any non-secret value (refused with the field and a redacted prefix,
never echoed), and bounded messages."""

from __future__ import annotations

import copy

import pytest

import components.config.load as config_module
from components.config import load_stack_config
from components.errors import ConfigError, format_path, format_value
from tests.conftest import stack_config

HF = "hf_" + "Ab3" * 12


def _leaf(cfg: dict, path: tuple):
    node = cfg
    for part in path[:-1]:
        node = node[part]
    return node, path[-1]


def _problems(cfg: dict) -> list[str]:
    with pytest.raises(ConfigError) as info:
        load_stack_config(cfg)
    return [str(p) for p in info.value.problems]


# Every string a pattern validates, as (stack, path in the config mapping, path in messages).
PATTERN_FIELDS = [
    ("prod", ("llm-serving:models", 0, "name"), "models[0].name"),
    ("prod", ("llm-serving:models", 0, "model"), "models[0].model"),
    ("prod", ("llm-serving:models", 0, "revision"), "models[0].revision"),
    ("prod", ("llm-serving:models", 0, "image"), "models[0].image"),
    ("prod", ("llm-serving:gpuPools", 0, "name"), "gpuPools[0].name"),
    ("prod", ("llm-serving:cluster", "name"), "cluster.name"),
    ("prod", ("llm-serving:cluster", "kubernetesVersion"), "cluster.kubernetesVersion"),
    ("prod", ("llm-serving:namespace",), "namespace"),
    ("prod", ("aws:region",), "aws:region"),
    ("prod", ("llm-serving:ingress", "host"), "ingress.host"),
    ("prod", ("llm-serving:monitoring", "namespace"), "monitoring.namespace"),
    ("prod", ("llm-serving:monitoring", "prometheus", "url"), "monitoring.prometheus.url"),
    ("prod", ("llm-serving:monitoring", "prometheus", "monitorLabels", "release"), "monitoring.prometheus.monitorLabels"),
]
# Fields whose defaults the shipped stacks leave unset: set them to a valid value plus "\n".
SET_FIELDS = [
    (("llm-serving:gpuPools", 0, "amiAlias"), "al2023@v20260903", "gpuPools[0].amiAlias"),
    (("llm-serving:gpuPools", 0, "disruption"), {"consolidateAfter": "15m"}, "gpuPools[0].disruption.consolidateAfter"),
    (("llm-serving:gpuPools", 0, "disruption"), {"expireAfter": "720h"}, "gpuPools[0].disruption.expireAfter"),
    (("llm-serving:kuberay",), {"namespace": "kuberay-system"}, "kuberay.namespace"),
    (("llm-serving:karpenter",), {"namespace": "kube-system"}, "karpenter.namespace"),
]


def test_a_trailing_newline_fails_the_nccl_interface_pattern(monkeypatch):
    """distributed.ncclSocketIfname (a two-node model: TP 8 x PP 2 on 8-GPU nodes, one replica)."""
    cfg = stack_config("prod")
    model = cfg["llm-serving:models"][2]
    model["engine"].update(tensorParallelSize=8, pipelineParallelSize=2)
    model["replicas"] = {"min": 1, "max": 1, "singleReplicaReason": "one two-node replica (test)"}
    model["distributed"] = {"backend": "ray", "ncclSocketIfname": "^lo,docker"}
    load_stack_config(copy.deepcopy(cfg))
    model["distributed"]["ncclSocketIfname"] = "^lo,docker\n"
    monkeypatch.setattr(config_module, "text_problems", lambda raw: ([], []))
    assert any(p.startswith("models[2].distributed.ncclSocketIfname") for p in _problems(cfg))


def _with_newline(value):
    if isinstance(value, dict):
        return {k: _with_newline(v) for k, v in value.items()}
    return value + "\n"


@pytest.mark.parametrize("stack,path,shown", PATTERN_FIELDS, ids=[f[2] for f in PATTERN_FIELDS])
def test_a_trailing_newline_fails_the_fields_pattern(monkeypatch, stack, path, shown):
    """The pattern itself is anchored: with the control-character rule switched off it still refuses."""
    cfg = stack_config(stack)
    node, key = _leaf(cfg, path)
    assert isinstance(node[key], str)
    node[key] += "\n"
    monkeypatch.setattr(config_module, "text_problems", lambda raw: ([], []))
    problems = _problems(cfg)
    assert any(p.startswith(shown) for p in problems), problems


@pytest.mark.parametrize("path,valid,shown", SET_FIELDS, ids=[f[2] for f in SET_FIELDS])
def test_a_trailing_newline_fails_the_pattern_of_a_default_field(monkeypatch, path, valid, shown):
    cfg = stack_config("prod")
    node, key = _leaf(cfg, path)
    node[key] = valid
    load_stack_config(copy.deepcopy(cfg))  # the valid value loads
    node[key] = _with_newline(valid)
    monkeypatch.setattr(config_module, "text_problems", lambda raw: ([], []))
    assert any(p.startswith(shown) for p in _problems(cfg))


def _string_leaves(value, path=()):
    if isinstance(value, dict):
        if set(value) == {"secure"}:
            return
        for k, v in value.items():
            yield from _string_leaves(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _string_leaves(v, (*path, i))
    elif isinstance(value, str):
        yield path


def _shown(path: tuple) -> str:
    key = path[0].removeprefix("llm-serving:")
    return format_path([key, *path[1:]])


ALL_LEAVES = [(name, path) for name in ("dev", "prod") for path in _string_leaves(stack_config(name))]


@pytest.mark.parametrize("stack,path", ALL_LEAVES, ids=[f"{s}:{_shown(p)}" for s, p in ALL_LEAVES])
def test_every_string_of_the_shipped_stacks_refuses_a_control_character(stack, path):
    cfg = stack_config(stack)
    node, key = _leaf(cfg, path)
    node[key] += "\n"
    problems = _problems(cfg)
    assert f"{_shown(path)} = " in problems[0] and "holds a control character" in problems[0], problems
    assert "\n" not in "".join(problems)


TOKENS = [
    ("Hugging Face token", HF, "hf_"),
    ("AWS access key id", "AKIA" + "Z7" * 8, "AKIA"),
    ("GitHub token", "ghp_" + "a1B2" * 9, "ghp_"),
    ("GitHub token", "github_pat_" + "11AB" * 10 + "x9", "github_pat_"),
    ("OpenAI/Anthropic API key", "sk-proj-" + "Ab1" * 15, "sk-proj-"),
    ("Slack token", "xoxb-1234567890-abcdefghij", "xoxb-"),
]


@pytest.mark.parametrize("kind,token,prefix", TOKENS, ids=[t[0] + t[2] for t in TOKENS])
@pytest.mark.parametrize(
    "path,shown,template",
    [
        (("llm-serving:models", 0, "name"), "models[0].name", "{}"),
        (("llm-serving:models", 0, "model"), "models[0].model", "meta-llama/{}"),
        (("llm-serving:models", 0, "engine", "extraArgs"), "models[0].engine.extraArgs[0]", ["{}"]),
        (("llm-serving:models", 0, "engine", "extraArgs"), "models[0].engine.extraArgs[0]", ["--chat-template={}"]),
        (("llm-serving:cluster", "name"), "cluster.name", "{}"),
        (("aws:accessKey",), "aws:accessKey", "{}"),
    ],
)
def test_a_token_in_a_non_secret_value_is_refused_by_field_never_echoed(kind, token, prefix, path, shown, template):
    cfg = stack_config("dev")
    node, key = _leaf(cfg, path)
    node[key] = [t.format(token) for t in template] if isinstance(template, list) else template.format(token)
    problems = _problems(cfg)
    text = "\n".join(problems)
    article = "an" if kind[0] in "AEIOU" else "a"
    assert f"{shown}: holds what looks like {article} {kind} ({prefix}...[redacted])" in text
    assert token not in text and token[len(prefix) :][:12] not in text
    # One problem for the field, not one more from its pattern echoing the value.
    assert sum(p.startswith(shown) for p in problems) == 1


def test_a_token_as_a_key_is_refused_without_echo():
    cfg = stack_config("dev")
    cfg["llm-serving:models"][0]["engine"][HF] = 1
    text = "\n".join(_problems(cfg))
    assert HF not in text and "hf_...[redacted]" in text


def test_the_secret_itself_is_not_a_token_problem(dev_config):
    assert load_stack_config(dev_config).has_hf_token
    dev_config["llm-serving:hfToken"] = HF
    text = "\n".join(_problems(dev_config))
    assert HF not in text and "must be a Pulumi secret" in text


def test_format_value_is_bounded_for_any_value():
    bomb: list = [1]
    for _ in range(60):
        bomb = [bomb] * 9  # 9^60 leaves if expanded
    deep: dict = {}
    node = deep
    for _ in range(50_000):
        node["k"] = {}
        node = node["k"]
    for value in (bomb, deep, "x" * 10_000_000, 10**5000, {"secure": "abc"}, f"prefix {HF} suffix"):
        text = format_value(value)
        assert len(text) <= 80 and HF not in text
    assert format_value({"secure": "abc"}) == "[secret]"
    assert format_value(10**5000) == "<integer of 16610 bits>"
    assert format_value({"b": 1.0, "a": [True, None]}) == '{"a": [true, null], "b": 1}'


def test_paths_of_hostile_keys_are_bounded():
    assert format_path(["models", 0, "x" * 500]) == "models[0]." + "x" * 57 + "..."
    assert format_path(["a\nb"]) == "'a\\nb'"
