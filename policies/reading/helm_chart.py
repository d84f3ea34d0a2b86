"""A Helm chart's template read best-effort: the chart found, its values.yaml applied, the text rendered.

`policies check` meets chart templates (`{{ .Values.image.tag }}`) in repositories that deploy model servers from a
chart. Rather than skip them, the reader (policies/manifests.py, which imports this module only when a file holds
a template action) renders each one here with the chart's own defaults, as `helm template` would with no values
file and no `--set`:

- the chart: the nearest ``Chart.yaml`` among the template's folder and its ancestors (no higher than the folder
  the check was pointed at, or the template's folder's parent for a file named alone), with ``values.yaml`` beside
  it (none: empty values) and the ``define``s of the chart's ``templates/*.tpl`` files (``_helpers.tpl``); with no
  Chart.yaml in reach, the folder holding the template's ``templates/`` folder and a values file (``headless_root``:
  a chart copied without its Chart.yaml, named for its folder, version and appVersion unknown);
- the chart's other values files beside Chart.yaml (``values-<name>.yaml``: ``values_variants``), each merged over
  values.yaml as ``helm template -f`` merges it: policies/manifests.py adds the objects only such a file renders;
- the built-in objects: ``.Values``, ``.Chart`` (Chart.yaml's fields, capitalised as Helm does), ``.Release``
  (a helmfile release's name and namespace where one of the run names the chart, policies/reading/helmfile.py:
  quickbeard/llm-serving-helm@ece636eb helmfile.yaml installing charts/vllm as release ``vllm``; else ``release-name``,
  helm template's own (helm v3.16.4 cmd/helm/template.go:90), namespace unknown: the chart's name would join its
  objects to a repository's plain manifests of the same app, offered as another way to deploy it), ``.Capabilities``
  (the built-in API groups only, as helm template assumes; Kubernetes v1.31.0), ``.Template``; ``.Files`` is unknown.

Every value the chart does not determine is UNKNOWN in the parsed objects (policies.framework.UNKNOWN: checks pass
over it), and everything found in a template is advice (policies.framework: a values file or `--set` changes what
is deployed). A template that cannot be rendered (policies.reading.gotemplate.CannotRender) is reported as before.
"""

from __future__ import annotations

import copy
import os
import re
from dataclasses import dataclass, field
from typing import Any, Optional

from components.loading import MANIFESTS, LoadError, load_yaml, load_yaml_documents, read_bounded
from policies.chart_values import coalesced
from policies.framework import UNKNOWN
from policies.reading.chart_folders import CHART_FILE, VALUES_FILE, is_chart_folder, values_variants
from policies.reading.chart_folders import has_values as _has_values
from policies.reading.go_format import helm_numbers
from policies.reading.gotemplate import PLACEHOLDER, CannotRender, HelmObject, Node, Renderer, parse
from policies.reading.gotemplate import UNKNOWN as GT_UNKNOWN
from policies.reading.helm_funcs import functions, required_stops

# The Kubernetes version `.Capabilities.KubeVersion` reports, and the API groups `.Capabilities.APIVersions.Has`
# answers true for: helm template's defaults know the built-in APIs only (helm v3.16.0 pkg/chartutil/capabilities.go
# DefaultCapabilities), so a chart's `if .Capabilities.APIVersions.Has "monitoring.coreos.com/v1"` renders false.
KUBE_VERSION = "v1.31.0"
_BUILTIN_GROUPS = (
    "v1",
    "apps/v1",
    "batch/v1",
    "autoscaling/v1",
    "autoscaling/v2",
    "policy/v1",
    "networking.k8s.io/v1",
    "rbac.authorization.k8s.io/v1",
    "storage.k8s.io/v1",
    "scheduling.k8s.io/v1",
    "coordination.k8s.io/v1",
    "discovery.k8s.io/v1",
    "admissionregistration.k8s.io/v1",
    "apiextensions.k8s.io/v1",
)


@dataclass
class Chart:
    """One chart: its folder, Chart.yaml's fields, values.yaml (path "" when absent) and the helpers' defines."""

    root: str
    meta: dict
    values: dict
    values_file: str
    defines: dict[str, list[Node]] = field(default_factory=dict)
    problem: str = ""  # why the chart itself cannot be used (Chart.yaml or values.yaml unreadable)
    # The chart's other values files (values-gpu.yaml, prod-values.yaml beside Chart.yaml), each merged over values.yaml
    # as `helm template -f FILE` merges it: (path, merged values).
    variants: list[tuple[str, dict]] = field(default_factory=list)
    rendered: bool = False  # a template of the run rendered with it: its Chart.yaml and values files were read as its

    @property
    def name(self) -> str:
        """The chart's name (Chart.yaml ``name``, else its folder's)."""
        name = self.meta.get("name")
        return name if isinstance(name, str) and name else os.path.basename(self.root)


