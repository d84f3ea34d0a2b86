"""Image references an operator's custom resource holds outside any pod template.

Operators that render the pod themselves take the image from a field of their own and copy it into the container
verbatim: substratus ``Server``/``Model``/``Dataset``/``Notebook`` ``spec.image`` (substratusai/substratus
api/v1/server_types.go ServerSpec.Image, model_types.go ModelSpec.Image: "Image that contains model serving
application and dependencies"), Kaito's private preset ``inference.preset.presetOptions.image`` (Azure/kaito
pkg/workspace/inference/preset-inferences.go:114-119 takes it as the image name for accessMode private). What the
image rules (G1 image-tag-pinned, G46 container-can-start) say of a container's image they say of these, as advice:
the field's meaning is read from its name, not from a reader of the kind.

Read only in custom resources no reader knows (a known kind's image fields are its reader's), under a key named
``image`` or ending in ``Image`` (``loaderImage``) or ``Puller`` (a NIMCache's ``modelPuller``, the NIM image that
downloads the model), whose value is a string, or a mapping of ``repository`` and a
``tag`` (joined as Helm charts join them). A string beside a ``tag``, ``version`` or ``repository`` key is one part of
a reference the operator assembles (NVIDIA GPU Operator ClusterPolicy ``driver.{repository,image,version}``): not
read. Pod templates and container lists are the pod rules' and are skipped; so are metadata and status.
"""

from __future__ import annotations

from typing import Any

from policies.framework import UNKNOWN, Resource
from policies.kube import has_reader, is_custom_type, memoized, pod_specs
from policies.operators import operator_server
from policies.pod_search import image_parts

_CONTAINER_LISTS = frozenset({"containers", "initContainers", "ephemeralContainers"})
_SKIP = frozenset({"metadata", "status"})
_MAX_DEPTH = 16
_MAX_NODES = 5_000


def _image_key(key: object) -> bool:
    return isinstance(key, str) and (
        key == "image" or (key.endswith("Image") and key[:1].islower()) or key.endswith(_IMAGE_SUFFIXES)
    )


# Keys named for the program an operator runs from an image, not for the image (k8s-nim-operator v3.1.2
# api/apps/v1alpha1/nimcache_types.go NGCSource.ModelPuller "the container image that can pull the model", and
# HFSource's; spent set 54 Dineshk1205/nvidiaRAG nim-caches.yaml, three modelPuller images at :latest).
_IMAGE_SUFFIXES = ("Puller",)


def _joined(value: dict) -> Any:
    repository, tag = value.get("repository"), value.get("tag")
    if isinstance(repository, str) and repository and isinstance(tag, (str, int, float)) and str(tag):
        return f"{repository}:{tag}"
    return None


def field_images(resource: Resource) -> list[tuple[str, Any]]:
    """(field path, image as written) of each image reference a custom resource no reader knows holds outside its pod
    templates; the value is the written text where policies.check replaced a placeholder with framework.UNKNOWN."""
    return list(memoized(resource, "field_images", _field_images))


def _field_images(resource: Resource) -> list[tuple[str, Any]]:
    if not is_custom_type(resource.type) or has_reader(resource.type) or operator_server(resource) is not None:
        return []
    props = resource.written if resource.written is not None else resource.props
    if not isinstance(props, dict):
        return []
    # A chart release's pods are rendered from its values (policies/chart_workloads.py, path `spec.values[<chart>]`):
    # the images its values name are those pods' own, judged there, never again as fields.
    pods = tuple(path.partition("[")[0] if path.startswith("spec.values[") else path for path, _ in pod_specs(resource))
    found: list[tuple[str, Any]] = []
    stack: list[tuple[str, Any, int]] = [(k, v, 1) for k, v in reversed(list(props.items())) if k not in _SKIP]
    seen = 0
    while stack and seen < _MAX_NODES:
        path, value, depth = stack.pop()
        seen += 1
        if any(path == p or path.startswith((p + ".", p + "[")) for p in pods):
            continue
        if isinstance(value, dict):
            parts = image_parts(value)
            for key, item in value.items():
                if not _image_key(key):
                    continue
                image = item if isinstance(item, str) and not parts else _joined(item) if isinstance(item, dict) else None
                if image:
                    found.append((f"{path}.{key}", image))
            if depth < _MAX_DEPTH:
                stack.extend(
                    (f"{path}.{k}", v, depth + 1)
                    for k, v in reversed(list(value.items()))
                    if isinstance(k, str) and k not in _CONTAINER_LISTS and not _image_key(k) and isinstance(v, (dict, list))
                )
        elif isinstance(value, list) and depth < _MAX_DEPTH:
            stack.extend(
                (f"{path}[{i}]", v, depth + 1) for i, v in reversed(list(enumerate(value))) if isinstance(v, (dict, list))
            )
    return [(path, image) for path, image in found if image is not UNKNOWN]
