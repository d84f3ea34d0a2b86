"""Which objects of one `policies check` run may be joined: one cluster's objects, never two.

Stack policies join objects (an autoscaler to the NodePool its pods land on, an HPA to the adapter
rule that serves its metric, a pod to a NodePool's taints). A run over several clusters' manifests
(``python -m stacks plan dev``, ``staging`` and ``prod`` into ``build/<stack>``, then
``python -m policies check build/``) must not join prod's ScaledObject to dev's NodePool of the
same name: the finding would be about a pair that never meets.

Kubernetes itself says when two objects cannot share a cluster: an object is identified by its
API group, kind, namespace and name, so two objects with the same identity read from different
folders are two clusters (or two versions of one object, which cannot be joined either). When a run
holds such a collision, its files are split by folder, at the shallowest depth below the folder the
paths share that separates every pair of colliding files of different folders (``build/dev`` |
``build/prod`` | ``build/staging``). A run without collisions is one scope, as before: the split
costs joins only where joining would be wrong.

Two files of one folder that define the same object are no two clusters: ``kubectl apply -f`` on the
folder applies both, and the one applied last replaces the other (policies/k8s_generic/defined_once.py
reports it where the two differ). Only those definitions are kept apart: the folder is checked once
per *variant*, each holding one file's definitions of the repeated objects and every other object of
the folder, so the rules that join files (a Service to its pods, a pod to its claim) still see the
rest of the folder beside each definition. Every variant holds the whole cluster (the others with their own
definitions in place of the first's), so a rule that joins folders (a LimitRange's GPU default, a NodePool)
judges each definition alike; the first reports every finding, the others only the findings on their own
definitions (``Scope.own``), so the rest is not reported twice (and policies.kube.memoized reuses what the first
derived from the objects they share). Collisions inside one file cannot be separated and are left as they are.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from policies.manifests import STDIN_NAME


@dataclass(frozen=True)
class Scope:
    """One group of objects that may be joined: ``label`` names its cluster in reports ("" for the whole run),
    ``variant`` the files whose definitions of objects its folder repeats it holds ("" when none repeats)."""

    label: str
    indexes: tuple[int, ...]
    variant: str = ""
    # For a folder's second and later variants: the definitions it exists for. Only findings on them are reported from
    # it (every other object is reported from the first variant); it still holds the whole cluster, so that what joins
    # them from other folders is seen. None: every finding of the scope is reported.
    own: tuple[int, ...] | None = None


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


def _collides(keys: Sequence[tuple], folders: Sequence[tuple], ids: Sequence[tuple | None]) -> bool:
    """True when two objects of one key share an identity but come from files of different folders."""
    seen: dict[tuple, tuple] = {}
    for key, folder, ident in zip(keys, folders, ids):
        if ident is None:
            continue
        if seen.setdefault((key, ident), folder) != folder:
            return True
    return False


def split(objects: Sequence[Any], patches: Sequence[bool] = ()) -> list[Scope]:
    """The scopes of a run's objects (``policies.manifests.ManifestObject``s, in read order); ``patches`` marks the
    Kustomize patches among them, whose identity is their base's and splits nothing.

    One scope holding every object unless two files hold the same object identity; then the
    shallowest folder depth that keeps each identity within one folder per scope, and inside a scope
    one variant per set of files whose repeated definitions may meet (``_variants``). Scopes are
    ordered by label, then variant in read order, indexes by read order: the split is deterministic.
    """
    if not objects:
        return []
    files = [o.file for o in objects]
    ids = [None if i < len(patches) and patches[i] else identity(o.obj) for i, o in enumerate(objects)]
    folders = _folders(sorted(set(files)))
    own = [folders[f] for f in files]
    depth = max(len(f) for f in folders.values())
    choice = own  # at full depth every key is one folder: no collision of two folders is left
    for d in range(depth + 1):
        keys = [f[:d] for f in own]
        if not _collides(keys, own, ids):
            choice = keys
            break
    groups: dict[tuple, list[int]] = {}
    for i, key in enumerate(choice):
        groups.setdefault(key, []).append(i)
    scopes: list[Scope] = []
    for key in sorted(groups):
        label = ("/".join(key) or ".") if len(groups) > 1 else ""
        scopes += [Scope(label, members, variant, own) for variant, members, own in _variants(groups[key], files, ids)]
    return scopes


def repeated(indexes: Sequence[int], files: Sequence[str], ids: Sequence[tuple | None]) -> dict[tuple, list[int]]:
    """The identities that more than one file of ``indexes`` defines, each with its definitions in read order."""
    defined: dict[tuple, list[int]] = {}
    for i in indexes:
        if ids[i] is not None:
            defined.setdefault(ids[i], []).append(i)  # type: ignore[arg-type]
    return {k: v for k, v in defined.items() if len({files[i] for i in v}) > 1}


def _variants(
    indexes: Sequence[int], files: Sequence[str], ids: Sequence[tuple | None]
) -> list[tuple[str, tuple[int, ...], tuple[int, ...] | None]]:
    """The variants of one scope's objects, as (label, members, own): ("", all of them, None) when no object is defined
    in two files; otherwise the files that define a repeated object are coloured so that two files defining one object
    never share a colour (greedy, in read order: as many variants as one object has files, when the repetitions do not
    chain), and each colour's variant holds its files' definitions, the last definition read (what applying the folder
    keeps) of a repeated object none of its files defines, and every object of the scope no two files define (the
    first colour reports every finding, the others only those on their own definitions)."""
    dups = repeated(indexes, files, ids)
    if not dups:
        return [("", tuple(indexes), None)]
    order = list(dict.fromkeys(files[i] for defs in dups.values() for i in sorted(defs)))
    order.sort(key=lambda f: min(i for i in indexes if files[i] == f))
    clash: dict[str, set[str]] = {f: set() for f in order}
    for defs in dups.values():
        owners = {files[i] for i in defs}
        for f in owners:
            clash[f] |= owners - {f}
    colours: list[list[str]] = []
    for f in order:
        spot = next((c for c in colours if not clash[f] & set(c)), None)
        if spot is None:
            colours.append([f])
        else:
            spot.append(f)
    out: list[tuple[str, tuple[int, ...], tuple[int, ...] | None]] = []
    for n, colour in enumerate(colours):
        chosen: set[int] = set()
        for defs in dups.values():
            mine = [i for i in defs if files[i] in colour]
            chosen.update(mine or [i for i in defs if files[i] == files[defs[-1]]])
        members = tuple(i for i in indexes if ids[i] not in dups or i in chosen)
        own = None if n == 0 else tuple(i for i in sorted(chosen) if files[i] in colour)
        out.append((", ".join(os.path.basename(f) for f in colour), members, own))
    return out


def redefinitions(objects: Sequence[Any], skip: Sequence[bool] = ()) -> dict[int, tuple]:
    """For each object (``ManifestObject``s) that another file or document of its folder defines again with other
    content: the other definitions, as (file, line, first differing field, applied after it) in read order, which is
    the order ``kubectl apply -f`` applies a folder's files (a walk in lexical order). ``skip`` marks objects that are
    not whole definitions (a Kustomize patch, its base): they are neither reported nor compared."""
    by_folder: dict[tuple, list[int]] = {}
    for i, o in enumerate(objects):
        ident = identity(o.obj)
        if ident is not None and not (skip and skip[i]):
            by_folder.setdefault((os.path.dirname(o.file), ident), []).append(i)
    out: dict[int, tuple] = {}
    for defs in by_folder.values():
        for i in defs:
            others = [j for j in defs if j != i and objects[j].obj != objects[i].obj]
            if others:
                out[i] = tuple(
                    (objects[j].file, objects[j].line, _first_difference(objects[i].obj, objects[j].obj), j > i) for j in others
                )
    return out


def _first_difference(a: Any, b: Any, path: str = "", depth: int = 0) -> str:
    """The first field (in key order) where two decoded documents differ, as ``spec.selector.app``; "" at the top."""
    if depth < 12 and isinstance(a, dict) and isinstance(b, dict):
        for key in sorted({*a, *b}, key=str):
            if a.get(key) != b.get(key) or (key in a) != (key in b):
                return _first_difference(a.get(key), b.get(key), f"{path}.{key}" if path else str(key), depth + 1)
    if depth < 12 and isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for n, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _first_difference(x, y, f"{path}[{n}]", depth + 1)
    return path


__all__ = ["Scope", "identity", "redefinitions", "repeated", "split"]
