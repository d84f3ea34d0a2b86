"""Which folders are Helm charts: the one answer the template reader and every release reader ask for.

A chart folder holds a ``Chart.yaml`` (what helm's loader requires: helm v3.16.4 pkg/chart/loader/load.go), or, copied
without one, a ``templates/`` folder beside a values file of its own (``values.yaml`` or a ``values-<name>.yaml``:
a chart's partial copy, read as that chart named for its folder; spent set 115 rockofox/helm-llama-cpp@e7f8543a
charts/llama-server, set 117 coolshiva123/wrcbot@32775506 helmchart/ollama). A ``templates/`` folder with no values
file beside it is no chart (the template reader leaves its files unrendered). Asked by policies/manifests.py (a
template's chart: ``find_chart``), policies/reading/helmfile.py (a release's ``chart:`` folder) and
policies/reading/gitops_charts.py (an Argo CD or Flux release's chart folder): one predicate, ``is_chart_folder``.
Light on purpose: no renderer is imported to ask it.
"""

from __future__ import annotations

import os
import re
from typing import Optional

CHART_FILE = "Chart.yaml"
VALUES_FILE = "values.yaml"
TEMPLATES = "templates"
_VARIANT = re.compile(r"^(values[-_.].+|.+[-_.]values)\.ya?ml$")
MAX_VARIANTS = 4


def values_variants(root: str) -> list[str]:
    """The chart's other values files beside Chart.yaml (sorted, at most MAX_VARIANTS): what a repository commits to
    pass with `helm install -f` (obike007/llama-kuberay@4fef9558 helm/llama-server/values-kuberay.yaml turns on the
    ray.enabled templates its values.yaml leaves off)."""
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return []
    found = [os.path.join(root, n) for n in names if n != VALUES_FILE and _VARIANT.match(n)]
    return [p for p in found if os.path.isfile(p) and not os.path.islink(p)][:MAX_VARIANTS]


def has_chart_file(root: str) -> bool:
    """True for a folder holding a Chart.yaml: a chart helm itself loads."""
    return os.path.isfile(os.path.join(root, CHART_FILE))


def has_values(root: str) -> bool:
    """True for a folder holding a values file of its own (values.yaml, or one of ``values_variants``' names)."""
    return os.path.isfile(os.path.join(root, VALUES_FILE)) or bool(values_variants(root))


def _headless(root: str) -> bool:
    return os.path.isdir(os.path.join(root, TEMPLATES)) and has_values(root)


def is_chart_folder(root: str) -> bool:
    """True for a chart folder (the module's docstring): a Chart.yaml, or templates/ beside a values file."""
    return has_chart_file(root) or _headless(root)


def find_chart(file: str, top: Optional[str]) -> Optional[str]:
    """The chart folder whose ``templates/`` holds ``file`` (the only files Helm renders), searching no higher than
    ``top`` (None: the file's folder and its parent; a ``templates`` folder: its parent): the nearest such folder that
    ``is_chart_folder``. A folder with a Chart.yaml that does not hold ``file`` under its templates/ ends the search (a
    chart's own files are no other chart's templates); a chart folder without Chart.yaml nested in another chart's
    folder (a file:// dependency kept beside its parent: castai/helm-charts@daa46281
    charts/castai-hosted-model/child-charts/vllm) is its own chart."""
    here = os.path.abspath(file)
    folder = os.path.dirname(here)
    limit = os.path.abspath(top) if top else os.path.dirname(folder)
    if os.path.basename(limit) == TEMPLATES:  # a chart's templates/ folder checked alone: its chart is just above
        limit = os.path.dirname(limit)
    while folder.startswith(limit) and os.path.dirname(folder) != folder:
        parent = os.path.dirname(folder)
        if os.path.basename(folder) == TEMPLATES and parent.startswith(limit) and is_chart_folder(parent):
            return parent
        if folder == limit or has_chart_file(folder):
            return None
        folder = parent
    return None


__all__ = [
    "CHART_FILE",
    "MAX_VARIANTS",
    "TEMPLATES",
    "VALUES_FILE",
    "has_chart_file",
    "has_values",
    "is_chart_folder",
    "find_chart",
    "values_variants",
]
