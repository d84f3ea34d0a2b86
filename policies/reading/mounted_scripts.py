"""Scripts a container runs from a ConfigMap it mounts: ``command: ["/bin/bash", "/scripts/start.sh"]`` with the
ConfigMap holding start.sh mounted at /scripts. The text of such a script is the container's start as much as an inline
``sh -c`` is, so readers of downloads (``hf download``, ``snapshot_download(...)``) read it too. Only ConfigMaps among the
files read count (config_maps), and of those only the keys whose file the command line names: the full path (mount path
plus the key's file, ``/scripts/start.sh``), or ``./start.sh`` / ``start.sh`` where the line also names the mount path
(``cd /scripts && ./start.sh``). A ConfigMap volume holds every key as a file named by the key, or, with ``items``,
only the listed keys at their ``path``; a mount with ``subPath`` shows the one file at that path of the volume at its
mount path (kubernetes/api core/v1 types.go ConfigMapVolumeSource.Items, VolumeMount.SubPath). Other keys (helpers the
container never runs) and scripts reached only indirectly (a variable, a file another script sources) are not read.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping
from typing import Any

from policies.kube import as_dict, as_list, get, split_type, viewed_resources
from policies.reading.config_map_data import config_maps
from policies.reading.config_map_data import mounted_files as _mounted_files
from policies.reading.vllm_args import expand_env


def _names(argv: str, path: str, working_dir: object = None) -> bool:
    """Whether the command line names the file at ``path``: in full, relative to the container's ``workingDir``
    (``workingDir: /root`` and ``bash -c config/init_quant.sh`` for /root/config/init_quant.sh: spent set 82
    dell-examples/generative-ai intel-XE9680-gaudi3/TGI/deployment.yml), or relative to its folder where it names that."""
    edge = r"(?<![\w./-]){}(?![\w./-])"
    if re.search(edge.format(re.escape(path)), argv):
        return True
    if isinstance(working_dir, str) and working_dir.startswith("/"):
        base = working_dir.rstrip("/") + "/"
        if path.startswith(base) and re.search(r"(?<![\w./-])(?:\./)?{}(?![\w./-])".format(re.escape(path[len(base) :])), argv):
            return True
    folder, file = posixpath.split(path)
    if not re.search(edge.format(re.escape(folder) + "/?"), argv):
        return False
    return re.search(r"(?:^|[\s;&|(])(?:\./)?{}(?![\w./-])".format(re.escape(file)), argv) is not None


def mounted_scripts(podspec: Mapping, container: Mapping) -> list[str]:
    """The text of each ConfigMap key of the files read that ``container`` mounts as a file its command line names (a
    script it runs, or a file it passes to an interpreter), in mount order."""
    return list(mounted_script_files(podspec, container).values())


def mounted_script_files(podspec: Mapping, container: Mapping) -> dict[str, str]:
    """Path in the container -> text, of each ConfigMap key ``mounted_scripts`` reads, in mount order."""
    tokens = [t for key in ("command", "args") for t in as_list(container.get(key)) if isinstance(t, str)]
    argv = " ".join(expand_env(tokens, container))
    if not argv or not as_list(podspec.get("volumes")):
        return {}
    if not any(isinstance(as_dict(as_dict(v).get("configMap")).get("name"), str) for v in as_list(podspec.get("volumes"))):
        return {}  # no ConfigMap volume (_mounted_files reads none): config_maps, which reads the cluster view, not asked
    maps = config_maps(podspec)
    if not maps:
        return {}
    working_dir = container.get("workingDir")
    return {path: text for path, text in _mounted_files(podspec, container, maps).items() if _names(argv, path, working_dir)}


def mounted_config_files(podspec: Mapping, container: Mapping) -> dict[str, str]:
    """Path in the container -> text, of every ConfigMap key of the files read that ``container`` mounts as a file,
    named on its command line or not (a server's configuration file, read from a path the program knows)."""
    if not any(isinstance(as_dict(as_dict(v).get("configMap")).get("name"), str) for v in as_list(podspec.get("volumes"))):
        return {}
    maps = config_maps(podspec)
    return _mounted_files(podspec, container, maps) if maps else {}


def script_keys(config_map: Any, keep: Callable[[str], bool]) -> dict[str, str]:
    """The keys of a ConfigMap's ``data`` whose text ``keep`` accepts (string keys and values only)."""
    data = as_dict(get(getattr(config_map, "props", None), "data"))
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str) and keep(v)}


def workloads_beside(config_map: Any) -> list[Any]:
    """The run's objects other than ConfigMaps that may mount ``config_map``: those of its namespace (either namespace
    unset counts as the same); [] when the run's objects are not in view. S31's script-map-code-pinned and S45's
    script-map-pull-checked read a ConfigMap's scripts through the pods beside it."""
    view = viewed_resources()
    if not view:
        return []
    namespace = get(getattr(config_map, "props", None), "metadata", "namespace")
    found = []
    for other in view:
        if split_type(getattr(other, "type", "")) == ("", "ConfigMap") or not isinstance(getattr(other, "props", None), dict):
            continue
        theirs = get(other.props, "metadata", "namespace")
        if namespace and theirs and namespace != theirs:
            continue
        found.append(other)
    return found
