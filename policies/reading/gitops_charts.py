"""Argo CD and Flux releases read as the charts they install: a chart folder of the run, or a Flux ``chartRef``.

A chart folder of the run is rendered best-effort with its ``values.yaml`` on its own (policies/reading/helm_chart.py),
so the release that installs it with other values, a release name and a namespace went unread. Two forms name one:

- an Argo CD Application (or an ApplicationSet's ``spec.template``) whose ``source`` (or one of ``sources``) has a
  ``path`` and no ``chart``. Its values, lowest first, are the chart's values.yaml, ``helm.valueFiles`` (paths from the
  chart folder), ``helm.values`` (text), ``helm.valuesObject`` and ``helm.parameters``: "Order of precedence is
  ``parameters > valuesObject > values > valueFiles > helm repository values.yaml``" (argoproj/argo-cd
  docs/user-guide/helm.md:48@v3.5.1), ``values`` ignored beside ``valuesObject`` (helm.md:410); ``source`` ignored
  beside a non-empty ``sources`` (multiple_sources.md:9-10). Its release name is ``helm.releaseName``, else "the Helm release name is equal
  to the Application name" (helm.md:481); its namespace ``spec.destination.namespace``.
- a Flux HelmRelease whose ``spec.chart.spec.chart`` is a path of a GitRepository or Bucket source. Its values are
  each ``valuesFrom`` ConfigMap of the run (``valuesKey``, default ``values.yaml``; ``targetPath`` sets one value) in
  order, then ``spec.values``; its release name ``spec.releaseName``, else ``[targetNamespace-]name``, and its namespace
  ``targetNamespace``, else its own (fluxcd/helm-controller api/v2/helmrelease_types.go:1549-1568@v1.6.3).

The chart folder is the run's folder holding a Chart.yaml whose trailing folders are the path (the path is from the
source's root, which the run need not be). A release whose values the run does not show whole (a valueFiles entry
that is a URL, another source's ``$ref`` or a missing file; a valuesFrom Secret or a ConfigMap not in the run; a
templated path or name) is not rendered. Every object rendered is reported on the release's file, labelled as a
template's is: advice.

A Flux HelmRelease with ``chartRef`` (helm-controller v2: "a reference to a source controller resource containing
the Helm chart artifact", api/v2/helmrelease_types.go:53-56@v1.6.3; kind OCIRepository or HelmChart, namespace the
release's by default: api/v2/reference_types.go:49-72) names no chart itself. When the run holds the object it names
and that names a chart of components/helm_charts.toml (the OCIRepository's ``url`` last segment, a HelmChart's
``spec.chart``), the release is read as a release of that chart (``spec.chart.spec`` in place of ``chartRef`` on the
pack's copy, annotated CHART_REF): version the OCIRepository's ``ref.tag``/``ref.semver`` (fluxcd/source-controller
api/v1/ocirepository_types.go:151-167@v1.9.1) or the HelmChart's ``spec.version``.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping
from typing import Any, Callable, Optional

from components.helm_charts import chart_named
from components.loading import MANIFESTS, Document, LoadError, load_yaml
from policies.reading.run_bounds import within_run

_FOLDER_SOURCES = frozenset({"GitRepository", "Bucket"})
_RELEASES = 32  # releases rendered per run: bounded
_ENTRIES = 16  # values entries read per release
_MAX_TEXT = 256 * 1024
# The annotation the pack's copy of a chartRef release carries: the source it was read from (``OCIRepository/name``).
# Not READ_FROM: the release is an object the run applies, judged as one (G58, namespaces).
CHART_REF = "llm-serving.io/chart-ref"


def _get(value: Any, *keys: str) -> Any:
    for key in keys:
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def _text(value: Any) -> Optional[Mapping]:
    if not isinstance(value, str) or len(value) > _MAX_TEXT:
        return None
    try:  # the pack's bounded loader: aliases counted as they expand (a "billion laughs" block hung the run, review56e)
        loaded = load_yaml("values", MANIFESTS, text=value)
    except (LoadError, ValueError, RecursionError):
        return None
    return loaded if isinstance(loaded, Mapping) else {} if loaded is None else None


def _parts(path: str) -> tuple[str, ...]:
    return tuple(p for p in posixpath.normpath(path.strip()).split("/") if p not in ("", ".", ".."))


def _chart_root(path: Any, roots: list[str]) -> Optional[str]:
    """The one chart folder of the run whose trailing folders are ``path``, or None."""
    if not isinstance(path, str) or "{{" in path or "${" in path:
        return None
    want = _parts(path)
    if not want:
        return None
    found = [r for r in roots if tuple(p for p in r.split(os.sep) if p)[-len(want) :] == want]
    return found[0] if len(found) == 1 else None


def _templated(value: Any) -> bool:
    return not isinstance(value, str) or not value or "{{" in value or "${" in value


def _argo_values(helm: Mapping, root: str) -> Optional[dict]:
    """An Argo CD source's values over its chart's defaults (module docstring), or None when the run lacks some."""
    from policies.reading.helm_values import merged_values, set_value
    from policies.reading.helmfile import values_mapping

    values: dict = {}
    files = helm.get("valueFiles")
    for entry in (files if isinstance(files, list) else [])[:_ENTRIES]:
        if not isinstance(entry, str) or "://" in entry or entry.startswith("$") or "{{" in entry:
            return None
        path = os.path.normpath(os.path.join(root, entry))
        data = values_mapping(path) if os.path.isfile(path) and within_run(path) else None
        if data is None:
            return None
        values = merged_values(values, data)
    if helm.get("values") and not isinstance(helm.get("valuesObject"), Mapping):
        # "valuesObject trumps values - therefore values will be ignored" (argo-cd docs/user-guide/helm.md:410@v3.5.1)
        text = _text(helm["values"])
        if text is None:
            return None
        values = merged_values(values, text)
    if isinstance(helm.get("valuesObject"), Mapping):
        values = merged_values(values, helm["valuesObject"])
    parameters = helm.get("parameters")
    for item in (parameters if isinstance(parameters, list) else [])[:_ENTRIES]:
        if isinstance(item, Mapping) and isinstance(item.get("name"), str) and "value" in item:
            # --set, or --set-string with forceString (argo-cd util/helm/cmd.go:445-448@v3.5.1)
            set_value(values, item["name"], item["value"], string=item.get("forceString") is True)
    return values


def _argo(props: Mapping, roots: list[str]) -> list[tuple[str, dict, str, Any, str]]:
    """(chart folder, values, release name, namespace, label) of each source of an Application (or ApplicationSet
    template) that installs a chart folder of the run."""
    kind = props.get("kind")
    spec = _get(props, "spec", "template", "spec") if kind == "ApplicationSet" else props.get("spec")
    name = _get(props, "spec", "template", "metadata", "name") if kind == "ApplicationSet" else _get(props, "metadata", "name")
    if not isinstance(spec, Mapping):
        return []
    if spec.get("sourceHydrator"):
        return []  # the hydrated manifests are applied, not the dry source (argo-cd types.go:281-296@v3.5.1)
    # "When you specify the `sources` field, Argo CD will ignore the `source` (singular) field" (argo-cd
    # docs/user-guide/multiple_sources.md:9-10@v3.5.1; types.go:294-296 HasMultipleSources: len(sources) > 0).
    many = spec.get("sources")
    sources = many if isinstance(many, list) and many else [spec.get("source")]
    out = []
    for source in sources:
        if not isinstance(source, Mapping) or source.get("chart"):
            continue
        root = _chart_root(source.get("path"), roots)
        given = source.get("helm")
        helm: Mapping = given if isinstance(given, Mapping) else {}
        release = helm.get("releaseName") or name
        if root is None or _templated(release):
            continue
        values = _argo_values(helm, root)
        namespace = _get(spec, "destination", "namespace")
        if values is not None:
            out.append((root, values, str(release), namespace, f"Argo CD {kind} {name}: chart folder {source['path']}"))
    return out


def _flux_values(props: Mapping, config_maps: Mapping[tuple[Any, str], Mapping]) -> Optional[dict]:
    from policies.reading.helm_values import merged_values, set_value

    values: dict = {}
    namespace = _get(props, "metadata", "namespace")
    sources = _get(props, "spec", "valuesFrom")
    for ref in (sources if isinstance(sources, list) else [])[:_ENTRIES]:
        if not isinstance(ref, Mapping) or ref.get("kind") != "ConfigMap" or not isinstance(ref.get("name"), str):
            return None  # a Secret's values, or a reference not read: the run does not show them
        data = config_maps.get((namespace, ref["name"]))
        text = data.get(str(ref.get("valuesKey") or "values.yaml")) if isinstance(data, Mapping) else None
        if text is None:
            return None
        if isinstance(ref.get("targetPath"), str):
            set_value(values, ref["targetPath"], text, string=True)  # the ConfigMap's text, as read before
            continue
        loaded = _text(text)
        if loaded is None:
            return None
        values = merged_values(values, loaded)
    inline = _get(props, "spec", "values")
    return merged_values(values, inline) if isinstance(inline, Mapping) else values


def _flux(props: Mapping, roots: list[str], config_maps: Mapping) -> list[tuple[str, dict, str, Any, str]]:
    from policies.helm_charts import vendored_chart

    chart = _get(props, "spec", "chart", "spec")
    if not isinstance(chart, Mapping) or _get(chart, "sourceRef", "kind") not in _FOLDER_SOURCES:
        return []
    root = _chart_root(chart.get("chart"), roots)
    name, target = _get(props, "metadata", "name"), _get(props, "spec", "targetNamespace")
    release = _get(props, "spec", "releaseName") or (f"{target}-{name}" if isinstance(target, str) and target else name)
    if root is None or _templated(release):
        return []
    values = _flux_values(props, config_maps)
    if values is None or vendored_chart(props, str(chart.get("chart")), values) is not None:
        return []  # a copy of a published chart is read as that chart (policies/helm_charts.py vendored_chart)
    namespace = target or _get(props, "metadata", "namespace")
    return [(root, values, str(release), namespace, f"Flux HelmRelease {name}: chart folder {chart['chart']}")]


def _chart_roots(files: list[str]) -> list[str]:
    """The run's chart folders (policies/reading/chart_folders.py is_chart_folder): a Chart.yaml's folder, or the
    folder above a template's templates/ with a values file beside it."""
    from policies.reading.chart_folders import CHART_FILE, TEMPLATES, is_chart_folder

    folders = {os.path.abspath(os.path.dirname(f)) for f in files if os.path.basename(f) == CHART_FILE}
    folders |= {os.path.dirname(d) for f in files if os.path.basename(d := os.path.dirname(os.path.abspath(f))) == TEMPLATES}
    return sorted(f for f in folders if is_chart_folder(f))


