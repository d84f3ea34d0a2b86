"""A rendered chart's finding lands on the values.yaml line a reviewer fixes (policies/value_paths.py, the table
policies/judged_fields.py, the trace policies/reading/value_trace.py).

Firing forms (written here, nothing copied): spent set 124 Lintasarta/vllm-helm@1a4ef6c5b766f3b593ebc5f9f424a64b914b4388
values.yaml and templates/deployment.yaml (``image.pullPolicy: Always``, ``resources`` written value by value,
``{{- if .Values.tolerations }}`` over ``tolerations: {}``, ``- "{{ .Values.modelName }}"`` in args), labelled G3, G12,
S15 and S17 on values.yaml; inf-monkeys/helm-charts@6e6787b2a043d78d152051ab8b346c0ab0b8d87d charts/vllm
(``env: {{- toYaml .Values.vllm.env | nindent 12 }}`` over ``NVIDIA_VISIBLE_DEVICES: all``), G53 on values.yaml.
Careful forms: alpha-hack-program/doc-bot@3f0a9a76e5daa66694c336ed31f5d5fc075e8296 gitops/kb-chat/templates/kb-chat.yaml
writes ``image: .../{{ .Values.namespace }}/kb-chat:latest`` and ``resources: {}`` itself: the labels (G1, G8) are on
the template, and the findings stay there.
"""

from __future__ import annotations

import json
from pathlib import Path

from policies.check import check_report, render, resources_of
from policies.manifests import read_manifests
from policies.reading.helm_chart import load_chart
from policies.reading.helm_chart import render as render_template
from policies.registry import evaluate

CHART = "apiVersion: v2\nname: vllm\nversion: 0.1.0\n"
VALUES = """app: qwen
modelName: Qwen/Qwen3-0.6B
image:
  repository: vllm/vllm-openai
  tag: v0.9.2
  pullPolicy: Always
extraArgs:
  - --max-model-len=8192
resources:
  limits: {cpu: "8", memory: 32Gi, nvidia.com/gpu: 1}
  requests: {cpu: "4", memory: 8Gi, nvidia.com/gpu: 1}
affinity:
  nodeAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms:
        - matchExpressions: [{key: nvidia.com/gpu.product, operator: In, values: [NVIDIA-L40S]}]
tolerations: {}
env:
  - {name: NVIDIA_VISIBLE_DEVICES, value: all}
"""
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Values.app }}
spec:
  replicas: 1
  selector: {matchLabels: {app: {{ .Values.app }}}}
  template:
    metadata: {labels: {app: {{ .Values.app }}}}
    spec:
      affinity: {{ toYaml .Values.affinity | nindent 8 }}
      {{- if .Values.tolerations }}
      tolerations:
      {{ toYaml .Values.tolerations | nindent 8 }}
      {{- end }}
      containers:
      - name: {{ .Values.app }}
        image: {{ .Values.image.repository }}:{{ .Values.image.tag }}
        imagePullPolicy: {{ .Values.image.pullPolicy }}
        args:
          - "{{ .Values.modelName }}"
          {{- range .Values.extraArgs }}
          - {{ . | quote }}
          {{- end }}
        env:
          {{- toYaml .Values.env | nindent 10 }}
        ports: [{containerPort: 8000}]
        resources:
          limits:
            cpu: {{ .Values.resources.limits.cpu | quote }}
            memory: {{ .Values.resources.limits.memory | quote }}
            nvidia.com/gpu: {{ index .Values.resources.limits "nvidia.com/gpu" | quote }}
          requests:
            cpu: {{ .Values.resources.requests.cpu | quote }}
            memory: {{ .Values.resources.requests.memory | quote }}
            nvidia.com/gpu: {{ index .Values.resources.requests "nvidia.com/gpu" | quote }}
"""
# kb-chat's form: the template writes the image's tag and the resources itself; only the namespace is a value.
CAREFUL_VALUES = "namespace: rag\n"
CAREFUL = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: kb-chat
spec:
  replicas: 1
  selector: {matchLabels: {app: kb-chat}}
  template:
    metadata: {labels: {app: kb-chat}}
    spec:
      containers:
        - name: kb-chat
          image: registry:5000/{{ .Values.namespace }}/kb-chat:latest
          ports: [{containerPort: 8080}]
          resources: {}
"""


def _chart(root: Path, values: str, template: str) -> Path:
    (root / "templates").mkdir(parents=True)
    (root / "Chart.yaml").write_text(CHART)
    (root / "values.yaml").write_text(values)
    (root / "templates" / "deployment.yaml").write_text(template)
    return root


def _report(root: Path) -> dict:
    manifests = read_manifests([str(root)])
    return check_report(manifests, evaluate(resources_of(manifests)))


def _line(text: str, start: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith(start))


def _rows(report: dict, catalog: str) -> list[dict]:
    return [v for v in report["violations"] if v["catalog"] == catalog]