def _mapping(path: str) -> dict:
    data = load_yaml(path, MANIFESTS, text=read_bounded(path, MANIFESTS))
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise LoadError(path, "is not a mapping")
    return data


_HEADLESS_META = {"version": GT_UNKNOWN, "appVersion": GT_UNKNOWN}


def load_chart(root: str, top: Optional[str] = None) -> Chart:
    """The chart at ``root``; a Chart.yaml or values.yaml that cannot be read is recorded in ``problem``. With ``top``
    (the folder checked), a chart with no values file of its own takes one kept above it (``outside_values``)."""
    try:
        chart_file = os.path.join(root, CHART_FILE)
        # No Chart.yaml (headless_root): the folder's name, and a version and appVersion the files do not give.
        meta = _mapping(chart_file) if os.path.isfile(chart_file) else dict(_HEADLESS_META, name=os.path.basename(root))
        values_path = os.path.join(root, VALUES_FILE)
        if not _has_values(root) and top is not None:
            values_path = outside_values(root, top) or values_path
        has_values = os.path.isfile(values_path)
        values = _mapping(values_path) if has_values else {}
    except LoadError as exc:
        return Chart(root, {}, {}, "", problem=str(exc))
    # Every number of values.yaml is a float64 in Helm (policies/reading/go_format.py): 1048576 prints 1.048576e+06.
    chart = Chart(root, meta, helm_numbers(values), values_path if has_values else "")
    for path in values_variants(root):
        try:
            chart.variants.append((path, helm_numbers(coalesced(values, _mapping(path)))))
        except LoadError:
            continue  # a values file that cannot be read renders nothing of its own
    # Helm shares every chart's defines with all templates of the release, a vendored subchart's (the `common`
    # library chart under charts/) too, and a define may sit in any template file, not only _helpers.tpl.
    for path in _template_files(root):
        found: dict[str, list[Node]] = {}
        try:
            parse(read_bounded(path, MANIFESTS), found)
        except (LoadError, CannotRender):
            continue  # a file the engine cannot read: what includes its defines renders as unknown
        chart.defines.update(found)
    return chart


_VALUES_KEY = re.compile(r"\$?\.Values\.([A-Za-z_][A-Za-z0-9_]*)")


# A helmfile beside a values.yaml (policies/reading/helmfile.py _NAMES, and a helmfile.d folder).
_HELMFILES = ("helmfile.yaml", "helmfile.yml", "helmfile.yaml.gotmpl", "helmfile.yml.gotmpl", "helmfile.d")


def outside_values(root: str, top: str) -> Optional[str]:
    """The values file a chart with none of its own is installed with when the repository keeps it above the chart:
    the nearest ``values.yaml`` in a folder between the chart's parent and ``top`` that is no chart's own (no
    Chart.yaml or templates/ folder beside it) nor a helmfile's (whose releases say which chart gets it), holding at least half of the top-level ``.Values`` keys the chart's
    templates read (and one at least). Spent set 124 louis030195/text-generation-inference-helm@f4f30d8e: the chart
    charts/text-generation-inference ships no values.yaml, and the repository's root values.yaml gives its
    ``models`` list, ``image`` and ``ingress``, as ``helm install -f values.yaml`` would. None when nothing fits."""
    wanted: set[str] = set()
    for path in _template_files(root):
        try:
            wanted.update(_VALUES_KEY.findall(read_bounded(path, MANIFESTS)))
        except LoadError:
            continue
    folder, limit = os.path.dirname(os.path.abspath(root)), os.path.abspath(top)
    while wanted and (folder == limit or folder.startswith(limit.rstrip(os.sep) + os.sep)):
        path = os.path.join(folder, VALUES_FILE)
        if os.path.isfile(path):
            if is_chart_folder(folder):  # (a values.yaml beside templates/ is a chart's: chart_folders.py)
                return None  # another chart's own values
            if any(os.path.exists(os.path.join(folder, n)) for n in _HELMFILES):
                return None  # a helmfile's: its releases name the files each chart gets (read there), review57c
            try:
                keys = set(_mapping(path))
            except LoadError:
                return None
            common = len(wanted & keys)
            return path if common and 2 * common >= len(wanted) else None
        if folder == limit:
            return None
        folder = os.path.dirname(folder)
    return None


