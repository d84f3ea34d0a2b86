"""A KServe predictor ``model`` as the pod KServe runs: merged with the ServingRuntime it selects.

An InferenceService's ``spec.predictor.model`` is not the whole container: KServe v0.20.0 finds the
ServingRuntime and merges the runtime's ``kserve-container`` under it (the model's fields win), so
resources, probes, env and image a runtime supplies are in the pod even when the InferenceService
leaves them out. Facts read from the KServe source at tag v0.20.0:

- the runtime is chosen by name when ``model.runtime`` is set: a ServingRuntime of the
  InferenceService's namespace first, then a ClusterServingRuntime of that name
  (pkg/controller/v1beta1/inferenceservice/utils/utils.go:304-321, GetServingRuntime); otherwise the
  first runtime that supports the model format, namespace runtimes before cluster runtimes, and only
  formats marked ``autoSelect: true`` count (pkg/apis/serving/v1beta1/predictor_model.go:88-129
  GetSupportingRuntimes, :133-160 RuntimeSupportsModel), disabled runtimes skipped (:114);
- the predictor reconciler merges the runtime's container named ``kserve-container`` with the model
  (components/predictor.go:432, and the worker container at :597; MergeServingRuntimeAndInferenceServiceSpecs, utils.go:485-520) by a
  strategic merge patch where the InferenceService's fields override the runtime's and args are
  concatenated (utils.go:253-263, MergeRuntimeContainers); a resources map merges key by key;
- the ``model`` spec has no defaulting of its own (predictor_model.go:60, an empty Default), so what
  the runtime does not supply is not there.

Where the runtime is not among the objects checked (a cluster's own runtime, KServe's built-in
ClusterServingRuntimes), what it supplies is unknown. Every built-in runtime of v0.20.0 sets CPU and
memory requests and limits on its kserve-container (config/runtimes/*.yaml, e.g.
kserve-huggingfaceserver.yaml:34-40, kserve-vllmserver.yaml:45-51), so a check must not call them
missing: callers pass over such a container's merged fields.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import components
from components.parse_cache import read_toml
from policies.kube import as_dict, as_list, get, llmisvc_base_specs, memoized, split_type, viewed_resources

RUNTIME_KINDS = ("ServingRuntime", "ClusterServingRuntime")
KSERVE_CONTAINER = "kserve-container"


@dataclass(frozen=True)
class Runtime:
    """The runtime KServe would merge into a predictor: its kind, name and spec."""

    kind: str
    name: str
    spec: dict

    @property
    def label(self) -> str:
        """How messages name it: ``ServingRuntime/<name>``."""
        return f"{self.kind}/{self.name}"


def _runtimes(view: tuple[Any, ...]) -> list[tuple[str, str | None, str, dict]]:
    """(kind, namespace, name, spec) of every runtime in the view, in read order; not a Kustomize patch (an overlay's
    change of the image lacks the supportedModelFormats and containers its base keeps: review53b)."""
    found = []
    for r in view:
        group, kind = split_type(getattr(r, "type", ""))
        if group == "serving.kserve.io" and kind in RUNTIME_KINDS and not getattr(r, "patch", False):
            name = get(r.props, "metadata", "name")
            namespace = get(r.props, "metadata", "namespace")
            if isinstance(name, str):
                found.append((kind, namespace if isinstance(namespace, str) else None, name, as_dict(get(r.props, "spec"))))
    return found


def viewed_runtimes() -> list[tuple[str, str | None, str, dict]]:
    """(kind, namespace, name, spec) of every ServingRuntime and ClusterServingRuntime among the objects checked (read
    once per evaluation); empty when nothing shows the run."""
    view = viewed_resources()
    return [] if view is None else memoized(view, "kserve_runtimes", _runtimes)


def _supports(spec: dict, fmt: str, explicit: bool) -> bool:
    if spec.get("disabled") is True:
        return False
    for supported in as_list(spec.get("supportedModelFormats")):
        supported = as_dict(supported)
        if supported.get("name") == fmt and (explicit or supported.get("autoSelect") is True):
            return True
    return False


# The predictor kinds written before ``model`` that KServe's defaulting webhook turns into a ``model`` of that format
# (kserve v0.20.0 pkg/apis/serving/v1beta1/inference_service_defaults.go assignTritonRuntime: ``triton`` becomes
# ``model`` with modelFormat triton, its ``args`` and ``runtimeVersion`` kept), so a runtime is chosen and merged as for
# ``model``. Read only where a caller asks (``legacy``).
LEGACY_PREDICTORS = ("triton",)


def predictor_model(predictor: dict, legacy: bool = False) -> dict:
    """The predictor's ``model``, or (``legacy``) a ``triton`` predictor as the ``model`` KServe makes of it."""
    model = as_dict(predictor.get("model"))
    if model or not legacy:
        return model
    for kind in LEGACY_PREDICTORS:
        spec = as_dict(predictor.get(kind))
        if spec:
            return {**spec, "modelFormat": {"name": kind}}
    return {}