def test_findings_on_fields_the_values_give_move_to_their_keys(tmp_path):
    root = _chart(tmp_path / "chart", VALUES, DEPLOYMENT)
    report = _report(root)
    values = str(root / "values.yaml")
    expected = {
        "G3": _line(VALUES, "  pullPolicy:"),
        "G12": _line(VALUES, "resources:"),
        "S15": _line(VALUES, "tolerations:"),
        "S17": _line(VALUES, "modelName:"),
        "G53": _line(VALUES, "env:"),
    }
    for catalog, line in expected.items():
        moved = [v for v in _rows(report, catalog) if v["file"] == values]
        assert moved, catalog
        assert {v["line"] for v in moved} == {line}, catalog
        assert all(v["message"].endswith("(rendered by templates/deployment.yaml)") for v in moved)
    # Moved, not copied: the toleration finding is on values.yaml only.
    [tolerate] = [v for v in _rows(report, "S15") if "tolerate" in v["message"]]
    assert tolerate["file"] == values


def test_json_text_and_sarif_carry_the_values_line(tmp_path):
    root = _chart(tmp_path / "chart", VALUES, DEPLOYMENT)
    report = _report(root)
    line = _line(VALUES, "  pullPolicy:")
    [row] = [v for v in json.loads(render(report, "json"))["violations"] if v["catalog"] == "G3"]
    assert (row["file"], row["line"], row["document"]) == (str(root / "values.yaml"), line, 0)
    assert f"{root / 'values.yaml'} Deployment/qwen (line {line})" in render(report, "text")
    sarif = json.loads(render(report, "sarif"))
    [result] = [r for r in sarif["runs"][0]["results"] if "imagePullPolicy Always" in r["message"]["text"]]
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"].endswith("values.yaml") and location["region"]["startLine"] == line


def test_fields_the_template_writes_itself_keep_the_template_location(tmp_path):
    root = _chart(tmp_path / "chart", CAREFUL_VALUES, CAREFUL)
    report = _report(root)
    template = str(root / "templates" / "deployment.yaml")
    for catalog in ("G1", "G8"):
        rows = _rows(report, catalog)
        assert rows and all(v["file"] == template and "rendered by" not in v["message"] for v in rows), catalog


def test_a_default_the_values_file_does_not_hold_keeps_the_template_location(tmp_path):
    template = DEPLOYMENT.replace(
        "imagePullPolicy: {{ .Values.image.pullPolicy }}", 'imagePullPolicy: {{ .Values.pull | default "Always" }}'
    )
    report = _report(_chart(tmp_path / "chart", VALUES, template))
    [row] = _rows(report, "G3")
    assert row["file"].endswith("templates/deployment.yaml")


def test_the_trace_records_which_values_path_printed_each_stretch(tmp_path):
    template = (
        "a: {{ .Values.x.y }}\n{{- with .Values.list }}\nb: {{ toYaml . }}\n{{- end }}\n"
        "{{- range $i, $v := .Values.items }}\nc{{ $i }}: {{ $v }}\n{{- end }}\n{{- if .Values.shut }}\nd: 1\n{{- end }}\n"
    )
    root = _chart(tmp_path / "chart", "x: {y: 1}\nlist: [p]\nitems: [q, r]\nshut: false\n", template)
    traces: list = []
    text = render_template(str(root / "templates" / "deployment.yaml"), template, load_chart(str(root)), trace=traces)
    trace = traces[0]
    printed = {(text[s.start : s.end], s.path) for s in trace.spans if not s.block}
    assert {("1", ("x", "y")), ("- p", ("list",)), ("q", ("items", 0)), ("r", ("items", 1))} <= printed
    empty = [s for s in trace.spans if s.block and s.path == ("shut",)]
    assert len(empty) == 1 and empty[0].start == empty[0].end  # an if that printed nothing: where its field would be


HPA = """apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: qwen
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: qwen}
  minReplicas: {{ .Values.autoscaling.minReplicas }}
  maxReplicas: 4
  metrics:
    - type: Pods
      pods:
        metric: {name: vllm:num_requests_waiting}
        target: {type: AverageValue, averageValue: "5"}
"""


def test_an_objects_own_spec_field_moves_too(tmp_path):
    # castai/helm-charts@daa46281 charts/castai-hosted-model: the autoscaler's minReplicas from
    # values podAutoscaler.minReplicas (1), labelled G15 (spent set 124).
    values = VALUES + "autoscaling:\n  minReplicas: 1\n"
    root = _chart(tmp_path / "chart", values, DEPLOYMENT)
    (root / "templates" / "hpa.yaml").write_text(HPA)
    rows = [v for v in _rows(_report(root), "G15") if v["resource"] == "HorizontalPodAutoscaler/qwen"]
    assert rows and all((v["file"], v["line"]) == (str(root / "values.yaml"), _line(values, "  minReplicas:")) for v in rows)
    assert all(v["message"].endswith("(rendered by templates/hpa.yaml)") for v in rows)