def local_chart_releases(objects: list[Any], files: list[str], objects_of: Callable[..., list[Any]], counts: Any) -> list[Any]:
    """The objects (``objects_of(document, file, counts, label)``: policies.manifests' reading of one document) each
    Argo CD or Flux release of ``objects`` renders from a chart folder of the run (module docstring)."""
    releases = [o for o in objects if not o.chart and o.obj.get("kind") in ("Application", "ApplicationSet", "HelmRelease")]
    roots = _chart_roots(files) if releases else []
    if not roots:
        return []
    # Imported only for a release of a chart folder: a run with no template never loads the renderer (review56b).
    from policies.reading.gotemplate import UNKNOWN
    from policies.reading.helmfile import rendered_chart

    config_maps = {
        (_get(o.obj, "metadata", "namespace"), _get(o.obj, "metadata", "name")): o.obj.get("data")
        for o in objects
        if o.obj.get("kind") == "ConfigMap"
    }
    out: list[Any] = []
    done = 0
    for o in releases:
        found = _flux(o.obj, roots, config_maps) if o.obj["kind"] == "HelmRelease" else _argo(o.obj, roots)
        for root, values, release, namespace, label in found:
            done += 1
            if done > _RELEASES:
                return out
            namespace = namespace if isinstance(namespace, str) and "${" not in namespace and "{{" not in namespace else UNKNOWN
            for i, data in enumerate(rendered_chart(root, values, release, namespace)):
                out.extend(objects_of(Document(data, i, o.line), o.file, counts, label))
    return out


