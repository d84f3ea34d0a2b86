"""LiteLLM proxy configurations the files carry: a ConfigMap value that is a LiteLLM config.yaml, and one written in
chart values (a HelmRelease's or an Argo CD Application's: ``values_configs``).

LiteLLM's proxy reads one YAML file (``litellm --config``) whose top level holds ``model_list`` (the routes to models,
each with ``litellm_params``), ``litellm_settings``, ``router_settings`` and ``general_settings`` (BerriAI/litellm
docs/my-website/docs/proxy/configs.md). A ConfigMap value is read as one when it parses (through components.loading's
bounded loader) to a mapping whose ``model_list`` is a list.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator

import components
from components.loading import Limits, LoadError, load_yaml
from policies.kube import as_dict, as_list, split_type
from policies.reading.mounted_scripts import mounted_config_files

CONFIG_MAP_TYPE = "kubernetes:core/v1:ConfigMap"
_LIMITS = Limits("a ConfigMap's LiteLLM configuration", max_bytes=1 << 20, max_depth=64, max_nodes=200_000, max_documents=1)


@lru_cache(maxsize=64)
def _parse(text: str) -> Any:
    try:
        return load_yaml("ConfigMap data", _LIMITS, text=text)
    except LoadError:
        return None


# Beside components/'s modules in a checkout and in the installed package alike (policies/reading/engine_metric_names.py).
_PROVIDERS = Path(components.__file__).resolve().with_name("litellm_providers.json")


@lru_cache(maxsize=1)
def openai_compatible_prefixes() -> frozenset[str]:
    """The LiteLLM provider prefixes (``hosted_vllm``, ``openai``, ``litellm_proxy``, ...) under which LiteLLM sends an
    OpenAI-compatible request to the given api_base, naming the model by what follows the first ``/``
    (components/litellm_providers.json, read in litellm 1.77.7)."""
    return frozenset(json.loads(_PROVIDERS.read_text())["openai_compatible_prefixes"])


def without_provider(model: str) -> tuple[str, str]:
    """(LiteLLM provider prefix or "", the model name LiteLLM sends) of a model string a LiteLLM client is given."""
    head, sep, rest = model.partition("/")
    if sep and rest and head in openai_compatible_prefixes():
        return head, rest
    return "", model


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
    """A timeout LiteLLM reads as seconds (a finite int or float; a numeric string), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None  # YAML 1e400 or .inf is no timeout a reader can state


# How long LiteLLM lets one model call run (BerriAI/litellm litellm/router.py@f292d1ae7d83f2bc07c80c10d1a61bf63cb087bd,
# Router._get_timeout, _get_stream_timeout, _get_non_stream_timeout): a streamed call takes the deployment's
# litellm_params.stream_timeout, else the router's stream_timeout; any call (and a stream without one) the deployment's
# litellm_params.timeout or request_timeout, else the router's timeout (router_settings.timeout). Beneath the router,
# litellm.request_timeout (litellm_settings.request_timeout; default 6000 s, litellm/__init__.py@89c6992f
# "request_timeout: float = 6000") bounds a call no router setting bounds.


@dataclass(frozen=True)
class CallTimeout:
    """The longest a call of one kind runs through a LiteLLM proxy, as its configuration states it."""

    seconds: float
    where: str  # e.g. "model_list[1].litellm_params.timeout"
    stream: bool


def _first(places: list[tuple[str, Any]]) -> tuple[str, float] | None:
    for where, value in places:
        value_s = seconds(value)
        if value_s is not None and value_s > 0:
            return where, value_s
    return None


