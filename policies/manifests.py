"""Reading for `python -m policies check`: paths -> documents -> Kubernetes objects.

Paths are files, folders (every ``.yaml``, ``.yml`` and ``.json`` file under them, in a stable order, symlinked
folders and links out of the folder not followed: policies/input/run_files.py) or ``-`` for standard input. Every file goes through the bounded loader (components.loading:
size, depth, alias expansion, documents, string keys; limits in its docstring), so a hostile manifest is an input
error, never a hang or a traceback. A credential-shaped token in a YAML comment is kept (policies/input/comment_tokens.py).

A document is a Kubernetes object when it is a mapping with a string ``apiVersion`` and
``kind``. ``kind: List`` and typed lists (``DeploymentList``, ``PodList``..., what
``kubectl get -o yaml`` and the API server return) are flattened, nested lists too; items of a
typed list that omit their ``apiVersion``/``kind`` (the API server leaves them out) take the
list's. Anything else is counted as skipped, by kind, so a report can say what it did not check.

Each object keeps its file, the index of its document in the file (from 0), the line where it starts (from 1; for
SARIF regions) and its position inside lists.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field, replace
from types import SimpleNamespace
from typing import Any, BinaryIO, Optional, Sequence

from components.json_loading import load_json
from components.loading import MANIFESTS, Document, Limits, LoadError, load_yaml_documents, read_bounded
from components.secrets import printable
from policies.config_files import litellm_config_object
from policies.input.comment_tokens import CommentToken, comment_tokens
from policies.input.no_object import beside_objects, no_object, read_as_chart
from policies.input.read_records import ReadCounts, SalvageRead, TemplateRead, Unreadable
from policies.input.run_files import LINK_OUT, STDIN, TEMPLATE_SUFFIXES, manifest_paths
from policies.reading.chart_names import reader_named, reader_names, rendered_identity
from policies.reading.gitops_charts import chart_ref_releases, local_chart_releases
from policies.reading.helmfile import helmfile_run, read_helmfile
from policies.reading.pulumi_program import PROGRAM_SUFFIXES, read_program
from policies.reading.run_bounds import bounded_by_paths
from policies.reading.terraform import TerraformRun, read_once, read_terraform
from policies.values_files import values_release

STDIN_NAME = "<stdin>"
# Over all files of one run (per-file limits bound each file): bytes read, parses spent on repairs (reading/salvage).
MAX_TOTAL_BYTES = 256 << 20
SALVAGE_RUN_PARSES = 240
# Lines are tracked for mappings this deep: a document, items of a List, items of a List in a List.
_LINE_DEPTH = 7
# Names and kinds as reports print them: a DNS subdomain is at most 253 characters.
_NAME_CHARS = 253


@dataclass(frozen=True)
class ManifestObject:
    """One Kubernetes object and where it was read: file, document index, line, position in lists."""

    obj: dict
    file: str
    document: int
    line: int
    item: tuple[int, ...] = ()
    # Read best-effort: from a Helm template (policies/reading/helm_chart.py), the chart's folder and values file as
    # reports name them; from a document that does not parse (policies/reading/salvage.py), the repair as reports say
    # it. "" for an object a file states. Like a template's object, every finding on a salvaged one is advice.
    chart: str = ""
    salvaged: str = ""
    # Built by a kustomization of the run (policies/overlay_builds.py): the suffix its location carries ("~built"), so
    # the object built and the patch or kustomization it is reported at have two names. "" for an object a file states.
    built: str = ""
    named: str = ""  # a rendered object's name as its template's reader gives it (policies/reading/chart_names.py)

    @property
    def best_effort(self) -> bool:
        """True for an object rendered from a template or repaired from a document that does not parse."""
        return bool(self.chart or self.salvaged)

    @property
    def api_version(self) -> str:
        """The object's apiVersion, e.g. ``apps/v1``."""
        return self.obj["apiVersion"]

    @property
    def kind(self) -> str:
        """The object's kind, e.g. ``Deployment``."""
        return self.obj["kind"]

    @property
    def name(self) -> str:
        """metadata.name as reports print it (components.secrets.printable), or ``?`` when missing."""
        meta = self.obj.get("metadata")
        name = self.named or (meta.get("name") if isinstance(meta, dict) else None)
        return printable(name, _NAME_CHARS) if isinstance(name, str) and name else "?"

    @property
    def resource_type(self) -> str:
        """The Pulumi type token the engine gives this object (``v1`` is Pulumi's ``core/v1``)."""
        return pulumi_type(self.api_version, self.kind)

    @property
    def location(self) -> str:
        """``<file>#<document>`` plus ``[i]`` per list the object sits in (``~rendered`` for a template's object)."""
        suffix = "~rendered" if self.chart else "~salvaged" if self.salvaged else self.built
        return f"{self.file}#{self.document}" + "".join(f"[{i}]" for i in self.item) + suffix

    @property
    def shown_kind(self) -> str:
        """The kind as reports print it (bounded, one line)."""
        return printable(self.kind, _NAME_CHARS)


