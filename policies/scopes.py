"""Which objects of one `policies check` run may be joined: one cluster's objects, never two.

Stack policies join objects (an autoscaler to the NodePool its pods land on, an HPA to the adapter
rule that serves its metric, a pod to a NodePool's taints). A run over several clusters' manifests
(``python -m stacks plan dev``, ``staging`` and ``prod`` into ``build/<stack>``, then
``python -m policies check build/``) must not join prod's ScaledObject to dev's NodePool of the
same name: the finding would be about a pair that never meets.

Kubernetes itself says when two objects cannot share a cluster: an object is identified by its
API group, kind, namespace and name, so two objects with the same identity read from different
files are two clusters (or two versions of one object, which cannot be joined either). When a run
holds such a collision, its files are split by folder, at the shallowest depth below the folder the
paths share that separates every colliding pair (``build/dev`` | ``build/prod`` | ``build/staging``),
and, if no folder depth does, file by file. A run without collisions is one scope, as before: the
split costs joins only where joining would be wrong. Collisions inside one file cannot be separated
by folder and are left as they are (a file is one scope at least).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from policies.manifests import STDIN_NAME


@dataclass(frozen=True)
class Scope:
    """One group of objects that may be joined: ``label`` names it in reports ("" for the whole run)."""

    label: str
    indexes: tuple[int, ...]


def identity(obj: Any) -> tuple[str, str, str, str] | None:
    """(API group, kind, namespace, name) of a Kubernetes object; None without a plain name."""
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    if not isinstance(meta, dict):
        return None
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        return None
    namespace, api_version = meta.get("namespace"), obj.get("apiVersion")
    return (
        api_version.rpartition("/")[0] if isinstance(api_version, str) else "",
        str(obj.get("kind")),
        namespace if isinstance(namespace, str) else "",
        name,
    )


def _folders(files: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """Each file's folders below the folder every file shares (stdin has none)."""
    real = [f for f in files if f != STDIN_NAME]
    # Absolute, so that relative and absolute arguments mix (os.path.commonpath refuses a mix of the two).
    dirs = {f: os.path.abspath(os.path.dirname(f) or ".") for f in real}
    common = os.path.commonpath(list(dirs.values())) if dirs else ""
    out: dict[str, tuple[str, ...]] = {STDIN_NAME: ()}
    for f, d in dirs.items():
        rel = os.path.relpath(d, common) if common else d
        out[f] = () if rel == "." else tuple(rel.split(os.sep))
    return out


def _collides(keys: Sequence[tuple], files: Sequence[str], ids: Sequence[tuple | None]) -> bool:
    """True when two objects of one key share an identity but come from different files."""
    seen: dict[tuple, str] = {}
    for key, file, ident in zip(keys, files, ids):
        if ident is None:
            continue
        first = seen.setdefault((key, ident), file)
        if first != file:
            return True
    return False


def split(objects: Sequence[Any]) -> list[Scope]:
    """The scopes of a run's objects (``policies.manifests.ManifestObject``s, in read order).

    One scope holding every object unless two files hold the same object identity; then the
    shallowest folder depth (or, failing every depth, the file) that keeps each identity within one
    file per scope. Scopes are ordered by label, indexes by read order: the split is deterministic.
    """
    if not objects:
        return []
    files = [o.file for o in objects]
    ids = [identity(o.obj) for o in objects]
    folders = _folders(sorted(set(files)))
    depth = max(len(f) for f in folders.values())
    choice: list[tuple] | None = None
    for d in range(depth + 1):
        keys = [folders[f][:d] for f in files]
        if not _collides(keys, files, ids):
            choice = keys
            break
    if choice is None:
        choice = [(*folders[f], os.path.basename(f)) for f in files]
    groups: dict[tuple, list[int]] = {}
    for i, key in enumerate(choice):
        groups.setdefault(key, []).append(i)
    if len(groups) == 1:
        return [Scope("", tuple(range(len(objects))))]
    return [Scope("/".join(key) or ".", tuple(groups[key])) for key in sorted(groups)]


__all__ = ["Scope", "identity", "split"]
