"""Where KServe's storage initializer puts a model: the ``/mnt/models`` emptyDir of the predictor pod, for every
storage URI it downloads, whatever the scheme.

Facts read from kserve at tag v0.20.0:

- InferenceService: a single storage URI other than ``pvc://`` (mounted as a claim) and ``oci://`` (a modelcar
  sidecar or an OCI image volume; injector :298-380) is downloaded by the ``storage-initializer`` init container
  (pkg/webhook/admission/pod/storage_initializer_injector.go:528-547) into the volume ``AddModelMount`` adds at
  ``/mnt/models``: an emptyDir with no sizeLimit when no claim is named (pkg/utils/storage.go:107-121). That covers
  ``s3://``, ``gs://``, ``https://``, ``hf://``, Azure and HDFS URIs, and a ``storage:`` spec (a key of the storage
  secret and a path: components/component.go:44-54 fills the scheme from the secret). The init container requests
  CPU and memory only (storage.go:311-333), so nothing in the pod accounts for the checkpoint on the node's disk
  unless the server container requests ephemeral-storage.
- LLMInferenceService: ``spec.model.uri`` with ``hf://`` or ``s3://`` goes the same way (an init container and the
  ``/mnt/models`` emptyDir: pkg/controller/v1alpha2/llmisvc/workload_storage.go:178-200, 396-422), unless
  ``spec.storageInitializer.enabled`` is false (:98-104); ``pvc://`` and ``oci://`` are mounted, not downloaded.
- Either, where a LocalModelCache (or LocalModelNamespaceCache) of the objects checked covers the URI: the node-local
  cache claim is mounted instead (``local_model_cache``).
"""

from __future__ import annotations

from typing import Any, Optional

from policies.kube import as_dict, as_list, get, requests_gpu, split_type, viewed_resources
from policies.reading.kserve_runtime import effective_resources
from policies.reading.serving import model_servers

KSERVE_MODEL_DIR = "/mnt/models"
_MOUNTED = ("pvc://", "oci://", "oci+")  # a claim or an image: nothing is downloaded
_LLMISVC_DOWNLOADED = ("hf://", "s3://")
ISVC = ("serving.kserve.io", "InferenceService")
LLMISVC = ("serving.kserve.io", "LLMInferenceService")


def downloaded_uri(uri: Any) -> bool:
    """True for a storage URI KServe's storage initializer downloads into its emptyDir (every scheme but a claim's
    and an OCI image's)."""
    return isinstance(uri, str) and bool(uri.strip()) and "://" in uri and not uri.strip().startswith(_MOUNTED)


def isvc_source(isvc: Any) -> Optional[str]:
    """The model source an InferenceService's predictor names, as messages show it: its ``storageUri`` (the model's,
    the predictor's, a custom container's ``STORAGE_URI`` env) or its ``storage`` spec (key and path); None when it
    names none."""
    predictor = as_dict(get(isvc.props, "spec", "predictor"))
    model = as_dict(predictor.get("model"))
    for uri in (model.get("storageUri"), predictor.get("storageUri")):
        if isinstance(uri, str):
            return uri
    storage = as_dict(model.get("storage")) or as_dict(predictor.get("storage"))
    if isinstance(storage.get("path"), str):
        key = storage.get("key")
        return f"{storage['path']} (storage key {key if isinstance(key, str) else 'default'})"
    for container in as_list(predictor.get("containers")):
        for env in as_list(as_dict(container).get("env")):
            if as_dict(env).get("name") == "STORAGE_URI" and isinstance(as_dict(env).get("value"), str):
                return str(env["value"])
    return None


def _storage_uris(isvc: Any) -> Optional[tuple[str, str]]:
    """(uri, mount path) of the first entry of a predictor's ``storageUris`` that the storage initializer downloads
    (kserve v0.20.0 pkg/apis/serving/v1beta1/predictor.go:66; the injector downloads every entry but pvc:// and OCI
    ones into an emptyDir at their common parent path, storage_initializer_injector.go:428-500)."""
    predictor = as_dict(get(isvc.props, "spec", "predictor"))
    for entries in (as_dict(predictor.get("model")).get("storageUris"), predictor.get("storageUris")):
        for entry in as_list(entries):
            uri, mount = as_dict(entry).get("uri"), as_dict(entry).get("mountPath")
            if downloaded_uri(uri):
                return str(uri), mount if isinstance(mount, str) and mount else KSERVE_MODEL_DIR
    return None


_LOCAL_CACHES = {("serving.kserve.io", "LocalModelCache"), ("serving.kserve.io", "LocalModelNamespaceCache")}


def _match_storage_uri(cached: str, uri: str) -> bool:
    """kserve v0.20.0 pkg/apis/serving/v1alpha1/storage_uri_utils.go:23-35 MatchStorageURI: the URI is the cached one
    or a folder under it (trailing slashes dropped)."""
    cached, uri = cached.rstrip("/"), uri.rstrip("/")
    return uri == cached or uri.startswith(cached + "/")


