"""policies/reading/config_map_data.names_config_maps: the env readers ask for the run's ConfigMaps (and so read the
cluster view, which ties what they derive to one scope: policies/kube.memoized) only for a container that names one;
what they read is the same either way."""

from __future__ import annotations

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
