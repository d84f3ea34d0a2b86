"""A repository's own chart copied in part still renders as far as it can (policies/reading/helm_chart.py, brief
partial56): an include of a helper no file of the run defines is an unknown value that the file's S27 line names, a
``required`` value the chart's values.yaml leaves out is unknown, and ``.Release.Name`` is helm template's ``release-name``
unless a release object of the run names it (review56b).

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
from tests.policies.policy_fixtures import write_tree

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


def _check(root: Path):
    manifests = read_manifests([str(root)])
    return manifests, evaluate(resources_of(manifests))


def test_includes_of_helpers_the_run_lacks_render_unknown_and_the_s27_line_names_them(tmp_path):
    repo = write_tree(
        tmp_path, {"charts/llama-server/templates/deployment.yaml": LLAMA, "charts/llama-server/values.yaml": LLAMA_VALUES}
    )
    manifests, violations = _check(repo)
    [obj] = manifests.objects
    # the name comes from a helper the run lacks: unknown, named as `helm install llama-server` names it
    assert obj.name == "llama-server" and obj.obj["metadata"]["name"] is UNKNOWN
    [s27] = [v for v in violations if v.policy == "manifest-is-kubernetes" and v.resource.endswith("File/deployment.yaml")]
    assert (
        "define no llama-cpp.fullname, llama-cpp.labels, llama-cpp.selectorLabels, which it includes: a chart copied in "
        "part, its helpers left out; what they give is unknown, and no rule reads it)" in s27.message
    )
    # The rules run on what is known: the llama.cpp server's `resources: {}` from the chart's values.yaml.
    on_it = {(v.catalog, v.enforcement) for v in violations if "~rendered Deployment/" in v.resource}
    assert ("G8", "advisory") in on_it and ("G10", "advisory") in on_it


def test_a_required_value_its_values_yaml_leaves_out_is_unknown(tmp_path):
    # The quickbeard chart with a values.yaml that leaves the image to the deployer (values/<env>/vllm.yaml there).
    repo = write_tree(
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
    assert deployment.obj["spec"]["template"]["spec"]["volumes"][0]["name"] == "release-name-storage"
    found = {(v.catalog, v.resource.rsplit("/", 1)[-1], v.enforcement) for v in violations}
    assert ("G31", "vllm-deployment-vllm", "advisory") in found
    # the unknown image is never a finding's cause: no pinned-tag or image-reference finding on it
    assert not [v for v in violations if v.catalog in ("G1", "G46") and "vllm-deployment-vllm" in v.resource]


def test_a_required_value_of_a_chart_with_no_values_file_still_stops_its_render(tmp_path):
    # As committed (quickbeard/llm-serving-helm@ece636eb charts/vllm has no values.yaml), every value the chart reads
    # is in a file the run does not join to it: rendered with none, its probes would look absent, which they are not
    # (values/production/vllm.yaml sets readinessProbe). The template that requires a value is reported as before.
    repo = write_tree(
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
    assert not [v for v in violations if "deployment-vllm" in v.resource]


def test_a_careful_chart_whose_helpers_are_all_there_stays_silent(tmp_path):
    repo = write_tree(
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


RESOURCED = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
spec:
  selector:
    matchLabels: {app: vllm}
  template:
    metadata:
      labels: {app: vllm}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.6.3
          args: ["--model", "Qwen/Qwen2.5-1.5B-Instruct"]
          resources:
            {{- SECTION | nindent 12 }}
"""


def test_a_section_the_chart_leaves_unknown_as_a_whole_is_not_read_as_absent(tmp_path):
    # review56b: `resources` from a `required` value values.yaml leaves to the deployer (helm stops without it), or from
    # a helper the run lacks, is the whole section unknown: G8/G10/G13 read it as no resources (kube.get), so the
    # template is reported unread (S27), as an unknown block under a container is (helm_chart.repaired).
    for section in ('required "size resources for your model" .Values.resources | toYaml', 'include "vllm.resources" .'):
        root = tmp_path / str(len(section))
        write_tree(
            root,
            {
                "charts/vllm/Chart.yaml": "apiVersion: v2\nname: vllm\nversion: 0.1.0\n",
                "charts/vllm/values.yaml": "replicas: 1\n",
                "charts/vllm/templates/deployment.yaml": RESOURCED.replace("SECTION", section),
            },
        )
        manifests, violations = _check(root)
        assert manifests.objects == []
        assert not [v for v in violations if v.catalog in ("G8", "G10", "G13")]
        assert [v for v in violations if "unrendered template" in v.message]
    # careful to keep: resources the chart's values.yaml states render and are judged
    given = RESOURCED.replace("SECTION", "toYaml .Values.resources")
    root = write_tree(
        tmp_path / "given",
        {
            "charts/vllm/Chart.yaml": "apiVersion: v2\nname: vllm\nversion: 0.1.0\n",
            "charts/vllm/values.yaml": "resources: {}\n",
            "charts/vllm/templates/deployment.yaml": given,
        },
    )
    manifests, violations = _check(root)
    assert [o.name for o in manifests.objects] == ["vllm"]
    assert ("G10", "advisory") in {(v.catalog, v.enforcement) for v in violations}


PLAIN_VLLM = """apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  selector: {matchLabels: {app: vllm}}
  template:
    metadata: {labels: {app: vllm}}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.6.3
          args: ["--model", "Qwen/Qwen2.5-1.5B-Instruct"]
---
apiVersion: v1
kind: Service
metadata: {name: vllm}
spec:
  selector: {app: vllm}
  ports: [{port: 8000, targetPort: 8000}]
"""
CHART_VLLM = """apiVersion: apps/v1
kind: Deployment
metadata: {name: "{{ .Release.Name }}-server"}
spec:
  selector: {matchLabels: {app: "{{ .Release.Name }}"}}
  template:
    metadata: {labels: {app: "{{ .Release.Name }}"}}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.6.3
          args: ["--model", {{ .Values.model | quote }}]
"""


def test_a_chart_no_release_object_names_keeps_helm_templates_release_name(tmp_path):
    # review56b: a repository that offers plain manifests (k8s/) and a chart of the same app as two ways to deploy it.
    # Named as the chart, the chart's pods (app: vllm) joined the plain Service's selector, and G56 service-one-model
    # said the plain Service mixes two models; nothing says the chart is installed as release `vllm` beside them. With
    # no release object naming it, the release is helm template's own default (helm v3.16.4 cmd/helm/template.go:90).
    repo = write_tree(
        tmp_path,
        {
            "k8s/vllm.yaml": PLAIN_VLLM,
            "charts/vllm/Chart.yaml": "apiVersion: v2\nname: vllm\nversion: 0.1.0\n",
            "charts/vllm/values.yaml": "model: Qwen/Qwen2.5-7B-Instruct\n",
            "charts/vllm/templates/deployment.yaml": CHART_VLLM,
        },
    )
    manifests, violations = _check(repo)
    assert sorted(o.name for o in manifests.objects) == ["release-name-server", "vllm", "vllm"]
    assert not [v for v in violations if v.policy == "service-one-model"]