def predictor_runtime(isvc: Any, legacy: bool = False) -> Runtime | None:
    """The ServingRuntime or ClusterServingRuntime among the checked objects that KServe would merge into
    the InferenceService's predictor model (``legacy``: a ``triton`` predictor's too); None when it is not among them
    (or nothing shows the cluster)."""
    view = viewed_resources()
    if view is None or split_type(isvc.type) != ("serving.kserve.io", "InferenceService"):
        return None
    model = predictor_model(as_dict(get(isvc.props, "spec", "predictor")), legacy)
    if not model:
        return None
    runtimes = memoized(view, "kserve_runtimes", _runtimes)
    namespace = get(isvc.props, "metadata", "namespace")
    namespace = namespace if isinstance(namespace, str) else None
    name = model.get("runtime")
    in_namespace = [r for r in runtimes if r[0] == "ServingRuntime" and r[1] == namespace]
    cluster = [r for r in runtimes if r[0] == "ClusterServingRuntime"]
    if isinstance(name, str) and name:
        chosen = next((r for r in [*in_namespace, *cluster] if r[2] == name), None)
    else:
        fmt = get(model, "modelFormat", "name")
        if not isinstance(fmt, str):
            return None
        chosen = next((r for r in [*in_namespace, *cluster] if _supports(r[3], fmt, False)), None)
    return Runtime(chosen[0], chosen[2], chosen[3]) if chosen is not None else None


# KServe's built-in language-model ClusterServingRuntimes at v0.20.0, as data with their provenance.
BUILTIN_TABLE = Path(components.__file__).resolve().with_name("kserve_runtimes.toml")  # installed as llm_serving too


@cache
def builtin_runtimes() -> tuple[tuple[Runtime, tuple[str, ...], str, str], ...]:
    """(runtime, formats, format version, source) of each row of components/kserve_runtimes.toml, read once."""
    rows = read_toml(BUILTIN_TABLE)["runtime"]
    found = []
    for row in rows:
        container = {"name": KSERVE_CONTAINER, "resources": {"requests": dict(row["requests"]), "limits": dict(row["limits"])}}
        spec = {"containers": [container]}
        found.append(
            (Runtime("ClusterServingRuntime", row["name"], spec), tuple(row["formats"]), row["format_version"], row["source"])
        )
    return tuple(found)


@dataclass(frozen=True)
class Supports:
    """The model formats of one ClusterServingRuntime KServe's chart installs (components/kserve_runtimes.toml
    [[supports]]): every entry as (name, version or None), those with autoSelect: true, and whether it is the multi-node
    runtime."""

    name: str
    formats: tuple[tuple[str, str | None], ...]
    auto: tuple[tuple[str, str | None], ...]
    multinode: bool
    source: str


def _format_pair(text: str) -> tuple[str, str | None]:
    name, _, version = text.partition(":")
    return name, version or None


@cache
def builtin_supports() -> dict[str, Supports]:
    """Name -> Supports of every ClusterServingRuntime the chart kserve-runtime-configs v0.20.0 installs, read once."""
    return {
        row["name"]: Supports(
            row["name"],
            tuple(_format_pair(f) for f in row["formats"]),
            tuple(_format_pair(f) for f in row["auto"]),
            bool(row["multinode"]),
            row["source"],
        )
        for row in read_toml(BUILTIN_TABLE)["supports"]
    }


