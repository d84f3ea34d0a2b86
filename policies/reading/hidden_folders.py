"""A volume mounted over the folder an image's program runs from (G46 container-can-start).

A volume mounted at a path replaces what the image holds there: the runtime bind-mounts the volume over the image's
folder (opencontainers/runtime-spec config.md "mounts"), so the container sees the volume's files only (a ConfigMap
mounted as a whole directory shows its keys, nothing else; a subPath mount places one file beside the image's).
When the folder holds the program the image's own
ENTRYPOINT runs (components/image_contents.toml ``needs``: LocalAI v2.14.0-v3.0.0 runs /build/entrypoint.sh, which
executes /build/local-ai), the runtime finds no such file and the container exits at once (CrashLoopBackOff).

Blocking where the reference proves the image's release (components.image_contents.contents); advice on a mirror or
rebuild path with a release tag the row covers; silent on a tag naming no release or one outside the row (a moving
tag may follow a release that runs from elsewhere). Silent where the container sets its own ``command`` (the image's
ENTRYPOINT no longer runs), for a subPath mount (one file beside the image's), and for mounts beside or below the
needed paths (LocalAI's /build/models).
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping

from components.image_contents import ImageContents, contents, release
from components.images import image_tag
from policies.framework import unproven
from policies.kube import as_dict, as_list, name_of

_KINDS = ("configMap", "secret", "emptyDir", "persistentVolumeClaim", "hostPath", "projected", "nfs", "csi", "ephemeral")


def _under(path: str, folder: str) -> bool:
    path, folder = posixpath.normpath(path), posixpath.normpath(folder)
    return path == folder or folder == "/" or path.startswith(folder.rstrip("/") + "/")


def _in_range(row: ImageContents, image: object) -> bool:
    """True when the image's tag names a release among the row's (a moving tag may follow a release whose image no
    longer runs from these folders: LocalAI's latest runs /entrypoint.sh from / since v3.1.0)."""
    version = release(image_tag(str(image).lower()) or "")
    return version is not None and row.first <= version <= row.last


def hidden_program(label: str, podspec: Mapping, container: Mapping) -> list[str]:
    """G46 messages for each volume of the container mounted at or above a path its image's ENTRYPOINT needs."""
    if container.get("command") or not as_list(container.get("volumeMounts")):
        return []
    match = contents(container.get("image"))
    if match is None or not match.row.needs or not _in_range(match.row, container.get("image")):
        return []
    volumes = {name_of(v): as_dict(v) for v in as_list(podspec.get("volumes")) if name_of(v)}
    found: list[str] = []
    for mount in (as_dict(m) for m in as_list(container.get("volumeMounts"))):
        at, name = mount.get("mountPath"), name_of(mount)
        if not isinstance(at, str) or not at.startswith("/") or mount.get("subPath") or mount.get("subPathExpr"):
            continue
        hidden = [need for need in match.row.needs if _under(need, at)]
        if not hidden:
            continue
        kind = next((k for k in _KINDS if k in volumes.get(name, {})), "volume")
        row = match.row
        text = (
            f"{label}: the {kind} {name} mounted at {posixpath.normpath(at)} hides {', '.join(hidden)} of the "
            f"{row.family} image, which its ENTRYPOINT {' '.join(row.entrypoint)} runs (WORKDIR {row.workdir or '/'}): "
            f"the mount shows only the volume's files there, so the runtime finds no program and the container exits "
            f"at start; mount the volume at another folder, or mount one file with subPath"
        )
        found.append(text if match.proven else unproven(f"{text} ({match.why_not})"))
    return found
