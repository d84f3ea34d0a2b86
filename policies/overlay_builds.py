"""The objects the run's Kustomize overlays build, checked whole, each finding reported at the file that made it.

A patch and its base are checked alone with absence findings as advice (policies/reading/kustomize.py); what the
overlay applies is neither. When a kustomization is among the files read (or beside them), each one is built
(policies/reading/kustomize_build.py) and every object the build changes joins the run as a resource of its own:

- **one scope per build**: the build's objects (changed or not) are one cluster to the stack policies, never joined
  with the files' objects or another overlay's; only the objects it changes are reported (framework ``reported``);
- **attribution**: a finding on a built object is reported at the last patch file of that overlay that patched it, or
  at its kustomization file when an inline patch or a field of the kustomization (namespace, images, replicas, labels)
  is what changed it; the location carries ``~built`` (``overlays/prod/patch.yaml#0~built Deployment/vllm``);
- **no duplicates**: a finding on a built object is dropped when the same policy reports the same message on the
  object it was built from, on one of its patches, or on the same object built by a kustomization it includes;
- **levels**: a built object is whole, so its findings keep the policy's level; those on the patch or base alone keep
  their advisory treatment.

An overlay the builder does not model is named in the report (``kustomize``: its kustomization and why), and its
patches and bases are checked as before.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from policies.framework import BASE_NOTE, PATCH_NOTE, Resource, Violation
from policies.manifests import ManifestObject, ManifestSet
from policies.reading.kustomize import KUSTOMIZATION_FILES

BUILT = "~built"


@dataclass
class Overlays:
    """The run's builds as resources: ``groups`` one per build (its objects), ``reported`` the names of the changed
    ones per build, ``shown`` where each built resource is reported, ``sources`` the names of the run's resources a
    built one comes from (its base and patches) and the anchor it shares with the same object in other builds, and
    ``read`` what the report says of each kustomization."""

    groups: list[list[Resource]] = field(default_factory=list)
    reported: list[frozenset[str]] = field(default_factory=list)
    shown: dict[str, ManifestObject] = field(default_factory=dict)
    sources: dict[str, tuple[frozenset[str], Any]] = field(default_factory=dict)
    read: list[dict] = field(default_factory=list)
    # built resource name -> (namespace, name) it has and (namespace, name) its file writes, for comparing messages
    renamed: dict[str, tuple[tuple[str, str], tuple[str, str]]] = field(default_factory=dict)


def _norm(path: str) -> str:
    return os.path.normpath(os.path.abspath(path))


def overlay_builds(manifests: ManifestSet, key_of: Any, resource_of: Any) -> Overlays:
    """The builds of the kustomizations read in the run's files (kustomize_build.Build, added by ``_add``). ``key_of`` names a ManifestObject's
    resource (check._key); ``resource_of`` turns a built ManifestObject into its Resource (placeholders read)."""
    # A kustomization file is read as an object (``kind: Kustomization``) or, without a kind, as a file holding none.
    files = [u.file for u in manifests.unreadable] + [o.file for o in manifests.objects]
    kustomizations = [f for f in files if os.path.basename(f) in KUSTOMIZATION_FILES]
    if not kustomizations:  # the common run: nothing read, nothing built (and the builder is never imported)
        return Overlays()
    from policies.reading.kustomize_build import builds

    spelled: dict[str, str] = {}  # absolute path -> how the run spells it
    known: dict[str, list] = {}
    for o in manifests.objects:
        spelled.setdefault(_norm(o.file), o.file)
        if not o.best_effort and os.path.basename(o.file) not in KUSTOMIZATION_FILES:
            known.setdefault(_norm(o.file), []).append(((o.file, o.document, o.item), o.obj, (o.file, o.document, o.line)))
    for u in manifests.unreadable:
        spelled.setdefault(_norm(u.file), u.file)
    by_origin = {(o.file, o.document, o.item): key_of(o) for o in manifests.objects}
    by_place = {(_norm(o.file), o.document): key_of(o) for o in manifests.objects}
    out = Overlays()
    taken: set[str] = set()
    for b in builds(sorted({os.path.dirname(_norm(k)) for k in kustomizations}), known):
        _add(b, out, taken, spelled, by_origin, by_place, resource_of)
    return out


def _add(b: Any, out: Overlays, taken: set, spelled: dict, by_origin: dict, by_place: dict, resource_of: Any) -> None:
    shown_k = spelled.get(_norm(b.kustomization), os.path.relpath(b.kustomization))
    if b.skipped:
        out.read.append({"kustomization": shown_k, "objects": 0, "changed": 0, "skipped": b.skipped})
        return
    group: list[Resource] = []
    reported: set[str] = set()
    for n, item in enumerate(b.objects):
        file, document, line = item.touched[-1] if item.touched else (b.kustomization, 0, 1)
        file = spelled.get(_norm(file), file)
        shown = ManifestObject(item.obj, file, document, line, built=BUILT)
        name = f"{shown.location} {shown.shown_kind}/{shown.name}"
        if not item.changed or name in taken:
            # passed through unchanged (or reported by an earlier build): in the scope, never reported
            shown = replace(shown, built=f"{BUILT}:{len(out.groups)}:{n}")
            name = f"{shown.location} {shown.shown_kind}/{shown.name}"
        else:
            taken.add(name)
            reported.add(name)
        resource = resource_of(replace(shown, obj=item.obj), name)
        group.append(resource)
        out.shown[name] = shown
        patches = frozenset(by_place[(_norm(f), d)] for f, d, _ in item.touched if (_norm(f), d) in by_place)
        base = by_origin.get(item.origin) if item.origin is not None else None
        anchor = item.origin if item.origin is not None else (item.obj.get("kind"), sorted(item.names))
        out.sources[name] = (patches | ({base} if base else set()), anchor)
        out.renamed[name] = (_ns_name(item.obj), _ns_name(item.written))
    out.groups.append(group)
    out.reported.append(frozenset(reported))
    out.read.append({"kustomization": shown_k, "objects": len(group), "changed": len(reported), "skipped": None})


def _ns_name(obj: Any) -> tuple[str, str]:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    meta = meta if isinstance(meta, dict) else {}
    ns, name = meta.get("namespace"), meta.get("name")
    return (ns if isinstance(ns, str) and ns else "<default>", name if isinstance(name, str) else "")


def _plain(message: str, names: tuple[str, str] | None = None) -> str:
    """A message without the note a patch's or base's finding carries (framework._on_patch), and with the object's
    namespace and name (``names``) as placeholders: a namespace or prefix an overlay sets is no new finding."""
    for note in (PATCH_NOTE, BASE_NOTE):
        message = message.replace(f" ({note})", "")
    if names is not None:
        ns, name = names
        message = message.replace(f"{ns}/{name}", "\0o")
        message = message.replace(f" {ns}", " \0n") if ns != "<default>" else message.replace(ns, "\0n")
        message = message.replace(name, "\0o") if name else message
    return message


def deduplicated(violations: Sequence[Violation], overlays: Overlays) -> list[Violation]:
    """The violations less those on built objects that the object's base, patches or an earlier build already report
    (same policy, same message; the module docstring)."""
    if not overlays.shown:
        return list(violations)
    said: dict[str, set[tuple[str, str]]] = {}
    base_names = {}
    for built, (_, written) in overlays.renamed.items():
        for origin in overlays.sources[built][0]:
            base_names[origin] = written
    for v in violations:
        if v.resource not in overlays.shown:
            said.setdefault(v.resource, set()).add((v.policy, _plain(v.message, base_names.get(v.resource))))
    by_anchor: dict[Any, set[tuple[str, str]]] = {}
    out = []
    # built objects in the order of their builds (those included first): the first build to report a finding keeps it
    order = {name: i for i, name in enumerate(overlays.shown)}
    for v in sorted(violations, key=lambda v: order.get(v.resource, -1)):
        source = overlays.sources.get(v.resource)
        if source is None:
            out.append(v)
            continue
        names, anchor = source
        key = (v.policy, _plain(v.message, overlays.renamed[v.resource][0]))
        anchored = by_anchor.setdefault(repr(anchor), set())
        if key in anchored or any(key in said.get(n, ()) for n in names):
            continue
        anchored.add(key)
        out.append(v)
    return sorted(out, key=lambda v: (v.policy, v.resource, v.message))


__all__ = ["BUILT", "Overlays", "deduplicated", "overlay_builds"]