def pulumi_type(api_version: str, kind: str) -> str:
    """``kubernetes:<group/version>:<kind>`` as pulumi-kubernetes names it; the core group is ``core``."""
    group_version = api_version if "/" in api_version else f"core/{api_version}"
    return f"kubernetes:{group_version}:{kind}"


@dataclass
class ManifestSet:
    """The objects read from the paths, in file and document order, the counts, what could not be read, the Helm
    templates read best-effort (their objects are among ``objects``, marked with their chart) and the documents that
    do not parse read best-effort (their objects marked ``salvaged``)."""

    objects: list[ManifestObject]
    counts: ReadCounts
    unreadable: list[Unreadable] = field(default_factory=list)
    templates: list[TemplateRead] = field(default_factory=list)
    salvaged: list[SalvageRead] = field(default_factory=list)
    comments: list[CommentToken] = field(default_factory=list)
    # The charts of the run's templates by folder (helm_chart.Chart): their values.yaml lines (policies/value_paths.py).
    charts: dict[str, Any] = field(default_factory=dict)


@bounded_by_paths  # what a helmfile, Argo CD source or Terraform file() names is read under ``paths`` only
def read_manifests(
    paths: Sequence[str], *, stdin: Optional[BinaryIO] = None, limits: Limits = MANIFESTS, pure_yaml: bool = False
) -> ManifestSet:
    """Every Kubernetes object under ``paths``, and every file or document that could not be read.

    A path that does not exist raises ManifestReadError (a bad argument). A file that cannot be read (over a limit,
    not UTF-8, not YAML, an unrendered template, no Kubernetes object in it) is recorded in ``unreadable`` with its
    line and why, and the other files are read all the same; in a multi-document YAML file that does not parse, each
    document is read on its own, so one bad document costs only itself."""
    files = manifest_paths(paths, links_out := list[str]())  # links out of a folder: reported, not read
    counts = ReadCounts()
    objects: list[ManifestObject] = []
    unreadable = [Unreadable(printable(link, 4096), None, 1, LINK_OUT, "not-kubernetes", False) for link in links_out]
    templates: list[TemplateRead] = []
    salvaged: list[SalvageRead] = []
    comments: list[CommentToken] = []
    terraform_read = TerraformRun(files)  # what Terraform resources read, and the run's module calls
    charts = _Charts(paths)
    salvage_run = SimpleNamespace(parses=SALVAGE_RUN_PARSES)  # one budget for every file's repairs
    total = 0
    helmfiles, claimed = helmfile_run(files)  # releases of the run's helmfiles, and the values files they read
    for i, name in enumerate(files):
        shown = STDIN_NAME if name == STDIN else name
        try:
            if name.endswith(PROGRAM_SUFFIXES):  # a Pulumi program's resources (policies/reading/pulumi_program.py): advice
                objects += read_program(name, _objects, counts, files)
                continue
            text = read_bounded((stdin if stdin is not None else sys.stdin.buffer) if name == STDIN else name, limits, shown)
            total += len(text)
            if total > MAX_TOTAL_BYTES:
                rest = len(files) - i - 1
                raise LoadError(
                    shown,
                    f"the files read so far exceed {MAX_TOTAL_BYTES >> 20} MiB (the limit for one check)"
                    + (f"; {rest} more file{'s' if rest != 1 else ''} not read" if rest else ""),
                )
            if name.endswith(".tf"):  # objects of Terraform resources, best-effort: labelled like a template's, all advice
                objects += read_terraform(name, text, _objects, counts, terraform_read)
                continue
            if name in helmfiles:  # a helmfile's releases (policies/reading/helmfile.py), best-effort too
                objects += read_helmfile(helmfiles[name], _objects, counts)
                continue
            docs, bad = _documents(shown, _ytt_values(text), limits, pure_yaml, salvage_run)
            rendered = charts.read(name, shown, text, bad, limits, docs) if bad and name != STDIN else None
        except LoadError as exc:
            kind = getattr(exc, "kind", "invalid")  # a helmfile template's: advice (policies/reading/helmfile.py)
            unreadable.append(Unreadable(printable(shown, 4096), None, exc.line or 1, exc.problem, kind, bool(exc.line)))
            if total > MAX_TOTAL_BYTES:
                break
            continue
        counts.files += 1
        before = len(objects)
        if rendered is not None:
            bad, chart_docs, read = rendered
            templates.append(read)
            docs = [*docs, *chart_docs]
        unreadable.extend(bad)
        for doc in docs:
            counts.documents += 1
            if doc.data is None:
                counts.empty_documents += 1
                continue
            chart = doc.chart if isinstance(doc, _RenderedDocument) else ""
            repair = doc.repair if isinstance(doc, _SalvagedDocument) else ""
            found = _objects(doc, shown, counts, chart, repair)
            found = reader_named(found, doc.names) if isinstance(doc, _RenderedDocument) and doc.names else found
            objects.extend(found)
            if repair:
                salvaged.append(SalvageRead(printable(shown, 4096), doc.index, doc.line, repair, len(found)))
        if len(objects) == before and not bad and name != STDIN and name not in claimed:
            objects.extend(_values_file_release(docs, shown, counts))  # a known chart's values file: its release
        comments += comment_tokens(printable(shown, 4096), text, objects[before:])
        if len(objects) == before and not bad and name not in claimed:
            if empty := no_object(printable(shown, 4096), name, text, docs):
                unreadable.append(empty)
    objects, unreadable = read_once(objects, read_as_chart(unreadable, charts.loaded), terraform_read)  # Terraform: once
    objects = chart_ref_releases(objects, replace) + local_chart_releases(objects, files, _objects, counts)  # GitOps
    counts.objects = len(objects)
    unreadable = beside_objects([u for u in unreadable if not u.file.endswith(TEMPLATE_SUFFIXES)], objects)
    return ManifestSet(objects, counts, unreadable, templates, salvaged, comments, charts.loaded)


