"""What a client's configuration FILE asks an Ollama for: the models of a ConfigMap's structured files.

Two forms third parties write (brief ollama51):
- a LiteLLM proxy route ``litellm_params.model: ollama/<model>`` (or ``ollama_chat/<model>``): LiteLLM splits the
  provider off at the first ``/`` (litellm 1.77.7 wheel litellm/litellm_core_utils/get_llm_provider_logic.py:160-162)
  and sends the rest as the model to the route's ``api_base``, else OLLAMA_API_BASE, else http://localhost:11434
  (litellm/main.py:3327-3332 ollama, 3353-3358 ollama_chat); spent set 84 rjmad1/AegisOS k8s/configmaps.yaml
  (``ollama/smollm:135m`` at http://ollama-service:11434);
- an application settings file (appsettings.json, config.yaml) with a section that names an Ollama endpoint (a URL on
  port 11434 or naming an ollama host; a provider key saying Ollama) beside model keys (``DefaultChatModel``,
  ``DefaultEmbeddingModel``, ``model``, ``chat_model``): spent set 90 PMeeske/Ouroboros-v2 k8s/configmap.yaml
  (``LlmProvider``: OllamaEndpoint http://ollama-service:11434, DefaultChatModel llama3). A section whose provider key
  names another provider (openai, anthropic) is not Ollama's.

Only data keys whose name ends in .json, .yaml or .yml are read, parsed by the bounded loader (components.loading);
a text that does not parse asks for nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import Any, NamedTuple, Optional

from components.loading import Limits, LoadError, load_yaml
from policies.kube import as_list

_LIMITS = Limits("a ConfigMap's settings file", max_bytes=1 << 20, max_depth=64, max_nodes=200_000, max_documents=1)
_OLLAMA_PROVIDERS = ("ollama/", "ollama_chat/")
_MODEL_KEY = re.compile(
    r"^(?:default[_-]?)?(?:chat|embed(?:ding)?s?|completion|llm|text|generation|generate)?[_-]?model(?:[_-]?(?:name|id))?$",
    re.IGNORECASE,
)
_PROVIDER_KEY = re.compile(r"^(?:default[_-]?)?(?:provider|llm[_-]?provider|engine|backend|type)$", re.IGNORECASE)
_OLLAMA_URL = re.compile(r"(?::11434\b|//[^/\s]*ollama)", re.IGNORECASE)


class ConfigAsk(NamedTuple):
    """One model a settings file asks an Ollama for: where (for the message), the model, the URLs it is sent to."""

    where: str
    model: str
    urls: tuple[str, ...]


@lru_cache(maxsize=128)
def _parse(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        pass
    try:
        return load_yaml("ConfigMap data", _LIMITS, text=text)
    except LoadError:
        return None


def _sections(node: Any, path: str = "", depth: int = 0) -> Iterator[tuple[str, Mapping]]:
    """(dotted path, mapping) of every mapping of a parsed file, bounded in depth."""
    if depth > 24:
        return
    if isinstance(node, Mapping):
        yield path, node
        for key, value in node.items():
            if isinstance(value, (Mapping, list)):
                yield from _sections(value, f"{path}.{key}" if path else str(key), depth + 1)
    elif isinstance(node, list):
        for i, value in enumerate(node[:1000]):
            yield from _sections(value, f"{path}[{i}]", depth + 1)


def _litellm_routes(config: Mapping) -> Iterator[ConfigAsk]:
    for route in config.get("model_list") or ():
        params = route.get("litellm_params") if isinstance(route, Mapping) else None
        if not isinstance(params, Mapping):
            continue
        model = params.get("model")
        if not isinstance(model, str) or not model.startswith(_OLLAMA_PROVIDERS):
            continue
        base = params.get("api_base")
        name = route.get("model_name")
        yield ConfigAsk(
            f"LiteLLM route {name} (litellm_params.model {model})", model.split("/", 1)[1], (str(base),) if base else ()
        )


def _section_asks(path: str, section: Mapping) -> Iterator[ConfigAsk]:
    values = {str(k): v for k, v in section.items() if isinstance(v, str)}
    providers = [v.strip().lower() for k, v in values.items() if _PROVIDER_KEY.match(k)]
    if any(p and p != "ollama" for p in providers):
        return
    urls = tuple(v for v in values.values() if _OLLAMA_URL.search(v))
    if not urls and "ollama" not in providers:
        return
    for key, value in values.items():
        if _MODEL_KEY.match(key):
            yield ConfigAsk(f"{path}.{key}" if path else key, value.strip(), urls)


def file_asks(key: str, text: str) -> list[ConfigAsk]:
    """The models the settings file ``key`` (a ConfigMap data key) asks an Ollama for."""
    if not key.lower().endswith((".json", ".yaml", ".yml")) or not isinstance(text, str):
        return []
    low = text.lower()
    if "ollama" not in low and "11434" not in low:
        return []
    parsed = _parse(text)
    if not isinstance(parsed, Mapping):
        return []
    if isinstance(parsed.get("model_list"), list):
        return list(_litellm_routes(parsed))
    return [ask for path, section in _sections(parsed) for ask in _section_asks(path, section)]


def mounted_keys(podspec: Mapping, container: Mapping) -> dict[str, Optional[set[str]]]:
    """ConfigMap name -> the data keys ``container`` mounts as files (None: every key of the map)."""
    volumes: dict[str, tuple[str, Optional[dict[str, str]]]] = {}
    for volume in as_list(podspec.get("volumes")):
        source = volume.get("configMap") if isinstance(volume, Mapping) else None
        if isinstance(source, Mapping) and isinstance(source.get("name"), str) and isinstance(volume.get("name"), str):
            items = source.get("items")
            paths = (
                {str(i.get("path")): str(i.get("key")) for i in items if isinstance(i, Mapping)}
                if isinstance(items, list)
                else None
            )
            volumes[volume["name"]] = (source["name"], paths)
    found: dict[str, Optional[set[str]]] = {}
    for mount in as_list(container.get("volumeMounts")):
        if not isinstance(mount, Mapping) or (hit := volumes.get(str(mount.get("name")))) is None:
            continue
        name, paths = hit
        sub = mount.get("subPath")
        keys: Optional[set[str]]
        if isinstance(sub, str) and sub.strip("/"):
            keys = {paths.get(sub.strip("/"), "")} if paths is not None else {sub.strip("/")}
        else:
            keys = set(paths.values()) if paths is not None else None
        before = found.get(name, set())
        found[name] = None if keys is None or before is None else before | keys
    return found
