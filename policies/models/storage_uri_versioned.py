"""S17 on an object-store model source: a KServe storage URI names a versioned path, not a mutable prefix.

KServe's storage initializer copies everything under the URI's prefix at each pod start (kserve v0.20.0
python/storage/kserve_storage/kserve_storage.py:504-533 ``_download_s3``: every object of ``bucket.objects.filter(
Prefix=...)``; :678-703 ``_download_gcs``: ``bucket.list_blobs(prefix=...)``; :938 Azure's ``list_blobs(
name_starts_with=...)``; pkg/webhook/admission/pod/storage_initializer_injector.go:528-547 runs it in every predictor
pod). A prefix with no version in its path (``s3://models/torchrt/models/``, ``s3://mlpipeline/kserve``) holds whatever
was last uploaded there: a pipeline that writes the next model to the same prefix changes what new pods, a scale-up or
a restarted pod, serve, while the running ones keep the old files, and a rollback cannot return to what ran. The
object-store analogue of an unpinned Hub revision. Spent set 77: wbe7/torchrt@2db3af4d inferenceservice-full.yaml
(``s3://models/torchrt/models/``) and loprych/kubeflow-infra@11b0eccd inferenceservice.yaml (``s3://mlpipeline/kserve``),
both labelled S17 advisory.

Read from an InferenceService's storage URI (``predictor.model.storageUri``, ``predictor.storageUri``, a framework
key's ``storageUri``, each ``storageUris`` entry, a custom container's STORAGE_URI: policies/reading/kserve_storage.py)
and an LLMInferenceService's ``spec.model.uri``, for ``s3://``, ``gs://`` and Azure Blob ``https://*.blob.core.
windows.net`` URIs. A path counts as versioned when one of its segments after the bucket is a version (``1``, ``v2``,
``1.0.3``), a date (``2024-05-01``, ``20240501``), a commit-like hex id (7-40 characters with a digit), or names one
(``version-3``, ``model_v2``, ``rev4``), or when the URI carries an object version (``?versionId=``, ``#generation``).
Advice: an immutable bucket policy may guard the prefix. ``hf://`` (model-source-pinned), ``oci://`` (oci-model-tags)
and ``pvc://`` (a volume the operator fills: what it holds is not in the files) are not read here.
"""

from __future__ import annotations

import re
from typing import Iterator

from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, as_list, get, split_type
from policies.reading.kserve_storage import ISVC, LLMISVC, isvc_source

_OBJECT_STORE = re.compile(
    r"^(?:s3|gs)://[^/?#]+(?P<path>/[^?#]*)?(?P<rest>[?#].*)?$|^https://[^/]+\.blob\.core\.windows\.net/[^/?#]+(?P<apath>/[^?#]*)?(?P<arest>[?#].*)?$"
)
# A segment that is a version, a date or a commit-like id, or that names a version inside a longer name.
_VERSION_SEGMENT = re.compile(
    r"^v?\d+(?:[._-]\d+)*$"
    r"|^\d{4}-?\d{2}-?\d{2}(?:[T_-]?\d{2,6})?$"
    r"|^(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}$"
    r"|(?:^|[._-])(?:v|ver|version|rev|revision)[._=-]?\d+(?:\.\d+)*(?:$|[._-])",
    re.I,
)
_OBJECT_VERSION = re.compile(r"(?i)[?&]versionid=|#\d+$|[?&]generation=")
# InferenceService v1beta1 framework keys of a predictor (the older form beside ``model``).
_FRAMEWORKS = ("sklearn", "xgboost", "tensorflow", "pytorch", "triton", "onnx", "pmml", "lightgbm", "paddle", "huggingface")


def storage_uris(resource: Resource) -> Iterator[tuple[str, str]]:
    """(where, uri) of each storage URI the KServe object downloads."""
    kind = split_type(resource.type)
    if kind == LLMISVC:
        uri = get(resource.props, "spec", "model", "uri")
        if isinstance(uri, str):
            yield "spec.model.uri", uri
        return
    if kind != ISVC:
        return
    predictor = as_dict(get(resource.props, "spec", "predictor"))
    source = isvc_source(resource)
    if isinstance(source, str) and "://" in source.split(" ", 1)[0]:
        yield "storageUri", source
    for framework in _FRAMEWORKS:
        uri = get(predictor, framework, "storageUri")
        if isinstance(uri, str):
            yield f"spec.predictor.{framework}.storageUri", uri
    for entries in (get(predictor, "model", "storageUris"), predictor.get("storageUris")):
        for entry in as_list(entries):
            uri = as_dict(entry).get("uri")
            if isinstance(uri, str):
                yield "storageUris", uri


def unversioned(uri: str) -> bool:
    """True for an s3/gs/Azure Blob URI whose path after the bucket names no version and which pins no object
    version; False for any other scheme, an unrendered URI or a versioned one."""
    text = uri.strip()
    if "$" in text or "{{" in text or "<" in text:
        return False
    found = _OBJECT_STORE.match(text)
    if found is None:
        return False
    path = found.group("path") or found.group("apath") or ""
    rest = found.group("rest") or found.group("arest") or ""
    if rest and _OBJECT_VERSION.search(rest):
        return False
    return not any(_VERSION_SEGMENT.search(segment) for segment in path.split("/") if segment)


def _check(resource: Resource, config: dict) -> list[str]:
    if split_type(resource.type) not in (ISVC, LLMISVC) or resource.patch:
        return []
    messages: list[str] = []
    seen: set[str] = set()
    for where, uri in storage_uris(resource):
        if uri in seen or not unversioned(uri):
            continue
        seen.add(uri)
        messages.append(
            unproven(
                f"{where} {uri} names a prefix with no version in its path: KServe's storage initializer copies "
                f"whatever is under it when each pod starts, so a model uploaded there later is served by new and "
                f"restarted pods while the running ones keep the old files, and a rollback cannot return to what ran; "
                f"write each model to a versioned path (.../MODEL/3/, .../MODEL/2024-05-01/) and name that path"
            )
        )
    return messages


POLICY = Policy(
    name="storage-uri-versioned",
    description="A KServe storage URI on an object store (s3://, gs://, Azure Blob) names a versioned path, not a "
    "mutable prefix (advice).",
    catalog="S17",
    severity="low",
    enforcement="advisory",
    remediation_steps="Upload each model to its own versioned path (s3://bucket/model/3/) and point storageUri at it.",
    resource_types=(
        "kubernetes:serving.kserve.io/v1beta1:InferenceService",
        "kubernetes:serving.kserve.io/v1alpha1:LLMInferenceService",
        "kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService",
    ),
    check_resource=_check,
    rationale=(
        "The storage initializer downloads the prefix's current content at every pod start, so an unversioned prefix "
        "makes replicas and restarts serve different models (the object-store analogue of an unpinned Hub revision)."
    ),
)
