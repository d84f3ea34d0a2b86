"""G1 (catalogue row 1), for charts: a release of a model-serving chart pins one chart version.

A chart release whose version is a range or unset installs the newest chart release that matches at each reconcile,
and a chart release brings new templates and, through its appVersion, a new image of the server: the model server is
upgraded unasked, as with an image's ``latest`` tag (image-tag-pinned).

- Flux HelmRelease ``spec.chart.spec.version``: "Version semver expression, ignored for charts from v1.GitRepository
  and v1beta2.Bucket sources. Defaults to latest when omitted." (``+kubebuilder:default:=*``; fluxcd/helm-controller
  v1.6.3 api/v2/helmrelease_types.go:388-392). A chart from a GitRepository or Bucket is pinned by its source's ref: not
  read here.
- Flux HelmRelease ``spec.chartRef`` (helm-controller v1.6.3 api/v2/helmrelease_types.go:53-56): the OCIRepository or
  HelmChart of the run it names (policies/reading/gitops_charts.py) pins the version: an OCIRepository's ``ref.digest``,
  ``ref.semver`` or ``ref.tag``, none of them "defaults to the latest tag" (fluxcd/source-controller v1.9.1
  api/v1/ocirepository_types.go:64-65,151-167); a HelmChart's ``spec.version`` "Defaults to latest when omitted"
  (api/v1/helmchart_types.go:38-42). A tag ``latest`` moves too. A source the run does not hold is not read (spent set
  107 BSFishy/k8s-homelab kubernetes/apps/ai/litellm-gateway/app/helmrelease.yaml: ``ref.tag: 0.1.808``, silent).
- Argo CD Application: a Helm source's ``targetRevision`` is the chart version and may be a range (``1.2.*``, ``>=1.0.0
  <2.0.0``, ``*``: argo-cd docs/user-guide/tracking_strategies.md, "Helm", release-3.3).
- Argo CD Application of a Git source: the chart's own repository (a ``repositories`` entry of its row) at a folder
  named for the chart, at a branch (``main``, ``master``, ``HEAD`` or unset): every push renders (spent set 117
  yo0x/devops-smarthome@f85be65d root/argo-cd/apps/litellm.yaml, BerriAI/litellm deploy/charts/litellm-helm at main).
- k3s HelmChart ``spec.version`` is passed to ``helm install --version`` (a semver range is accepted); unset, Helm
  installs the newest version (helm docs helm_install: "If --version is set, ... Otherwise the latest version").
- A helmfile release (policies/reading/helmfile.py) of a published chart: ``version`` is "the semver of the chart.
  range constraint is supported" (helmfile/helmfile docs/configuration.md:175@v1.7.4), passed to helm as --version.

Which releases: those of a chart the pack reads (components/helm_charts.toml) or whose chart name names a model server
or an LLM app (policies/reading/server_names.py SERVER_WORD, and the LLM apps' chart names below). Advisory: a range
is a choice some teams make on purpose (with Renovate or a test environment first). Form: spent set 111
MntDew1031/k3s-ai-stack clusters/main-cluster/ai-stack/open-webui.yaml (a HelmRelease of open-webui at ``version:
"3.x.x"``, labelled `none` for want of a row).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

from components.helm_charts import chart_named
from policies.framework import Policy, Resource
from policies.helm_charts import RELEASE_GROUP_KINDS, installs_from_folder
from policies.kube import annotations_of, as_list, get, metadata_name, split_type
from policies.reading.gitops_charts import chart_ref_sources, referenced_source, source_pin
from policies.reading.server_names import SERVER_WORD
from policies.values_files import READ_FROM

# Chart names of LLM apps and serving operators that SERVER_WORD does not spell (each a chart users install as a release).
_APP_CHARTS = frozenset(
    {
        "litellm",
        "litellm-helm",
        "open-webui",
        "local-ai",
        "localai",
        "kuberay-operator",
        "ray-cluster",
        "kserve",
        "llm-d",
        "aibrix",
    }
)
# A semver range: a wildcard part (x, X, *), an operator, a hyphen range or an alternative (Masterminds/semver, which
# Flux, Argo CD and Helm use).
_RANGE = re.compile(r"(^|[.\s])[xX*](?=$|[.\s])|[\^~<>=|]|\s-\s")


def _serving_chart(name: str) -> bool:
    base = name.rstrip("/").rsplit("/", 1)[-1].lower()
    return bool(base) and (chart_named(base) is not None or base in _APP_CHARTS or SERVER_WORD.search(base) is not None)


def _moving(version: Any) -> str | None:
    """How ``version`` moves: "unset" (None or empty), "a range", or None when it names one version."""
    if version is None or (isinstance(version, str) and not version.strip()):
        return "unset"
    if isinstance(version, str) and _RANGE.search(version.strip()):
        return "a range"
    return None


def _flux(props: Mapping) -> list[tuple[str, str, Any]]:
    spec = get(props, "spec", "chart", "spec")
    if not isinstance(spec, Mapping) or not isinstance(spec.get("chart"), str):
        return []
    if installs_from_folder(props):  # a GitRepository or Bucket's ref pins it; Flux ignores the version
        return []
    return [(spec["chart"], "spec.chart.spec.version", spec.get("version"))]


def _argo(props: Mapping) -> list[tuple[str, str, Any]]:
    spec = get(props, "spec")
    if not isinstance(spec, Mapping):
        return []
    sources = [("spec.source", spec.get("source"))] + [
        (f"spec.sources[{i}]", s) for i, s in enumerate(as_list(spec.get("sources")))
    ]
    out = []
    for where, source in sources:
        if isinstance(source, Mapping) and isinstance(source.get("chart"), str):
            if "targetRevision" in source:  # unset: not read (no documented range for a Helm source)
                out.append((source["chart"], f"{where}.targetRevision", source.get("targetRevision")))
    return out


def _k3s(props: Mapping) -> list[tuple[str, str, Any]]:
    spec = get(props, "spec")
    if not isinstance(spec, Mapping) or not isinstance(spec.get("chart"), str):
        return []
    chart = spec["chart"]
    if "://" in chart or chart.endswith(".tgz"):  # a chart archive's URL names its version itself
        return []
    # spec.chartContent, a base64 chart archive, "overrides spec.chart"; spec.version is read "when installing from
    # repository" (k3s-io/helm-controller doc/helmchart.md, HelmChartSpec): one chart version, whatever it says.
    if spec.get("chartContent"):
        return []
    return [(chart, "spec.version", spec.get("version"))]


# Argo CD's targetRevision of a Git source that follows a branch: unset is HEAD (argo-cd docs/user-guide/
# tracking_strategies.md, "Git": "HEAD ... the latest commit of the default branch"), and the usual branch names.
_BRANCHES = frozenset({"", "head", "main", "master", "develop", "dev", "trunk"})


def _argo_git(props: Mapping) -> list[tuple[str, str, str]]:
    """(chart, field, revision) of each Git source of an Argo CD Application that installs a chart of the table from
    the chart's own repository (``path`` a folder whose name is the chart, ``repoURL`` a repository of its row:
    BerriAI/litellm deploy/charts/litellm-helm) at a branch: every push to the branch is a new chart and image.
    An Application of a folder of the user's own repository (its own GitOps source) is not read."""
    spec = get(props, "spec")
    if not isinstance(spec, Mapping):
        return []
    sources = [("spec.source", spec.get("source"))] + [
        (f"spec.sources[{i}]", s) for i, s in enumerate(as_list(spec.get("sources")))
    ]
    out = []
    for where, source in sources:
        if not isinstance(source, Mapping) or source.get("chart") or not isinstance(source.get("path"), str):
            continue
        revision = source.get("targetRevision")
        revision = "" if revision is None else str(revision).strip()
        folder = source["path"].strip("./").rsplit("/", 1)[-1]
        repo = str(source.get("repoURL") or "")
        chart = chart_named(folder) if folder else None
        if chart is None or chart_named("", repo) is not chart or revision.lower() not in _BRANCHES:
            continue
        out.append((chart.names[0], f"{where}.targetRevision", revision or "HEAD"))
    return out


