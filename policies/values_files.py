"""A Helm values file of a chart the pack knows, read as the release it configures.

A repository that installs a chart with ``helm install -f values.yaml``, helmfile, an Argo CD ``valueFiles`` entry or a
Makefile keeps the values in a file of their own: a mapping with no apiVersion and kind, which the reading reported as
"holds no Kubernetes object" and no rule saw (spent set 111 tzervas/self-hosted-ai argocd/helm/ollama/values.yaml: an
Ollama chart's values whose Ingress, node selector, scrape annotations and model pulls four labels were on; set 112
openwebui-values.yaml). Such a file is read here as a release of that chart (a HelmRelease object the run did not
write, named for the chart, with the file's mapping as ``spec.values``), so every release rule reads it as it reads a
Flux HelmRelease: the pod the chart renders from the values and its defaults (policies/helm_charts.py), its Ingress
and Service type (G32), values the chart never reads (G107).

Which chart: a path segment of the file (its folder names, or its name without the ``values`` words: ``ollama``,
``openwebui-values.yaml``) that is a chart of components/helm_charts.toml, and **every** top-level key of the mapping
is one that chart's templates read (components/chart_value_keys.toml; the guard policies/helm_charts.py vendored_chart
applies to a vendored copy). A chart published under another name than users give their folders (NVIDIA's nim-llm:
``examples/nvidia-nim/nim_custom_value.yaml``, spent set 113 Neutrollized/free-tier-gke) lists such words in its
row's ``values_file_names``, which count only in a file that sets the path the row needs (``model.ngcAPISecret``,
the NGC key Secret every NIM values file names): a values file of someone's own chart that only shares the name (tzervas/self-hosted-ai
helm/ollama/values.yaml: ``env``, ``modelsPersistence``, ``gpu`` keys) is not read as the public chart. A file beside a
Chart.yaml or a ``templates/`` folder of templates that read ``.Values`` (``local_chart``) is that chart's own defaults, rendered with its
templates (policies/reading/helm_chart.py): not read here.
Pure: components only, so that policies/manifests.py can call it while it reads.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from components.chart_value_keys import keys_at
from components.helm_charts import GENERIC_FOLDERS, Chart, charts
from policies.values_shape import chart_by_keys, subchart_releases

# A file whose name says it holds values: values.yaml, values-prod.yaml, ollama-values.yml, values.ollama.yaml.
_VALUES_NAME = re.compile(r"(^|[-_.])values?([-_.]|$)", re.I)
_WORDS = re.compile(r"[-_.]+")
# Folder names that say nothing of the chart (components.helm_charts GENERIC_FOLDERS and the usual layout words).
_GENERIC = GENERIC_FOLDERS | {"values", "value", "apps", "app", "k8s", "kubernetes", "base"}
# The annotation the release object carries: where it was read, for messages and for readers of the report.
READ_FROM = "llm-serving.io/read-as"
_YAML_SUFFIXES = (".yaml", ".yml")


def _stem_words(name: str) -> list[str]:
    stem = name.rsplit(".", 1)[0] if name.lower().endswith(_YAML_SUFFIXES) else name
    return [w for w in _WORDS.split(stem) if w and w.lower() not in ("values", "value", "yaml", "yml")]


def _candidates(file: str) -> list[str]:
    """Chart names the path may mean, nearest first: the runs of words of the file's name without its values words,
    longest first (``prod-open-webui-values.yaml``: prod-open-webui, then open-webui, ...), then its folders from the
    nearest up."""
    parts = [p for p in re.split(r"[/\\]", file) if p]
    if not parts:
        return []
    words = _stem_words(parts[-1])[:8]
    runs = [words[i : i + n] for n in range(len(words), 0, -1) for i in range(len(words) - n + 1)]
    names = [name for run in runs for name in ("-".join(run), "".join(run))] + list(reversed(parts[:-1]))
    return [n.lower() for n in names if n and n.lower() not in _GENERIC]


def _squeezed(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _sets(data: Mapping, dotted: str) -> bool:
    node: Any = data
    for key in dotted.split("."):
        if not isinstance(node, Mapping) or key not in node:
            return False
        node = node[key]
    return node not in (None, "", {}, [])


def _charts_for(file: str, data: Mapping) -> list[Chart]:
    """The charts the path's candidates name, in their order: spelt with or without dashes (``openwebui``), or a word of
    a chart's ``values_file_names`` (``nim``, ``nvidia-nim``) in a file that sets the path it needs
    (``model.ngcAPISecret``)."""
    by_name = {_squeezed(n): chart for chart in charts() for n in chart.names}
    by_word = {
        _squeezed(w): chart
        for chart in charts()
        for w in chart.values_file_words
        if chart.values_file_needs and _sets(data, chart.values_file_needs)
    }
    found = (by_name.get(_squeezed(name)) or by_word.get(_squeezed(name)) for name in _candidates(file))
    out: list[Chart] = []
    for chart in found:
        if chart is not None and all(chart.key != c.key for c in out):
            out.append(chart)
    return out


def _reads_every_key(chart: Chart, data: Mapping) -> bool:
    keys = keys_at(chart.key, "")
    if keys is None:
        return False
    read = {p.split(".", 1)[0] for p in keys.read} | set(keys.passthrough)
    return all(isinstance(k, str) and k in read for k in data)


_TEMPLATE_SUFFIXES = (".yaml", ".yml", ".tpl")
# A Go template action that reads the chart's values (`{{ .Values.x }}`, `{{- toYaml $.Values.x }}`): what makes a values
# file a chart's input. Another tool's templates/ folder beside a values file has none: Backstage software templates
# (`${{ parameters.x }}`), Argo WorkflowTemplates (`{{inputs.parameters.x}}`), plain manifests.
_VALUES_FIELD = re.compile(r"\.Values\b")
_TEMPLATES_READ = 64  # files of a templates/ folder looked at, 256 KB each: enough for a chart's, bounded for any folder
_TEMPLATE_BYTES = 256 * 1024


def local_chart(folder: str) -> bool:
    """True when ``folder`` is a chart of the repository's own: it holds a Chart.yaml, or a ``templates/`` folder with
    a template that reads ``.Values`` (a chart copied without its Chart.yaml, which policies/reading/helm_chart.py
    renders as one). Its values files are that chart's defaults and variants, never a public chart's of the same name
    (spent set 117 coolshiva123/wrcbot@32775506 helmchart/ollama/values.yaml: ``image.repository: ollama`` of a
    Deployment its own templates write, which the Ollama chart's reading gave Ollama chart pods it never runs)."""
    if os.path.isfile(os.path.join(folder, "Chart.yaml")) or os.path.isfile(os.path.join(folder, "Chart.yml")):
        return True
    seen = 0
    for here, dirs, files in os.walk(os.path.join(folder, "templates")):  # Helm renders templates/ and its subfolders
        dirs.sort()
        for name in sorted(f for f in files if f.endswith(_TEMPLATE_SUFFIXES)):
            seen += 1
            if seen > _TEMPLATES_READ:
                return False
            if not os.path.isfile(os.path.join(here, name)):  # a FIFO or device named .yaml is never opened
                continue
            try:
                with open(os.path.join(here, name), encoding="utf-8", errors="replace") as handle:
                    if _reads_values(handle.read(_TEMPLATE_BYTES)):
                        return True
            except OSError:
                continue
    return False


def _reads_values(text: str) -> bool:
    """Whether an action of ``text`` names ``.Values``; each ``{{`` is matched to the next ``}}`` by str.find from where
    the last action ended, so the scan is linear (a regex from every ``{{`` to its ``}}`` is not, on unclosed ones)."""
    pos = 0
    while (start := text.find("{{", pos)) >= 0:
        end = text.find("}}", start + 2)
        if end < 0:
            return False
        if _VALUES_FIELD.search(text, start, end):
            return True
        pos = end + 2
    return False


def values_release(file: str, data: Any) -> dict | None:
    """The release object a values file of a known chart stands for (see the module's docstring), or None."""
    if not isinstance(data, Mapping) or not data or "apiVersion" in data or "kind" in data:
        return None
    base = os.path.basename(file)
    if not base.lower().endswith(_YAML_SUFFIXES) or not _VALUES_NAME.search(base.rsplit(".", 1)[0]):
        return None
    # The first chart the path names whose templates read every top-level key (ollama-open-webui-values.yaml holding
    # the Ollama chart's keys is Ollama's)
    chart = next((c for c in _charts_for(file, data) if _reads_every_key(c, data)), None)
    how = "named by its path"
    if local_chart(os.path.dirname(file)):
        # a chart's own values.yaml: the known charts its Chart.yaml depends on (policies/values_shape.py)
        subs = subchart_releases(file, data, READ_FROM) if base.lower() in ("values.yaml", "values.yml") else []
        return (subs[0] if len(subs) == 1 else {"apiVersion": "v1", "kind": "List", "items": subs}) if subs else None
    if chart is None and not _charts_for(file, data):  # no name ties it to a chart: its keys may (values_shape.py)
        shaped = chart_by_keys(data)
        if shaped is not None:
            chart, decided = shaped
            how = "by its keys " + ", ".join(decided)
    if chart is None:
        return None
    name = chart.names[0]
    return {
        "apiVersion": "helm.toolkit.fluxcd.io/v2",
        "kind": "HelmRelease",
        "metadata": {"name": name, "annotations": {READ_FROM: f"values file of the {chart.display} chart ({how})"}},
        "spec": {"chart": {"spec": {"chart": name}}, "values": dict(data)},
    }
