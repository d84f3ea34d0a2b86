"""A rendered chart object whose name the render cannot know is named as a reader of its template names it
(policies/reading/chart_names.py, brief chartgaps57).

Firing forms (written here, nothing copied): souhailsegni/Deepseek_R1_VLLM-EKS@cbc8af3960419cca39ad67329151abfe01e1d1f7
deepseek-vllm/modules/helm/deepseek-r1 (``name: deepseek-r1-{{ .Values.modelSize }}`` over a values.yaml that is a
Terraform templatefile, ``modelSize: '${modelSize}'``); ullbergm/openshift@244c638bcea0fa1b9307700f6a41b30b7b89ec4f
charts/ai/ollama (``name: {{ .Release.Name }}``); inf-monkeys/helm-charts@6e6787b2a043d78d152051ab8b346c0ab0b8d87d
charts/vllm (``{{ template "vllm.vllm-openai.fullname" . }}``, a helper the repository does not hold). Careful form: a
name a values default fixes (Lintasarta/vllm-helm ``{{ .Values.app }}``, ``qwen3-0-6b``) keeps its rendered name.
"""

from __future__ import annotations

from pathlib import Path

from policies.check import resources_of
from policies.manifests import read_manifests
from policies.reading.chart_names import reader_name, template_names
from policies.registry import evaluate

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  labels: {{app: server}}
spec:
  replicas: 1
  selector: {{matchLabels: {{app: server}}}}
  template:
    metadata: {{labels: {{app: server}}}}
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.7.0
        args: ["--model", "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B"]
        resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""


def _chart(tmp_path: Path, chart: str, name: str, values: str) -> Path:
    root = tmp_path / chart
    (root / "templates").mkdir(parents=True)
    (root / "Chart.yaml").write_text(f"apiVersion: v2\nname: {chart}\nversion: 0.1.0\n")
    (root / "values.yaml").write_text(values)
    (root / "templates/deployment.yaml").write_text(DEPLOYMENT.format(name=name))
    return tmp_path


def _names(root: Path) -> tuple[list[str], set[str]]:
    manifests = read_manifests([str(root)])
    found = evaluate(resources_of(manifests))
    return [o.name for o in manifests.objects], {v.resource.rsplit("/", 1)[-1] for v in found if v.catalog == "S10"}


def test_a_value_left_a_fill_in_keeps_the_templates_text():
    assert reader_name("deepseek-r1-{{ .Values.modelSize }}", "deepseek-r1") == "deepseek-r1-{{ .Values.modelSize }}"


def test_a_fill_in_values_file_names_the_object_by_its_template(tmp_path):
    root = _chart(tmp_path, "deepseek-r1", "deepseek-r1-{{ .Values.modelSize }}", "modelSize: '${modelSize}'\n")
    names, s10 = _names(root)
    assert names == ["deepseek-r1-{{ .Values.modelSize }}"]
    assert s10 == {"deepseek-r1-{{ .Values.modelSize }}"}  # findings name what a reviewer reads in the template


def test_the_release_name_is_the_charts_as_helm_install_chart_gives_it(tmp_path):
    names, _ = _names(_chart(tmp_path, "ollama", "{{ .Release.Name }}", "{}\n"))
    assert names == ["ollama"]


def test_a_missing_fullname_helper_is_the_charts_name(tmp_path):
    names, s10 = _names(_chart(tmp_path, "vllm", '{{ template "vllm.vllm-openai.fullname" . }}', "{}\n"))
    assert names == ["vllm"] and s10 == {"vllm"}


def test_a_helper_with_a_suffix_keeps_the_suffix():
    assert reader_name('{{ include "chat.fullname" . }}-ollama', "chat") == "chat-ollama"


def test_a_release_and_chart_name_written_in_the_template_are_both_kept():
    """review57c: only the fullname helper shortens (helm v3.16.4 pkg/chartutil/create.go:477); a template writing
    the release's and the chart's name itself gets CHART-CHART, so it is not reported under the name of the object
    the fullname helper names (two Services of one chart would print as one)."""
    assert reader_name("{{- .Release.Name -}}-{{ .Chart.Name }}", "srv") == "srv-srv"
    assert reader_name('{{ .Release.Name }}-{{ include "srv.name" . }}', "srv") == "srv-srv"
    assert reader_name('{{ include "srv.fullname" . }}', "srv") == "srv"


def test_careful_a_name_a_values_default_fixes_keeps_it(tmp_path):
    names, s10 = _names(_chart(tmp_path, "vllm-helm", "{{ .Values.app }}", "app: qwen3-0-6b\n"))
    assert names == ["qwen3-0-6b"] and s10 == {"qwen3-0-6b"}


def test_a_template_with_two_names_for_one_kind_names_none():
    text = "kind: Service\nmetadata:\n  name: {{ .Release.Name }}-a\n---\nkind: Service\nmetadata:\n  name: b\n"
    assert template_names(text) == {}
    assert template_names("kind: Service\nmetadata:\n  labels: {a: b}\n  name: '{{.Values.x}}'\n") == {
        "Service": "{{ .Values.x }}"
    }


HELPERS = """{{- define "vllm.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- define "vllm.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}
"""


def test_the_fullname_helper_takes_the_charts_name_override(tmp_path):
    """review57c: helm create's fullname helper (helm v3.16.4 pkg/chartutil/create.go:472-483, written here) with
    ``nameOverride: server`` gives vllm-server under helm install vllm ./vllm, not vllm; fullnameOverride is kept."""
    root = _chart(tmp_path / "a", "vllm", '{{ include "vllm.fullname" . }}', "nameOverride: server\n")
    (root / "vllm/templates/_helpers.tpl").write_text(HELPERS)
    assert _names(root)[0] == ["vllm-server"]
    root = _chart(tmp_path / "b", "vllm", '{{ include "vllm.fullname" . }}', "nameOverride: vllm\n")
    (root / "vllm/templates/_helpers.tpl").write_text(HELPERS)
    assert _names(root)[0] == ["vllm"]
    root = _chart(tmp_path / "c", "vllm", '{{ include "vllm.fullname" . }}', "fullnameOverride: srv\n")
    (root / "vllm/templates/_helpers.tpl").write_text(HELPERS)
    assert _names(root)[0] == ["srv"]
    assert reader_name('{{ include "vllm.name" . }}-{{ .Release.Name }}', "vllm", "server") == "server-vllm"
