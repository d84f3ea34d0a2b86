"""The Pulumi program of this repository: stack config -> LlmPlatform -> exports.

The same code runs under the real Pulumi CLI (``pulumi up``) and in-process under the offline
plan engine (``python -m stacks plan``); both hand it the stack's config through Pulumi's
runtime config, so there is one reading of the stack file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pulumi
from pulumi.runtime import config as runtime_config

from .chart_crd_files import CrdSourceError
from .config import PROJECT, StackConfig, load_stack_config
from .errors import ConfigError, Problem
from .json_loading import load_json
from .loading import STACK_FILE, LoadError
from .platform import LlmPlatform, LlmPlatformArgs
from .secrets import MARKER

STACKS_DIR = Path(__file__).resolve().parent.parent / "stacks"
# The offline plan runs stack files from anywhere; relative paths in them (architecture.configPath)
# are relative to the stack file, which it names here.
STACK_DIR_ENV = "LLM_SERVING_STACK_DIR"


def runtime_stack_config() -> dict[str, Any]:
    """Every config key the engine gave this program, objects decoded, secrets as ``{secure: ...}`` markers.

    Secret values are replaced by a marker so validation can see that the key is set (and is a
    secret) without the value ever entering a config model or an error message.
    """
    raw: dict[str, Any] = {**runtime_config.get_config_env(), **runtime_config.CONFIG.get()}
    env_secret_keys = set(runtime_config.get_config_secret_keys_env())
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key in env_secret_keys or runtime_config.is_config_secret(key):
            out[key] = dict(MARKER)
            continue
        if isinstance(value, str) and value[:1] in "[{":
            # Objects arrive as JSON text; they are read within the stack file's limits.
            try:
                value = load_json(key, STACK_FILE, name=f"config {key}", text=value)
            except LoadError as exc:
                if not exc.problem.startswith("is not valid JSON"):
                    raise ConfigError([Problem(key, exc.problem, has_value=False)]) from None
        out[key] = value
    return out


def main() -> LlmPlatform:
    """Build the platform of the current stack and export what other stacks need."""
    try:
        cfg: StackConfig = load_stack_config(runtime_stack_config())
        token = pulumi.Config(PROJECT).get_secret("hfToken") if cfg.has_hf_token else None
        api_key = pulumi.Config(PROJECT).get_secret("apiKey") if cfg.has_api_key else None
        platform = LlmPlatform(
            pulumi.get_stack(),
            LlmPlatformArgs(
                config=cfg, hf_token=token, api_key=api_key, base_dir=Path(os.environ.get(STACK_DIR_ENV) or STACKS_DIR)
            ),
        )
    except (ConfigError, CrdSourceError) as exc:
        # RunError: the CLI prints the message alone, without a Python traceback.
        raise pulumi.RunError(str(exc)) from None
    # What other stacks read through a StackReference (examples/consumer reads these).
    pulumi.export("clusterName", cfg.cluster.name)
    pulumi.export("gpuPools", sorted(platform.pools))
    for key, value in platform.stack_outputs().items():
        pulumi.export(key, value)
    # The capacity figures of every model as one JSON string: as a nested object the engine would
    # lift every node into an Output of its own (a third of the plan's time at 100 models).
    pulumi.export("models", json.dumps({name: plan.report() for name, plan in platform.plans.items()}, sort_keys=True))
    return platform