def local_model_cache(resource: Any, uri: str) -> Optional[str]:
    """The name of a LocalModelCache (or, in the object's namespace, a LocalModelNamespaceCache) of the objects checked
    whose ``sourceModelUri`` covers ``uri`` on the object's node group, or None. KServe's defaulter then labels the
    object and the injector mounts the cache's node-local claim (``pvc://<cache>-<nodegroup>/models/...``) instead of
    downloading (kserve v0.20.0 pkg/apis/serving/v1beta1/inference_service_defaults.go:504-590 setLocalModelLabel,
    pkg/webhook/admission/pod/storage_initializer_injector.go:724-737; LLMInferenceService:
    pkg/webhook/admission/llminferenceservice/defaulter.go:166-204), unless the object opts out with
    ``serving.kserve.io/disable-localmodel`` (constants.go:117)."""
    annotations = as_dict(get(resource.props, "metadata", "annotations"))
    if "serving.kserve.io/disable-localmodel" in annotations:
        return None
    group = annotations.get("serving.kserve.io/nodegroup")  # constants.go:134 NodeGroupAnnotationKey
    namespace = get(resource.props, "metadata", "namespace")
    for other in viewed_resources() or ():
        kind = split_type(getattr(other, "type", ""))
        if kind not in _LOCAL_CACHES:
            continue
        if kind[1] == "LocalModelNamespaceCache" and get(other.props, "metadata", "namespace") not in (None, namespace):
            continue  # listed in the object's namespace only (inference_service_defaults.go:151-152)
        source, groups = get(other.props, "spec", "sourceModelUri"), as_list(get(other.props, "spec", "nodeGroups"))
        if isinstance(source, str) and groups and _match_storage_uri(source, uri) and (group is None or group in groups):
            return str(get(other.props, "metadata", "name"))
    return None


def _downloads_source(resource: Any) -> Optional[tuple[str, str]]:
    """(what is downloaded, the folder it lands in) for a KServe object whose storage initializer downloads (none where a
    local model cache of the objects checked holds it)."""
    found = _downloaded(resource)
    # The one storage URI the defaulter matches (GetStorageUri; an LLMInferenceService's model.uri), not storageUris.
    single = isvc_source(resource) if split_type(resource.type) == ISVC else get(resource.props, "spec", "model", "uri")
    if found is not None and found[0] == single and local_model_cache(resource, found[0]):
        return None
    return found


def downloaded_source(resource: Any) -> Optional[tuple[str, str]]:
    """(the storage URI or spec, the folder it lands in) of a KServe object whose storage initializer downloads its
    model at start, or None."""
    return _downloads_source(resource)


def _downloaded(resource: Any) -> Optional[tuple[str, str]]:
    kind = split_type(resource.type)
    if kind == ISVC:
        source = isvc_source(resource)
        if source is None:
            return _storage_uris(resource)
        if "://" in source.split(" ", 1)[0] and not downloaded_uri(source):
            return None
        return source, KSERVE_MODEL_DIR
    if kind == LLMISVC:
        uri = get(resource.props, "spec", "model", "uri")
        if get(resource.props, "spec", "storageInitializer", "enabled") is False:
            return None
        return (uri, KSERVE_MODEL_DIR) if isinstance(uri, str) and uri.startswith(_LLMISVC_DOWNLOADED) else None
    return None


def _server(resource: Any, path: str, container: dict) -> bool:
    """The container KServe mounts /mnt/models into: the predictor's model (or kserve-container), an
    LLMInferenceService's main."""
    name = container.get("name")
    if split_type(resource.type) == LLMISVC:
        return name == "main"
    return path.endswith(".model") or name == "kserve-container"


def _builtin_runtime(resource: Any, path: str) -> bool:
    """True for a predictor model that names no runtime, none of the files read being one KServe selects: KServe picks
    one by model format, in a stock install one of its built-in ClusterServingRuntimes, none of which requests
    ephemeral-storage (kserve v0.20.0 config/runtimes/*.yaml set CPU and memory only)."""
    return (
        split_type(resource.type) == ISVC
        and path.endswith(".model")
        and not get(resource.props, "spec", "predictor", "model", "runtime")
    )


def storage_initializer_downloads(resource: Any) -> list[tuple[str, str, str, dict, dict, bool]]:
    """(label, source, folder, podspec, container with its pod's resources, known) of every GPU server container of a KServe
    object whose model the storage initializer downloads into the /mnt/models emptyDir; ``known`` is False where a
    ServingRuntime or LLMInferenceServiceConfig outside the files read completes the container (its resources,
    an ephemeral-storage request among them, are unknown)."""
    downloaded = _downloads_source(resource)
    if downloaded is None:
        return []
    source, into = downloaded
    found = []
    for server in model_servers(resource):
        if not _server(resource, server.path, server.container):
            continue
        resources, _ = effective_resources(resource, server.path, server.container)
        if resources is None and _builtin_runtime(resource, server.path):
            resources = as_dict(server.container.get("resources"))
        known = resources is not None
        container = {**server.container, "resources": resources if known else as_dict(server.container.get("resources"))}
        if not requests_gpu({"containers": [container]}):
            continue
        found.append((server.label, source, into, server.podspec, container, known))
    return found


__all__ = [
    "ISVC",
    "KSERVE_MODEL_DIR",
    "LLMISVC",
    "downloaded_source",
    "downloaded_uri",
    "isvc_source",
    "storage_initializer_downloads",
]