def spec_formats(spec: dict, named: bool) -> tuple[tuple[str, str | None], ...] | None:
    """A runtime spec's supportedModelFormats as (name, version or None): every entry when the InferenceService names
    the runtime (``named``), else those with autoSelect: true (kserve v0.20.0 pkg/apis/serving/v1beta1/
    predictor_model.go:148-163). None when the field or an entry is not plain (a field that is present but no list,
    a name or version that is no string): the API server refuses such a runtime itself (S26), so what KServe would
    select from it is not judged."""
    written = spec.get("supportedModelFormats")
    if written is not None and not isinstance(written, list):
        return None
    found = []
    for entry in as_list(written):
        entry = as_dict(entry)
        name, version = entry.get("name"), entry.get("version")
        if not isinstance(name, str) or not (version is None or isinstance(version, str)):
            return None
        if named or entry.get("autoSelect") is True:
            found.append((name, version))
    return tuple(found)


def supports_format(formats: tuple[tuple[str, str | None], ...], name: str, version: str | None) -> bool:
    """KServe's RuntimeSupportsModel (predictor_model.go:133-163): the runtime's labels are mt:NAME and mt:NAME:VERSION
    of each format, the model's mt:NAME:VERSION when it gives a version, else mt:NAME; names compared case-sensitively."""
    return any(n == name and (version is None or v == version) for n, v in formats)


def builtin_runtime(isvc: Any) -> tuple[Runtime, str] | None:
    """KServe's built-in ClusterServingRuntime (and its source) that a single-node predictor ``model`` gets when no
    runtime among the checked objects is chosen: by the name ``model.runtime`` gives, else by its model format
    (and version, when given). None for a multi-node predictor (workerSpec: the multi-node runtime, not tabled), an
    unknown name or format, or when a runtime among the checked objects is chosen (predictor_runtime)."""
    if split_type(isvc.type) != ("serving.kserve.io", "InferenceService"):
        return None
    predictor = as_dict(get(isvc.props, "spec", "predictor"))
    model = as_dict(predictor.get("model"))
    if not model or predictor.get("workerSpec") is not None or predictor_runtime(isvc) is not None:
        return None
    name = model.get("runtime")
    fmt, version = get(model, "modelFormat", "name"), get(model, "modelFormat", "version")
    for runtime, formats, format_version, source in builtin_runtimes():
        if isinstance(name, str) and name:
            if name == runtime.name:
                return runtime, source
        elif fmt in formats and (version is None or str(version) == format_version):
            return runtime, source
    return None


def runtime_container(runtime: Runtime) -> dict:
    """The runtime's ``kserve-container`` (the one KServe merges with the model), or an empty dict."""
    for container in as_list(runtime.spec.get("containers")):
        if isinstance(container, dict) and container.get("name") == KSERVE_CONTAINER:
            return container
    return {}


def merged_resources(runtime: Runtime, model_container: dict) -> dict:
    """The model container's ``resources`` after KServe merges the runtime's under it, key by key."""
    base = as_dict(runtime_container(runtime).get("resources"))
    own = as_dict(model_container.get("resources"))
    return _merge(base, own)


def _by_key(base: list, own: list, key: str) -> list:
    """Two lists of named entries merged as a strategic merge patch does: ``own``'s entry replaces ``base``'s of the
    same key, the rest of both kept in order."""
    mine = {k for e in own if isinstance(e, dict) and isinstance(k := e.get(key), str)}
    return [e for e in base if not (isinstance(e, dict) and isinstance(e.get(key), str) and e[key] in mine)] + list(own)