def call_timeouts(config: dict) -> list[CallTimeout]:
    """The stated bound of each model's non-streamed and streamed calls (only what the configuration writes: a call no
    setting bounds gets LiteLLM's 6000 s default, which this leaves to the caller's assumption)."""
    router, settings = as_dict(config.get("router_settings")), as_dict(config.get("litellm_settings"))
    found: list[CallTimeout] = []
    for i, model in enumerate(as_list(config.get("model_list"))):
        params = as_dict(as_dict(model).get("litellm_params"))
        base = f"model_list[{i}].litellm_params"
        plain = _first(
            [
                (f"{base}.timeout", params.get("timeout")),
                (f"{base}.request_timeout", params.get("request_timeout")),
                ("router_settings.timeout", router.get("timeout")),
                ("litellm_settings.request_timeout", settings.get("request_timeout")),
            ]
        )
        stream = _first(
            [
                (f"{base}.stream_timeout", params.get("stream_timeout")),
                ("router_settings.stream_timeout", router.get("stream_timeout")),
            ]
        )
        if plain is not None:
            found.append(CallTimeout(plain[1], plain[0], False))
        if stream is not None:
            found.append(CallTimeout(stream[1], stream[0], True))
    return found


def mounted_configs(podspec: Mapping, container: Mapping) -> list[tuple[str, dict]]:
    """(path in the container, parsed config) of each LiteLLM configuration a ConfigMap of the files read mounts into
    ``container`` (policies/reading/mounted_scripts.mounted_config_files)."""
    found = []
    for file, text in mounted_config_files(podspec, container).items():
        if "model_list" in text:
            config = _parse(text)
            if isinstance(config, dict) and isinstance(config.get("model_list"), list):
                found.append((file, config))
    return found


def longest_call(podspec: Mapping, container: Mapping, stream: bool | None = None) -> tuple[float, str] | None:
    """(seconds, where) of the longest call the LiteLLM configuration mounted into ``container`` lets run (only
    streamed calls, only non-streamed ones, or either for None), or None when it states none."""
    best: tuple[float, str] | None = None
    for file, config in mounted_configs(podspec, container):
        for timeout in call_timeouts(config):
            if stream is not None and timeout.stream != stream:
                continue
            if best is None or timeout.seconds > best[0]:
                best = (timeout.seconds, f"{file} {timeout.where}")
    return best


# Objects whose spec carries a chart's values (Flux HelmRelease spec.values, Argo CD Application
# spec.source.helm.valuesObject or its values text, an ApplicationSet's template), where a LiteLLM chart's values hold the
# proxy's config.yaml under a key of the chart's choosing (BerriAI/litellm's chart gateway.config.proxy_config: spent set
# 92 ingtranet/argocd-manifests clusters/home/argo-applications/litellm.yaml; litellm-helm's proxy_config).
_VALUES_KINDS = frozenset({"HelmRelease", "Application", "ApplicationSet"})
_SECTIONS = ("general_settings", "litellm_settings")
_MAX_NODES = 20_000


def _is_config(node: Mapping) -> bool:
    return isinstance(node.get("model_list"), list) or any(isinstance(node.get(k), dict) for k in _SECTIONS)


def values_configs(resource: Any) -> list[tuple[str, dict]]:
    """(spec path, config) of each LiteLLM proxy configuration written in a chart-values object's spec: a mapping with a
    ``model_list`` list or a ``general_settings``/``litellm_settings`` mapping, found in place or in a values text
    (a string that parses to one). Only HelmRelease, Application and ApplicationSet objects, and custom kinds whose
    type names litellm; bounded walk."""
    kind = split_type(getattr(resource, "type", ""))[1]
    if kind not in _VALUES_KINDS and "litellm" not in str(getattr(resource, "type", "")).lower():
        return []
    spec = as_dict(resource.props.get("spec")) if isinstance(resource.props, dict) else {}
    found: list[tuple[str, dict]] = []
    stack: list[tuple[str, Any, int]] = [("spec", spec, 0)]
    seen = 0
    while stack and seen < _MAX_NODES:
        path, node, depth = stack.pop()
        seen += 1
        if isinstance(node, str) and depth < 16 and any(f"{k}:" in node for k in _SECTIONS):
            stack.append((path, _parse(node), depth + 1))
        elif isinstance(node, dict) and _is_config(node):
            found.append((path, node))
        elif isinstance(node, dict) and depth < 16:
            stack.extend((f"{path}.{k}", v, depth + 1) for k, v in node.items() if isinstance(k, str))
        elif isinstance(node, list) and depth < 16:
            stack.extend((f"{path}[{i}]", v, depth + 1) for i, v in enumerate(node))
    return sorted(found, key=lambda f: f[0])