def test_an_object_only_another_values_file_renders_moves_to_that_file(tmp_path):
    # obike007/llama-kuberay@4fef9558 helm/llama-server/values-kuberay.yaml turns on templates values.yaml leaves off;
    # its image tag is labelled G1 there (spent set 117).
    gated = "{{- if .Values.gpu }}\n" + DEPLOYMENT.replace("{{ .Values.image.tag }}", "{{ .Values.gpu.tag }}") + "{{- end }}\n"
    root = _chart(tmp_path / "chart", VALUES + "gpu: null\n", gated)
    variant = "gpu:\n  tag: latest\n"
    (root / "values-gpu.yaml").write_text(variant)
    [row] = _rows(_report(root), "G1")
    assert (row["file"], row["line"]) == (str(root / "values-gpu.yaml"), _line(variant, "  tag:"))


def test_an_absent_field_no_value_decides_stays_on_the_template(tmp_path):
    # Lintasarta's form without its `{{- if .Values.tolerations }}`: no values key could add one, so the template is
    # where the toleration is missing (and the chart's unused `tolerations: {}` is no reason to move there).
    template = DEPLOYMENT.replace(
        "      {{- if .Values.tolerations }}\n      tolerations:\n      {{ toYaml .Values.tolerations | nindent 8 }}\n"
        "      {{- end }}\n",
        "",
    )
    assert template != DEPLOYMENT
    report = _report(_chart(tmp_path / "chart", VALUES, template))
    [row] = [v for v in _rows(report, "S15") if "tolerate" in v["message"]]
    assert row["file"].endswith("templates/deployment.yaml") and "rendered by" not in row["message"]


def test_a_field_whose_keys_the_template_writes_stays_on_the_template(tmp_path):
    # Review57v: `resources: {limits: {nvidia.com/gpu: {{ .Values.gpu }}}}` (the form of GPU workers' and init
    # containers' resources in public Ray and vLLM charts) had G8's missing cpu and memory requests moved to `gpu: 1`,
    # a key where no request can be added: the template's own layout is what the reader fixes.
    template = DEPLOYMENT.split("        resources:")[0] + "        resources:\n          limits:\n"
    template += "            nvidia.com/gpu: {{ .Values.gpu }}\n"
    report = _report(_chart(tmp_path / "chart", VALUES + "gpu: 1\n", template))
    for catalog in ("G8", "G10"):
        rows = _rows(report, catalog)
        assert rows and all(v["file"].endswith("templates/deployment.yaml") for v in rows), catalog
        assert all("rendered by" not in v["message"] for v in rows), catalog


def test_the_trace_follows_index_to_the_literal_key(tmp_path):
    # Lintasarta's `{{ index .Values.resources.limits "nvidia.com/gpu" }}`: the key a values file holds under its
    # dotted name, so the template's `nvidia.com/gpu:` mirrors the values it prints.
    template = 'g: {{ index .Values.resources.limits "nvidia.com/gpu" }}\nh: {{ index .Values.list 1 }}\n'
    root = _chart(tmp_path / "chart", "resources: {limits: {nvidia.com/gpu: 2}}\nlist: [a, b]\n", template)
    traces: list = []
    text = render_template(str(root / "templates" / "deployment.yaml"), template, load_chart(str(root)), trace=traces)
    printed = {(text[s.start : s.end], s.path) for s in traces[0].spans if not s.block}
    assert printed == {("2", ("resources", "limits", "nvidia.com/gpu")), ("b", ("list", 1))}


def test_a_values_file_of_several_documents_moves_to_its_first(tmp_path):
    # The chart's values are its values.yaml's first document (helm_chart.load_chart); a second one (`---` and an
    # override left below it) had kept every finding on the template, the key lookup refusing the file.
    values = VALUES.replace("tag: v0.9.2", "tag: latest") + "---\nimage:\n  tag: v1\n"
    [row] = _rows(_report(_chart(tmp_path / "chart", values, DEPLOYMENT)), "G1")
    assert (row["file"], row["line"]) == (str(tmp_path / "chart" / "values.yaml"), _line(values, "  tag:"))


def test_a_setting_moves_to_the_security_context_that_holds_it(tmp_path):
    # helm create's pair `podSecurityContext` / `securityContext`: `runAsUser: 0` in the pod's and capabilities in the
    # container's. G28 judges whichever holds the user; it had moved to the container's key, which holds no user.
    values = VALUES + "podSecurityContext:\n  runAsUser: 0\nsecurityContext:\n  capabilities: {drop: [ALL]}\n"
    template = DEPLOYMENT.replace(
        "      containers:\n", "      securityContext: {{- toYaml .Values.podSecurityContext | nindent 8 }}\n      containers:\n"
    ).replace(
        "        ports: [{containerPort: 8000}]\n",
        "        ports: [{containerPort: 8000}]\n        securityContext: {{- toYaml .Values.securityContext | nindent 10 }}\n",
    )
    [row] = _rows(_report(_chart(tmp_path / "chart", values, template)), "G28")
    assert "runAsUser: 0" in row["message"]
    assert (row["file"], row["line"]) == (str(tmp_path / "chart" / "values.yaml"), _line(values, "podSecurityContext:"))
