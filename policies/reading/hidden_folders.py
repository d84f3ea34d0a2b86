"""A volume mounted over the folder an image's program runs from (G46 container-can-start).

A volume mounted at a path replaces what the image holds there: the runtime bind-mounts the volume over the image's
folder (opencontainers/runtime-spec config.md "mounts"), so the container sees the volume's files only (a ConfigMap
mounted as a whole directory shows its keys, nothing else; a subPath mount places one file beside the image's).
When the folder holds the program the image's own
ENTRYPOINT runs (components/image_contents.toml ``needs``: LocalAI v2.14.0-v3.0.0 runs /build/entrypoint.sh, which
executes /build/local-ai), the runtime finds no such file and the container exits at once (CrashLoopBackOff).

Blocking where the reference proves the image's release (components.image_contents.contents) and the volume is
provably empty or foreign (emptyDir, configMap, secret, projected, downwardAPI); advice for a claim, hostPath, NFS,
CSI or any other volume that may already hold the folder (a pre-populated or cloned claim, a source checkout with
LocalAI's REBUILD=true: `-v $(abspath ./):/build`, mudler/LocalAI v2.19.0 Makefile L521), and on a mirror or
rebuild path with a release tag the row covers; silent when another container of the pod (an init container
seeding the volume from the image's own /build, a sidecar) mounts the volume writable, on a tag naming no release
or one outside the row (a moving tag may follow a release that runs from elsewhere). Silent where the container sets its own ``command`` (the image's
ENTRYPOINT no longer runs), for a subPath mount (one file beside the image's), and for mounts beside or below the
needed paths (LocalAI's /build/models).
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping

from components.image_contents import ImageContents, contents, release
from components.images import image_tag
from policies.framework import unproven
from policies.kube import as_dict, as_list, containers, name_of

_KINDS = ("configMap", "secret", "emptyDir", "persistentVolumeClaim", "hostPath", "projected", "nfs", "csi", "ephemeral")
# Volumes that start empty or hold only what the API server puts there: never the image's program.
_FOREIGN = frozenset({"configMap", "secret", "emptyDir", "projected", "downwardAPI"})


def under(path: str, folder: str) -> bool:
    """True when ``path`` is ``folder`` or inside it, both read as the runtime does (``/scripts/./`` is ``/scripts``;
    a mount at ``/`` holds every path). Read by G46's readers (this one and unmounted_programs.py)."""
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
        hidden = [need for need in match.row.needs if under(need, at)]
        if not hidden:
            continue
        if any(_writes(c, name) for c in containers(podspec, init=True) if c is not container):
            continue  # another container of the pod fills the volume (an init container copying the image's /build)
        volume = volumes.get(name, {})
        kind = next((k for k in (*_KINDS, "downwardAPI") if k in volume), "volume")
        row = match.row
        workdir = f" (WORKDIR {row.workdir})" if row.workdir else ""
        text = (
            f"{label}: the {kind} {name} mounted at {posixpath.normpath(at)} hides {', '.join(hidden)} of the "
            f"{row.family} image, which its ENTRYPOINT {' '.join(row.entrypoint)} runs{workdir}: "
            f"the mount shows only the volume's files there, so the runtime finds no program and the container exits "
            f"at start; mount the volume at another folder, or mount one file with subPath"
        )
        if not match.proven:
            found.append(unproven(f"{text} ({match.why_not})"))
        elif kind not in _FOREIGN:
            found.append(unproven(f"{text} (unless the {kind} already holds the image's folder: the files do not show it)"))
        else:
            found.append(text)
    return found


def _writes(container: Mapping, volume: object) -> bool:
    """True when ``container`` mounts ``volume`` writable (it may fill it)."""
    return any(name_of(m) == volume and not as_dict(m).get("readOnly") for m in as_list(container.get("volumeMounts")))