# Another values file of the chart's folder: values-<name>, values.<name>, <name>-values or <name>.values (.yaml/.yml).
# Bounds on the files searched for defines: a chart and its vendored subcharts, not a whole repository.
MAX_DEFINE_FILES = 400
_DEFINE_SUFFIXES = (".tpl", ".yaml", ".yml")


def _template_files(root: str) -> list[str]:
    """The template files of the chart at ``root`` and of the subcharts unpacked under its charts/ folder, the
    subcharts' first (the parent's defines win), at most MAX_DEFINE_FILES."""
    found: list[str] = []
    subcharts = os.path.join(root, "charts")
    if os.path.isdir(subcharts):
        for name in sorted(os.listdir(subcharts)):
            sub = os.path.join(subcharts, name)
            if os.path.isfile(os.path.join(sub, CHART_FILE)) and not os.path.islink(sub):
                found.extend(_template_files(sub))
    templates = os.path.join(root, "templates")
    for folder, dirs, files in os.walk(templates, followlinks=False):
        dirs.sort()
        found.extend(os.path.join(folder, f) for f in sorted(files) if f.endswith(_DEFINE_SUFFIXES))
    return found[:MAX_DEFINE_FILES]


def _context(chart: Chart, file: str, release: Optional[tuple[str, Any]] = None) -> dict:
    if release is None:  # no release object of the run names it: helm template's name, namespace unknown
        release = (RELEASE_NAME, GT_UNKNOWN)
    meta = {k[:1].upper() + k[1:]: v for k, v in chart.meta.items() if isinstance(k, str)}
    rel = os.path.relpath(os.path.abspath(file), os.path.dirname(chart.root))
    apis = HelmObject(Has=lambda version: version in _BUILTIN_GROUPS)
    kube = HelmObject(Version=KUBE_VERSION, GitVersion=KUBE_VERSION, Major="1", Minor="31")
    return {
        "Values": chart.values,
        "Chart": meta,
        "Release": {
            "Name": release[0],
            # The namespace `helm install -n` gives: unknown unless a release object names it, and a rendered
            # metadata.namespace that is only the release's is dropped (settled), as the object then lands there.
            "Namespace": release[1],
            "Service": "Helm",
            "IsInstall": True,
            "IsUpgrade": False,
            "Revision": 1,
        },
        "Capabilities": HelmObject(APIVersions=apis, KubeVersion=kube, HelmVersion=HelmObject(Version="v3.16.0")),
        "Template": {"Name": rel, "BasePath": os.path.join(chart.name, "templates")},
        "Files": GT_UNKNOWN,  # the chart's other files are not read: what they hold is unknown
    }


UNKNOWN_NAMESPACE = GT_UNKNOWN
RELEASE_NAME = "release-name"  # helm v3.16.4 cmd/helm/template.go:90, `helm template CHART` with no NAME


def render(
    file: str,
    text: str,
    chart: Chart,
    values: Optional[dict] = None,
    release: Optional[tuple[str, Any]] = None,
    missing: Optional[set] = None,
    trace: Optional[list] = None,
) -> str:
    """The template's text rendered with the chart's defaults, or with ``values`` (one of its ``variants``, or a
    release's: ``release`` its name and namespace, else the chart's name and an unknown namespace) (CannotRender when
    it cannot be). ``missing``, when given, receives the helpers the template includes that the chart does not define
    (each rendered as an unknown value: a chart copied without its _helpers.tpl); ``trace``, when given, the Trace of
    which values path produced each stretch of the text (policies/reading/value_trace.py; nothing is traced without)."""
    if chart.problem:
        raise CannotRender(f"its chart cannot be read ({chart.problem})")
    defines = dict(chart.defines)
    nodes = parse(text, defines)
    table = functions()
    if values is None and not chart.values_file:
        table["required"] = required_stops  # no values file: what the defaults leave out is not known to be absent
    renderer = Renderer(table, defines)
    # Values are copied so `set`/`merge` in one template change nothing another template sees.
    given = chart.values if values is None else values
    own = Chart(chart.root, chart.meta, copy.deepcopy(given), chart.values_file, chart.defines)
    context = _context(own, file, release)
    if trace is not None:
        from policies.reading.value_trace import Trace

        renderer.trace = Trace.over(context)
        trace.append(renderer.trace)
    out = renderer.render(nodes, context)
    if missing is not None:
        missing.update(renderer.missing)
    return out


