"""A rendered chart's finding moved to the values.yaml line a reviewer fixes.

Every finding on an object rendered from a chart's template (policies/reading/helm_chart.py) is found on the
template, but what it judges often comes from the chart's values.yaml: `resources: {{- toYaml .Values.resources |
nindent 12 }}` with `resources: {}` there, `image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"` with
`tag: latest`. For a finding of a row of policies/judged_fields.py, the template is rendered again with a trace
(policies/reading/value_trace.py), the judged field of the rendered object (the container the message names, or the
pod spec) is found in the rendered text, and when the values path that produced it is a key the chart's values.yaml
holds, the finding is reported at that key's line, once, its message naming the template ("(rendered by
templates/x.yaml)"); an object only another values file of the chart renders (``-f values-gpu.yaml``,
policies/manifests.py) moves to that file's key where it holds one, else to values.yaml's. A field the template
writes itself (`timeoutSeconds: 1` in the template), a values path no values file holds (a `default` filling in an
unset key), an object a release renders (helmfile, Argo CD, Flux, Terraform: not yet traced), or a field several
values paths produce with none preferred keep the template's location. An absent field counts when an ``if``,
``with`` or ``range`` on a values key of that name rendered nothing where it would stand (`{{- if .Values.tolerations
}}` over `tolerations: {}`).

Only the templates holding such findings are rendered again, so a check without them costs nothing more.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Sequence
from typing import Any, Optional

import yaml

from components.loading import MANIFESTS, LoadError, read_bounded, yaml_loader
from policies.judged_fields import JUDGED, Judged

# The bound on nodes walked to find a pod spec in a rendered object.
_MAX_NODES = 5000
_CONTAINER = re.compile(r"^(?:init )?container ([^\s:(]+)")


def relocate(pairs: Sequence[tuple[dict, Any]], charts: dict[str, Any]) -> None:
    """Moves each report row (with the ManifestObject it is on) whose finding judges a field a chart's values file
    gives to that key's line (in place). ``charts``: the charts of the run by folder (policies/manifests.py)."""
    wanted = [(row, o) for row, o in pairs if o is not None and o.chart and row["catalog"] in JUDGED]
    if not wanted:
        return
    groups: dict[tuple[str, str], list[tuple[dict, Any]]] = {}
    for row, o in wanted:
        groups.setdefault((o.file, o.chart), []).append((row, o))
    composed: dict[str, Any] = {}
    for (file, label), rows in groups.items():
        found = _chart_of(file, label, charts)
        if found is None:
            continue
        chart, variant, values = found
        rendered = _traced(file, chart, values)
        if rendered is None:
            continue
        text, trace, docs = rendered
        # Where a value is written: the -f file the object was rendered with, over the chart's values.yaml.
        sources = [p for p in (variant, chart.values_file) if p]
        for p in sources:
            if p not in composed:
                composed[p] = _compose_file(p)
        template = os.path.relpath(os.path.abspath(file), chart.root)
        for row, o in rows:
            path = _values_path(row, o, text, trace, docs)
            if not path:
                continue
            at = next(((p, line) for p in sources if (line := _line_of(composed[p], path)) is not None), None)
            if at is None:
                continue
            shown = at[0] if os.path.isabs(file) else os.path.relpath(at[0])
            row.update(file=shown, line=at[1], document=0, location=shown)
            row["message"] = f"{row['message']} (rendered by {template})"


def _chart_of(file: str, label: str, charts: dict[str, Any]) -> Optional[tuple[Any, str, Optional[dict]]]:
    """The chart whose templates/ holds ``file`` and whose render the object is of (``label``: the chart's, or
    ``CHART -f VALUES`` for one of its other values files, policies/manifests.py), with that file and its merged
    values ("" and None for the chart's defaults). A release's render (helmfile, Argo CD, Terraform) is none."""
    here = os.path.abspath(file)
    for root, chart in charts.items():
        if not here.startswith(os.path.join(root, "templates") + os.sep):
            continue
        names = (root, os.path.relpath(root))
        if label in names:
            return chart, "", None
        for path, values in chart.variants:
            if any(label == f"{n} -f {v}" for n in names for v in (path, os.path.relpath(path))):
                return chart, path, values
    return None


def _traced(file: str, chart: Any, values: Optional[dict]) -> Optional[tuple[str, Any, list[Any]]]:
    """The template rendered again with a trace, and its documents' node trees (libyaml's parser where PyYAML has it,
    as policies/manifests.py reads: the pure parser made this re-read most of a chart-heavy check's extra time)."""
    from policies.reading import helm_chart

    try:
        traces: list[Any] = []
        text = helm_chart.render(file, read_bounded(file, MANIFESTS), chart, values, trace=traces)
        trace = traces[0]
        try:
            docs = [d for d in yaml.compose_all(text, Loader=yaml_loader()) if d is not None]
        except yaml.YAMLError:  # as policies/manifests.py reads it: unknown label blocks repaired, lines kept
            docs = [d for d in yaml.compose_all(helm_chart.repaired(text), Loader=yaml_loader()) if d is not None]
    except (helm_chart.CannotRender, LoadError, yaml.YAMLError, RecursionError):
        return None
    except Exception:  # best-effort: a template the engine mishandles keeps its findings where they are
        if os.environ.get("LLM_SERVING_DEBUG"):
            raise
        return None
    return text, trace, docs


