"""A helmfile's releases read as the charts they install, with the values helmfile gives them.

helmfile (helmfile/helmfile docs/configuration.md@v1.7.4, "releases:") joins a chart to its values outside any values
file: ``repositories[]`` (``name``, ``url``), and per release ``name``, ``namespace``, ``chart`` (``repo/name`` of a
repository above, an ``oci://`` reference, or a folder relative to the helmfile: docs/configuration.md:174,310),
``version`` ("the semver of the chart. range constraint is supported", :175), ``values`` (files "passed via
--values" and inline maps, later ones winning, :183-199) and ``set``/``setString`` (``--set``, :201-227). The files
read as helmfiles are ``helmfile.yaml``/``.yml`` (also ``.gotmpl``) and those of a ``helmfile.d`` folder; their
``{{ }}`` actions are fill-ins (a line that is only actions, ``{{ if }}``/``{{ end }}``, is dropped; a values path
holding one matches the run's files it may name, ``values/{{ .Environment.Name }}.yaml``: one release per file).

Each release is read as the pack reads a release object:

- a chart published elsewhere: the synthetic HelmRelease policies/values_files.py makes of a values file
  (``spec.chart.spec.chart``/``version``, ``spec.values``), so every release rule reads it (G1 on its version:
  policies/k8s_generic/chart_version_pinned.py);
- a chart folder of the run: each of its templates rendered (policies/reading/helm_chart.py) with the release's values
  over the chart's values.yaml, its name as ``.Release.Name`` and its namespace.

Findings sit on the one values file the release is given when it has one (what they are about), else on the helmfile.
``environments:`` values go to helmfile's own templating (``.Values``/``.Environment.Values`` in the helmfile and its
``.gotmpl`` values files: docs/environments.md:5,38@v1.7.4), never to a chart: helm is given the release's ``values``
alone (pkg/state/state.go:5023-5035 ``generateVanillaValuesFiles``, from ``release.Values``). A release with no values
of its own renders with the chart's defaults, even beside an environment values file named for it (review57); the
environment files are the helmfile's, read with it (not as a chart's values file). A ``values`` entry that writes them
out (``- {{ toYaml .Values | nindent 4 }}``: docs/writing-helmfile.md:454@v1.7.4) gives the chart each environment's
values (review57h). Everything read here is advice (a rendered or joined release).
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Mapping
from typing import Any, Callable, Optional

from components.loading import MANIFESTS, Document, LoadError, load_yaml, load_yaml_documents, read_bounded
from policies.reading.helm_values import merged_values, set_value
from policies.reading.run_bounds import within_run
from policies.values_files import READ_FROM

_NAMES = frozenset({"helmfile.yaml", "helmfile.yml", "helmfile.yaml.gotmpl", "helmfile.yml.gotmpl"})
GOTMPL = ".gotmpl"
_MARK = "\x00"  # an action while the text is scanned: a character no YAML text holds (removed from the input first)
_FILL_IN = "${helmfile_fill_in}"  # policies/reading/placeholders.py HELMFILE_FILL_IN: a fill-in for every rule
_MATCHES = 8  # files a templated values path may name, each its own release: bounded
_RELEASES = 64
_FILL_INS = 2  # fill-ins a values path may hold and still be matched against the run's files
_ENTRIES = 16  # values entries read per release
_TEMPLATE_SUFFIXES = (".yaml", ".yml")
# what gives a release values (docs/configuration.md@v1.7.4 "releases:"; ``inherit`` names a ``templates:`` entry)
# an action that writes helmfile's values out as YAML (``{{ toYaml .Values | nindent 6 }}``, ``{{ .Environment.Values.vllm
# | toYaml | nindent 8 }}``; ``.StateValues`` the same: docs/index.md@v1.7.4): kept as ``_VALUES_AT`` + its path so a
# release's ``values`` entry made of one is given the environments' values (anything else it stays a fill-in)
_TO_YAML = re.compile(
    r"(?<=[-:][ \t])\{\{-?[ \t]*(?:toYaml[ \t]+\.(?:Environment\.|State)?Values((?:\.\w+)*)"
    r"|\.(?:Environment\.|State)?Values((?:\.\w+)*)[ \t]*\|[ \t]*toYaml)[ \t]*(?:\|[ \t]*n?indent[ \t]+\d+[ \t]*)?-?\}\}"
)
_VALUES_AT = _FILL_IN + "@values"
_AT = re.compile(re.escape(_VALUES_AT) + r"((?:\.\w+)*)")
_GIVES_VALUES = ("values", "set", "setString", "secrets", "valuesTemplate", "setTemplate", "inherit")
_VALUES_SUFFIXES = (".yaml", ".yml", ".json", GOTMPL)  # what a values entry may name: never another kind of file


def is_helmfile(path: str, folder: str = "") -> bool:
    """True for a helmfile (``path`` in ``folder``, or a whole path): ``helmfile.yaml`` (``.yml``, ``.gotmpl``) or a YAML
    file of a ``helmfile.d`` folder."""
    base = os.path.basename(path)
    if base in _NAMES:
        return True
    parent = os.path.basename(folder or os.path.dirname(path))
    return parent == "helmfile.d" and base.endswith((".yaml", ".yml", ".yaml.gotmpl", ".yml.gotmpl"))


def _marked(text: str) -> str:
    """``text`` with each ``{{ ... }}`` action (the first ``}}`` after its ``{{``) as one ``_MARK``, in one pass: a
    regular expression backtracked exponentially on a line of many actions and re-scanned the rest of the text for each
    unclosed ``{{`` (review56a). An unclosed action is left as text, as helmfile refuses it."""
    out: list[str] = []
    at = 0
    while (start := text.find("{{", at)) >= 0 and (end := text.find("}}", start + 2)) >= 0:
        out += (text[at:start], _MARK)
        at = end + 2
    out.append(text[at:])
    return "".join(out)


def _scrubbed(text: str) -> str:
    """The helmfile's text with its template actions as fill-ins: lines of actions alone emptied (``{{ if }}``,
    ``{{ end }}``), others a ``${}``."""
    if "{{" not in text:
        return text
    text = _TO_YAML.sub(lambda m: _VALUES_AT + (m.group(1) or m.group(2) or ""), text.replace(_MARK, ""))
    lines = _marked(text).split("\n")
    return "\n".join("" if _MARK in line and not line.replace(_MARK, "").strip(" \t") else line for line in lines).replace(
        _MARK, _FILL_IN
    )


class TemplateUnread(LoadError):
    """A templated helmfile the pack cannot read as YAML once its actions are fill-ins: advice (S27's "template"), as
    helmfile may well render it; an untemplated one stays a LoadError, YAML helmfile cannot read either."""

    kind = "template"


def _documents(file: str, text: str) -> list[Mapping]:
    """The helmfile's YAML documents (LoadError, or TemplateUnread, when they cannot be read: reported, review56a)."""
    try:
        docs = load_yaml_documents(file, MANIFESTS, text=_scrubbed(text), track_lines=0)
    except LoadError as exc:
        if "{{" not in text:
            raise
        why = f"a helmfile template whose {{{{ }}}} actions, as fill-ins, leave text that is not YAML ({exc.problem})"
        raise TemplateUnread(file, f"{why}; its releases were not read") from exc
    return [d.data for d in docs if isinstance(d.data, Mapping)]


def values_mapping(path: str) -> Optional[Mapping]:
    """The mapping a values file holds (its ``{{ }}`` actions as fill-ins), or None."""
    try:
        data = load_yaml(path, MANIFESTS, text=_scrubbed(read_bounded(path, MANIFESTS)))
    except (LoadError, OSError, ValueError):
        return None
    return data if isinstance(data, Mapping) else None


def _files(entry: str, folder: str) -> list[str]:
    """The run's files a values entry names: the path, or each file its fill-ins may stand for (bounded)."""
    if _FILL_IN not in entry:
        path = os.path.normpath(os.path.join(folder, entry))
        return [path] if path.endswith(_VALUES_SUFFIXES) and os.path.isfile(path) and within_run(path) else []
    if entry.count(_FILL_IN) > _FILL_INS or ".." in entry.split("/"):
        return []  # a path made mostly of fill-ins, or one that climbs out of the helmfile's folder: not searched
    pattern = glob.escape(os.path.join(folder, entry)).replace(_FILL_IN, "*")
    found = (
        os.path.normpath(p)
        for p in glob.glob(pattern)
        if p.endswith(_VALUES_SUFFIXES) and os.path.isfile(p) and within_run(p) and not is_helmfile(p)
    )
    return sorted(found)[:_MATCHES]


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _given(data: Any, environment: Mapping) -> Any:
    """``data`` with each ``{{ toYaml .Values... }}`` (``_VALUES_AT``) as the environment's values at its path (null
    where it has none, as toYaml writes a missing value)."""
    if isinstance(data, str) and (found := _AT.fullmatch(data)):
        here: Any = environment
        for key in found.group(1).split(".")[1:]:
            here = here.get(key) if isinstance(here, Mapping) else None
        return here
    if isinstance(data, Mapping):
        return {k: _given(v, environment) for k, v in data.items()}
    return [_given(v, environment) for v in data] if isinstance(data, list) else data


def _uses_environment(data: Any) -> bool:
    if isinstance(data, str):
        return _AT.fullmatch(data) is not None
    if isinstance(data, Mapping):
        return any(_uses_environment(v) for v in data.values())
    return any(_uses_environment(v) for v in data) if isinstance(data, list) else False


def _values(release: Mapping, folder: str, environments: list[dict]) -> list[tuple[dict, str, list[str]]]:
    """(values, the one file they come from or "", files read) for each way the release's values entries resolve: a
    templated path that names several files of the run gives one each; entries that write helmfile's values out
    (``- {{ toYaml .Values | nindent 6 }}``, ``image: {{ .Values.image | toYaml | nindent 8 }}``) one for each
    environment's values (helmfile renders the release's ``values`` with the chosen environment's: docs/environments.md
    @v1.7.4, "Environment Values"; none defined: empty)."""
    entries = _list(release.get("values"))[:_ENTRIES]
    if not _uses_environment(entries):
        return _values_of(release, folder, entries)
    out: list[tuple[dict, str, list[str]]] = []
    for environment in environments or [{}]:
        for run in _values_of(release, folder, _given(entries, environment)):
            out.extend([run] if run not in out else [])
    return out[:_MATCHES]


def _values_of(release: Mapping, folder: str, entries: list) -> list[tuple[dict, str, list[str]]]:
    choices: list[list[Any]] = []
    for entry in entries:
        if isinstance(entry, Mapping):
            choices.append([dict(entry)])
        elif isinstance(entry, str):
            found = _files(entry, folder)
            if found:
                choices.append(found)
    runs: list[list[Any]] = [[]]
    for options in choices:  # one release per file of a templated entry; more than one such entry: its first file
        runs = [[*run, o] for run in runs for o in (options if len(runs) == 1 else options[:1])]
    out = []
    for run in runs[:_MATCHES]:
        values: dict = {}
        files = [e for e in run if isinstance(e, str)]
        for entry in run:
            data = values_mapping(entry) if isinstance(entry, str) else entry
            values = merged_values(values, data) if isinstance(data, Mapping) else values
        for key in ("set", "setString"):
            for item in _list(release.get(key)):
                if isinstance(item, Mapping) and isinstance(item.get("name"), str) and item.get("value") not in (None, ""):
                    # --set, or --set-string for setString (pkg/state/state.go:5186-5233 setFlags/setStringFlags@v1.7.4;
                    # an empty value passes no flag): helm types the one, keeps the other text
                    set_value(values, item["name"], item["value"], string=key == "setString")
        only = files[0] if len(files) == 1 and len(run) == 1 and not release.get("set") else ""
        out.append((values, only, files))
    return out


def _environment_files(docs: list[Mapping], folder: str) -> list[str]:
    out: list[str] = []
    for doc in docs:
        envs = doc.get("environments")
        for env in envs.values() if isinstance(envs, Mapping) else ():
            entries = env.get("values") if isinstance(env, Mapping) else None
            for entry in entries if isinstance(entries, list) else []:
                out.extend(_files(entry, folder) if isinstance(entry, str) else [])
    return out


def _environment_values(docs: list[Mapping], folder: str) -> list[dict]:
    """Each environment's values as the pack can read them (inline maps and the run's files, later ones winning)."""
    out: list[dict] = []
    for doc in docs:
        envs = doc.get("environments")
        for env in envs.values() if isinstance(envs, Mapping) else ():
            values: dict = {}
            for entry in _list(env.get("values") if isinstance(env, Mapping) else None)[:_ENTRIES]:
                for data in (
                    [entry]
                    if isinstance(entry, Mapping)
                    else map(values_mapping, _files(entry, folder) if isinstance(entry, str) else [])
                ):
                    values = merged_values(values, data) if isinstance(data, Mapping) else values
            out.append(values)
    return out


def _installed(release: Mapping, environments: list[dict]) -> bool:
    """False for a release helmfile does not install: ``installed: false`` (pkg/state/release.go:251-253 ``Desired``)
    or a ``condition`` (``foo.enabled``, or ``true``/``false``) no environment's values set to true: helmfile installs
    it only when the value at that path is the boolean true (pkg/state/state.go:3488-3530 ``ConditionEnabled``, all
    @v1.7.4). An environment whose value there is a fill-in may enable it: read."""
    if release.get("installed") is False:
        return False
    condition = release.get("condition")
    if not isinstance(condition, str) or not condition:
        return True
    if condition.lower() in ("true", "false") or _FILL_IN in condition:
        return condition.lower() != "false"
    keys = condition.split(".")
    for values in environments:
        here: Any = values
        for key in keys:
            here = here.get(key) if isinstance(here, Mapping) else None
        if here is True or isinstance(here, str) and _FILL_IN in here:
            return True
    return False


def _local_chart(chart: str, folder: str) -> Optional[str]:
    """The chart folder a release names (a path: ``./charts/x``, ``../charts/x``, ``charts/x/y``), "" when it is no
    chart folder of the run, None for a published chart (``repo/name``, ``oci://``)."""
    if "://" in chart:
        return None
    from policies.reading.chart_folders import has_chart_file, is_chart_folder

    root = os.path.normpath(os.path.join(folder, chart))
    if not within_run(root):
        return ""  # a chart folder outside what the run checks (policies/reading/run_bounds.py): not the run's
    # ``charts/vllm`` is a repo/name to helmfile (pkg/state/util.go:18-33 isLocalChart@v1.7.4), which hands it to helm
    # as written; helm installs a path that exists before it looks for a repository (helm v3.16.4
    # pkg/action/install.go:748-759 LocateChart): the run's chart folder of that name is the chart (review56a).
    if not chart.startswith((".", "/")) and chart.count("/") == 1 and not has_chart_file(root):
        return None
    return root if is_chart_folder(root) else ""


def _release_object(release: Mapping, name: str, values: dict, how: str) -> dict:
    chart = str(release["chart"])
    spec: dict = {"chart": chart.rstrip("/").rsplit("/", 1)[-1]}
    version = release.get("version")
    if isinstance(version, (str, int, float)) and str(version):
        spec["version"] = str(version)
    meta: dict = {"name": name, "annotations": {READ_FROM: f"helmfile release {name} of the {spec['chart']} chart{how}"}}
    if isinstance(release.get("namespace"), str) and "${" not in release["namespace"]:
        meta["namespace"] = release["namespace"]
    return {
        "apiVersion": "helm.toolkit.fluxcd.io/v2",
        "kind": "HelmRelease",
        "metadata": meta,
        "spec": {"chart": {"spec": spec}, "values": values},
    }


def rendered_chart(root: str, values: Optional[dict], name: str, namespace: Any) -> list[dict]:
    """The objects the chart folder's templates render with ``values`` over its values.yaml, as release ``name``;
    ``values`` None for a release given none: the chart's defaults, so an unmet ``required`` of a chart with no values
    file stops the template as it stops helm (policies/reading/helm_chart.py render)."""
    from policies.chart_values import coalesced
    from policies.reading import helm_chart

    chart = helm_chart.load_chart(root)
    given = None if values is None else coalesced(chart.values, values)
    out: list[dict] = []
    templates = os.path.join(root, "templates")
    for here, dirs, files in os.walk(templates, followlinks=False):
        dirs.sort()
        for file in sorted(f for f in files if f.endswith(_TEMPLATE_SUFFIXES) and not f.startswith("_")):
            path = os.path.join(here, file)
            try:
                text = helm_chart.render(path, read_bounded(path, MANIFESTS), chart, given, (name, namespace))
                docs = load_yaml_documents(path, MANIFESTS, text=helm_chart.repaired(text), track_lines=0)
                helm_chart.hides_section(docs)
            except (helm_chart.CannotRender, LoadError, OSError):
                continue
            except Exception:  # best-effort reading, as policies/manifests.py renders a template: never a crash
                if os.environ.get("LLM_SERVING_DEBUG"):
                    raise
                continue
            out.extend(d for d in (helm_chart.settled(doc.data) for doc in docs) if isinstance(d, dict))
    return out


def helmfile_objects(file: str, text: str) -> tuple[list[tuple[dict, str, str]], set[str]]:
    """(object, label, file it is reported on) for each release of the helmfile (see the module's docstring), and the
    values files those releases read (policies/manifests.py does not read them again as a chart's values file)."""
    docs = _documents(file, text)
    folder = os.path.dirname(file) or "."
    repos = {
        r["name"]: str(r.get("url") or "")
        for d in docs
        for r in _list(d.get("repositories"))
        if isinstance(r, Mapping) and isinstance(r.get("name"), str)
    }
    releases = [r for d in docs for r in _list(d.get("releases"))]
    environment = _environment_files(docs, folder)
    conditions = any(isinstance(r, Mapping) and "condition" in r for r in releases)
    environments = _environment_values(docs, folder) if conditions or "toYaml" in text else []
    out: list[tuple[dict, str, str]] = []
    claimed = {os.path.abspath(f) for f in environment}  # helmfile's own values: read here, no chart's
    for release in releases[:_RELEASES]:
        if not isinstance(release, Mapping) or not isinstance(release.get("chart"), str) or "${" in release["chart"]:
            continue
        name = release.get("name")
        if not isinstance(name, str) or "${" in name or not _installed(release, environments):
            continue
        runs = _values(release, folder, environments)
        how = ""
        root = _local_chart(release["chart"], folder)
        if root == "":
            continue  # a chart folder the run does not hold: nothing to render
        chart = release["chart"]
        if root is None and "/" in chart and "://" not in chart:
            repo = repos.get(chart.split("/", 1)[0], "")
            how = f" from {repo}" + how if repo else how
        for values, only, files in runs:
            claimed.update(os.path.abspath(f) for f in files)
            at = only or file
            shown = f" -f {os.path.relpath(only) if not os.path.isabs(file) else only}" if only else ""
            label = f"helmfile release {name}: chart {chart}{shown}"
            if root is None:
                out.append((_release_object(release, name, values, how), label, at))
                continue
            namespace = release.get("namespace") if isinstance(release.get("namespace"), str) else None
            if namespace is None or "${" in namespace:
                from policies.reading.gotemplate import UNKNOWN

                namespace = UNKNOWN
            given = values if values or any(release.get(k) for k in _GIVES_VALUES) else None
            out.extend((obj, label, at) for obj in rendered_chart(root, given, name, namespace))
    return out, claimed


def read_helmfile(
    found: list[tuple[dict, int, str, str]] | LoadError, objects_of: Callable[..., list[Any]], counts: Any
) -> list[Any]:
    """The objects (``objects_of(document, reported file, counts, label)``: policies.manifests' reading of one document,
    ``counts`` its ReadCounts) of one helmfile's releases (``helmfile_run``); raises the LoadError of one it could not
    read (policies.manifests reports it as unreadable, with the error's ``kind`` when it has one)."""
    if isinstance(found, LoadError):
        raise found
    counts.files += 1
    return [o for i, (data, line, label, at) in enumerate(found) for o in objects_of(Document(data, i, line), at, counts, label)]


def helmfile_run(files: list[str]) -> tuple[dict[str, list[tuple[dict, int, str, str]] | LoadError], set[str]]:
    """For the run's files: each helmfile's (object, line, label, file reported on), or the LoadError that kept it from
    being read, and the files of ``files`` its releases read as values (read there, not again as a values file)."""
    found = [f for f in files if is_helmfile(f)]
    if not found:
        return {}, set()
    out: dict[str, list[tuple[dict, int, str, str]] | LoadError] = {}
    claimed: set[str] = set()
    for file in found:
        try:
            objects, read = helmfile_objects(file, read_bounded(file, MANIFESTS))
        except LoadError as exc:
            out[file] = exc
            continue
        except OSError:
            objects, read = [], set()
        out[file] = [(obj, 1, label, at) for obj, label, at in objects]
        claimed |= read
    return out, {f for f in files if os.path.abspath(f) in claimed}