@dataclass
class _RenderedDocument(Document):
    """A document of a Helm template's best-effort render, with its chart's label."""

    chart: str = ""
    names: dict = field(default_factory=dict)  # kind -> its reader's name, where the render cannot know it


@dataclass
class _SalvagedDocument(Document):
    """A document that does not parse, read best-effort (policies/reading/salvage.py), with the repair."""

    repair: str = ""


def _salvaged(
    name: str, chunk: str, index: int, first: int, exc: LoadError, limits: Limits, pure_yaml: bool, run: Any
) -> tuple[list[Document], Unreadable]:
    """A document that is not YAML: its S27 finding and, when a small repair reads Kubernetes objects from it, those
    (policies/reading/salvage.py, imported only here). The finding stays where the parser stopped, at its level."""
    shown = printable(name, 4096)
    line = first + (exc.line or 1) - 1
    found = None
    if exc.problem.startswith("repeats the key"):  # kubectl's strict decoding refuses it; YAML parsers keep the last value
        from policies.reading.salvage import last_value_kept

        found = last_value_kept(
            chunk, lambda text: load_yaml_documents(name, replace(limits, repeated_keys_last=True), text=text)
        )
    elif exc.problem.startswith("is not valid YAML"):
        from policies.reading.salvage import salvage

        def parse(text: str) -> list[Document]:
            return load_yaml_documents(name, limits, text=text, track_lines=_LINE_DEPTH, pure=pure_yaml)

        try:
            found = salvage(chunk, exc.line, parse, first, run)
        except Exception:  # best-effort reading: a repair that fails leaves the document reported as before
            if os.environ.get("LLM_SERVING_DEBUG"):
                raise
    if found is None:
        return [], Unreadable(shown, index, line, exc.problem, "invalid")
    offset = first - 1
    docs: list[Document] = [
        _SalvagedDocument(d.data, index, d.line + offset, {k: v + offset for k, v in d.lines.items()}, repair=found.repair)
        for d in found.documents
    ]
    one = (n := sum(1 for d in docs if d.data is not None)) == 1
    checked = f"{n} object{'' if one else 's'} checked, every finding on {'it' if one else 'them'} advice"
    if exc.problem.startswith("repeats the key"):  # S27 advice: kubectl apply -f applies it (policies/input/manifest_readable.py)
        why = f"{exc.problem}: `kubectl apply -f` keeps its last value, kustomize and strict YAML readers refuse it; {checked}"
        from policies.reading.repeated_keys import repeated_keys

        return docs, Unreadable(shown, index, line, why, "repeated-read", repeats=tuple(repeated_keys(chunk)))
    why = f"{exc.problem}, so it cannot be applied; read best-effort ({found.repair}): {checked}"
    return docs, Unreadable(shown, index, line, why, "invalid-read")


