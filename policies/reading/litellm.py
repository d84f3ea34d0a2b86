"""LiteLLM proxy configurations the files carry: a ConfigMap value that is a LiteLLM config.yaml.

LiteLLM's proxy reads one YAML file (``litellm --config``) whose top level holds ``model_list`` (the routes to models,
each with ``litellm_params``), ``litellm_settings``, ``router_settings`` and ``general_settings`` (BerriAI/litellm
docs/my-website/docs/proxy/configs.md). A ConfigMap value is read as one when it parses (through components.loading's
bounded loader) to a mapping whose ``model_list`` is a list.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterator

from components.loading import Limits, LoadError, load_yaml
from policies.kube import as_dict

CONFIG_MAP_TYPE = "kubernetes:core/v1:ConfigMap"
_LIMITS = Limits("a ConfigMap's LiteLLM configuration", max_bytes=1 << 20, max_depth=64, max_nodes=200_000, max_documents=1)


@lru_cache(maxsize=64)
def _parse(text: str) -> Any:
    try:
        return load_yaml("ConfigMap data", _LIMITS, text=text)
    except LoadError:
        return None


def litellm_configs(resource: Any) -> Iterator[tuple[str, dict]]:
    """(data key, parsed config) of every LiteLLM proxy configuration in a ConfigMap's data."""
    if resource.type != CONFIG_MAP_TYPE or not isinstance(resource.props, dict):
        return
    for key, value in as_dict(resource.props.get("data")).items():
        if isinstance(key, str) and isinstance(value, str) and "model_list" in value:
            config = _parse(value)
            if isinstance(config, dict) and isinstance(config.get("model_list"), list):
                yield key, config


def seconds(value: Any) -> float | None:
    """A timeout LiteLLM reads as seconds (an int or float; a numeric string), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None
