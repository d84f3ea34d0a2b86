"""Every value we pass to a chart is read by that chart's templates (values-used.tsv), in every stack.

A value no template reads is silently ignored by Helm, whatever the chart's values.yaml holds: the
key path may exist there (a default nobody templates) and still do nothing. ../shared/charts/
<chart>/<version>/values-used.tsv lists each value path the chart's templates read (generated
from the templates at the tag in its PROVENANCE.md); a value path we set must be one of them, sit
under one read whole, or be a map whose keys they read.
"""

from __future__ import annotations

import pytest
import yaml

from components.builders.addons import KSERVE_LOCALMODEL
from components.builders.model_source import localmodel_values
from tests.chart_values import read_values_used, unread_value_paths
from tests.conftest import shared_path
from tests.recording import record

STACKS = ("dev", "staging", "prod")


@pytest.fixture(scope="module", params=STACKS)
def releases(request) -> tuple[str, list[dict]]:
    files = record(request.param)["files"]
    return request.param, [yaml.safe_load(text) for path, text in sorted(files.items()) if path.startswith("helm/")]


def _used(chart: str, version: str):
    name = chart.rstrip("/").rsplit("/", 1)[-1]
    return read_values_used(shared_path("charts", name, version, "values-used.tsv"))


def test_every_value_of_every_release_is_read_by_its_chart(releases):
    stack, rels = releases
    assert rels, stack
    unread = {
        f"{r['name']} ({r['chart']} {r['version']})": paths
        for r in rels
        if (paths := unread_value_paths(r["values"] or {}, _used(r["chart"], r["version"])))
    }
    assert unread == {}


def test_the_local_model_release_values_of_issue_18_would_be_caught():
    # The values the local-model release used to carry: kserve-localmodel-resources v0.20.0 never reads
    # kserve.localmodel.enabled (kserve-resources renders it into inferenceservice-config), and the
    # agent's hostPath is fixed at /models in files/resources.yaml, no value templates it.
    used = _used(KSERVE_LOCALMODEL.name, KSERVE_LOCALMODEL.version)
    old = {"kserve": {"localmodel": {"enabled": True, "agent": {"hostPath": "/mnt/k8s-disks/0/kserve-models"}}}}
    assert unread_value_paths(old, used) == ["kserve.localmodel.enabled", "kserve.localmodel.agent.hostPath"]
    assert unread_value_paths(localmodel_values(), used) == []


def test_a_map_whose_keys_the_templates_read_counts_as_read():
    used = [("a", "b", "c"), ("d",)]
    assert unread_value_paths({"a": {"b": {"c": 1}}, "d": {"x": [1]}}, used) == []
    assert unread_value_paths({"a": {"b": {"x": 1}}}, used) == ["a.b.x"]
    assert unread_value_paths({"a": {}}, used) == []  # an empty map above a read path