_READERS = {"HelmRelease": _flux, "Application": _argo, "HelmChart": _k3s}
_HOW = {
    "HelmRelease": "Flux installs the newest chart release that matches at each reconcile (unset means *: "
    "fluxcd/helm-controller v1.6.3 api/v2/helmrelease_types.go:388-392)",
    "Application": "Argo CD resolves the range to the newest chart release that matches at each refresh "
    "(argo-cd docs/user-guide/tracking_strategies.md, Helm)",
    "HelmChart": "k3s's helm-controller installs the newest chart release that matches (helm install --version; "
    "unset, the latest)",
}


# A Terraform helm_release (policies/reading/terraform.py) read as a HelmRelease: its ``version`` argument.
_TERRAFORM = (
    "Terraform's helm provider installs the latest chart version when version is unset "
    "(hashicorp/terraform-provider-helm v3.1.2 docs/resources/release.md:63)"
)


# A helmfile release (policies/reading/helmfile.py) read as a HelmRelease: its ``version``.
_HELMFILE = (
    "helmfile passes version to helm as --version, a range allowed, and helm installs the latest chart version when it "
    "is unset (helmfile/helmfile docs/configuration.md:175@v1.7.4; helm docs helm_install)"
)


# A Flux HelmRelease's chartRef (policies/reading/gitops_charts.py): the OCIRepository or HelmChart of the run it names.
_CHART_REF = (
    'source-controller follows it (an OCIRepository with no ref digest, semver or tag "defaults to the latest tag", '
    "a semver range the newest match: fluxcd/source-controller v1.9.1 api/v1/ocirepository_types.go:64-65,151-167; a "
    'HelmChart\'s version "Defaults to latest when omitted", api/v1/helmchart_types.go:38-42) and helm-controller '
    "upgrades the release to each new chart artifact (fluxcd/helm-controller v1.6.3 api/v2/helmrelease_types.go:53-56)"
)


