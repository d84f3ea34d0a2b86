"""The name a reader gives an object a chart template renders when the render cannot know its name.

A template read best-effort (policies/reading/helm_chart.py) renders with the chart's defaults and, unless a release
of the run names it, helm template's placeholder release ``release-name``; a helper the chart's files do not define
renders unknown (the name ``?``), and a values file that is itself a fill-in (Terraform's templatefile,
``modelSize: '${modelSize}'``) renders its fill-in. Findings under such names point at no object a reviewer knows, so
the object is named as a reader of the template names it:

- the release's name (``{{ .Release.Name }}``) and a fullname or name helper (``{{ include "vllm.fullname" . }}``,
  ``{{ template "vllm.vllm-openai.fullname" . }}``) as ``helm install CHART ./CHART`` names them: the chart's name, which
  the common fullname helper (``helm create``'s _helpers.tpl: a release name that contains the chart's name is used
  as it is) gives for the release named after the chart; ``{{ .Chart.Name }}`` is the chart's name;
- every other action kept as the template writes it (``deepseek-r1-{{ .Values.modelSize }}``: souhailsegni/Deepseek_R1_VLLM-EKS
  deepseek-vllm/modules/helm/deepseek-r1/templates/deployment.yaml, whose values.yaml holds ``'${modelSize}'``), as
  no install default fixes a value.

An object whose rendered name is known (a values default such as ``qwen3-0-6b``) keeps it; so does one whose template
states more than one name for its kind (a range, a condition: which document is which is not known).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Optional

from policies.chart_values import create_fullname

RELEASE_PLACEHOLDER = "release-name"  # helm_chart.RELEASE_NAME (not imported: helm_chart imports the renderer)

_DOCUMENT = re.compile(r"^---[^\n]*$", re.MULTILINE)
_KIND = re.compile(r"^kind:[ \t]*['\"]?([A-Za-z0-9]+)['\"]?[ \t]*(?:#.*)?$", re.MULTILINE)
_METADATA = re.compile(r"^metadata:[ \t]*$", re.MULTILINE)
_CHILD_NAME = re.compile(r"^([ \t]+)name:[ \t]*(.+?)[ \t]*$")
_ACTION = re.compile(r"\{\{-?\s*(.*?)\s*-?\}\}")
# The actions that are the release's or chart's name under `helm install CHART ./CHART`.
_CHART_NAMED = re.compile(
    r"^(?:\.Release\.Name|\$\.Release\.Name|\.Chart\.Name|\$\.Chart\.Name"
    r"|(?:include|template)\s+\"[^\"]*\.(?:fullname|name)\"\s+(?:\.|\$))$"
)
_HELPER = re.compile(r"^(?:include|template)\s+\"[^\"]*\.(fullname|name)\"")


def unknown_name(name: str) -> bool:
    """True when a rendered object's name rests on what the render cannot know: missing (``?``), helm template's
    placeholder release, or a rendering fill-in (``${...}``)."""
    return name == "?" or RELEASE_PLACEHOLDER in name or "${" in name


def template_names(text: str) -> dict[str, str]:
    """Kind -> the name text the template writes in its object's metadata, for the kinds it states exactly one
    name text for (``{{ ... }}`` actions normalised to one space inside the braces, no chomping dashes)."""
    found: dict[str, set[str]] = {}
    for document in _DOCUMENT.split(text):
        kind = _KIND.search(document)
        metadata = _METADATA.search(document)
        if kind is None or metadata is None:
            continue
        name = _metadata_name(document[metadata.end() :])
        if name is not None:
            found.setdefault(kind.group(1), set()).add(name)
    return {kind: next(iter(names)) for kind, names in found.items() if len(names) == 1}


def _metadata_name(block: str) -> Optional[str]:
    """The value of ``name:`` among the first-level keys of the metadata block starting ``block``."""
    indent = None
    for line in block.split("\n")[1:]:
        if not line.strip() or line.lstrip().startswith(("#", "{{")):
            continue
        width = len(line) - len(line.lstrip(" \t"))
        if width == 0:
            return None  # the next top-level key: metadata states no name
        if indent is None:
            indent = width
        m = _CHILD_NAME.match(line)
        if width == indent and m is not None:
            value = m.group(2).split(" #", 1)[0].strip().strip("'\"")
            return _ACTION.sub(lambda a: "{{ " + " ".join(a.group(1).split()) + " }}", value) or None
    return None


def reader_name(written: str, chart: str, override: str = "") -> str:
    """The name a reader gives an object whose template writes ``written`` as its name, in chart ``chart`` whose
    values set ``nameOverride`` to ``override`` ("" when they do not)."""
    # Only the fullname helper shortens a release name holding the chart's name (helm v3.16.4
    # pkg/chartutil/create.go:477 `contains $name .Release.Name`); a template that writes
    # `{{ .Release.Name }}-{{ .Chart.Name }}` itself gets CHART-CHART from helm install CHART ./CHART.
    return _ACTION.sub(lambda a: _action_name(a.group(1), chart, override) or a.group(0), written)


def _action_name(action: str, chart: str, override: str) -> str:
    """What one name action gives under ``helm install CHART ./CHART`` ("" for an action left as written): the
    helm create helpers (pkg/chartutil/create.go:463-483 at v3.16.4) take ``nameOverride`` in place of the chart's
    name, and fullname keeps the release's name alone only when it contains that name."""
    if not _CHART_NAMED.match(action):
        return ""
    helper = _HELPER.match(action)
    if helper is None or not override:
        return chart
    if helper.group(1) == "name":
        return override[:63].rstrip("-")
    return create_fullname(chart, override)


def reader_named(objects: list[Any], names: dict[str, str]) -> list[Any]:
    """``objects`` (policies.manifests.ManifestObject) of one rendered document, each whose rendered name the render
    cannot know renamed as its template's reader names it (``names``: kind -> name, from ``reader_names``)."""
    return [replace(o, named=names[o.kind]) if o.kind in names and unknown_name(o.name) else o for o in objects]


def reader_names(text: str, chart: str, values: Any = None) -> dict[str, str]:
    """Kind -> the reader's name of the object of that kind the template ``text`` of chart ``chart`` (its default
    values ``values``) writes."""
    if "{{" not in text:
        return {}
    override = values.get("nameOverride") if isinstance(values, dict) else None
    override = override if isinstance(override, str) else ""
    return {kind: reader_name(written, chart, override) for kind, written in template_names(text).items()}


def rendered_identity(data: Any) -> tuple[str, ...]:
    """apiVersion, kind and metadata.name of a rendered object (reprs: a rendered field may be of any type)."""
    if not isinstance(data, dict):
        return ("", "", "")
    meta = data.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    return (repr(data.get("apiVersion")), repr(data.get("kind")), repr(name))