def _chart_of(source: Mapping) -> Optional[tuple[str, str]]:
    """(chart name, version or "") an OCIRepository or HelmChart names."""
    if source.get("kind") == "OCIRepository":
        url = _get(source, "spec", "url")
        if not isinstance(url, str) or not url.startswith("oci://"):
            return None
        ref = _get(source, "spec", "ref")
        version = "" if _get(ref, "digest") else _get(ref, "semver") or _get(ref, "tag") or ""
        return url.rstrip("/").rsplit("/", 1)[-1], str(version)
    chart = _get(source, "spec", "chart")
    return (chart, str(_get(source, "spec", "version") or "")) if isinstance(chart, str) else None


def chart_ref_sources(objects: list[Any]) -> dict[tuple[str, Any, str], Mapping]:
    """(kind, namespace or "", name) -> object of each Flux OCIRepository and HelmChart of ``objects`` (anything with
    ``obj``: a ManifestObject, or a Resource's props wrapped)."""
    return {
        (o.obj["kind"], _get(o.obj, "metadata", "namespace") or "", _get(o.obj, "metadata", "name")): o.obj
        for o in objects
        if o.obj.get("kind") in ("OCIRepository", "HelmChart")
        and str(o.obj.get("apiVersion", "")).startswith("source.toolkit.fluxcd.io/")
    }


