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
  merge patch leaves the image to its base. A missing ``spec.selector`` alone is not taken as a patch: hand-written
  snippets omit it too, and what they state is judged as written.

What the patch states itself still counts where its value wins in the merged object (a ``:latest`` image, a
literal token); everything a rule infers from a field's absence is advice there (policies/framework.py).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
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
        for container in podspec.get(key) or ():
            if isinstance(container, dict) and not container.get("image"):
                return True
    return False


def is_patch(file: str, obj: Any, patches: frozenset[str]) -> bool:
    """True when the object read from ``file`` is a patch (a kustomization names the file, or its shape says so)."""
    return os.path.normpath(os.path.abspath(file)) in patches or patch_shaped(obj)


__all__ = ["KUSTOMIZATION_FILES", "is_patch", "listed_patches", "patch_shaped"]
