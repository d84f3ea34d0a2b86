"""A repository's own chart copied in part still renders as far as it can (policies/reading/helm_chart.py, brief
partial56): an include of a helper no file of the run defines is an unknown value that the file's S27 line names, a
``required`` value the chart's values.yaml leaves out is unknown, and ``.Release.Name`` is the chart's name.

Firing forms (written here, nothing copied): spent set 115 rockofox/helm-llama-cpp@e7f8543a3a17f3760f15c723e9b14686a71aac02
charts/llama-server/templates/deployment.yaml (names and labels from ``llama-cpp.fullname``/``llama-cpp.labels``, whose
_helpers.tpl the checkout lacks; ``resources: {}`` on a llama.cpp server, labelled G8/G10), and spent set 121
quickbeard/llm-serving-helm@ece636eb69e56637fb960a6b308c57734ede2b17 charts/vllm/templates/deployment.yaml and
poddisruptionbudget.yaml (objects named ``{{ .Release.Name }}-deployment-vllm``, helmfile.yaml installing the chart
as release ``vllm``; the image ``required``; a writable hostPath model store, labelled G31 on ``vllm-deployment-vllm``).
Careful forms: that chart as committed has no values.yaml (its values are values/<env>/vllm.yaml), so its required
image still stops the render: what a values-less render leaves out is not absent; and the ``helm create`` scaffold's shape
(helm/helm v3.16.0 pkg/chartutil/create.go: every include defined in _helpers.tpl), a model server with probes,
requests and a memory limit: no finding of those rules and no note of missing helpers.
"""

from __future__ import annotations

from pathlib import Path

from policies.check import resources_of
from policies.framework import UNKNOWN
from policies.manifests import read_manifests
from policies.registry import evaluate

LLAMA = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "llama-cpp.fullname" . }}
  labels:
    {{- include "llama-cpp.labels" . | nindent 4 }}
