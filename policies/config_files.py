"""A LiteLLM proxy configuration committed as a file of its own (``config.yaml``, ``litellm_config.yaml``,
``proxy_config.yaml``), not inside a Kubernetes object: read as the ConfigMap that carries it, so that the LiteLLM
configuration rules (policies/reading/litellm.py litellm_configs: G101 app-setting-exposure, G106 literal backend
addresses, the placeholder and timeout rules) run on it and report on the file itself.

Which files: a YAML mapping with no ``apiVersion`` or ``kind`` whose ``model_list`` is a list and that also holds a
``litellm_settings``, ``general_settings`` or ``router_settings`` mapping, or whose every ``model_list`` entry is a
mapping with ``litellm_params`` (the proxy's own schema: BerriAI/litellm docs/my-website/docs/proxy/configs.md).
Spent set 107 cyberglitchlabs/clouddrop@c1269f51 kubernetes/apps/ai/litellm/app/config/config.yaml, which a bjw-s
app-template release mounts (labelled G106 for its LAN address, G101 for its unauthenticated /metrics).

The ConfigMap is named for the file: when a ``kustomization.yaml`` beside it or up to two folders above generates a ConfigMap from the file
(``configMapGenerator`` ``files``), by that generator's ``name`` and key, so the pod that mounts the generated
ConfigMap reads it as its configuration; else by the file's name (a file no manifest uses is still checked for the
configuration-only rules). Pure: no helper of policies.kube, so that policies/manifests.py can call it while it reads.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

import yaml

from policies.values_files import READ_FROM

_SECTIONS = ("litellm_settings", "general_settings", "router_settings")
_YAML_SUFFIXES = (".yaml", ".yml")
_KUSTOMIZATIONS = ("kustomization.yaml", "kustomization.yml", "Kustomization")
_MAX_KUSTOMIZATION = 256 * 1024


def is_litellm_config(data: Any) -> bool:
    """True for a mapping that is a LiteLLM proxy configuration file (module docstring)."""
    if not isinstance(data, Mapping) or "apiVersion" in data or "kind" in data:
        return False
    models = data.get("model_list")
    if not isinstance(models, list):
        return False
    if any(isinstance(data.get(s), Mapping) for s in _SECTIONS):
        return True
    return bool(models) and all(isinstance(m, Mapping) and isinstance(m.get("litellm_params"), Mapping) for m in models)


def _generated(file: str) -> tuple[str, str] | None:
    """(ConfigMap name, data key) of a configMapGenerator that reads the file, in the kustomization of its folder or of
    one of the two above it (``config.yaml=./config/config.yaml``: spent set 107 cyberglitchlabs/clouddrop
    kubernetes/apps/ai/litellm/app/kustomization.yaml@4d2226b968c7)."""
    target = os.path.normpath(os.path.abspath(file))
    folder = os.path.dirname(target)
    for _ in range(3):
        for name in _KUSTOMIZATIONS:
            found = _generator_reading(os.path.join(folder, name), target)
            if found is not None:
                return found
        folder = os.path.dirname(folder)
    return None


def _generator_reading(path: str, target: str) -> tuple[str, str] | None:
    try:
        if not os.path.isfile(path) or os.path.getsize(path) > _MAX_KUSTOMIZATION:
            return None
        with open(path, encoding="utf-8") as handle:
            kustomization = yaml.safe_load(handle)
    except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError):
        return None
    generators = kustomization.get("configMapGenerator") if isinstance(kustomization, Mapping) else None
    for generator in generators if isinstance(generators, list) else []:
        if not isinstance(generator, Mapping) or not isinstance(generator.get("name"), str):
            continue
        files = generator.get("files")
        for entry in files if isinstance(files, list) else []:
            key, _, source = str(entry).rpartition("=")
            if os.path.normpath(os.path.join(os.path.dirname(path), source)) == target:
                return generator["name"], key or os.path.basename(source)
    return None


def litellm_config_object(file: str, data: Any) -> dict | None:
    """The ConfigMap a LiteLLM configuration file stands for (module docstring), or None for any other file."""
    if not file.lower().endswith(_YAML_SUFFIXES) or not is_litellm_config(data):
        return None
    base = os.path.basename(file)
    generated = _generated(file)
    if generated is not None:
        name, key = generated
        how = f"LiteLLM proxy configuration file, read as the ConfigMap {name} its kustomization generates"
    else:
        stem = base.rsplit(".", 1)[0]
        name = re.sub(r"[^a-z0-9-]+", "-", stem.lower()).strip("-")[:63] or "litellm-config"
        key = base
        how = "LiteLLM proxy configuration file, read as a ConfigMap holding it"
    text = yaml.safe_dump(dict(data), sort_keys=False, allow_unicode=True)
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "annotations": {READ_FROM: how}},
        "data": {key: text},
    }
