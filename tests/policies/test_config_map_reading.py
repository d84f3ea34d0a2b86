"""policies/reading/config_map_data.names_config_maps: the env readers ask for the run's ConfigMaps (and so read the
cluster view, which ties what they derive to one scope: policies/kube.memoized) only for a container that names one;
what they read is the same either way."""

from __future__ import annotations

import copy

from policies.framework import Resource
from policies.kube import cluster_view, evaluation_memo
from policies.reading.config_map_data import names_config_maps
from policies.reading.engines import env_values
from policies.reading.vllm_args import expand_env

CONFIG_MAP = Resource(
    type="kubernetes:core/v1:ConfigMap",
    name="cm",
    props={"kind": "ConfigMap", "metadata": {"name": "vllm-config"}, "data": {"MODEL_NAME": "Qwen/Qwen3-8B"}},
)


def test_a_container_names_a_config_map_through_env_from_or_a_key_ref() -> None:
    assert names_config_maps({"envFrom": [{"configMapRef": {"name": "vllm-config"}}]})
    assert names_config_maps({"env": [{"name": "M", "valueFrom": {"configMapKeyRef": {"name": "c", "key": "k"}}}]})
    assert not names_config_maps({"env": [{"name": "M", "value": "x"}], "envFrom": [{"secretRef": {"name": "s"}}]})
    assert not names_config_maps({"env": "not a list", "envFrom": [None, "x"]})


def test_the_env_read_is_the_same_with_and_without_the_config_maps_asked() -> None:
    named = {"args": ["--model", "$(MODEL_NAME)"], "envFrom": [{"configMapRef": {"name": "vllm-config"}}]}
    literal = {"args": ["--model", "$(MODEL_NAME)"], "env": [{"name": "MODEL_NAME", "value": "a/b"}]}
    with evaluation_memo(), cluster_view([CONFIG_MAP]):
        assert expand_env(named["args"], named) == ["--model", "Qwen/Qwen3-8B"]
        assert env_values(named) == {"MODEL_NAME": "Qwen/Qwen3-8B"}
        assert expand_env(literal["args"], literal) == ["--model", "a/b"] and env_values(literal) == {"MODEL_NAME": "a/b"}


def _env_shape(namespace: str, image: str, parser: str) -> list[dict]:
    # The shape of review 45 #6 (/tmp/review45/m/cmns/{dev,prod}/all.yaml): --reasoning-parser $(REASONING_PARSER)
    # from a ConfigMap vllm-config of the workload's own namespace.
    return [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "vllm-config", "namespace": namespace},
            "data": {"REASONING_PARSER": parser},
        },
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "vllm", "namespace": namespace},
            "spec": {
                "selector": {"matchLabels": {"app": "vllm"}},
                "template": {
                    "metadata": {"labels": {"app": "vllm"}},
                    "spec": {
                        "containers": [
                            {
                                "name": "vllm",
                                "image": image,
                                "args": ["--model", "Qwen/Qwen3-8B", "--reasoning-parser", "$(REASONING_PARSER)"],
                                "envFrom": [{"configMapRef": {"name": "vllm-config"}}],
                                "resources": {"limits": {"nvidia.com/gpu": 1}},
                            }
                        ]
                    },
                },
            },
        },
    ]


def test_one_namespace_config_map_never_feeds_another_namespace_s_pod() -> None:
    from policy_fixtures import found_by

    s38 = "engine-options-exist"
    dev = _env_shape("llm-dev", "vllm/vllm-openai:v0.8.5", "deepseek_r1")
    prod = _env_shape("llm-prod", "vllm/vllm-openai:v0.10.1", "qwen3")
    # Each alone is clean; together, prod's qwen3 must not be read into dev's 0.8.5 server.
    assert [e for e, m in found_by(dev + prod, s38) if "reasoning" in m] == []
    # The true form still blocks: 0.8.5 registers no qwen3 parser (components/vllm_reasoning_parsers.json).
    wrong = _env_shape("llm-dev", "vllm/vllm-openai:v0.8.5", "qwen3")
    assert [e for e, m in found_by(wrong, s38) if "reasoning" in m] == ["mandatory"]


def test_a_config_map_of_another_written_namespace_is_not_read() -> None:
    # Review 45 #6, second reproducer (/tmp/review45/m/cmns2): the only vllm-config is prod's (llm-prod, qwen3); dev's
    # pod (llm-dev, 0.8.5) cannot read it, so its $(REASONING_PARSER) stays unknown: no block. A ConfigMap that writes
    # no namespace may be applied into the pod's, so it is still read (the true form blocks).
    from policy_fixtures import found_by

    s38 = "engine-options-exist"
    dev = _env_shape("llm-dev", "vllm/vllm-openai:v0.8.5", "deepseek_r1")[1]
    prod_map = _env_shape("llm-prod", "vllm/vllm-openai:v0.10.1", "qwen3")[0]
    assert [e for e, m in found_by([dev, prod_map], s38) if "reasoning" in m] == []
    unnamed = copy.deepcopy(prod_map)
    del unnamed["metadata"]["namespace"]
    assert [e for e, m in found_by([dev, unnamed], s38) if "reasoning" in m] == ["mandatory"]


def test_an_env_entry_from_a_secret_hides_the_env_from_value() -> None:
    # Review 45 #17: `env` wins over `envFrom` (kubelet makeEnvironmentVariables); an entry of the same name from a
    # Secret leaves the variable unknown, not the ConfigMap's value. A literal entry still wins with its value.
    secret = {
        "envFrom": [{"configMapRef": {"name": "vllm-config"}}],
        "env": [{"name": "MODEL_NAME", "valueFrom": {"secretKeyRef": {"name": "s", "key": "m"}}}],
    }
    literal = {"envFrom": [{"configMapRef": {"name": "vllm-config"}}], "env": [{"name": "MODEL_NAME", "value": "a/b"}]}
    with evaluation_memo(), cluster_view([CONFIG_MAP]):
        assert env_values(secret) == {}
        assert env_values(literal) == {"MODEL_NAME": "a/b"}
