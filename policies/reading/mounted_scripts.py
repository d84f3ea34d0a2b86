"""Scripts a container runs from a ConfigMap it mounts: ``command: ["/bin/bash", "/scripts/start.sh"]`` with the
ConfigMap holding start.sh mounted at /scripts. The text of such a script is the container's start as much as an inline
``sh -c`` is, so readers of downloads (``hf download``, ``snapshot_download(...)``) read it too. Only ConfigMaps among the
files read count (config_maps), and only those whose mount path the command line names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from policies.kube import as_dict, as_list, get, memoized, viewed_resources
from policies.reading.vllm_args import expand_env


def mounted_scripts(podspec: Mapping, container: Mapping) -> list[str]:
    """The data of each ConfigMap of the files read that ``container`` mounts where its command line names the mount
    path (a script it runs, or a file it passes to an interpreter), in mount order."""
    tokens = [t for key in ("command", "args") for t in as_list(container.get(key)) if isinstance(t, str)]
    argv = " ".join(expand_env(tokens, container))
    volumes = {}
    for volume in as_list(podspec.get("volumes")):
        volume = as_dict(volume)
        name = as_dict(volume.get("configMap")).get("name")
        if isinstance(volume.get("name"), str) and isinstance(name, str):
            volumes[volume["name"]] = name
    if not volumes or not argv:
        return []
    maps = config_maps()
    texts: list[str] = []
    for mount in as_list(container.get("volumeMounts")):
        mount = as_dict(mount)
        path, name = mount.get("mountPath"), volumes.get(str(mount.get("name")))
        if isinstance(path, str) and path.strip("/") and name is not None and path.rstrip("/") in argv:
            texts.extend(maps.get(name, {}).values())
    return texts


def config_maps() -> dict[Any, dict[str, str]]:
    """The string data of each ConfigMap among the objects being checked (kube.viewed_resources), by name; {} where no
    evaluation shows them. Names are matched without namespaces: one run checks one cluster's manifests. Built once per
    evaluation (kube.memoized on the view)."""
    view = viewed_resources()
    return memoized(view, "config_maps", _maps_of) if view else {}


def _maps_of(view: Any) -> dict[Any, dict[str, str]]:
    maps: dict[Any, dict[str, str]] = {}
    for r in view:
        if getattr(r, "type", None) == "kubernetes:core/v1:ConfigMap":
            data = as_dict(get(r.props, "data"))
            maps[get(r.props, "metadata", "name")] = {k: v for k, v in data.items() if isinstance(v, str)}
    return maps