spec:
  replicas: {{ .Values.replicaCount }}
  selector:
    matchLabels:
      {{- include "llama-cpp.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "llama-cpp.selectorLabels" . | nindent 8 }}
    spec:
      containers:
        - name: llama-server
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
          args: ["--hf-repo", "{{ .Values.llama.repo }}", "--port", "8080"]
          ports: [{containerPort: 8080}]
          resources:
            {{- toYaml .Values.resources | nindent 12 }}
"""
LLAMA_VALUES = """replicaCount: 2
image: {repository: ghcr.io/ggml-org/llama.cpp, tag: server-b4500}
llama: {repo: bartowski/gemma-2-2b-it-GGUF}
resources: {}
"""

VLLM = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: "{{ .Release.Name }}-deployment-vllm"
spec:
  replicas: 1
  selector:
    matchLabels: {environment: test}
  template:
    metadata:
      labels: {environment: test}
    spec:
      containers:
        - name: vllm
          image: "{{ required "image.repository" .Values.image.repository }}:{{ required "image.tag" .Values.image.tag }}"
          args: ["--model", "/data/gpt2"]
          volumeMounts:
            - {name: "{{ .Release.Name }}-storage", mountPath: /data}
      volumes:
        - name: "{{ .Release.Name }}-storage"
          hostPath: {path: {{ .Values.hostPath | default "/data" }}, type: DirectoryOrCreate}
"""
VLLM_PDB = """apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: "{{ .Release.Name }}-pdb"
spec:
  maxUnavailable: {{ default 1 .Values.maxUnavailable }}
"""

CAREFUL_HELPERS = """{{- define "srv.fullname" -}}
{{- if contains .Chart.Name .Release.Name }}{{ .Release.Name }}{{ else }}{{ .Release.Name }}-{{ .Chart.Name }}{{ end }}
{{- end }}
{{- define "srv.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}
"""
CAREFUL = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "srv.fullname" . }}
spec:
  replicas: 1
  selector:
    matchLabels:
      {{- include "srv.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "srv.selectorLabels" . | nindent 8 }}
    spec:
      containers:
        - name: llama-server
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
          args: ["--hf-repo", "{{ .Values.llama.repo }}", "--port", "8080"]
          ports: [{containerPort: 8080}]
          readinessProbe: {httpGet: {path: /health, port: 8080}}
          livenessProbe: {httpGet: {path: /health, port: 8080}}
          resources:
            {{- toYaml .Values.resources | nindent 12 }}
"""
CAREFUL_VALUES = LLAMA_VALUES.replace("resources: {}", "resources: {requests: {cpu: '4', memory: 8Gi}, limits: {memory: 8Gi}}")


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def _check(root: Path):
    manifests = read_manifests([str(root)])
    return manifests, evaluate(resources_of(manifests))


def test_includes_of_helpers_the_run_lacks_render_unknown_and_the_s27_line_names_them(tmp_path):
    repo = _write(
        tmp_path, {"charts/llama-server/templates/deployment.yaml": LLAMA, "charts/llama-server/values.yaml": LLAMA_VALUES}
    )
    manifests, violations = _check(repo)
    [obj] = manifests.objects
    assert obj.name == "?"  # the name comes from a helper the run lacks
    [s27] = [v for v in violations if v.policy == "manifest-is-kubernetes" and v.resource.endswith("File/deployment.yaml")]
    assert (
        "define no llama-cpp.fullname, llama-cpp.labels, llama-cpp.selectorLabels, which it includes: a chart copied in "
        "part, its helpers left out; what they give is unknown, and no rule reads it)" in s27.message
    )
    # The rules run on what is known: the llama.cpp server's `resources: {}` from the chart's values.yaml.
    on_it = {(v.catalog, v.enforcement) for v in violations if "~rendered Deployment/" in v.resource}
    assert ("G8", "advisory") in on_it and ("G10", "advisory") in on_it


def test_a_required_value_its_values_yaml_leaves_out_is_unknown_and_the_release_is_named_as_the_chart(tmp_path):
    # The quickbeard chart with a values.yaml that leaves the image to the deployer (values/<env>/vllm.yaml there).
    repo = _write(
        tmp_path,
        {
            "charts/vllm/Chart.yaml": "apiVersion: v2\nname: vllm\nversion: 0.1.0\n",
            "charts/vllm/values.yaml": "hostPath: /data\n",
            "charts/vllm/templates/deployment.yaml": VLLM,
            "charts/vllm/templates/poddisruptionbudget.yaml": VLLM_PDB,
        },
    )
    manifests, violations = _check(repo)
    assert sorted(o.name for o in manifests.objects) == ["vllm-deployment-vllm", "vllm-pdb"]
    [deployment] = [o for o in manifests.objects if o.kind == "Deployment"]
    [container] = deployment.obj["spec"]["template"]["spec"]["containers"]
    assert container["image"] is UNKNOWN
    assert deployment.obj["spec"]["template"]["spec"]["volumes"][0]["name"] == "vllm-storage"
    found = {(v.catalog, v.resource.rsplit("/", 1)[-1], v.enforcement) for v in violations}
    assert ("G31", "vllm-deployment-vllm", "advisory") in found
    # the unknown image is never a finding's cause: no pinned-tag or image-reference finding on it
    assert not [v for v in violations if v.catalog in ("G1", "G46") and "vllm-deployment-vllm" in v.resource]


def test_a_required_value_of_a_chart_with_no_values_file_still_stops_its_render(tmp_path):
    # As committed (quickbeard/llm-serving-helm@ece636eb charts/vllm has no values.yaml), every value the chart reads
    # is in a file the run does not join to it: rendered with none, its probes would look absent, which they are not
    # (values/production/vllm.yaml sets readinessProbe). The template that requires a value is reported as before.
    repo = _write(
        tmp_path,
        {
            "charts/vllm/Chart.yaml": "apiVersion: v2\nname: vllm\nversion: 0.1.0\n",
            "charts/vllm/templates/deployment.yaml": VLLM,
            "charts/vllm/templates/poddisruptionbudget.yaml": VLLM_PDB,
        },
    )
    manifests, violations = _check(repo)
    assert [(o.kind, o.name) for o in manifests.objects] == [("PodDisruptionBudget", "vllm-pdb")]
    assert [u.why for u in manifests.unreadable if u.kind == "template"] == [
        "an unrendered template ({{ ... }}): render it first, e.g. helm template CHART | python -m policies check -"
    ]
    assert not [v for v in violations if "vllm-deployment-vllm" in v.resource]


def test_a_careful_chart_whose_helpers_are_all_there_stays_silent(tmp_path):
    repo = _write(
        tmp_path,
        {
            "srv/Chart.yaml": "apiVersion: v2\nname: srv\nversion: 0.1.0\n",
            "srv/values.yaml": CAREFUL_VALUES,
            "srv/templates/_helpers.tpl": CAREFUL_HELPERS,
            "srv/templates/deployment.yaml": CAREFUL,
        },
    )
    manifests, violations = _check(repo)
    assert [o.name for o in manifests.objects] == ["srv"]
    assert not [v for v in violations if v.catalog in ("G4", "G5", "G8", "G10")]
    assert not [v for v in violations if "define no" in v.message]