def _kind_lines(text: str) -> list[int]:
    """The lines of a template's top-level ``kind:`` keys, in order: where reports point for each rendered object
    when the render has as many documents (each renders in its order, one object each)."""
    return [text.count("\n", 0, m.start()) + 1 for m in re.finditer(r"^kind:", text, re.MULTILINE)]


class _Charts:
    """Helm templates of one read rendered best-effort (policies/reading/helm_chart.py, imported only when a file of
    the run holds a template action): each chart loaded once."""

    def __init__(self, paths: Sequence[str]):
        self.tops = sorted((os.path.abspath(p) for p in paths if p != STDIN and os.path.isdir(p)), key=len, reverse=True)
        self.loaded: dict[str, Any] = {}

    def _top(self, name: str) -> Optional[str]:
        here = os.path.abspath(name)
        return next((t for t in self.tops if here.startswith(t.rstrip(os.sep) + os.sep)), None)

    def read(
        self, name: str, shown: str, text: str, bad: list[Unreadable], limits: Limits, stated: Sequence[Document] = ()
    ) -> Optional[tuple[list[Unreadable], list[Document], TemplateRead]]:
        """The file's S27 findings, its rendered documents and what was read, or None when it is no chart template or
        cannot be rendered and parsed whole (then it is reported as before). A rendered document equal to one the file
        states without a template action (``stated``, already read) is not added twice."""
        if not any(u.kind == "template" for u in bad):
            return None
        from policies.reading import chart_folders, helm_chart

        root = chart_folders.find_chart(name, self._top(name))
        if root is None:
            return None
        if root not in self.loaded:
            self.loaded[root] = helm_chart.load_chart(root, self._top(name))
        chart = self.loaded[root]
        try:
            out = helm_chart.render(name, text, chart, missing=(missing := set[str]()))
            docs = helm_chart.documents(shown, limits, out)
        except (helm_chart.CannotRender, LoadError):
            return None
        except Exception:  # best-effort reading: a template the engine mishandles is reported as before, never a crash
            if os.environ.get("LLM_SERVING_DEBUG"):
                raise
            return None
        label = printable(os.path.relpath(root) if not os.path.isabs(name) else root, 4096)
        values = printable(
            os.path.relpath(chart.values_file) if chart.values_file and not os.path.isabs(name) else chart.values_file, 4096
        )
        first = min((u.line for u in bad if u.kind == "template"), default=1)
        literal = [d.data for d in stated]
        present = [d for d in docs if d.data is not None and helm_chart.settled(d.data) not in literal]
        lines = _kind_lines(text)
        if len(lines) != len(present) or literal:  # a range or a condition changed the count: no line is known per object
            lines = [first] * len(present)
        names = reader_names(text, chart.name, chart.values)
        rendered: list[Document] = [
            _RenderedDocument(helm_chart.settled(d.data), i, line, {}, chart=label, names=names)
            for i, (d, line) in enumerate(zip(present, lines))
        ]
        rendered += self._variants(name, shown, text, chart, rendered, limits, first, label)
        count = sum(1 for d in rendered if isinstance(d.data, dict))
        kept = [u for u in bad if u.kind != "template"]
        if kept:
            return None  # a document that is not YAML even once rendered: the file is reported as before
        why = (
            f"a Helm template (chart {label}), read best-effort with "
            + (f"the chart's defaults ({values})" if values else "no values file (the chart has none)")
            + f": {count} object{'s' if count != 1 else ''} rendered and checked{printable(helm_chart.missing_note(missing), 1024)}, every "
            "finding advice, since a values file or --set changes what is deployed; for a full check render it: "
            "helm template CHART | python -m policies check -"
        )
        s27, chart.rendered = Unreadable(printable(shown, 4096), None, first, why, "template-read"), True
        return [s27], rendered, TemplateRead(printable(shown, 4096), label, values, count)

    def _variants(
        self, name: str, shown: str, text: str, chart: Any, rendered: list[Document], limits: Limits, line: int, label: str
    ) -> list[Document]:
        """The objects the chart's other values files (helm_chart.values_variants) render from this template and its
        values.yaml does not (by apiVersion, kind and name: a part of the chart a values file turns on); the same
        object rendered differently is left to the defaults' render, so nothing is read twice."""
        from policies.reading import helm_chart

        seen, names = {rendered_identity(d.data) for d in rendered}, reader_names(text, chart.name, chart.values)
        found: list[Document] = []
        for path, values in chart.variants:
            try:
                docs = load_yaml_documents(shown, limits, text=helm_chart.repaired(helm_chart.render(name, text, chart, values)))
                helm_chart.hides_section(docs)
            except (helm_chart.CannotRender, LoadError):
                continue
            except Exception:  # best-effort reading, as read(): a variant the engine mishandles adds nothing
                if os.environ.get("LLM_SERVING_DEBUG"):
                    raise
                continue
            shown_values = os.path.relpath(path) if not os.path.isabs(name) else path
            for d in docs:
                data = helm_chart.settled(d.data) if d.data is not None else None
                if not isinstance(data, dict) or rendered_identity(data) in seen:
                    continue
                seen.add(rendered_identity(data))
                index = len(rendered) + len(found)
                found.append(_RenderedDocument(data, index, line, {}, printable(f"{label} -f {shown_values}", 4096), names))
        return found


