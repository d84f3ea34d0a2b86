"""A chart folder without Chart.yaml nested in another chart's folder is its own chart, and a rendered chart's own
Chart.yaml and values files are read as the chart's, not reported as unchecked (policies/reading/helm_chart.py
find_chart, policies/input/no_object.py read_as_chart).

Firing form (written here, nothing copied): spent set 124 castai/helm-charts@daa46281449593e410adc31f7fe169043c116895
charts/castai-hosted-model, an umbrella chart whose Chart.yaml lists ``repository: file://child-charts/vllm``, and
child-charts/vllm/ holding templates/ and values.yaml (``resources: {}``) but no Chart.yaml among the files: its
templates were "unrendered template, render it first", and both values.yaml files and the Chart.yaml had S27 "holds no
Kubernetes object". Careful forms: a nested templates/ folder with no values file beside it stays unread, and a
values.yaml of a chart none of whose templates rendered keeps its S27 record.
"""

from __future__ import annotations

from pathlib import Path

from policies.check import resources_of
from policies.manifests import read_manifests
from policies.reading.chart_folders import find_chart
from policies.registry import evaluate
from tests.policies.policy_fixtures import write_tree

PARENT_CHART = """apiVersion: v2
name: hosted-model
version: 0.0.1
dependencies:
  - {name: vllm, version: 0.0.1, repository: "file://child-charts/vllm", condition: vllm.enabled}
"""
PARENT_VALUES = "vllm: {enabled: true}\nautoscaler: {minReplicas: 1}\n"
PARENT_AUTOSCALER = """{{- if .Values.vllm.enabled }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-autoscaler
data:
  minReplicas: "{{ .Values.autoscaler.minReplicas }}"
{{- end }}
"""
CHILD_DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Values.service.name }}
spec:
  replicas: 1
  selector: {matchLabels: {app: vllm}}
  template:
    metadata: {labels: {app: vllm}}
    spec:
      containers:
        - name: vllm
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
          args: ["--model={{ .Values.model.name }}", "--dtype={{ .Values.dtype }}"]
          ports: [{name: http, containerPort: 8000}]
          resources:
            {{- toYaml .Values.resources | nindent 12 }}
"""
CHILD_VALUES = """service: {name: vllm}
image: {repository: vllm/vllm-openai, tag: v0.11.2}
model: {name: Qwen/Qwen3-0.6B}
dtype: half
resources: {}
"""


def _castai(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path,
        {
            "charts/hosted-model/Chart.yaml": PARENT_CHART,
            "charts/hosted-model/values.yaml": PARENT_VALUES,
            "charts/hosted-model/templates/autoscaler.yaml": PARENT_AUTOSCALER,
            "charts/hosted-model/child-charts/vllm/values.yaml": CHILD_VALUES,
            "charts/hosted-model/child-charts/vllm/templates/deployment.yaml": CHILD_DEPLOYMENT,
        },
    )


def test_a_nested_chart_folder_without_chart_yaml_is_its_own_chart(tmp_path):
    repo = _castai(tmp_path)
    child = repo / "charts/hosted-model/child-charts/vllm"
    assert find_chart(str(child / "templates/deployment.yaml"), str(repo)) == str(child)
    assert find_chart(str(repo / "charts/hosted-model/templates/autoscaler.yaml"), str(repo)) == str(repo / "charts/hosted-model")
    manifests = read_manifests([str(repo)])
    assert sorted((o.kind, o.name) for o in manifests.objects) == [
        ("ConfigMap", "hosted-model-autoscaler"),
        ("Deployment", "vllm"),
    ]
    found = [v for v in evaluate(resources_of(manifests)) if v.policy == "serving-resource-requests"]
    assert [v.enforcement for v in found] == ["advisory"]


def test_a_rendered_charts_own_files_are_read_as_the_charts(tmp_path):
    repo = _castai(tmp_path)
    manifests = read_manifests([str(repo)])
    assert [u.kind for u in manifests.unreadable if u.kind != "template-read"] == []
    assert sorted(Path(t.values).relative_to(repo).as_posix() for t in manifests.templates) == [
        "charts/hosted-model/child-charts/vllm/values.yaml",
        "charts/hosted-model/values.yaml",
    ]


def test_a_nested_templates_folder_with_no_values_file_stays_unread(tmp_path):
    repo = _castai(tmp_path)
    (repo / "charts/hosted-model/child-charts/vllm/values.yaml").unlink()
    child = repo / "charts/hosted-model/child-charts/vllm"
    assert find_chart(str(child / "templates/deployment.yaml"), str(repo)) is None
    manifests = read_manifests([str(repo)])
    assert [(o.kind, o.name) for o in manifests.objects] == [("ConfigMap", "hosted-model-autoscaler")]
    assert [u.kind for u in manifests.unreadable if u.file.endswith("deployment.yaml")] == ["template"]


def test_a_values_file_of_a_chart_that_renders_nothing_keeps_its_record(tmp_path):
    # Chart.yaml and values.yaml with no template of the run: nothing read them as a chart's, so S27 says so.
    repo = write_tree(tmp_path, {"chart/Chart.yaml": PARENT_CHART, "chart/values.yaml": PARENT_VALUES})
    manifests = read_manifests([str(repo)])
    assert sorted(Path(u.file).name for u in manifests.unreadable if u.kind == "not-kubernetes") == [
        "Chart.yaml",
        "values.yaml",
    ]
