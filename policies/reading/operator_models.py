"""The Hugging Face models an operator's custom resource names in its own fields, and the containers of a pod template an
operator runs that name one by a common flag: what S17 (model-source-pinned) reads besides command lines.

An operator that downloads a Hub model for its pods takes the model as a field of its resource and, when it can pin it,
a revision field beside it: nebari-dev/llm-serving-pack 502536264e025064eaf38143a0ed31e86ab127dc
operator/api/v1alpha1/llmmodel_types.go:53-60 (``spec.model.name``, ``source: huggingface``, optional
``revision``) hands the revision to its download init container as ``--revision`` only when it is set
(operator/internal/controller/reconcilers/storage.go:151-155), else the download takes the main branch as it stands.
The class read here, generically: in a custom resource no reader knows, a mapping that names a Hub repository
(``org/name``) under a model key and says it comes from Hugging Face (a ``source``/``provider``/``hub`` of
``huggingface`` or ``hf``; an ``hf://`` value; or, for a resource whose own ``image`` is a Hugging Face loader, as
substratusai/substratus examples/llama2-70b/base-model.yaml@7352fb05 ``spec.params.name`` with image
``substratusai/model-loader-huggingface``), and its revision key beside it, if any.

The pod templates of such resources (KAITO's Workspace ``inference.template``, read generically) name their model
by the flags any server takes (policies/reading/model_ids.py): a container there that names a model or turns remote
code on counts, GPUs or not, since the operator chooses the node (KAITO's ``resource.instanceType``).

All of it is advice: what the operator or the image does with the value is not in the files.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

from policies.kube import as_dict, containers, generic_pod_specs, get, has_reader, is_custom_type, memoized, read_generically
from policies.reading.engines import hub_model
from policies.reading.model_ids import ModelId, model_id
from policies.reading.serving import model_servers

_MODEL_KEYS = ("name", "model", "modelId", "modelID", "model_id", "modelName", "repoId", "repo_id", "id")
_REVISION_KEYS = ("revision", "modelRevision", "model_revision", "commit", "commitHash")
_SOURCE_KEYS = ("source", "provider", "hub", "type", "kind")
_HF = re.compile(r"^(hf|huggingface|hugging[-_ ]face(?:[-_ ]?hub)?)$", re.IGNORECASE)
_MAX_NODES = 5_000


@dataclass(frozen=True)
class FieldModel:
    """A Hub model an operator's resource names in a field: where, the repository, and its revision if given."""

    path: str
    repo: str
    revision_path: str
    revision: Optional[str]


def _hugging_face(mapping: Mapping, value: str, loader_image: bool) -> bool:
    if value.strip().startswith("hf://") or loader_image:
        return True
    return any(isinstance(mapping.get(k), str) and _HF.match(mapping[k].strip()) for k in _SOURCE_KEYS)


def _field_models(resource: Any) -> list[FieldModel]:
    if not is_custom_type(getattr(resource, "type", None)) or has_reader(resource.type):
        return []
    spec = get(resource.props, "spec")
    image = get(resource.props, "spec", "image")
    loader_image = isinstance(image, str) and "huggingface" in image.lower() and "loader" in image.lower()
    found: list[FieldModel] = []
    stack: list[tuple[str, Any]] = [("spec", spec)] if isinstance(spec, dict) else []
    seen = 0
    while stack and seen < _MAX_NODES:
        path, node = stack.pop()
        seen += 1
        if isinstance(node, list):
            stack.extend((f"{path}[{i}]", v) for i, v in enumerate(node) if isinstance(v, (dict, list)))
            continue
        if not isinstance(node, dict) or "containers" in node:
            continue  # a pod template is read as containers (below), not as fields
        for key in _MODEL_KEYS:
            value = node.get(key)
            if not isinstance(value, str):
                continue
            repo = hub_model(value)
            if repo is not None and _hugging_face(node, value, loader_image and path.endswith("params")):
                rev_key = next((k for k in _REVISION_KEYS if k in node), "revision")
                revision = node.get(rev_key)
                revision = str(revision) if revision not in (None, "") else None
                if revision is None and value.startswith("hf://") and ":" in value[len("hf://") :]:
                    revision = value[len("hf://") :].split(":", 1)[1]
                found.append(FieldModel(f"{path}.{key}", repo, f"{path}.{rev_key}", revision))
                break
        stack.extend((f"{path}.{k}", v) for k, v in node.items() if isinstance(k, str) and isinstance(v, (dict, list)))
    return found


def field_models(resource: Any) -> list[FieldModel]:
    """The Hub models a custom resource no reader knows names in its own fields (module docstring)."""
    return list(memoized(resource, "operator_field_models", _field_models))


def template_models(resource: Any) -> list[tuple[str, ModelId]]:
    """(label, model id) of each container of a generically read pod template that names a model by a common flag or
    variable (or turns remote code on) and is not already read as a model server."""
    if not read_generically(resource):
        return []
    judged = {id(server.container) for server in model_servers(resource)}
    found = []
    for path, podspec in generic_pod_specs(resource):
        for container in containers(podspec):
            if id(container) in judged:
                continue
            named = model_id(container)
            if named is not None and (hub_model(named.model) is not None or named.trust is not None):
                found.append((f"{path} container {container.get('name', '<unnamed>')}", named))
    return found


CONFIG_MAP_TYPE = "kubernetes:core/v1:ConfigMap"
# The file Triton's vLLM backend reads its engine arguments from, in the model's directory of the repository, and hands
# whole to vLLM (triton-inference-server/vllm_backend 8de0c148bda1da25de1e05ffaaf67116dacc7264 src/model.py:44
# _VLLM_ENGINE_ARGS_FILENAME = "model.json", :210-227 json.load then AsyncEngineArgs(**config)): its ``model``,
# ``revision`` and ``trust_remote_code`` are vLLM's. A ConfigMap that holds one is how a manifest ships it.
ENGINE_ARGS_FILE = "model.json"


def engine_args_files(resource: Any) -> list[tuple[str, dict]]:
    """(data key, engine arguments) of each vLLM engine-arguments file a ConfigMap holds (Triton's model.json: a JSON
    object with a ``model``), else []."""
    if getattr(resource, "type", None) != CONFIG_MAP_TYPE:
        return []
    found = []
    for key, text in as_dict(get(resource.props, "data")).items():
        if not (isinstance(key, str) and key.endswith(ENGINE_ARGS_FILE) and isinstance(text, str)):
            continue
        try:
            parsed = json.loads(text)
        except ValueError:
            continue
        if isinstance(parsed, dict) and isinstance(parsed.get("model"), str):
            found.append((key, parsed))
    return found


__all__ = ["CONFIG_MAP_TYPE", "FieldModel", "engine_args_files", "field_models", "template_models"]