# A Go template action as Helm charts write them: `{{ .Values.x }}`, `{{- if ... }}`, `{{ include ... }}`,
# `{{ $var }}`, `{{/* comment */}}`. Jinja chat templates (`{{ message['content'] }}`, `{% for %}`) do not match.
_GO_TEMPLATE = re.compile(
    r"\{\{-?\s*(?:\.|\$|/\*|(?:if|else|end|range|with|include|template|define|toYaml|tpl|printf|quote|default|required|"
    r"block|fail|lookup|toJson|nindent|indent)\b)"
)
# A YAML document marker at the start of a line (`---`, `--- # comment`, `--- !tag ...`).
_DOCUMENT_START = re.compile(r"^---(?=[ \t]|$)", re.MULTILINE)
# A Carvel ytt template's value: ``key: #@ expression`` or ``- #@ expression`` (carvel-dev/ytt: a ``#@`` annotation on a
# node gives its value when ytt renders the file). YAML reads the comment away and the value as null, which a rule
# would take for a key written empty (S26's ``image:`` with no value). Read instead as the text ``#@ expression``: an
# unrendered placeholder (policies/reading/placeholders.py), unknown to every rule and named by S27 (review50a). Only
# the value form (``#@`` then a space); a named annotation (``#@overlay/match ...``) is left a comment.
_YTT_VALUE = re.compile(r"^([ \t]*(?:-[ \t]+)?[^\s#'\"\[{][^:#\n]*:|[ \t]*-)[ \t]+(#@[ \t][^\n]*?)[ \t]*$", re.MULTILINE)


