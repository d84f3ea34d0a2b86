"""vLLM's --config file: a YAML map whose keys are its options, read from the ConfigMap key the container mounts at the
path its command line names (config_map_data.mounted_files), so every reader of a vLLM line sees them
(policies/reading/vllm_args.py vllm_servers)."""

from __future__ import annotations

import json
import posixpath
from collections.abc import Mapping
from typing import Any, Optional

from components.loading import Limits, LoadError, load_yaml
from policies.kube import as_dict
from policies.reading.config_map_data import config_maps, mounted_files

# vLLM's --config file: a YAML map whose keys are its options. vllm 0.33.0 vllm/utils/argparse_utils.py:371 (parse_args
# pulls the file in whenever --config is on the line), :516-603 _pull_args_from_config (the file's options go before the
# line's, "cli > config > defaults" :568; a ``model`` key serves as the model when the line names none, :577-596),
# :606-671 load_config_file (a .yaml/.yml file only, :632-636; true is --KEY, false --no-KEY, a list --KEY ITEM..., a
# map --KEY JSON, any other value --KEY VALUE, :654-671). The ConfigMap key mounted at the path is read
# (config_map_data.mounted_files); a file the files do not hold leaves the line as written.
_CONFIG_FILE = Limits("a vLLM --config file", max_bytes=1 << 20, max_depth=32, max_nodes=20_000, max_documents=1)


def _config_tokens(text: str) -> list[str]:
    """The options a vLLM --config file's text gives, as load_config_file writes them; [] when it is no YAML map."""
    try:
        config = load_yaml("vLLM --config", _CONFIG_FILE, text=text)
    except LoadError:
        return []
    tokens: list[str] = []
    for key, value in as_dict(config).items():
        if isinstance(value, bool):
            tokens += [f"--{key}"] if value else [f"--no-{key}"]
        elif isinstance(value, list):
            tokens += [f"--{key}", *(str(v) for v in value)] if value else []
        elif isinstance(value, dict):
            tokens += [f"--{key}", json.dumps(value)]
        elif value is not None:
            tokens += [f"--{key}", str(value)]
    return tokens


def config_file_model(text: str) -> Optional[str]:
    """The ``model`` a vLLM --config file's text names, None when it names none."""
    tokens = _config_tokens(text)
    found = next((i for i, token in enumerate(tokens) if token == "--model"), None)
    return tokens[found + 1] if found is not None and found + 1 < len(tokens) else None


def config_file_text(path: Any, podspec: Mapping, container: Mapping) -> Optional[str]:
    """The text of the vLLM --config file at ``path``: a .yaml/.yml ConfigMap key of the files the container mounts
    there, else None."""
    if not isinstance(path, str) or not path.endswith((".yaml", ".yml")) or not podspec.get("volumes"):
        return None
    maps = config_maps(podspec)
    text = mounted_files(podspec, container, maps).get(posixpath.normpath(path)) if maps else None
    return text if isinstance(text, str) else None


def with_config_file(line: list[str], path: Optional[str], podspec: Mapping, container: Mapping) -> list[str]:
    """A vLLM command line with its --config file's options put in as vLLM puts them (before the line's own, which
    win); the line as written when the file is not a .yaml/.yml ConfigMap key the container mounts at ``path``."""
    text = config_file_text(path, podspec, container)
    if text is None:
        return line
    # After the words before the first option (``serve``, the model tag), so that a boolean option of the file never
    # reads one of them as its value.
    head = next((i for i, token in enumerate(line) if token.startswith("-")), len(line))
    return line[:head] + _config_tokens(text) + line[head:]
