"""The generic search for pod specs in an object no reader knows (kube.generic_pod_specs says what counts as one).

Pure and free of kube's helpers so that kube can memoize it per evaluation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from policies.app_template import app_template_pod_specs
from policies.helm_charts import chart_pod_specs
from policies.pod_patches import is_pod_patch, merge_patches

# Bounds of the generic search: a CR is walked once per evaluation, never deeper or longer than this.
_GENERIC_MAX_DEPTH = 24
_GENERIC_MAX_NODES = 20_000
# Keys whose subtree holds no pod template a controller runs: status is the controller's, metadata the API's.
_GENERIC_SKIP = frozenset({"metadata", "status"})


def _image_like(value: Any) -> bool:
    """An image reference: a string, or a value a rule cannot read (framework.UNKNOWN, which an unrendered placeholder
    such as ``your-acr-repo.azurecr.io/worker:latest`` becomes), never a mapping, list, number or flag."""
    return isinstance(value, str) or (value is not None and not isinstance(value, (dict, list, int, float, bool)))


def _is_container(value: Any) -> bool:
    return isinstance(value, dict) and (
        _image_like(value.get("image")) or isinstance(value.get("command"), list) or isinstance(value.get("args"), list)
    )


# What a container has besides its image: a mapping with an image and one of these is a container wherever it sits.
_CONTAINER_FIELDS = ("command", "args", "resources", "ports", "env")


# Keys beside an ``image`` string that make it one part of a reference its operator assembles (NVIDIA GPU Operator
# ClusterPolicy ``devicePlugin.{repository,image,version}``, NVIDIA/gpu-operator config/samples/v1_clusterpolicy.yaml):
# the string is no image reference of its own.
IMAGE_PART_KEYS = frozenset({"tag", "version", "repository", "registry", "digest", "imagetag", "imageversion", "imageregistry"})


def image_parts(value: Mapping) -> bool:
    """True when a mapping holds an image's parts (repository, version, tag ...) beside its ``image``."""
    return any(isinstance(k, str) and k.lower() in IMAGE_PART_KEYS for k in value)


def _is_container_like(value: Any) -> bool:
    """A container under a key that does not say so: an image string and at least one other container field, so that
    an image reference elsewhere (``spec.image``, a cache or a download job's image) is not read as one; nor is an
    operator's component settings whose image is one part of a reference (a ClusterPolicy's devicePlugin)."""
    return (
        isinstance(value, dict)
        and _image_like(value.get("image"))
        and any(value.get(f) not in (None, "", [], {}) for f in _CONTAINER_FIELDS)
        and not image_parts(value)
    )


def _single_container_key(value: dict) -> str | None:
    """The key of a single container inside a pod-spec-like mapping: under a key ending in "container" (Dynamo's
    ``mainContainer``) any container; under any other key (OME's ``engineConfig.runner``) a container-like one."""
    for key, item in value.items():
        if not isinstance(key, str):
            continue
        if key.lower().endswith("container"):
            if _is_container(item) and not image_parts(item):  # core/v1 Container has no repository or version
                return key
        elif _is_container_like(item):
            return key
    return None


def search_pod_specs(props: dict) -> tuple[list[tuple[str, dict]], list[str]]:
    """(pod specs as (path, podspec), paths of patches no base was found for) anywhere in ``props``: the search
    behind kube.generic_pod_specs. A Helm release of bjw-s app-template is read as the pods the chart renders
    (policies/app_template.py), and a release of a chart components/helm_charts.toml knows as the pod the chart renders
    (policies/helm_charts.py)."""
    if released := app_template_pod_specs(props):
        return released, []
    if released := chart_pod_specs(props):
        return released, []
    found: list[tuple[str, dict]] = []
    patches: list[tuple[str, dict]] = []
    stack: list[tuple[str, Any, int]] = [(k, v, 1) for k, v in reversed(list(props.items())) if k not in _GENERIC_SKIP]
    seen = 0
    while stack and seen < _GENERIC_MAX_NODES:
        path, value, depth = stack.pop()
        seen += 1
        if isinstance(value, dict):
            if is_pod_patch(path.rsplit(".", 1)[-1], value):
                patches.append((path, value))  # merged onto its base below, never a pod of its own
                continue
            listed = value.get("containers")
            if isinstance(listed, list) and any(_is_container(c) for c in listed):
                found.append((path, value))
                continue
            single = _single_container_key(value)
            if single is not None:
                pod = {k: v for k, v in value.items() if k != single}
                found.append((f"{path}.{single}", {**pod, "containers": [value[single]]}))
                continue
            if depth < _GENERIC_MAX_DEPTH:
                stack.extend(
                    (f"{path}.{k}", v, depth + 1)
                    for k, v in reversed(list(value.items()))
                    if isinstance(k, str) and isinstance(v, (dict, list))
                )
        elif isinstance(value, list) and depth < _GENERIC_MAX_DEPTH:
            stack.extend(
                (f"{path}[{i}]", v, depth + 1) for i, v in reversed(list(enumerate(value))) if isinstance(v, (dict, list))
            )
    return merge_patches(props, found, patches) if patches else (found, [])