def _ytt_values(text: str) -> str:
    """``text`` with each ytt value annotation quoted as a string (same lines, so every reported line stays put)."""
    if "#@" not in text:
        return text
    return _YTT_VALUE.sub(lambda m: f"{m.group(1)} '{m.group(2).replace(chr(39), chr(39) * 2)}'", text)


def _template_line(text: str) -> Optional[int]:
    from policies.reading.template_text import kserve_fills, release_value, vault_agent_template

    for match in _GO_TEMPLATE.finditer(text):
        if kserve_fills(text, match.start()):
            continue  # KServe's own template, filled by its controller: rendered as published
        if release_value(text, match.start()):
            continue  # a Helm release's value the chart renders: the release object is applied as written
        if vault_agent_template(text, match.start()):
            continue  # Consul Template text the Vault agent renders in the pod: an annotation's string as applied
        return text.count("\n", 0, match.start()) + 1
    return None


def _documents(name: str, text: str, limits: Limits, pure_yaml: bool, run: Any) -> tuple[list[Document], list[Unreadable]]:
    """The documents of one file, and those of its documents that cannot be read (raises LoadError when the
    whole file cannot be: a JSON file that does not parse, a limit)."""
    shown = printable(name, 4096)
    json_file = name.endswith(".json")
    if json_file or _template_line(text) is None:
        try:
            if json_file:
                return [Document(load_json(name, limits, text=text), 0, 1)], []
            return load_yaml_documents(name, limits, text=text, track_lines=_LINE_DEPTH, pure=pure_yaml), []
        except LoadError as exc:
            from policies.reading.template_text import action_at, foreign_file

            plain = exc.problem.startswith("is not valid YAML")
            if not plain and (why := foreign_file(text, exc.problem, json=json_file)) is not None:  # another tool's file
                return [], [Unreadable(shown, None, exc.line or 1, why, "not-kubernetes")]
            # A repeated key: document by document, the one that repeats it read best-effort (_salvaged).
            if json_file or not plain and not exc.problem.startswith("repeats the key") and not action_at(text, exc.line):
                raise
    # A template, or YAML that does not parse: each document on its own, so the others are still checked.
    from policies.reading.template_text import Nesting, action_at, literal_object

    nesting = Nesting(text)
    docs: list[Document] = []
    bad: list[Unreadable] = []
    starts = [0] + [m.start() for m in _DOCUMENT_START.finditer(text) if m.start() > 0]
    for index, (begin, end) in enumerate(zip(starts, [*starts[1:], len(text)])):
        chunk = text[begin:end]
        first = text.count("\n", 0, begin) + 1
        template = _template_line(chunk)
        if template is None and nesting.depth_at(begin):  # inside a {{ if }}, {{ range }}...: Helm decides (review #6)
            template = 1
        if template is None:
            try:
                parsed = load_yaml_documents(name, limits, text=chunk, track_lines=_LINE_DEPTH, pure=pure_yaml)
            except LoadError as exc:
                if not action_at(chunk, exc.line):
                    salvaged, unreadable = _salvaged(name, chunk, index, first, exc, limits, pure_yaml, run)
                    docs.extend(salvaged)
                    bad.append(unreadable)
                    continue
                template = exc.line  # YAML stops at a template action the pattern does not know (`{{ len .x }}`)
        if template is not None:
            kind, object_name = literal_object(chunk)
            bad.append(
                Unreadable(
                    shown,
                    index,
                    first + template - 1,
                    "an unrendered template ({{ ... }}): render it first, e.g. helm template CHART | python -m policies check -",
                    "template",
                    object_kind=kind,
                    object_name=object_name,
                )
            )
            continue
        for doc in parsed:
            offset = first - 1
            lines = {k: v + offset for k, v in doc.lines.items()}
            docs.append(Document(doc.data, index, doc.line + offset, lines))
    return docs, bad


