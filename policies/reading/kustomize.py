"""Objects of a `policies check` run that are patches, not whole objects: they lack what their base holds.

A Kustomize overlay states only what it changes: a strategic-merge patch of a Deployment names the Deployment and
the one container field it sets (``resources.limits``, ``replicas``), and ``kustomize build`` merges it onto the
base (kubernetes-sigs/kustomize api/types/kustomization.go: ``patchesStrategicMerge`` "the relative path to a file
containing a strategic merge patch", ``patches`` and ``patchesJson6902`` entries with a ``path``). Checked alone, such a
file lacks every field its base holds (probes, requests, the image), so a rule that reports a field missing
would report the base's fields missing. A patch is recognised two ways:

- **named by a kustomization of the run**: a file ``kustomization.yaml`` / ``kustomization.yml`` / ``Kustomization``
  read in the same run lists it under ``patchesStrategicMerge``, ``patches[].path`` or ``patchesJson6902[].path``
  (paths relative to the kustomization's folder, as kustomize resolves them);
- **patch-shaped**: a pod template of Kubernetes' own workload kinds whose container names no ``image`` (core/v1
  ``Container.image``: "optional to allow higher level config management to default or override container images
  in workload controllers like Deployments and StatefulSets", kubernetes-validate 1.34 ``container-v1.json``): a
  merge patch leaves the image to its base. A container that states ``image`` empty or null (``image: # Docker Image
  URL``) is no patch: the key is written, and the API server refuses the template (S26 api-object-valid). A missing ``spec.selector`` alone is not taken as a patch: hand-written
  snippets omit it too, and what they state is judged as written.

A **base** is the other half: an object of a file that a kustomization of the run lists under ``resources``
(through folders holding a kustomization of their own) and that a patch of the run targets (same kind and name), or
a Secret or ConfigMap a generator of the run replaces or merges into (``secretGenerator`` ``behavior: replace``). It
lacks by design what the patch adds (a volume, a GPU limit), and a kustomization's ``images`` entry may rewrite its
image; findings on what a patch could add are advice there too.

What the patch states itself still counts where its value wins in the merged object (a ``:latest`` image, a
literal token); everything a rule infers from a field's absence is advice there (policies/framework.py).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from components.loading import MANIFESTS, LoadError, load_yaml_documents

KUSTOMIZATION_FILES = frozenset({"kustomization.yaml", "kustomization.yml", "Kustomization"})
# A kustomization file is a few lines; anything far larger is not one worth reading here.
_MAX_KUSTOMIZATION_BYTES = 1 << 20

_POD_TEMPLATE_PATHS = {
    "Deployment": ("spec", "template", "spec"),
    "StatefulSet": ("spec", "template", "spec"),
    "DaemonSet": ("spec", "template", "spec"),
    "ReplicaSet": ("spec", "template", "spec"),
    "Job": ("spec", "template", "spec"),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
    "Pod": ("spec",),
}


def _listed(kustomization: Any) -> Iterable[str]:
    """The patch file paths a kustomization names (inline patches are not files)."""
    if not isinstance(kustomization, dict):
        return
    for entry in kustomization.get("patchesStrategicMerge") or ():
        if isinstance(entry, str) and "\n" not in entry:
            yield entry
    for key in ("patches", "patchesJson6902"):
        for entry in kustomization.get(key) or ():
            if isinstance(entry, dict) and isinstance(entry.get("path"), str):
                yield entry["path"]


def listed_patches(files: Sequence[str]) -> frozenset[str]:
    """The normalised paths of the files that a kustomization among (or beside) ``files`` names as patches."""
    folders = {os.path.dirname(os.path.abspath(f)) for f in files if os.path.isfile(f)}
    found: set[str] = set()
    for folder in sorted(folders):
        for name in sorted(KUSTOMIZATION_FILES):
            path = os.path.join(folder, name)
            if not os.path.isfile(path) or os.path.getsize(path) > _MAX_KUSTOMIZATION_BYTES:
                continue
            try:
                docs = load_yaml_documents(path, MANIFESTS)
            except LoadError:
                continue  # an unreadable kustomization is reported as an unreadable file (S27) when it is read
            for doc in docs:
                found.update(os.path.normpath(os.path.join(folder, p)) for p in _listed(doc.data))
    return frozenset(found)


def _kustomizations(folder: str) -> list[Any]:
    """The documents of the kustomization file in ``folder`` (none when there is none or it does not read)."""
    for name in sorted(KUSTOMIZATION_FILES):
        path = os.path.join(folder, name)
        if not os.path.isfile(path) or os.path.getsize(path) > _MAX_KUSTOMIZATION_BYTES:
            continue
        try:
            return [doc.data for doc in load_yaml_documents(path, MANIFESTS)]
        except LoadError:
            return []  # an unreadable kustomization is reported as an unreadable file (S27) when it is read
    return []


@dataclass(frozen=True)
class Overlays:
    """What the kustomizations beside the run's files say of the objects they build on (module docstring).

    ``bases``: each file a kustomization lists under ``resources`` (or the old ``bases``), through folders holding a
    kustomization of their own, mapped to the image names an ``images`` entry of a kustomization including it rewrites
    (kustomize api/types/image.go: ``name`` matched against the image without tag, ``newName``/``newTag``/``digest``
    replacing it). ``targets``: the (kind, name) pairs a ``patches[].target`` or a ``replacements[].targets[].select``
    names (kind "" for a select by name alone), and the Secrets and ConfigMaps a generator replaces or merges into
    (``behavior: replace|merge``)."""

    bases: dict[str, frozenset[str]] = field(default_factory=dict)
    targets: frozenset[tuple[str, str]] = frozenset()
    # The object names a ``replicas:`` entry sets the count of (kustomize ReplicaCountTransformer,
    # https://kubectl.docs.kubernetes.io/references/kustomize/kustomization/replicas/).
    replicas: frozenset[str] = frozenset()
    # Each file a kustomization setting ``namespace:`` includes (through folders), mapped to that namespace (the
    # outermost kustomization's wins, as kustomize's NamespaceTransformer of the overlay runs last; G38).
    namespaces: dict[str, str] = field(default_factory=dict)


def _images(kustomization: dict) -> set[str]:
    return {
        e["name"]
        for e in kustomization.get("images") or ()
        if isinstance(e, dict) and isinstance(e.get("name"), str) and (e.get("newName") or e.get("newTag") or e.get("digest"))
    }


def _include(
    folder: str,
    images: frozenset[str],
    bases: dict[str, frozenset[str]],
    seen: set,
    depth: int,
    namespace: str = "",
    namespaces: dict[str, str] | None = None,
) -> None:
    """Record the resources the kustomization in ``folder`` lists (files, and folders through theirs) in ``bases``,
    and in ``namespaces`` those a kustomization setting ``namespace:`` includes (``namespace``: an including one's)."""
    if depth > 8 or (folder, images, namespace) in seen:
        return
    seen.add((folder, images, namespace))
    for doc in _kustomizations(folder):
        if not isinstance(doc, dict):
            continue
        rewritten = images | _images(doc)
        own = doc.get("namespace")
        set_to = namespace or (own if isinstance(own, str) else "")
        for entry in [*(doc.get("resources") or ()), *(doc.get("bases") or ())]:
            if not isinstance(entry, str) or "\n" in entry or "://" in entry:
                continue
            path = os.path.normpath(os.path.join(folder, entry))
            if os.path.isdir(path):
                _include(path, rewritten, bases, seen, depth + 1, set_to, namespaces)
            else:
                bases[path] = bases.get(path, frozenset()) | rewritten
                if namespace and namespaces is not None:
                    namespaces[path] = namespace  # an including overlay's namespace wins over the base's own
                elif set_to and namespaces is not None:
                    namespaces.setdefault(path, set_to)


# A generator entry whose ``behavior`` is ``replace`` or ``merge`` rewrites the base's object of that name (kustomize
# api/types/generatorargs.go:16-20@api/v0.21.1: "'replace': replace the existing one", "'merge': merge with the existing
# one"; the default ``create`` makes a new one): the base object is then a patch target like any other.
_GENERATED_KINDS = (("secretGenerator", "Secret"), ("configMapGenerator", "ConfigMap"))


def _regenerated(kustomization: Any) -> set[tuple[str, str]]:
    """The (kind, name) of each Secret or ConfigMap a generator of the kustomization replaces or merges into."""
    found: set[tuple[str, str]] = set()
    if not isinstance(kustomization, dict):
        return found
    for key, kind in _GENERATED_KINDS:
        entries = kustomization.get(key)
        for entry in entries if isinstance(entries, list) else ():
            if isinstance(entry, dict) and entry.get("behavior") in ("replace", "merge") and isinstance(entry.get("name"), str):
                found.add((kind, entry["name"]))
    return found


def _replaced(kustomization: Any) -> set[tuple[str, str]]:
    """The (kind, name) each inline ``replacements`` entry of the kustomization writes a field of (kustomize
    api/types/replacement.go:17-26@api/v0.21.1 Replacement ``targets``, :55-67 TargetSelector ``select``): a base
    may leave that field empty for the replacement to fill (an image taken from a generated ConfigMap), so the base
    is a patch target like any other. A ``select`` with no kind names every kind of that name (``("", name)``)."""
    found: set[tuple[str, str]] = set()
    entries = kustomization.get("replacements") if isinstance(kustomization, dict) else None
    for entry in entries if isinstance(entries, list) else ():
        targets = entry.get("targets") if isinstance(entry, dict) else None
        for target in targets if isinstance(targets, list) else ():
            select = target.get("select") if isinstance(target, dict) else None
            if not isinstance(select, dict):
                continue
            kind, name = select.get("kind"), select.get("name")
            kind, name = kind if isinstance(kind, str) else "", name if isinstance(name, str) else ""
            if kind or name:
                found.add((kind, name))
    return found


def overlays(files: Sequence[str]) -> Overlays:
    """The bases and patch targets the kustomizations among (or beside) ``files`` name."""
    folders = {os.path.dirname(os.path.abspath(f)) for f in files if os.path.isfile(f)}
    bases: dict[str, frozenset[str]] = {}
    targets: set[tuple[str, str]] = set()
    replicas: set[str] = set()
    namespaces: dict[str, str] = {}
    seen: set = set()
    for folder in sorted(folders):
        _include(folder, frozenset(), bases, seen, 0, "", namespaces)
        for doc in _kustomizations(folder):
            for entry in (doc.get("replicas") or ()) if isinstance(doc, dict) else ():
                if isinstance(entry, dict) and isinstance(entry.get("name"), str):
                    replicas.add(entry["name"])
            for entry in (doc.get("patches") or ()) if isinstance(doc, dict) else ():
                target = entry.get("target") if isinstance(entry, dict) else None
                if isinstance(target, dict) and isinstance(target.get("kind"), str):
                    targets.add((target["kind"], str(target.get("name") or "")))
            targets.update(_regenerated(doc))
            targets.update(_replaced(doc))
    return Overlays(bases=bases, targets=frozenset(targets), replicas=frozenset(replicas), namespaces=namespaces)


def namespace_set(file: str, found: Overlays) -> str:
    """The namespace a kustomization of the run including ``file`` sets (``namespace:``), or ""."""
    return found.namespaces.get(os.path.normpath(os.path.abspath(file)), "")


def rescaled(file: str, obj: Any, found: Overlays) -> bool:
    """True when the object read from ``file`` is a base a kustomization of the run lists and a ``replicas:`` entry of
    the run names: the built object's replica count is the entry's, not the one written here."""
    in_base = os.path.normpath(os.path.abspath(file)) in found.bases
    return in_base and isinstance(obj, dict) and _dig(obj, ("metadata", "name")) in found.replicas


def targeted(file: str, obj: Any, patch_objects: Iterable[Any], found: Overlays) -> bool:
    """True when the object read from ``file`` is a base a kustomization of the run lists and a patch of the run
    targets (same kind and name): the built object holds what the patch adds, so the base alone lacks it by design."""
    if not isinstance(obj, dict) or os.path.normpath(os.path.abspath(file)) not in found.bases:
        return False
    kind, name = obj.get("kind"), _dig(obj, ("metadata", "name"))
    for patch in patch_objects:
        if isinstance(patch, dict) and patch.get("kind") == kind and _dig(patch, ("metadata", "name")) == name:
            return True
    return (kind, name) in found.targets or (kind, "") in found.targets or ("", name) in found.targets


def rewritten_images(file: str, found: Overlays) -> frozenset[str]:
    """The image names (without tag) an ``images`` entry of a kustomization including ``file`` rewrites."""
    return found.bases.get(os.path.normpath(os.path.abspath(file)), frozenset())


def image_rewritten(names: Iterable[str], image: object) -> bool:
    """True when an ``images`` entry named in ``names`` rewrites ``image`` (kustomize matches the name without the
    tag or digest; ``docker.io/`` and ``docker.io/library/`` spell the same Docker Hub name)."""
    if not isinstance(image, str) or not image:
        return False
    bare = image.split("@", 1)[0]
    if ":" in bare.rsplit("/", 1)[-1]:
        bare = bare.rsplit(":", 1)[0]

    def hub(name: str) -> str:
        for prefix in ("docker.io/library/", "docker.io/"):
            if name.startswith(prefix):
                return name[len(prefix) :]
        return name

    return any(hub(n) == hub(bare) for n in names)


def _dig(obj: Any, path: Sequence[str]) -> Any:
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def patch_shaped(obj: Any) -> bool:
    """True when a Kubernetes workload's pod template has a container without an image (module docstring)."""
    if not isinstance(obj, dict):
        return False
    kind, api_version = obj.get("kind"), obj.get("apiVersion")
    path = _POD_TEMPLATE_PATHS.get(kind) if isinstance(kind, str) else None
    if path is None or (api_version not in ("v1", "apps/v1", "batch/v1")):
        return False
    podspec = _dig(obj, path)
    if not isinstance(podspec, dict):
        return False
    for key in ("containers", "initContainers"):
        items = podspec.get(key)
        for container in items if isinstance(items, list) else ():
            # The key left out: a merge patch leaves the image to its base. A key stated empty (``image:`` followed
            # by a comment reads as null) is the object's own value, which the API server refuses (S26), not a patch.
            if isinstance(container, dict) and "image" not in container:
                return True
    return False


def is_patch(file: str, obj: Any, patches: frozenset[str]) -> bool:
    """True when the object read from ``file`` is a patch (a kustomization names the file, or its shape says so)."""
    return os.path.normpath(os.path.abspath(file)) in patches or patch_shaped(obj)


__all__ = [
    "KUSTOMIZATION_FILES",
    "Overlays",
    "image_rewritten",
    "is_patch",
    "listed_patches",
    "overlays",
    "patch_shaped",
    "rewritten_images",
    "targeted",
]