def _ref_key(props: Mapping) -> Optional[tuple[str, Any, str]]:
    """(kind, namespace or "", name) of the source a HelmRelease's ``chartRef`` names, or that the pack's copy of one
    was read from (its CHART_REF annotation), or None."""
    noted = _get(props, "metadata", "annotations", CHART_REF)
    if isinstance(noted, str) and noted.count("/") == 2:
        kind, namespace, name = noted.split("/")
        return kind, namespace, name
    ref = _get(props, "spec", "chartRef")
    if not isinstance(ref, Mapping) or not isinstance(ref.get("name"), str):
        return None
    return str(ref.get("kind")), ref.get("namespace") or _get(props, "metadata", "namespace") or "", ref["name"]


def referenced_source(props: Mapping, sources: Mapping[tuple[str, Any, str], Mapping]) -> Optional[Mapping]:
    """The OCIRepository or HelmChart of ``sources`` a HelmRelease's ``chartRef`` names (or its copy was read from)."""
    key = _ref_key(props) if props.get("kind") == "HelmRelease" else None
    return sources.get(key) if key is not None else None


def source_pin(source: Mapping) -> tuple[str, str, Any]:
    """(chart name, field, version) of an OCIRepository or HelmChart, for G1: the version None when nothing pins it
    (an OCIRepository with no ``ref`` digest, semver or tag "defaults to the latest tag", ocirepository_types.go:64-65;
    a HelmChart's version "Defaults to latest when omitted", helmchart_types.go:38-42@v1.9.1), "" when it is pinned
    another way (a digest; a HelmChart of a GitRepository or Bucket, which ignores the version)."""
    found = _chart_of(source) or ("", "")
    if source.get("kind") == "OCIRepository":
        ref = _get(source, "spec", "ref")
        if _get(ref, "digest"):
            return found[0], "spec.ref.digest", ""
        if _get(ref, "semver"):
            return found[0], "spec.ref.semver", _get(ref, "semver")
        tag = _get(ref, "tag")
        return found[0], "spec.ref.tag", None if tag in (None, "", "latest") else tag
    if _get(source, "spec", "sourceRef", "kind") in _FOLDER_SOURCES:
        return found[0], "spec.version", ""
    return found[0], "spec.version", _get(source, "spec", "version")


def chart_ref_releases(objects: list[Any], replace: Callable[..., Any]) -> list[Any]:
    """``objects`` with each Flux HelmRelease whose ``chartRef`` names a source of the run that names a chart the
    pack reads replaced (``replace(object, obj=...)``) by a copy read as that chart's release (module docstring)."""
    if not any(o.obj.get("kind") == "HelmRelease" and _get(o.obj, "spec", "chartRef") for o in objects):
        return objects
    sources = chart_ref_sources(objects)
    out = []
    for o in objects:
        source = referenced_source(o.obj, sources) if o.obj.get("kind") == "HelmRelease" and not o.chart else None
        found = _chart_of(source) if source is not None else None
        shaped = isinstance(o.obj.get("spec"), Mapping) and isinstance(o.obj.get("metadata") or {}, Mapping)
        if found is None or not shaped or chart_named(found[0]) is None:  # a spec or metadata not a map: as written
            out.append(o)
            continue
        name, version = found
        spec = {k: v for k, v in o.obj["spec"].items() if k != "chartRef"}
        chart: dict = {"chart": name, "sourceRef": {"kind": "HelmRepository", "name": _get(source, "metadata", "name")}}
        if version:
            chart["version"] = version
        spec["chart"] = {"spec": chart}
        meta = dict(o.obj.get("metadata") or {})
        had = meta.get("annotations")
        meta["annotations"] = {
            **(had if isinstance(had, Mapping) else {}),
            CHART_REF: "/".join(str(p) for p in _ref_key(o.obj) or ()),
        }
        out.append(replace(o, obj={**o.obj, "metadata": meta, "spec": spec}))
    return out
