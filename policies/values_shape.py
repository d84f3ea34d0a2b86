"""Which known chart a values file belongs to when no name says so: by its keys, or by the Chart.yaml beside it.

**By shape** (``chart_by_keys``): a values file in a folder that names no chart (ignaciylipm/ollama-helm@6e498de6
conf/values.yaml and conf/values_psa.yaml: ``ollama.gpu``, ``ollama.models.pull``, ``service.type`` of the otwld
Ollama chart, in a folder named ``conf``) is read as a known chart's (components/helm_charts.toml) when

- more than half of its top-level keys are ones that chart's templates read (components/chart_value_keys.toml, any
  version), and
- at least one path it sets (a top-level key, or a key one level below) is read by that chart and by no other known
  chart, under a top-level key that is not generic (read by three or more known charts: ``image``, ``resources``,
  ``service``, ``ingress``, ...), and
- the chart's ``values_file_names.needs`` path is set when its row has one (nim-llm's ``model.ngcAPISecret``,
  litellm-helm's ``proxy_config``: a vLLM chart's own ``model.name`` is not NIM's), and
- no other known chart passes the same test (ambiguous: not read).

The paths that decided are named in the release's read-as annotation (the "read generically" line).

**Umbrella charts** (``subchart_releases``): a chart's own ``values.yaml`` beside a Chart.yaml whose ``dependencies``
name a known chart (fullaware/ollama-stack@82ab6ae3 Chart.yaml: ``ollama`` 1.8.0 from https://otwld.github.io/ollama-helm)
configures that subchart's release under the dependency's alias or name (Helm's subchart values: ``ollama:`` of the
parent's values are the subchart's ``.Values``; helm/helm pkg/chartutil/coalesce.go coalesceDeps). The release is read at
the dependency's version, with the subchart's defaults when the parent sets nothing; a dependency Helm leaves out (its
first ``condition`` path holding a bool is false, or its tags are all set false: ``_enabled``) is not rendered, nor one
vendored in the parent (``file://``: ``_from_row``). A file is read by shape only on two distinctive paths or more, or one inside the section named after the chart
(``ollama.models``).
Pure: components only.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from components.chart_value_keys import keys_at
from components.helm_charts import Chart, charts
from components.loading import MANIFESTS, LoadError, load_yaml, read_bounded

# Top-level keys every chart has, whatever the table says (besides those three or more known charts read).
_ALWAYS_GENERIC = frozenset(
    {"image", "resources", "service", "ingress", "nodeSelector", "tolerations", "affinity", "replicaCount", "global"}
)


@lru_cache(maxsize=1)
def _shapes() -> tuple[tuple[Chart, frozenset[str], frozenset[str]], ...]:
    """Each known chart with the top-level keys and the one- and two-level paths its templates read (any version)."""
    out = []
    for chart in charts():
        keys = keys_at(chart.key, "")
        if keys is None:
            continue
        tops = frozenset(p.split(".", 1)[0] for p in keys.read)
        paths = frozenset(".".join(p.split(".")[:2]) for p in keys.read)
        out.append((chart, tops, paths))
    return tuple(out)


@lru_cache(maxsize=1)
def _generic() -> frozenset[str]:
    counts = Counter(top for _, tops, _ in _shapes() for top in tops)
    return _ALWAYS_GENERIC | {top for top, n in counts.items() if n >= 3}


def _set_paths(data: Mapping) -> list[str]:
    """The top-level keys and the key paths one level below them that the file sets."""
    out: list[str] = []
    for key, value in data.items():
        if not isinstance(key, str):
            continue
        out.append(key)
        if isinstance(value, Mapping):
            out.extend(f"{key}.{sub}" for sub in value if isinstance(sub, str))
    return out


def _sets(data: Mapping, dotted: str) -> bool:
    return _at(data, dotted) not in (None, "", {}, [])


def chart_by_keys(data: Mapping) -> tuple[Chart, list[str]] | None:
    """The one known chart whose keys the values mapping holds (see the module's docstring), with the distinctive paths
    that decided, or None (no chart, or more than one)."""
    tops = [k for k in data if isinstance(k, str)]
    if not tops or len(tops) != len(data):
        return None
    paths = _set_paths(data)
    generic = _generic()
    shapes = _shapes()
    found: list[tuple[Chart, list[str]]] = []
    for chart, read_tops, read_paths in shapes:
        if 2 * sum(1 for k in tops if k in read_tops) <= len(tops):
            continue
        if chart.values_file_needs and not _sets(data, chart.values_file_needs):
            continue
        own = [
            p
            for p in paths
            if p.split(".", 1)[0] not in generic
            and p in read_paths
            and not any(p in other for c, _, other in shapes if c.key != chart.key)
        ]
        # One top-level key alone (extraEnv, hostNetwork, updateStrategy) is any app's (review55f: a generic app's values
        # read as Ollama's): two such paths, or one inside the section named after the chart (ollama.models).
        if len(own) >= 2 or any("." in p and p.split(".", 1)[0] in chart.names for p in own):
            found.append((chart, own[:4]))
    return found[0] if len(found) == 1 else None


def _dependencies(folder: str) -> list[Mapping]:
    for name in ("Chart.yaml", "Chart.yml"):
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            try:
                meta = load_yaml(path, MANIFESTS, text=read_bounded(path, MANIFESTS))
            except (LoadError, OSError, ValueError):
                return []
            deps = meta.get("dependencies") if isinstance(meta, Mapping) else None
            return [d for d in deps if isinstance(d, Mapping)] if isinstance(deps, list) else []
    return []


def subchart_releases(file: str, data: Mapping, read_from: str) -> list[dict]:
    """The releases of known charts that the parent chart's own values.yaml configures (see the module's docstring)."""
    folder = os.path.dirname(file)
    by_name = {n: chart for chart in charts() for n in chart.names}
    out: list[dict] = []
    for dep in _dependencies(folder):
        name, alias = dep.get("name"), dep.get("alias")
        chart = by_name.get(name) if isinstance(name, str) else None
        if chart is None:
            continue
        key = alias if isinstance(alias, str) and alias else name
        if not _from_row(dep.get("repository"), chart) or not _enabled(dep, data):
            continue
        values = data.get(key)
        version = dep.get("version")
        version = str(version) if isinstance(version, (str, int, float)) else ""
        parent = os.path.basename(folder) or "."
        how = f"values of the {chart.display} chart {version or '(no version)'}: subchart {key} of the local chart {parent}"
        out.append(
            {
                "apiVersion": "helm.toolkit.fluxcd.io/v2",
                "kind": "HelmRelease",
                "metadata": {"name": key, "annotations": {read_from: f"{how} (its Chart.yaml dependencies)"}},
                "spec": {
                    "chart": {"spec": {"chart": chart.names[0], "version": version}},
                    "values": dict(values) if isinstance(values, Mapping) else {},
                },
            }
        )
    return out


def _from_row(repository: object, chart: Chart) -> bool:
    """The dependency comes from the known chart's repository: never a chart vendored in the parent (``file://``, or no
    repository: Helm reads it from charts/, where the run's own templates are rendered); a repository alias
    (``@name``, ``alias:name``) cannot be told apart and counts (review55f: a vendored ``ollama`` read as otwld's)."""
    if not isinstance(repository, str) or not repository.strip() or repository.startswith("file://"):
        return False
    if repository.startswith(("@", "alias:")):
        return True
    return any(r in repository for r in chart.repositories)


def _enabled(dep: Mapping, data: Mapping) -> bool:
    """Helm's choice of a dependency (helm v3.16.4 pkg/chartutil/dependencies.go processDependencyConditions :48-71 and
    processDependencyTags :74-104): the first ``condition`` path that holds a bool decides; when none does, tags the
    parent's ``tags:`` values set decide (all of the dependency's set tags false: off); otherwise it is on."""
    condition = dep.get("condition")
    if isinstance(condition, str):
        for path in condition.split(","):
            value = _at(data, path.strip())
            if isinstance(value, bool):
                return value
    tags, values = dep.get("tags"), data.get("tags")
    if isinstance(tags, list) and isinstance(values, Mapping):
        set_tags = [values[t] for t in tags if isinstance(t, str) and isinstance(values.get(t), bool)]
        if set_tags and not any(set_tags):
            return False
    return True


def _at(data: Mapping, dotted: str) -> Any:
    node: Any = data
    for key in dotted.split("."):
        if not isinstance(node, Mapping) or key not in node:
            return None
        node = node[key]
    return node
