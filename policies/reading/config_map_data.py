"""The string data of the ConfigMaps among the objects being checked, by name: what ``envFrom: configMapRef`` and
``valueFrom.configMapKeyRef`` give a container, and what a ConfigMap volume mounts. One reader, shared by the command
line readers (policies/reading/vllm_args.py expands ``$(VAR)`` from it), engines.env_values and mounted_scripts."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import Any

from policies.kube import as_dict, as_list, containers, get, memoized, pod_specs, viewed_resources


def config_maps(owner: Any = None) -> dict[Any, dict[str, str]]:
    """The string data of each ConfigMap among the objects being checked (kube.viewed_resources) that the pod holding
    ``owner`` (a container or pod spec of those objects) can read, by name; {} where no evaluation shows them. A pod
    reads only its own namespace's ConfigMaps (https://kubernetes.io/docs/concepts/configuration/configmap/: "must be
    in the same namespace as the Pod"), so a ConfigMap whose namespace is written and differs from the pod's written
    namespace is left out (review 45 #6); one that either leaves out may be applied into the other's. A name that two
    ConfigMaps the pod may read hold with differing data (dev's and prod's copies; any two, when ``owner`` is not known)
    is left out too: which one the pod reads is not known, so its variables stay unknown. Copies in two folders of
    one namespace are two clusters' (policies.scopes splits them). Built once per evaluation (kube.memoized)."""
    view = viewed_resources()
    if not view:
        return {}
    namespace = memoized(view, "pod_namespaces", _pod_namespaces).get(id(owner), _UNKNOWN) if owner is not None else _UNKNOWN
    key = "config_maps:?" if namespace is _UNKNOWN else f"config_maps:{namespace!r}"
    return memoized(view, key, lambda v: _readable(memoized(v, "config_maps", _maps_of), namespace))


_UNKNOWN = object()


def _readable(found: list[tuple[tuple[Any, str], dict[str, str]]], namespace: Any) -> dict[Any, dict[str, str]]:
    """config_maps' answer for a pod of ``namespace`` (_UNKNOWN: any; None: written by none)."""
    out: dict[Any, dict[str, str]] = {}
    ambiguous: set[str] = set()
    for (space, name), data in found:
        if namespace is not _UNKNOWN and space is not None and namespace is not None and space != namespace:
            continue
        if out.setdefault(name, data) != data:
            ambiguous.add(name)
    return {name: data for name, data in out.items() if name not in ambiguous}


def names_config_maps(container: Any) -> bool:
    """Whether a container takes part of its environment from a ConfigMap (an ``envFrom`` configMapRef, a
    ``configMapKeyRef``): only then do the env readers ask config_maps(), whose reading ties what they derive to the
    cluster view (kube.viewed_resources), so a fact of a container that names none stays shared by every scope."""
    for source in as_list(get(container, "envFrom")):
        if isinstance(get(source, "configMapRef"), Mapping):
            return True
    return any(
        (ref := get(item, "valueFrom", "configMapKeyRef")) is not None and isinstance(ref, Mapping)
        for item in as_list(get(container, "env"))
    )


def _maps_of(view: Any) -> list[tuple[tuple[Any, str], dict[str, str]]]:
    """((namespace or None, name), string data) of each ConfigMap of the view."""
    maps = []
    for r in view:
        if getattr(r, "type", None) == "kubernetes:core/v1:ConfigMap":
            name = get(r.props, "metadata", "name")
            if isinstance(name, str):
                data = {k: v for k, v in as_dict(get(r.props, "data")).items() if isinstance(v, str)}
                namespace = get(r.props, "metadata", "namespace")
                maps.append(((namespace if isinstance(namespace, str) and namespace else None, name), data))
    return maps


def _pod_namespaces(view: Any) -> dict[int, Any]:
    """id of each pod spec and container of the view's objects -> the written namespace of the object holding it
    (None when it writes none)."""
    index: dict[int, Any] = {}
    for r in view:
        props = getattr(r, "props", None)
        if not isinstance(props, Mapping) or getattr(r, "type", None) == "kubernetes:core/v1:ConfigMap":
            continue
        namespace = get(props, "metadata", "namespace")
        namespace = namespace if isinstance(namespace, str) and namespace else None
        for _, podspec in pod_specs(r):
            index[id(podspec)] = namespace
            for container in containers(podspec, init=True):
                index[id(container)] = namespace
    return index


def _volume_files(volume: Mapping) -> dict[str, str]:
    """File path within a ConfigMap volume that lists ``items`` -> the key it holds (only the listed keys are there)."""
    files = {}
    for item in as_list(volume.get("items")):
        key, path = as_dict(item).get("key"), as_dict(item).get("path")
        if isinstance(key, str) and isinstance(path, str) and path.strip("/"):
            files[posixpath.normpath(path.strip("/"))] = key
    return files


def mounted_files(podspec: Mapping, container: Mapping, maps: Mapping[Any, Mapping[str, str]]) -> dict[str, str]:
    """Absolute path in the container -> the text of each ConfigMap key of ``maps`` (config_maps) that ``container``
    mounts as a file (a volume of the whole map or of its ``items``, a ``subPath`` of one file)."""
    volumes: dict[str, tuple[str, dict[str, str]]] = {}
    for volume in as_list(podspec.get("volumes")):
        volume = as_dict(volume)
        source = as_dict(volume.get("configMap"))
        name = source.get("name")
        if isinstance(volume.get("name"), str) and isinstance(name, str) and name in maps:
            files = _volume_files(source) if "items" in source else {k: k for k in maps[name]}
            volumes[volume["name"]] = (name, files)
    found: dict[str, str] = {}
    for mount in as_list(container.get("volumeMounts")):
        mount = as_dict(mount)
        path, volume = mount.get("mountPath"), volumes.get(str(mount.get("name")))
        if not isinstance(path, str) or not path.strip("/") or volume is None or "subPathExpr" in mount:
            continue
        name, files = volume
        sub = mount.get("subPath")
        for file, key in files.items():
            if key not in maps[name]:
                continue
            if isinstance(sub, str) and sub.strip("/"):
                if posixpath.normpath(sub.strip("/")) == file:
                    found[posixpath.normpath(path)] = maps[name][key]
            elif sub is None or sub == "":
                found[posixpath.join(posixpath.normpath(path), file)] = maps[name][key]
    return found
