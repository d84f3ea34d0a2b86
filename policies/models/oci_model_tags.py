"""S17 for models KServe takes from an OCI image (a "modelcar"): pinned by digest, not by a tag.

A storage URI ``oci://<image reference>`` makes KServe's pod webhook add a ``modelcar`` container whose image is the URI
without its scheme (kserve/kserve v0.16.0 pkg/utils/storage.go:485-487, CreateModelcarContainer :346-358, injected by
pkg/webhook/admission/pod/storage_initializer_injector.go:159-171 for the ``oci://`` prefix, constants.go:179): the
model's weights are that image's files. A reference by tag (``modelcar-catalog:qwen2.5-0.5b-instruct``, or no tag at
all, which is ``:latest``) resolves to whatever the registry holds under the tag when a node pulls it, so two replicas
can serve different weights and a re-push changes production silently: the weights' analogue of an image's
``:latest``. A reference with ``@sha256:<digest>`` is fixed. Read from an InferenceService's predictor (its ``model``,
a framework block such as ``huggingface``, the predictor itself, a container's ``STORAGE_URI``) and an
LLMInferenceService's ``spec.model.uri``. Advice, as every S17 row: a moving source is a risk, not a failure.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from policies.framework import Resource, unproven
from policies.kube import as_dict, as_list, get, split_type

OCI_PREFIX = "oci://"


def _uris(resource: Resource) -> Iterator[tuple[str, Any]]:
    """(field, URI) of every storage URI of a KServe model resource."""
    group, kind = split_type(resource.type)
    if group != "serving.kserve.io":
        return
    if kind == "LLMInferenceService":
        yield "spec.model.uri", get(resource.props, "spec", "model", "uri")
        return
    if kind != "InferenceService":
        return
    predictor = as_dict(get(resource.props, "spec", "predictor"))
    yield "spec.predictor.storageUri", predictor.get("storageUri")
    for key, block in predictor.items():
        if isinstance(block, dict) and "storageUri" in block:
            yield f"spec.predictor.{key}.storageUri", block.get("storageUri")
    for i, container in enumerate(as_list(predictor.get("containers"))):
        for env in as_list(as_dict(container).get("env")):
            if as_dict(env).get("name") == "STORAGE_URI":
                yield f"spec.predictor.containers[{i}] env STORAGE_URI", as_dict(env).get("value")


def _by_tag(reference: str) -> str | None:
    """The tag an image reference names (``latest`` when it names none), or None when a digest pins it."""
    if "@" in reference:
        return None
    last = reference.rsplit("/", 1)[-1]
    return last.split(":", 1)[1] if ":" in last else "latest"


def oci_tag_models(resource: Resource) -> list[str]:
    """Advice for each KServe storage URI that takes its model from an OCI image by tag."""
    out: list[str] = []
    for field, uri in _uris(resource):
        if not isinstance(uri, str) or not uri.strip().startswith(OCI_PREFIX):
            continue
        reference = uri.strip()[len(OCI_PREFIX) :]
        tag = _by_tag(reference)
        if tag is None or not reference or "{{" in reference or "$" in reference:
            continue
        out.append(
            unproven(
                f"{field}: the model comes from the OCI image {reference} by its tag {tag!r}, not a digest: KServe runs "
                f"that image as the modelcar holding the weights, so each node serves whatever the registry holds under "
                f"the tag when it pulls, and a re-push changes the weights under the service; pin it as "
                f"oci://<image>@sha256:<digest>"
            )
        )
    return out
