"""The model a model server of no known engine names, read from the common spellings of a model id.

A server the engine table does not know (a team's own image running TGI's launcher, a ``server.py``, Kaito's
reference ``inference_api.py``, an entrypoint that reads MODEL_ID) still names the Hugging Face model it loads in one
of a few ways: a flag (``--model-id``, ``--model``, ``--model-path``, ``--model_name_or_path``,
``--pretrained_model_name_or_path``: transformers' and TGI's spellings) or an environment variable (``MODEL_ID``,
``HF_MODEL_ID``, ``MODEL_NAME_OR_PATH``...), with a revision beside it (``--revision``, ``--model-revision``,
``REVISION``...). S17 reads these as advice: the files do not show what the image does with the value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

from policies.kube import memoized
from policies.reading.engines import Download, env_values, hub_client_download, hub_model
from policies.reading.serving import GPU_SERVER, container_argv, model_servers
from policies.reading.vllm_args import parse_vllm_args

# Flags naming the model (normalised: dashes, no leading --), in the order a reader prefers them.
MODEL_FLAGS = ("model-id", "model", "model-path", "model-name-or-path", "pretrained-model-name-or-path", "hf-model-id")
# LLM_MODEL_ID: OPEA's native text-generation server loads the model this variable names
# (opea-project/GenAIComps@e17e6bd5 comps/llms/src/text-generation/integrations/native.py:33, model_revision "main"
# at :82, also at 2dce237a :33 and :82; no variable sets the revision, so a REVISION beside it pins nothing:
# UNPINNABLE_ENV); MODEL_NAME, HF_MODEL_NAME, MODEL_REPO_ID: the names ConfigMaps of spent sets give an entrypoint
# (config_revision_pinned, spent set 34 shenoyabhijith/llama-k8s-deployment k8s/configmap.yaml@d710e32). Only a value
# shaped as a Hub id (engines.hub_model) counts, and only in a GPU pod of no known engine.
MODEL_ENV = (
    "MODEL_ID",
    "HF_MODEL_ID",
    "MODEL_NAME_OR_PATH",
    "HF_MODEL",
    "MODEL_REPO",
    "MODEL",
    "LLM_MODEL_ID",
    "MODEL_NAME",
    "HF_MODEL_NAME",
    "MODEL_REPO_ID",
)
# Variables whose reader hardcodes the revision (see LLM_MODEL_ID above): no flag or variable beside them pins it.
UNPINNABLE_ENV = frozenset({"LLM_MODEL_ID"})
REVISION_FLAGS = ("revision", "model-revision")
REVISION_ENV = ("REVISION", "MODEL_REVISION", "HF_REVISION", "HF_MODEL_REVISION")
TRUST_FLAGS = ("trust-remote-code",)
TRUST_ENV = ("TRUST_REMOTE_CODE",)
# huggingface_hub reads these as "never call the Hub" (constants.py HF_HUB_OFFLINE; transformers TRANSFORMERS_OFFLINE).
_OFFLINE_ENV = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
_TRUE = frozenset({"1", "true", "yes", "on"})


@dataclass(frozen=True)
class ModelId:
    """What one container says of its model: the value and where it was written, its revision, remote code."""

    model: object
    field: str
    revision: Optional[str]
    revision_field: Optional[str]
    trust: Optional[str]  # the flag or variable that turns remote code on, or None
    pinnable: bool = True  # False when the reader of ``field`` takes no revision (UNPINNABLE_ENV)


def model_id(container: Mapping) -> Optional[ModelId]:
    """The model a container names by a common flag or variable, or None (also when it runs offline)."""
    env = env_values(container)
    if any(str(env.get(name, "")).strip().lower() in _TRUE for name in _OFFLINE_ENV):
        return None
    args = parse_vllm_args(container_argv(container))
    model, field = None, ""
    for flag in MODEL_FLAGS:
        if flag in args and args[flag] is not None:
            model, field = args[flag], f"--{flag}"
            break
    else:
        for name in MODEL_ENV:
            if name in env:
                model, field = env[name], f"env {name}"
                break
    trust = next((f"--{f}" for f in TRUST_FLAGS if f in args and str(args[f]).lower() not in ("false", "0")), None)
    trust = trust or next((f"env {n}" for n in TRUST_ENV if str(env.get(n, "")).strip().lower() in _TRUE), None)
    if not field and trust is None:
        return None
    if field.startswith("env ") and field[4:] in UNPINNABLE_ENV:
        return ModelId(model, field, None, None, trust, pinnable=False)
    revision, revision_field = None, None
    for flag in REVISION_FLAGS:
        if args.get(flag):
            revision, revision_field = args[flag], f"--{flag}"
    for name in REVISION_ENV:
        if env.get(name):
            revision, revision_field = env[name], f"env {name}"
    return ModelId(model, field, revision, revision_field, trust)


def generic_downloads(resource: Any) -> list[Download]:
    """The Hub models GPU model servers of no known engine name (``model_id``) that would land on the node's
    ephemeral storage if the image downloads them through the Hub client (engines.hub_client_download): advice."""
    return list(memoized(resource, "generic_downloads", _generic_downloads))


def _generic_downloads(resource: Any) -> list[Download]:
    found = []
    for server in model_servers(resource):
        named = model_id(server.container) if server.engine == GPU_SERVER else None
        if named is None or hub_model(named.model) is None:
            continue
        download = hub_client_download(server.label, named.model, server.podspec, server.container)
        found.extend([download] if download is not None else [])
    return found
