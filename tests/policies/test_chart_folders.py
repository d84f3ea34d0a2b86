"""One reading of "is this a chart folder" (policies/reading/chart_folders.py is_chart_folder), asked by the template
reader (find_chart), a helmfile release's ``chart:`` folder (helmfile._local_chart) and an Argo CD/Flux release's chart
folder (gitops_charts._chart_roots): each shape of folder gets the same answer from all three (review57; they had
each decided it: a helmfile release rendered a ``templates/`` folder with no values file, which the template reader
leaves unrendered, and an Argo CD path to a folder holding only ``Chart.yml``, which helm's loader does not read:
helm v3.16.4 pkg/chart/loader/load.go reads ``Chart.yaml``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from policies.reading.chart_folders import find_chart, is_chart_folder
from policies.reading.gitops_charts import _chart_roots
from policies.reading.helmfile import _local_chart
from tests.policies.policy_fixtures import chart_folder

TEMPLATE = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .Release.Name }}\n"
SHAPES = {
    "chart-yaml": ({"Chart.yaml": "apiVersion: v2\nname: a\nversion: 1.0.0\n"}, True),
    "headless-values": ({"values.yaml": "tag: v1\n"}, True),
    "headless-variant": ({"values-gpu.yaml": "tag: v1\n"}, True),
    "templates-only": ({}, False),
    "chart-yml-only": ({"Chart.yml": "apiVersion: v2\nname: a\nversion: 1.0.0\n"}, False),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_reader_asks_the_one_question(tmp_path: Path, shape: str):
    files, chart = SHAPES[shape]
    root = chart_folder(tmp_path / "charts" / "app", {"pod.yaml": TEMPLATE}, chart=None, files=files)
    run = [str(p) for p in tmp_path.rglob("*") if p.is_file()]
    assert is_chart_folder(str(root)) is chart
    assert (find_chart(str(root / "templates" / "pod.yaml"), str(tmp_path)) == str(root)) is chart
    assert (_local_chart("./charts/app", str(tmp_path)) == str(root)) is chart
    assert (str(root) in _chart_roots(run)) is chart
