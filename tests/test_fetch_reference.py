"""tools/fetch_reference.py: its list names every file the tests read, and its parsers work offline."""

from __future__ import annotations

import importlib.util
import json

import pytest

from tests.conftest import ROOT, shared_path

spec = importlib.util.spec_from_file_location("fetch_reference", ROOT / "tools" / "fetch_reference.py")
fetch = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fetch)
SOURCES = json.loads((ROOT / "tools" / "reference_sources.json").read_text())


@pytest.mark.parametrize(
    "part,pattern", [("crds", "**/*.yaml"), ("corpus", "manifests/**/*.y*ml"), ("reference", "upstream-iam/*.[jy]*")]
)
def test_the_list_names_every_file_of_the_reference_folder(part, pattern):
    present = sorted(p.relative_to(shared_path(part)).as_posix() for p in shared_path(part).glob(pattern))
    assert sorted(item["file"] for item in SOURCES[part]) == present


def test_the_list_names_every_pinned_chart():
    present = sorted(f"{p.parent.name}/{p.name}" for p in shared_path("charts").glob("*/*") if p.is_dir())
    assert sorted(f"{c['chart']}/{c['version']}" for c in SOURCES["charts"]) == present


def test_every_item_is_pinned_to_a_commit():
    for item in SOURCES["crds"] + SOURCES["corpus"] + SOURCES["reference"]:
        assert len(item["commit"]) == 40 and item["repo"].count("/") == 1, item


def test_values_used_lists_each_path_with_its_templates_and_subchart_prefix(tmp_path):
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "deploy.yaml").write_text(
        'replicas: {{ .Values.replicaCount }}\n{{- toYaml .Values.resources | nindent 2 }}\n{{ index .Values "image" "tag" }}\n'
    )
    (tmp_path / "charts" / "grafana" / "templates").mkdir(parents=True)
    (tmp_path / "charts" / "grafana" / "templates" / "svc.yaml").write_text("port: {{ .Values.service.port }}\n")
    rows = [line for line in fetch.values_used(tmp_path).splitlines() if not line.startswith("#")]
    assert rows == [
        "grafana.service.port\tcharts/grafana/templates/svc.yaml",
        "image.tag\ttemplates/deploy.yaml",
        "replicaCount\ttemplates/deploy.yaml",
        "resources\ttemplates/deploy.yaml",
    ]


def test_istio_crds_are_split_out_by_name():
    text = (
        "apiVersion: v1\nkind: CustomResourceDefinition\nmetadata:\n  name: a.networking.istio.io\n"
        "---\napiVersion: v1\nkind: CustomResourceDefinition\nmetadata:\n  name: b.networking.istio.io\nspec: {}\n"
    )
    assert fetch.split_crd(text, "b.networking.istio.io").endswith("name: b.networking.istio.io\nspec: {}\n")
    with pytest.raises(ValueError):
        fetch.split_crd(text, "c.networking.istio.io")


def test_split_reproduces_the_kept_istio_crd():
    """The kept VirtualService CRD is one document of Istio's file, so splitting that file yields it unchanged."""
    kept = shared_path("crds", "networking.istio.io", "VirtualService.yaml").read_text()
    assert fetch.split_crd("x: 1\n---\n" + kept + "---\ny: 2\n", "virtualservices.networking.istio.io") == kept