def _chart_ref(r: Resource, sources: Mapping) -> list[tuple[str, str]]:
    source = referenced_source(r.props, sources)
    if source is None:
        return []
    chart, field, version = source_pin(source)
    how = "unset" if version is None else None if version == "" else _moving(version)  # "": pinned otherwise
    if how is None or not chart or not _serving_chart(chart):
        return []
    kind, name = source.get("kind"), metadata_name(source)
    shown = f"{kind} {name}'s {field} {str(version)!r} is a range" if version else f"{kind} {name} pins no version"
    if version is None and field == "spec.ref.tag" and get(source, "spec", "ref", "tag") == "latest":
        shown = f"{kind} {name}'s spec.ref.tag is 'latest'"
    return [
        (
            r.name,
            f"spec.chartRef: {shown} for chart {chart} ({metadata_name(r.props) or r.name}): {_CHART_REF}, so a new "
            f"chart release, with its templates and the server image its appVersion names, rolls out unasked; pin one "
            f"chart version (ref.tag or ref.digest; a HelmChart's version)",
        )
    ]


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    findings = []
    sources = chart_ref_sources([SimpleNamespace(obj=r.props) for r in resources if isinstance(r.props, dict)])
    for r in resources:
        group_kind = split_type(r.type)
        if group_kind not in RELEASE_GROUP_KINDS or not isinstance(r.props, dict):
            continue
        if group_kind[1] == "HelmRelease" and referenced_source(r.props, sources) is not None:
            findings += _chart_ref(r, sources)
            continue
        read_as = annotations_of(r.props).get(READ_FROM)
        terraform = isinstance(read_as, str) and read_as.startswith(
            ("Terraform helm_release", "Terraform module")
        )  # its own version field
        helmfile = isinstance(read_as, str) and read_as.startswith("helmfile release ")  # policies/reading/helmfile.py
        if read_as is not None and not terraform and not helmfile:  # a values file read as its release: no version
            continue
        for chart, field, version in _READERS[group_kind[1]](r.props):
            how = _moving(version)
            if how is None or not _serving_chart(chart):
                continue
            shown = f"{field} is unset" if how == "unset" else f"{field} {str(version)!r} is a range"
            findings.append(
                (
                    r.name,
                    f"{shown} for chart {chart} ({metadata_name(r.props) or r.name}): "
                    f"{_TERRAFORM if terraform else _HELMFILE if helmfile else _HOW[group_kind[1]]}, so a new "
                    f"chart release, with its templates and the server image its appVersion names, rolls out unasked; "
                    f"pin one chart version",
                )
            )
        if group_kind[1] == "Application":
            for chart, field, revision in _argo_git(r.props):
                findings.append(
                    (
                        r.name,
                        f"{field} {revision} installs chart {chart} ({metadata_name(r.props) or r.name}) from a branch "
                        f"of the chart's own Git repository: Argo CD renders the branch's newest commit at each refresh, "
                        f"so every push there, with its templates and the server image its appVersion names, rolls out "
                        f"unasked; set targetRevision to a release tag or commit, or install the published chart at one "
                        f"version",
                    )
                )
    return findings


POLICY = Policy(
    name="chart-version-pinned",
    description=(
        "A Helm release of a model-serving chart (Flux HelmRelease, Argo CD Application, k3s HelmChart) names one chart "
        "version, never a range or nothing (the newest chart, with a new server image, rolls out unasked)."
    ),
    catalog="G1",
    severity="medium",
    enforcement="advisory",
    remediation_steps="Set the chart version to one release (e.g. version: 1.4.0) and move it on purpose (Renovate, a PR).",
    config_schema={},
    check_stack=_check,
    rationale=(
        "A chart version range or an unset version installs the newest matching chart at each reconcile; a chart "
        "release changes the templates and, through its appVersion, the server image (catalogue row 1, for charts)."
    ),
)