def merged_predictor(isvc: Any, legacy: bool = False) -> tuple[dict, dict, Runtime] | None:
    """(pod spec, container, runtime) of an InferenceService's predictor as KServe renders it from the ServingRuntime
    among the checked objects: the runtime's kserve-container under the ``model`` (the model's fields win, args
    concatenated runtime first, resources, env and volumeMounts merged by key), and the runtime's volumes under the
    predictor's (kserve v0.20.0 pkg/controller/v1beta1/inferenceservice/utils/utils.go:253-263 MergeRuntimeContainers,
    :267-296 MergePodSpec, :485-520). None when no such runtime is among the objects checked. ``legacy``: a ``triton``
    predictor is read as the ``model`` KServe makes of it (``predictor_model``)."""
    runtime = predictor_runtime(isvc, legacy)
    if runtime is None:
        return None
    predictor = as_dict(get(isvc.props, "spec", "predictor"))
    model = predictor_model(predictor, legacy)
    base = runtime_container(runtime)
    container = {**base, **model, "name": KSERVE_CONTAINER}
    container["args"] = [*as_list(base.get("args")), *as_list(model.get("args"))]
    container["resources"] = merged_resources(runtime, model)
    for field, key in (("env", "name"), ("volumeMounts", "mountPath")):
        container[field] = _by_key(as_list(base.get(field)), as_list(model.get(field)), key)
    podspec = {k: v for k, v in predictor.items() if k != "model" and not (legacy and k in LEGACY_PREDICTORS)}
    podspec["volumes"] = _by_key(as_list(runtime.spec.get("volumes")), as_list(predictor.get("volumes")), "name")
    podspec["containers"] = [container]
    return podspec, container, runtime


def is_runtime_merged(resource: Any, path: str) -> bool:
    """True for the KServe predictor ``model`` container, the one a ServingRuntime completes."""
    return path.endswith(".model") and split_type(resource.type) == ("serving.kserve.io", "InferenceService")


def effective_resources(resource: Any, path: str, container: dict) -> tuple[dict | None, str]:
    """A model server's ``resources`` as its pod will have them, and the words that say where they come from.

    Plain containers: their own, "". An LLMInferenceService's (presets and found baseRefs already merged by
    pod_specs): None while a baseRef it names is not among the objects checked. A ServingRuntime's: None (judged where an InferenceService uses it). A
    KServe predictor ``model``: merged with the runtime KServe selects
    when it is among the checked objects (" (with ServingRuntime/x merged in, as KServe does)"); None when
    that runtime is not, unless it is one of KServe's built-in language-model runtimes (components/kserve_runtimes.toml
    [[runtime]]), merged the same way. The first of a predictor's own ``containers``: with the memory request and limit
    KServe's defaulter fills in where it leaves them unset (components/kserve_runtimes.toml [defaults]).
    """
    if split_type(resource.type)[1] in RUNTIME_KINDS and split_type(resource.type)[0] == "serving.kserve.io":
        # A runtime is a template: its pods are an InferenceService's, whose own resources win over it key by
        # key, so what is missing is judged on the InferenceService with the runtime merged in.
        return None, ""
    if split_type(resource.type) == ("serving.kserve.io", "LLMInferenceService") and llmisvc_base_specs(resource)[1]:
        # A baseRef not among the objects checked may supply the resources (KServe merges it under the service).
        return None, ""
    if _defaulted_container(resource, path, container):
        defaults, _ = isvc_defaults()
        own = as_dict(container.get("resources"))
        merged = _merge(defaults, own)
        filled = merged != _merge({}, own)
        return merged, " (with the memory KServe's defaulter fills in, as its chart configures it)" if filled else ""
    if not is_runtime_merged(resource, path):
        return as_dict(container.get("resources")), ""
    runtime = predictor_runtime(resource)
    if runtime is None:
        builtin = builtin_runtime(resource)
        if builtin is None:
            return None, ""
        return merged_resources(builtin[0], container), f" (with KServe's built-in {builtin[0].label} merged in)"
    return merged_resources(runtime, container), f" (with {runtime.label} merged in, as KServe does)"


@cache
def isvc_defaults() -> tuple[dict, str]:
    """The resources KServe's InferenceService defaulter fills in (components/kserve_runtimes.toml [defaults]) and their
    source, read once."""
    row = read_toml(BUILTIN_TABLE)["defaults"]
    return {"requests": dict(row["requests"]), "limits": dict(row["limits"])}, row["source"]


def _merge(base: dict, own: dict) -> dict:
    return {
        section: {**as_dict(base.get(section)), **as_dict(own.get(section))}
        for section in ("requests", "limits")
        if base.get(section) or own.get(section)
    }