def _compose_file(path: str) -> Optional[Any]:
    """A values file's YAML node tree (lines of its keys), None when it cannot be read: its first document, the one
    the chart's values are read from (helm_chart.load_chart, as Helm's yaml.Unmarshal of a values file reads)."""
    try:
        return next(iter(yaml.compose_all(read_bounded(path, MANIFESTS), Loader=yaml_loader())), None)
    except (LoadError, yaml.YAMLError, RecursionError):
        return None


def _get(node: Any, key: Any) -> Optional[Any]:
    """The value node under ``key`` (a mapping's key, a sequence's index), None when absent."""
    if isinstance(node, yaml.MappingNode) and isinstance(key, str):
        return next((v for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == key), None)
    if isinstance(node, yaml.SequenceNode) and isinstance(key, int) and 0 <= key < len(node.value):
        return node.value[key]
    return None


def _line_of(root: Any, path: tuple) -> Optional[int]:
    """The line (from 1) of ``path``'s key in a values file's node tree, None when the file does not hold it."""
    node, line = root, None
    for key in path:
        if isinstance(node, yaml.MappingNode) and isinstance(key, str):
            entry = next((kv for kv in node.value if isinstance(kv[0], yaml.ScalarNode) and kv[0].value == key), None)
            if entry is None:
                return None
            line, node = entry[0].start_mark.line + 1, entry[1]
        elif (item := _get(node, key)) is not None:
            line, node = item.start_mark.line + 1, item
        else:
            return None
    return line


def _scalar(node: Any, key: str) -> Optional[str]:
    value = _get(node, key)
    return value.value if isinstance(value, yaml.ScalarNode) else None


def _document(o: Any, docs: list[Any]) -> Optional[Any]:
    """The rendered document of object ``o``: the one of its kind and name (None unless exactly one)."""
    meta = o.obj.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    found = [
        d
        for d in docs
        if _scalar(d, "kind") == o.kind and (not isinstance(name, str) or _scalar(_get(d, "metadata"), "name") == name)
    ]
    return found[0] if len(found) == 1 else None


def _pod_spec(node: Any) -> Optional[Any]:
    """The first mapping under ``node`` (breadth first) that holds a ``containers`` list."""
    queue, seen = [node], 0
    while queue and seen < _MAX_NODES:
        here = queue.pop(0)
        seen += 1
        if isinstance(here, yaml.MappingNode):
            if isinstance(_get(here, "containers"), yaml.SequenceNode):
                return here
            queue.extend(v for _, v in here.value)
        elif isinstance(here, yaml.SequenceNode):
            queue.extend(here.value)
    return None


def _container(pod: Any, message: str) -> Optional[Any]:
    """The container the message names (``container NAME: ...``), or the pod's only container."""
    listed = [c for key in ("containers", "initContainers") for c in getattr(_get(pod, key), "value", None) or []]
    m = _CONTAINER.match(message)
    if m:
        named = [c for c in listed if _scalar(c, "name") == m.group(1)]
        return named[0] if len(named) == 1 else None
    main = getattr(_get(pod, "containers"), "value", None) or []
    return main[0] if len(main) == 1 else None


def _values_path(row: dict, o: Any, text: str, trace: Any, docs: list[Any]) -> Optional[tuple]:
    doc = _document(o, docs)
    if doc is None:
        return None
    pod = _pod_spec(doc)
    message = row["message"]
    for judged in JUDGED[row["catalog"]]:
        if judged.hint and not re.search(judged.hint, message):
            continue
        if judged.scope == "object":
            parent = _get(doc, "spec")
        elif pod is None:
            continue
        else:
            parent = _container(pod, message) if judged.scope == "container" else pod
        if parent is None or not _holds(judged, _get(parent, judged.key), message):
            continue
        path = _field_path(judged, parent, text, trace, message)
        if path:
            return path
    return None


def _holds(judged: Judged, value: Any, message: str) -> bool:
    """False when the message names one of ``judged.holds`` (the first it names) and the field does not hold it."""
    named = sorted((message.find(k), k) for k in judged.holds if k in message)
    return not named or (value is not None and _get(value, named[0][1]) is not None)


