"""One report for a chart vendored in the repository and the Flux HelmRelease that installs it.

A Flux HelmRelease whose chart is a folder of its GitRepository or Bucket source is read as the published chart
(policies/helm_charts.py ``vendored_chart``): the pod rules judge the pod its values render. When the run also holds
that folder, its templates are rendered best-effort with the chart's own ``values.yaml`` (policies/reading/helm_chart.py)
and the same pod rules judge the same server a second time, with the defaults instead of the values the release
writes. The same holds for a chart folder a helmfile release renders with its values (policies/reading/helmfile.py,
review56a: both renders of one pod were reported). The release is what is deployed and where its values are fixed,
so a pod rule's findings on a pod the copy renders are dropped when the same rule reports the chart's pod on a release of the run that installs that folder
(spent set 107 BSFishy/k8s-homelab kubernetes/apps/ai/local-ai/app/helmrelease.yaml, chart
kubernetes/apps/ai/local-ai/chart: G4, G8, G10 on both). A rule the release does not report (the copy's
PodDisruptionBudget, its claims) keeps its findings on the copy, and a chart folder no release of the run installs
keeps all of them.

The match is the run's own data: the release's ``spec.chart.spec.chart`` path (relative to its source's root) is the
trailing folders of the chart folder's absolute path. File names play no part.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Mapping, Sequence

from policies.chart_values import value_at
from policies.framework import Violation
from policies.helm_charts import chart_pod_specs, installs_from_folder
from policies.manifests import ManifestObject, ManifestSet


def release_folder(props: Mapping) -> tuple[str, ...]:
    """The folders of the chart path a Flux HelmRelease installs from a GitRepository or Bucket (``./a/b/`` ->
    ("a", "b")); () for any other object or source."""
    path = value_at(props, "spec", "chart", "spec", "chart") if installs_from_folder(props) else None
    if not isinstance(path, str) or not path.strip():
        return ()
    return tuple(p for p in posixpath.normpath(path.strip()).split("/") if p not in ("", ".", ".."))


def _installs(release: tuple[str, ...], folder: str) -> bool:
    """True when the release's chart path names the chart folder: its trailing folders, read from the absolute path."""
    parts = tuple(p for p in os.path.abspath(folder).split(os.sep) if p)
    return bool(release) and len(parts) >= len(release) and parts[-len(release) :] == release


HELMFILE_LABEL = "helmfile release "  # policies/reading/helmfile.py: "helmfile release NAME: chart PATH[ -f FILE]"


def _helmfile_chart(label: str) -> tuple[str, ...]:
    """The folders of the local chart path a helmfile release renders (its label's ``chart PATH``), else ()."""
    if not label.startswith(HELMFILE_LABEL) or ": chart " not in label:
        return ()
    path = label.split(": chart ", 1)[1].split(" ", 1)[0]
    if "://" in path:
        return ()
    return tuple(p for p in posixpath.normpath(path).split("/") if p not in ("", ".", ".."))


def _has_pod(obj: Mapping) -> bool:
    spec = obj.get("spec")
    template = spec.get("template") if isinstance(spec, Mapping) else None
    return obj.get("kind") == "Pod" or isinstance(template, Mapping) and isinstance(template.get("spec"), Mapping)


def without_vendored_duplicates(
    manifests: ManifestSet, violations: Sequence[Violation], key: Callable[[ManifestObject], str]
) -> list[Violation]:
    """The violations less those on a pod a chart folder of the run renders with its defaults when a Flux HelmRelease
    of the run installs that folder, is read as the chart, and has a finding of the same policy on the chart's pod, or a
    helmfile release renders that folder and has one on the pod it renders (``key``: the resource name of an object,
    as the run names it)."""
    folders = {o.chart for o in manifests.objects if o.chart and not o.chart.startswith(HELMFILE_LABEL)}
    if not folders:
        return list(violations)
    # release resource name -> (chart folders it installs, the values paths of the chart pods it is read as)
    releases: dict[str, tuple[set[str], tuple[str, ...]]] = {}
    for o in manifests.objects:
        rendered = _helmfile_chart(o.chart or "")
        if rendered and _has_pod(o.obj) and (installed := {f for f in folders if _installs(rendered, f)}):
            releases[key(o)] = (installed, ("",))  # a pod a helmfile release renders from the folder: every finding
            continue
        folder = release_folder(o.obj) if not o.chart else ()
        installed = {f for f in folders if _installs(folder, f)}
        if installed:
            pods = tuple(path for path, _ in chart_pod_specs(o.obj))
            if pods:
                releases[key(o)] = (installed, pods)
    if not releases:
        return list(violations)
    said: dict[str, set[str]] = {}  # chart folder -> policies a release installing it reports on the chart's pod
    for v in violations:
        if v.resource in releases and v.message.startswith(releases[v.resource][1]):
            for f in releases[v.resource][0]:
                said.setdefault(f, set()).add(v.policy)
    copies = {key(o): o.chart for o in manifests.objects if o.chart in said and _has_pod(o.obj)}
    return [v for v in violations if not (v.resource in copies and v.policy in said[copies[v.resource]])]
