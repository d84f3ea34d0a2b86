"""Files a Flux Kustomization of the run renders with ``postBuild`` variable substitution.

Flux's kustomize-controller builds the manifests under a Kustomization's ``spec.path`` and, when ``spec.postBuild``
gives ``substitute`` (a map of variables) or ``substituteFrom`` (ConfigMaps and Secrets holding them), replaces each
``${VAR}`` (bash string-replacement syntax, ``${VAR:=default}`` too) in the final YAML of the build, Secrets included,
before it applies it (fluxcd/kustomize-controller v1.9.4 docs/spec/v1/kustomizations.md:723-750 "Post build variable
substitution"; api/v1/kustomization_types.go:290-317 ``PostBuild`` Substitute / SubstituteFrom). A ``${VAR}`` in such
a file is filled in when the cluster gets it.

The path is relative to the source's root, which the run does not know: a Kustomization covers a file when its path
(without ``./``) is empty or a folder of the file's path; when no file of the run lies under it (the path cannot be
resolved against the files read), it covers every file.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from policies.kube import as_dict, get, split_type, viewed_resources

_FLUX_KUSTOMIZATION = ("kustomize.toolkit.fluxcd.io", "Kustomization")
# A resource's name in a `policies check` run: "FILE#DOC[ITEM] Kind/name" (policies/manifests.py location).
_LOCATION = re.compile(r"^(?P<file>.+)#\d+(?:\[\d+\])* [^ ]+/[^ ]*$")


def _file_of(resource: Any) -> Optional[str]:
    found = _LOCATION.match(getattr(resource, "name", "") or "")
    return found.group("file").replace("\\", "/") if found else None


def _folder(path: Any) -> Optional[str]:
    """The Kustomization's path as a folder ("" for the root), or None when it is not a string."""
    if not isinstance(path, str):
        return "" if path is None else None
    parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
    return "/".join(parts)


def _under(file: str, folder: str) -> bool:
    return not folder or f"/{folder}/" in f"/{file}"


def flux_substituted(resource: Any) -> bool:
    """True when a Flux Kustomization of the run with postBuild.substitute/substituteFrom covers the resource's file."""
    view = viewed_resources() or ()
    folders = []
    for r in view:
        if split_type(getattr(r, "type", "")) != _FLUX_KUSTOMIZATION:
            continue
        post = as_dict(get(getattr(r, "props", None), "spec", "postBuild"))
        if not (post.get("substitute") or post.get("substituteFrom")):
            continue
        folder = _folder(get(r.props, "spec", "path"))
        if folder is not None:
            folders.append(folder)
    if not folders:
        return False
    file = _file_of(resource)
    if file is None:
        return True
    files = [f for f in (_file_of(r) for r in view) if f]
    for folder in folders:
        if _under(file, folder) or not any(_under(f, folder) for f in files):
            return True
    return False


__all__ = ["flux_substituted"]
