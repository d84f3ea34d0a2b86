"""The model a model server of no known engine names, read from the common spellings of a model id.

A server the engine table does not know (a team's own image running TGI's launcher, a ``server.py``, Kaito's
reference ``inference_api.py``, an entrypoint that reads MODEL_ID) still names the Hugging Face model it loads in one
of a few ways: a flag (``--model-id``, ``--model``, ``--model-path``, ``--model_name_or_path``,
``--pretrained_model_name_or_path``: transformers' and TGI's spellings) or an environment variable (``MODEL_ID``,
``HF_MODEL_ID``, ``MODEL_NAME_OR_PATH``...), with a revision beside it (``--revision``, ``--model-revision``,
``REVISION``...). S17 reads these as advice: the files do not show what the image does with the value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

from policies.kube import as_list, container_label, containers, get, memoized, name_of, pod_specs, viewed_resources
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


def patch_model_ids(resource: Any) -> list[tuple[str, ModelId]]:
    """(label, model id) of each container of a Kustomize patch (``resource.patch``) that names a Hub model by a common
    flag or variable (``model_id``) while stating no image and being no model server of its own: its base, or another
    patch of the overlay, supplies the server, and the patch only the model (spent set 56
    krmayankk/gpu-inference@f4582911 platform/serving/gpus/l4/args.yaml: ``--model=Qwen/Qwen2.5-Coder-7B-Instruct``
    beside overlays/vllm/patch.yaml's vLLM image). Pods that run to completion (a Job, a CronJob, restartPolicy Never or
    OnFailure) are left out: a benchmark names the model it sends requests to."""
    if not getattr(resource, "patch", False) or _BATCH_TYPE.search(str(resource.type)):
        return []
    servers = {id(s.container) for s in model_servers(resource)}
    found = []
    for path, podspec in pod_specs(resource):
        if podspec.get("restartPolicy") not in (None, "Always"):
            continue
        for container in containers(podspec):
            if id(container) in servers or container.get("image") is not None:
                continue
            named = model_id(container)
            if named is not None and hub_model(named.model) is not None:
                found.append((container_label(path, container), named))
    return found


# Kinds whose pods run to completion (batch/v1 Job, CronJob).
_BATCH_TYPE = re.compile(r":(?:Job|CronJob)$")


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


@dataclass(frozen=True)
class ConfigMapReader:
    """A container of the files that takes keys of a ConfigMap into its environment: under which variable each key."""

    resource: Any
    path: str
    podspec: dict
    container: dict
    keys: dict  # ConfigMap key -> the variable the container sees it as


def config_map_readers(namespace: Optional[str], name: str) -> list[ConfigMapReader]:
    """The containers of the objects being checked (kube.viewed_resources) that read the ConfigMap ``name`` through
    ``envFrom: configMapRef`` (every key, under its prefix) or ``valueFrom.configMapKeyRef``, in its namespace (one that
    leaves its namespace out may be applied into the other's: policies/reading/config_map_data.py); [] outside an
    evaluation. Indexed once per view."""
    view = viewed_resources()
    if not view:
        return []
    index = memoized(view, "config_map_readers", _config_map_readers)
    return [reader for space, reader in index.get(name, ()) if namespace is None or space is None or space == namespace]


def _config_map_readers(view: Any) -> dict[str, list[tuple[Optional[str], ConfigMapReader]]]:
    index: dict[str, list[tuple[Optional[str], ConfigMapReader]]] = {}
    for resource in view:
        props = getattr(resource, "props", None)
        if not isinstance(props, Mapping) or getattr(resource, "type", None) == "kubernetes:core/v1:ConfigMap":
            continue
        space = get(props, "metadata", "namespace")
        space = space if isinstance(space, str) and space else None
        for path, podspec in pod_specs(resource):
            for container in containers(podspec, init=True):
                by_map: dict[str, dict[str, str]] = {}
                for source in as_list(container.get("envFrom")):
                    ref = get(source, "configMapRef", "name")
                    if isinstance(ref, str):
                        prefix = get(source, "prefix")
                        by_map.setdefault(ref, {})["*"] = prefix if isinstance(prefix, str) else ""
                for item in as_list(container.get("env")):
                    ref = get(item, "valueFrom", "configMapKeyRef")
                    if isinstance(name_of(ref), str) and isinstance(get(ref, "key"), str) and isinstance(name_of(item), str):
                        by_map.setdefault(str(name_of(ref)), {})[str(get(ref, "key"))] = str(name_of(item))
                for ref, keys in by_map.items():
                    index.setdefault(ref, []).append((space, ConfigMapReader(resource, path, podspec, container, keys)))
    return index


# Variables that tell the Hugging Face client where to cache downloads or which token to send (huggingface_hub
# v1.28.0 constants.py: HF_HOME, HF_HUB_CACHE, HUGGINGFACE_HUB_CACHE, HF_TOKEN, HUGGING_FACE_HUB_TOKEN; transformers'
# TRANSFORMERS_CACHE): a container given one talks to the Hub.
HUB_CLIENT_ENV = (
    "HF_HOME",
    "HF_HUB_CACHE",
    "HUGGINGFACE_HUB_CACHE",
    "TRANSFORMERS_CACHE",
    "HF_TOKEN",
    "HUGGING_FACE_HUB_TOKEN",
)


def offline(container: Mapping) -> bool:
    """Whether the container's environment tells the Hub client never to call the Hub (HF_HUB_OFFLINE, TRANSFORMERS_OFFLINE)."""
    env = env_values(container)
    return any(str(env.get(name, "")).strip().lower() in _TRUE for name in _OFFLINE_ENV)