def _field_path(judged: Judged, parent: Any, text: str, trace: Any, message: str) -> Optional[tuple]:
    """The values path that produced ``judged``'s field of ``parent``, None when none or several.

    A present field: the items of a list field the message names (an env variable, an argument), else the whole value;
    when every scalar it holds came from values (punctuation the template writes aside, and each key it writes naming
    a key of the values paths printed below it), the values path the others lie under, else the preferred key (G1's tag) among the paths of its actions. An absent field: an if, with
    or range on a values key of its name that rendered nothing inside ``parent``."""
    value = _get(parent, judged.key)
    if value is None:
        start, end = _at(parent.start_mark, text), _at(parent.end_mark, text)
        while end < len(text) and text[end] in " \t\r\n":
            end += 1
        named = {
            s.path
            for s in trace.spans
            if s.block and s.start == s.end and start <= s.start <= end and s.path[-1:] == (judged.key,)
        }
        return named.pop() if len(named) == 1 else None
    regions = _named_items(value, message) or [value]
    actions = [s for s in trace.spans if not s.block and s.end > s.start]
    paths: set[tuple] = set()
    covered = True
    for region in regions:
        start, end = _at(region.start_mark, text), _at(region.end_mark, text)
        paths |= {s.path for s in actions if s.start < end and s.end > start}
        covered = covered and all(_covered(node, text, actions) for node in _scalars(region))
        covered = covered and _keys_mirrored(region, text, actions)
    if not paths:
        return None
    if covered:
        common = _common(paths)
        if common:
            return common
    preferred = [p for p in paths if p and p[-1] in judged.prefer]
    return preferred[0] if len(preferred) == 1 else None


def _at(mark: Any, text: str) -> int:
    """A parser mark's offset in the rendered ``text`` by its line and column: repaired() lengthens only the lines of
    unknown label blocks, so the offsets of every other line are the render's (which the trace counts in)."""
    starts = _line_starts(text)
    if mark.line >= len(starts):
        return len(text)
    stop = starts[mark.line + 1] if mark.line + 1 < len(starts) else len(text)
    return min(starts[mark.line] + mark.column, stop)


@functools.lru_cache(maxsize=4)
def _line_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer("\n", text)]


def _named_items(value: Any, message: str) -> list[Any]:
    """The items of a list the message names: a scalar item, or a mapping item's ``name``, of 3 or more characters."""
    if not isinstance(value, yaml.SequenceNode):
        return []
    out = []
    for item in value.value:
        word = item.value if isinstance(item, yaml.ScalarNode) else _scalar(item, "name")
        if isinstance(word, str) and len(word) >= 3 and word in message:
            out.append(item)
    return out


def _scalars(node: Any) -> list[Any]:
    """The scalar values under ``node`` (mapping keys aside), at most _MAX_NODES."""
    out: list[Any] = []
    stack = [node]
    while stack and len(out) < _MAX_NODES:
        here = stack.pop()
        if isinstance(here, yaml.ScalarNode):
            out.append(here)
        elif isinstance(here, yaml.MappingNode):
            stack.extend(v for _, v in here.value)
        elif isinstance(here, yaml.SequenceNode):
            stack.extend(here.value)
    return out


def _covered(node: Any, text: str, actions: list[Any]) -> bool:
    """True when every character of the scalar's text but quotes and spaces lies in an action's output."""
    start, end = _at(node.start_mark, text), _at(node.end_mark, text)
    inside = [(max(s.start, start), min(s.end, end)) for s in actions if s.start < end and s.end > start]
    for i in range(start, end):
        if text[i] not in "\"' \t\r\n" and not any(a <= i < b for a, b in inside):
            return False
    return bool(inside) or not text[start:end].strip("\"' \t\r\n")


def _keys_mirrored(node: Any, text: str, actions: list[Any]) -> bool:
    """True when every mapping key under ``node`` that the template writes itself names a key of each values path
    printed below it: `limits:` over `{{ .Values.resources.limits.cpu }}` mirrors the values (Lintasarta's form), but
    `limits: {nvidia.com/gpu: {{ .Values.gpu }}}` is the template's own layout, fixed in the template (a GPU count's
    key is not where cpu and memory requests are added)."""
    stack, seen = [node], 0
    while stack and seen < _MAX_NODES:
        here = stack.pop()
        seen += 1
        if isinstance(here, yaml.SequenceNode):
            stack.extend(here.value)
        elif isinstance(here, yaml.MappingNode):
            for key, value in here.value:
                stack.append(value)
                if _covered(key, text, actions):
                    continue
                start, end = _at(value.start_mark, text), _at(value.end_mark, text)
                below = {s.path for s in actions if s.start < end and s.end > start}
                if not below or any(key.value not in p for p in below):
                    return False
    return True


def _common(paths: set[tuple]) -> tuple:
    """The longest path every one of ``paths`` lies under."""
    first, *rest = sorted(paths)
    n = len(first)
    for p in rest:
        n = next((i for i in range(min(n, len(p))) if p[i] != first[i]), min(n, len(p)))
    return first[:n]
