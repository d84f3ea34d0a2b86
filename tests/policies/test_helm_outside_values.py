"""A chart that ships no values file of its own renders with the one its repository keeps above it
(policies/reading/helm_chart.py outside_values, brief chartgaps57).

Firing form (written here, nothing copied): spent set 124 louis030195/text-generation-inference-helm@f4f30d8e66d23301abdf1fe9c9f787ee5bff683f,
charts/text-generation-inference (Chart.yaml and templates/, no values.yaml) and the repository's root values.yaml
(`models:` list, `image`, `ingress`), installed as `helm install NAME charts/text-generation-inference -f values.yaml`:
its TGI Deployment, one per model, had rendered nothing (range over no values). Careful forms: a values.yaml beside
another chart's Chart.yaml, and one whose keys the chart's templates do not read, are not taken.
"""

from __future__ import annotations

from pathlib import Path

from policies.check import resources_of
from policies.manifests import read_manifests
from policies.registry import evaluate

TEMPLATE = """{{- range .Values.models }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .shortName }}
spec:
  replicas: 1
  selector: {matchLabels: {app: {{ .shortName }}}}
  template:
    metadata: {labels: {app: {{ .shortName }}}}
    spec:
      containers:
      - name: tgi
        image: {{ $.Values.image.repository }}:{{ $.Values.image.tag }}
        args: ["--model-id", "{{ .name }}", "--num-shard", "1"]
        resources: {limits: {nvidia.com/gpu: 1}}
---
{{- end }}
"""
VALUES = """models:
  - {name: bigscience/bloomz-7b1, shortName: bloomz-7b1}
image: {repository: ghcr.io/huggingface/text-generation-inference, tag: "2.0.4"}
"""


def _repo(tmp_path: Path, values: str, beside_chart: bool = False) -> Path:
    chart = tmp_path / "charts/tgi"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: tgi\nversion: 0.1.0\n")
    (chart / "templates/deployment.yaml").write_text(TEMPLATE)
    (tmp_path / "values.yaml").write_text(values)
    if beside_chart:
        (tmp_path / "Chart.yaml").write_text("apiVersion: v2\nname: other\nversion: 0.1.0\n")
    return tmp_path


def test_a_chart_without_values_renders_with_the_repositorys_values_above_it(tmp_path):
    manifests = read_manifests([str(_repo(tmp_path, VALUES))])
    assert [(o.kind, o.name) for o in manifests.objects] == [("Deployment", "bloomz-7b1")]
    [read] = manifests.templates
    assert read.values.endswith("values.yaml") and read.objects == 1
    found = {(v.catalog, v.enforcement) for v in evaluate(resources_of(manifests)) if v.catalog in ("G4", "G5")}
    assert found == {("G4", "advisory"), ("G5", "advisory")}  # a template's findings stay advice


def test_careful_another_charts_values_or_unrelated_keys_are_not_taken(tmp_path):
    assert read_manifests([str(_repo(tmp_path / "a", VALUES, beside_chart=True))]).objects == []
    assert read_manifests([str(_repo(tmp_path / "b", "replicaCount: 2\nservice: {port: 80}\n"))]).objects == []


def test_careful_a_helmfiles_values_file_is_not_taken(tmp_path):
    """review57c: a values.yaml beside a helmfile is the helmfile's, given to the release that names it (here a remote
    chart's, whose keys overlap the local chart's); helmfile's own reading renders a local chart it names."""
    root = _repo(tmp_path, VALUES)
    (root / "helmfile.yaml").write_text(
        "releases:\n- name: tgi-remote\n  chart: oci://ghcr.io/example/tgi\n  version: 1.0.0\n  values: [values.yaml]\n"
    )
    assert [o for o in read_manifests([str(root)]).objects if o.file.endswith("deployment.yaml")] == []