def _values_file_release(docs: list[Document], shown: str, counts: ReadCounts) -> list[ManifestObject]:
    """The release a file holding only a known chart's values stands for (policies/values_files.py), or the ConfigMap a
    LiteLLM proxy configuration file stands for (policies/config_files.py), or []."""
    data = [d for d in docs if d.data is not None]
    if len(data) != 1:
        return []
    release = values_release(shown, data[0].data) or litellm_config_object(shown, data[0].data)
    if release is None:
        return []
    label = _skip_label(data[0].data)  # counted as skipped when the document was read: it is an object now
    if counts.skipped.get(label):
        counts.skipped[label] -= 1
        if not counts.skipped[label]:
            del counts.skipped[label]
    return _objects(Document(release, data[0].index, data[0].line, {}), shown, counts)


def _is_list(value: dict) -> bool:
    kind = value.get("kind")
    return isinstance(kind, str) and kind.endswith("List") and isinstance(value.get("items"), list)


def _skip_label(value: Any) -> str:
    if isinstance(value, dict):
        kind = value.get("kind")
        if isinstance(kind, str) and kind:
            return kind[:60]
        return "(mapping without kind)"
    if isinstance(value, list):
        return "(list)"
    return "(scalar)"


def _objects(doc: Document, file: str, counts: ReadCounts, chart: str = "", salvaged: str = "") -> list[ManifestObject]:
    """The objects of one document, lists flattened depth-first in item order (iterative)."""
    out: list[ManifestObject] = []
    # (value, position in lists, inherited apiVersion and kind from a typed list)
    stack: list[tuple[Any, tuple[int, ...], Optional[str], Optional[str]]] = [(doc.data, (), None, None)]
    while stack:
        value, item, list_api, list_kind = stack.pop()
        line = doc.lines.get(id(value), doc.line)
        if isinstance(value, dict) and (list_api or list_kind):
            missing = {k: v for k, v in (("apiVersion", list_api), ("kind", list_kind)) if v and k not in value}
            if missing:
                value = {**missing, **value}
        if isinstance(value, dict) and _is_list(value):
            counts.lists += 1
            kind = value["kind"]
            typed = kind != "List"
            api = value.get("apiVersion") if typed and isinstance(value.get("apiVersion"), str) else None
            items = value["items"]
            for i in range(len(items) - 1, -1, -1):
                stack.append((items[i], (*item, i), api, kind[: -len("List")] if typed else None))
            continue
        if (
            isinstance(value, dict)
            and isinstance(value.get("apiVersion"), str)
            and value["apiVersion"]
            and isinstance(value.get("kind"), str)
            and value["kind"]
        ):
            out.append(ManifestObject(value, printable(file, 4096), doc.index, line, item, chart, salvaged))
        else:
            label = _skip_label(value)
            counts.skipped[label] = counts.skipped.get(label, 0) + 1
    return out


__all__ = [
    *("ManifestObject", "ManifestSet", "ReadCounts", "SalvageRead", "TemplateRead"),
    *("UNREADABLE_KINDS", "Unreadable", "STDIN", "manifest_paths", "pulumi_type", "read_manifests"),
]
