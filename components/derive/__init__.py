"""What the controllers create from what a stack renders: derived, not guessed.

No controller runs here (no API server, no KServe, no Karpenter), so each controller's effect on
our objects is re-derived in code that follows its source at the pinned tag, and the plan checks
the result like our own objects (issue 30). Pure functions only: the input is what the plan
recorded (Kubernetes objects and Helm releases, the releases' values included, since those render
the controllers' ConfigMaps), the output is the objects the controllers will create.

One module per controller, each exposing ``derive(rendered) -> list[Derived]`` and listed in
``DERIVERS`` below:

* ``kserve``: the predictor Deployment and Service of each InferenceService (Standard mode);
* ``kuberay``: the head and worker pods of each RayCluster, checked by every per-object policy like KServe's objects
  (and, against their NodePools' taints, by the stack policy kuberay-derived-pods);
* ``karpenter`` (``node_choice``): Karpenter's node choice, written by the plan beside these (``derived/karpenter/``)
  and checked by its own policy (karpenter-node-choice); not listed in ``DERIVERS`` (it is no object).

A derived object records, per field a controller set, the upstream rule that set it
(``Derived.rules``), so a finding on it can say which controller rule produced the value.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Optional

# The folder of the plan's output that holds the derived objects (docs/cli.md, `plan`).
DERIVED_FOLDER = "derived"


@dataclass(frozen=True)
class Release:
    """A Helm release as the plan records it: what `helm install` is given."""

    name: str
    chart: str
    version: str
    namespace: str
    values: Mapping[str, Any]

    @property
    def chart_name(self) -> str:
        """The chart's name without its repository (``oci://ghcr.io/kserve/charts/kserve-resources`` -> ``kserve-resources``)."""
        return self.chart.rstrip("/").rsplit("/", 1)[-1]


@dataclass(frozen=True)
class Rendered:
    """What one stack renders, as the controllers read it: Kubernetes objects and Helm releases."""

    objects: tuple[Mapping[str, Any], ...]
    releases: tuple[Release, ...] = ()

    def of_kind(self, api_version: str, kind: str) -> list[Mapping[str, Any]]:
        """The objects of one apiVersion and kind, in (namespace, name) order."""
        found = [o for o in self.objects if o.get("apiVersion") == api_version and o.get("kind") == kind]
        return sorted(found, key=lambda o: (_meta(o).get("namespace") or "", _meta(o).get("name") or ""))

    def release(self, chart_name: str) -> Optional[Release]:
        """The first release of a chart (by chart name), or None when the stack does not install it."""
        return next((r for r in sorted(self.releases, key=lambda r: (r.namespace, r.name)) if r.chart_name == chart_name), None)


@dataclass(frozen=True)
class Derived:
    """One object a controller will create from the stack's objects.

    ``controller``: who creates it (``kserve``, ``kuberay``, ``karpenter``); ``source``: the object
    it comes from (``InferenceService llm/chat-8b``); ``model``: the stack's model it serves, "" when
    none; ``manifest``: the object as the controller submits it to the API server; ``rules``: for a
    field the controller set or defaulted (a dotted path into ``manifest``), the upstream rule with
    its file and line at the pinned tag; ``summary``: the few figures the plan report shows for it.
    """

    controller: str
    source: str
    model: str
    manifest: Mapping[str, Any]
    rules: Mapping[str, str] = field(default_factory=dict)
    summary: Mapping[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        """The manifest's kind."""
        return str(self.manifest.get("kind", ""))

    @property
    def name(self) -> str:
        """The manifest's metadata.name."""
        return str(_meta(self.manifest).get("name", ""))

    @property
    def namespace(self) -> str:
        """The manifest's metadata.namespace ("" for a cluster-scoped object)."""
        return str(_meta(self.manifest).get("namespace") or "")

    @property
    def resource_name(self) -> str:
        """The name findings on it carry: ``derived-<namespace>-<kind>-<name>`` (the model name inside, so
        the plan traces a finding to the model's entry in the stack file)."""
        return f"derived-{self.namespace or '_cluster'}-{self.kind.lower()}-{self.name}"

    @property
    def path(self) -> str:
        """Its file under the plan's output folder: ``derived/<namespace>/<kind>-<name>.yaml``."""
        return f"{DERIVED_FOLDER}/{self.namespace or '_cluster'}/{self.kind.lower()}-{self.name}.yaml"

    def rule(self, path: str) -> str:
        """The upstream rule that set ``path`` ("" when the controller copied it from our object)."""
        return self.rules.get(path, "")


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


Deriver = Callable[[Rendered], list[Derived]]


def _derivers() -> tuple[Deriver, ...]:
    # Imported here: each controller module imports this one for Rendered and Derived.
    from . import kserve, kuberay

    return (kserve.derive, kuberay.derive)


def derive(rendered: Rendered, derivers: Optional[Sequence[Deriver]] = None) -> list[Derived]:
    """Every object the controllers create from ``rendered``, in a stable order (controller, namespace, kind, name).

    Two derived objects with the same path are a bug in a deriver: refused, never overwritten.
    """
    out: list[Derived] = []
    for deriver in _derivers() if derivers is None else tuple(derivers):
        out.extend(deriver(rendered))
    paths = [d.path for d in out]
    twice = sorted({p for p in paths if paths.count(p) > 1})
    if twice:
        raise ValueError(f"two derived objects share a path: {', '.join(twice)}")
    return sorted(out, key=lambda d: (d.controller, d.namespace, d.kind, d.name))


def by_model(derived: Sequence[Derived]) -> dict[str, list[Derived]]:
    """The derived objects of each model (the report's per-model section), in derive order."""
    out: dict[str, list[Derived]] = {}
    for d in derived:
        if d.model:
            out.setdefault(d.model, []).append(d)
    return out


__all__ = ["DERIVED_FOLDER", "Derived", "Deriver", "Release", "Rendered", "by_model", "derive"]