def missing_note(missing: set[str]) -> str:
    """What the S27 line of a rendered template (policies/manifests.py) says of the helpers it includes that its
    chart does not define (``render``'s ``missing``)."""
    if not missing:
        return ""
    names = sorted(missing)
    shown = ", ".join(n[:80] for n in names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
    return (
        f" (the chart's files read define no {shown}, which it includes: a chart copied in part, its helpers left "
        "out; what they give is unknown, and no rule reads it)"
    )


# A line that is only an unknown block (an include the chart does not define, `| nindent N`) right under a key that
# holds string pairs (or an object's metadata, which holds such maps): it becomes an entry whose key holds the
# placeholder, which `unknowns` drops, so the labels or annotations the chart does state are still read. Under any
# other key (a pod spec, a container) it stays, the text is not YAML, and the file is reported as before: dropping an
# unknown block there would make the fields it may set look absent.
_PAIRS_KEYS = ("metadata", "labels", "annotations", "matchLabels", "nodeSelector", "podLabels", "podAnnotations")
_BARE = re.compile(r"^([ \t]+)" + re.escape(PLACEHOLDER) + r"[ \t]*$")


def repaired(text: str) -> str:
    """``text`` with unknown blocks under labels, annotations and selectors written as droppable entries."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        m = _BARE.match(line)
        if m is None:
            continue
        indent = len(m.group(1))
        parent = next(
            (x for x in reversed(lines[:i]) if x.strip() and not x.lstrip().startswith("#") and _indent_of(x) < indent), ""
        )
        if parent.rstrip().endswith(":") and parent.strip().rstrip(":") in _PAIRS_KEYS:
            lines[i] = f"{m.group(1)}{PLACEHOLDER}-{i}: {PLACEHOLDER}"
    return "\n".join(lines)


def _indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


# The sections of a container, or of a pod spec, whose absence rules report (a memory limit, a probe, a mount): a
# rendered section the chart does not determine as a whole (`resources: {{ include "x.resources" . | nindent 12 }}`
# with the helper left out, or `{{ required "..." .Values.resources | toYaml }}` its values.yaml leaves to the
# deployer) reads as no section to them (kube.get), so such a template is reported as before, as repaired() leaves an
# unknown block under a container (review56b).
_SECTIONS = frozenset(
    ("resources", "readinessProbe", "livenessProbe", "startupProbe", "securityContext", "volumeMounts", "volumes")
    + ("env", "envFrom", "lifecycle", "affinity", "tolerations", "nodeSelector")
)


def hides_section(docs: list[Any]) -> None:
    """CannotRender when a rendered document's container or pod spec holds a section that is only an unknown value."""
    for doc in docs:
        section = _hidden(getattr(doc, "data", None), 0)
        if section:
            raise CannotRender(f"its {section} is a value the chart does not determine, which rules would read as absent")


def documents(shown: str, limits: Any, text: str) -> list[Any]:
    """A rendered template's documents (its repaired() text when it does not parse as it is); CannotRender when one
    hides a section (hides_section)."""
    try:
        docs = load_yaml_documents(shown, limits, text=text, track_lines=0)
    except LoadError:
        docs = load_yaml_documents(shown, limits, text=repaired(text), track_lines=0)
    hides_section(docs)
    return docs


def _hidden(value: Any, depth: int) -> str:
    if depth > 40:
        return ""
    if isinstance(value, list):
        return next((found for v in value if (found := _hidden(v, depth + 1))), "")
    if not isinstance(value, dict):
        return ""
    if "containers" in value or "image" in value:
        for key in _SECTIONS.intersection(k for k in value if isinstance(k, str)):
            if isinstance(value[key], str) and PLACEHOLDER in value[key]:
                return key
    return next((found for v in value.values() if (found := _hidden(v, depth + 1))), "")


def settled(value: Any) -> Any:
    """A rendered document as the checks read it: unknown parts as framework.UNKNOWN (``unknowns``), and a
    metadata.namespace that is only the release's dropped."""
    data = unknowns(value)
    meta = data.get("metadata") if isinstance(data, dict) else None
    if isinstance(meta, dict) and meta.get("namespace") is UNKNOWN:
        del meta["namespace"]
    return data


def unknowns(value: Any, depth: int = 0) -> Any:
    """The parsed object with every string that holds the placeholder as framework.UNKNOWN, and mapping entries whose
    key holds it dropped (a field the chart does not name is no field)."""
    if depth > 200:
        return value
    if isinstance(value, str):
        return UNKNOWN if PLACEHOLDER in value else value
    if isinstance(value, dict):
        return {k: unknowns(v, depth + 1) for k, v in value.items() if not (isinstance(k, str) and PLACEHOLDER in k)}
    if isinstance(value, list):
        return [unknowns(v, depth + 1) for v in value]
    return value