def _defaulted_container(resource: Any, path: str, container: dict) -> bool:
    """True for the first container of an InferenceService predictor's own ``containers``, the one KServe's defaulter
    fills (predictor_custom.go:65-73)."""
    if path != "spec.predictor" or split_type(resource.type) != ("serving.kserve.io", "InferenceService"):
        return False
    first = as_list(get(resource.props, "spec", "predictor", "containers"))[:1]
    return bool(first) and (first[0] is container or first[0] == container)


def unclaimed_runtime_resources(resource: Any, container: dict) -> dict | None:
    """A KServe runtime container's own ``resources`` when no InferenceService of the files selects the runtime (so
    nothing read supplies what it lacks), else None: the runtime is then judged where an InferenceService uses it, and
    with no view of the files (a resource alone, as under the Pulumi CLI) it is not judged at all."""
    group, kind = split_type(resource.type)
    view = viewed_resources()
    if group != "serving.kserve.io" or kind not in RUNTIME_KINDS or view is None:
        return None
    name = get(resource.props, "metadata", "name")
    for other in view:
        chosen = predictor_runtime(other)
        if chosen is not None and (chosen.kind, chosen.name) == (kind, name):
            return None
    return as_dict(container.get("resources"))


__all__ = [
    "Runtime",
    "Supports",
    "builtin_runtime",
    "builtin_supports",
    "builtin_runtimes",
    "effective_resources",
    "isvc_defaults",
    "is_runtime_merged",
    "merged_predictor",
    "merged_resources",
    "predictor_runtime",
    "runtime_container",
    "spec_formats",
    "viewed_runtimes",
    "supports_format",
    "runtime_tail",
    "unclaimed_runtime_resources",
]


_RUNTIME_KINDS = frozenset({"ServingRuntime", "ClusterServingRuntime"})


def runtime_tail(resource: Any, container: dict) -> str | None:
    """The last item of a ServingRuntime's (or ClusterServingRuntime's) container args, or of its command where it
    has no args: KServe appends an InferenceService's args after it (kserve v0.20.0 utils.go:253-263
    MergeRuntimeContainers). None for another resource."""
    if split_type(resource.type)[1] not in _RUNTIME_KINDS:
        return None
    for key in ("args", "command"):
        items = container.get(key)
        if isinstance(items, list) and items:
            return items[-1] if isinstance(items[-1], str) else None
    return None


@cache
def option_args_images() -> tuple[str, ...]:
    """The repositories KServe's own runtimes run with option-first args and no command (components/kserve_runtimes.toml
    [option_args]): their ENTRYPOINT starts the server."""
    return tuple(str(i) for i in read_toml(BUILTIN_TABLE).get("option_args", {}).get("images", ()))


def _release(tag: str | None) -> tuple[int, ...] | None:
    """A vX.Y.Z (or X.Y.Z) image tag as numbers, or None for any other tag."""
    from components.images import release_numbers

    text = tag or ""
    return release_numbers(text) if re.fullmatch(r"v?[0-9]+\.[0-9]+\.[0-9]+", text) else None


def loads_first(container: dict) -> str | None:
    """Why a runtime container's server loads its model before its HTTP server listens (components/kserve_runtimes.toml
    [[loads_first]]: KServe's Hugging Face server with the huggingface backend, or any backend before v0.15.0), or None
    where it may not (a later or unnamed release whose backend the container leaves to the model's architecture)."""
    from components.images import image_tag, names_image

    image = container.get("image")
    if not isinstance(image, str):
        return None
    args = [str(a) for a in as_list(container.get("args"))]
    backend = next((a.split("=", 1)[1] for a in args if a.startswith("--backend=")), None)
    backend = backend or next((b for a, b in zip(args, args[1:]) if a == "--backend"), None)
    for row in read_toml(BUILTIN_TABLE).get("loads_first", []):
        if not names_image(image, [row["image"]]):
            continue
        if backend in row["backends"]:
            return f"{row['image']} with --backend={backend} loads the model before its HTTP server listens"
        release, before = _release(image_tag(image)), _release(row["all_before"])
        if release is not None and before is not None and release < before:
            return f"{row['image']} before {row['all_before']} loads the model before its HTTP server listens"
    return None
