"""A chart folder without its Chart.yaml (templates/ beside a values file) is read as a chart, and its values files are
its own, never a public chart's of the same name (policies/reading/helm_chart.py headless_root,
policies/values_files.py local_chart).

Firing forms (written here, nothing copied): spent set 115 rockofox/helm-llama-cpp@e7f8543a3a17f3760f15c723e9b14686a71aac02
charts/llama-server (templates/deployment.yaml, ingress.yaml, pvc.yaml and values.yaml, no Chart.yaml among the files:
a llama.cpp server with ``resources: {}``, labelled G8/G10, and an Ingress with no TLS or auth, G32), and set 117
coolshiva123/wrcbot@32775506596cafa07751d4fc1143a47feca1a592 helmchart/ollama (a local chart named ``ollama`` whose
values.yaml, ``image.repository: ollama``, was read as the public Ollama chart's values and gave findings on pods that
chart would run, not the chart's own Deployment). Careful forms: a ``templates/`` folder with no values file beside it is
no chart (reported as before), and a public chart's values file in a GitOps folder with no templates beside it is read as
that chart's release, as before. Also the renderer's ``{{break}}`` and ``{{continue}}``, the one cause a survey of
the spent sets' and seven public LLM charts' templates found that stopped a render (Go's own failures aside).
"""

from __future__ import annotations

import re

import pytest

from policies.check import resources_of
from policies.framework import UNKNOWN
from policies.manifests import read_manifests
from policies.reading.chart_folders import find_chart
from policies.reading.go_format import helm_numbers
from policies.reading.gotemplate import PLACEHOLDER, CannotRender, Renderer, parse
from policies.reading.gotemplate import UNKNOWN as UNKNOWN_VALUE
from policies.reading.helm_chart import load_chart
from policies.reading.helm_funcs import functions
from policies.registry import evaluate
from policies.values_files import values_release
from tests.policies.policy_fixtures import write_tree

LLAMA_DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Chart.Name }}
  labels:
    helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
spec:
  replicas: {{ .Values.replicaCount }}
  selector:
    matchLabels: {app: llama-server}
  template:
    metadata:
      labels: {app: llama-server}
    spec:
      containers:
        - name: llama-server
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
          args: ["--hf-repo", "{{ .Values.llama.repo }}", "--port", "8080"]
          ports: [{containerPort: 8080}]
          resources:
            {{- toYaml .Values.resources | nindent 12 }}
"""
LLAMA_VALUES = """replicaCount: 2
image: {repository: ghcr.io/ggml-org/llama.cpp, tag: server}
llama: {repo: bartowski/gemma-2-2b-it-GGUF}
resources: {}
"""

# The wrcbot form: a Deployment named by the release, an Ollama server from a locally built image.
OLLAMA_DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
spec:
  replicas: {{ .Values.replicaCount }}
  selector: {matchLabels: {app: ollama}}
  template:
    metadata: {labels: {app: ollama}}
    spec:
      containers:
        - name: ollama
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
          ports: [{containerPort: 11434}]
          resources: {}
"""
OLLAMA_LOCAL_VALUES = 'replicaCount: 1\nimage: {repository: ollama, tag: "0.1", pullPolicy: IfNotPresent}\nresources: {}\n'
# A public Ollama chart's values (otwld/ollama-helm keys), as a GitOps folder keeps them for `helm install -f`.
OLLAMA_PUBLIC_VALUES = "image: {repository: ollama/ollama, tag: 0.5.4}\nollama:\n  models:\n    pull: [llama3.2:3b]\n"


def test_templates_beside_a_values_file_are_rendered_as_the_folders_chart(tmp_path):
    repo = write_tree(
        tmp_path,
        {"charts/llama-server/templates/deployment.yaml": LLAMA_DEPLOYMENT, "charts/llama-server/values.yaml": LLAMA_VALUES},
    )
    manifests = read_manifests([str(repo)])
    [obj] = manifests.objects
    assert (obj.kind, obj.name) == ("Deployment", "llama-server")  # .Chart.Name: the folder's name
    container = obj.obj["spec"]["template"]["spec"]["containers"][0]
    assert container["image"] == "ghcr.io/ggml-org/llama.cpp:server" and obj.obj["spec"]["replicas"] == 2
    assert obj.obj["metadata"]["labels"]["helm.sh/chart"] is UNKNOWN  # the version no Chart.yaml gives
    [read] = manifests.templates
    assert read.values == str(repo / "charts/llama-server/values.yaml")
    found = [v for v in evaluate(resources_of(manifests)) if v.policy == "serving-resource-requests"]
    assert [v.enforcement for v in found] == ["advisory"]
    assert found[0].message.startswith("container llama-server: no cpu or memory request on this llama-cpp server")


def test_a_values_variant_alone_marks_the_chart_folder(tmp_path):
    # obike007/llama-kuberay@4fef9558 helm/llama-server as set 112 holds it: templates and values-kuberay.yaml only.
    repo = write_tree(
        tmp_path, {"helm/llama-server/templates/a.yaml": LLAMA_DEPLOYMENT, "helm/llama-server/values-kuberay.yaml": "x: 1\n"}
    )
    root = find_chart(str(repo / "helm/llama-server/templates/a.yaml"), str(repo))
    assert root == str(repo / "helm/llama-server")
    chart = load_chart(root)
    assert chart.name == "llama-server" and chart.problem == "" and chart.values == {}
    assert [p for p, _ in chart.variants] == [str(repo / "helm/llama-server/values-kuberay.yaml")]


def test_a_templates_folder_with_no_values_file_is_no_chart(tmp_path):
    repo = write_tree(tmp_path, {"deploy/templates/deployment.yaml": LLAMA_DEPLOYMENT, "deploy/README.md": "x\n"})
    assert find_chart(str(repo / "deploy/templates/deployment.yaml"), str(repo)) is None
    manifests = read_manifests([str(repo)])
    assert manifests.objects == [] and [u.kind for u in manifests.unreadable] == ["template"]


def test_a_chart_yaml_above_still_names_the_chart(tmp_path):
    repo = write_tree(
        tmp_path,
        {
            "chart/Chart.yaml": "apiVersion: v2\nname: chat\nversion: 0.1.0\n",
            "chart/sub/templates/deployment.yaml": LLAMA_DEPLOYMENT,
            "chart/sub/values.yaml": LLAMA_VALUES,
        },
    )
    # Helm renders only the Chart.yaml folder's templates/ as that chart's; a nested folder with its own templates/ and
    # values.yaml is a chart of its own (a file:// dependency: tests/policies/test_helm_nested_chart.py).
    assert find_chart(str(repo / "chart/sub/templates/deployment.yaml"), str(repo)) == str(repo / "chart/sub")
    (repo / "chart/sub/values.yaml").unlink()
    assert find_chart(str(repo / "chart/sub/templates/deployment.yaml"), str(repo)) is None


def test_a_local_charts_values_file_is_never_a_public_charts(tmp_path):
    repo = write_tree(
        tmp_path,
        {
            "helmchart/ollama/templates/deployment.yaml": OLLAMA_DEPLOYMENT,
            "helmchart/ollama/values.yaml": OLLAMA_LOCAL_VALUES,
        },
    )
    data = {"replicaCount": 1, "image": {"repository": "ollama", "tag": "0.1"}, "resources": {}}
    assert values_release(str(repo / "helmchart/ollama/values.yaml"), data) is None
    manifests = read_manifests([str(repo)])
    assert [(o.kind, o.name) for o in manifests.objects] == [("Deployment", "ollama")]  # as `helm install ollama` names it
    # The same mapping with no templates beside it is read as the public chart's: only the local chart stops that.
    assert values_release(str(tmp_path / "gitops/ollama/values.yaml"), data) is not None


def test_a_public_charts_values_file_in_a_gitops_folder_is_read_as_before(tmp_path):
    repo = write_tree(
        tmp_path,
        {"argocd/helm/ollama/values.yaml": OLLAMA_PUBLIC_VALUES, "argocd/helm/ollama/templates/README.md": "notes\n"},
    )
    manifests = read_manifests([str(repo)])
    [obj] = manifests.objects
    assert (obj.kind, obj.name) == ("HelmRelease", "ollama")


# ---- {{break}} and {{continue}} (go1.22 src/text/template/doc.go; Go 1.18 added them, helm v3.16.0 builds with 1.22)
def _run(template: str, values: dict) -> str:
    table: dict = {}
    return Renderer(functions(), table).render(parse(template, table), {"Values": values})


def test_continue_skips_an_iteration_and_break_ends_the_range():
    # The form of vllm-project/production-stack helm/templates/dashboards.yaml: `{{- continue }}` skips a dashboard a
    # value turns off; `{{ break }}` stops the range and leaves its else list unrun.
    template = "{{ range .Values.n }}{{ if eq . 1 }}{{ continue }}{{ end }}{{ if eq . 3 }}{{ break }}{{ end }}{{ . }}{{ else }}none{{ end }}"
    assert _run(template, {"n": [0, 1, 2, 3, 4]}) == "02"
    assert _run(template, {"n": []}) == "none"
    nested = "{{ range .Values.a }}{{ range .Values.b }}{{ break }}{{ end }}{{ . }}{{ end }}"
    assert _run(nested, {"a": ["x", "y"], "b": [1, 2]}) == "xy"  # only the innermost range ends


@pytest.mark.parametrize(
    "template, why",
    [
        ("{{ break }}", "{{break}} outside {{range}}"),
        ('{{ define "x" }}{{ continue }}{{ end }}', "{{continue}} outside {{range}}"),  # a define is a tree of its own
        ("{{ range .Values.n }}{{ else }}{{ break }}{{ end }}", "{{break}} outside {{range}}"),  # the else list too
        ("{{ range .Values.n }}{{ break 1 }}{{ end }}", "{{break}} with an argument"),
    ],
)
def test_break_and_continue_outside_a_range_body_fail_as_gos_parser_does(template, why):
    with pytest.raises(CannotRender, match=re.escape(why)):
        parse(template, {})


def test_and_and_or_stop_at_the_first_argument_that_decides():
    # The form of NVIDIA/nim-deploy's nim library chart _ports_and_probes.tpl: `and .Values.grpcPort (ne .Values.grpcPort
    # 0)` with grpcPort 0 (a float64 in Helm) never evaluates the ne, which Go would refuse (float64 against int).
    template = "{{ if and .Values.port (ne .Values.port 0) }}grpc{{ else }}none{{ end }} {{ or .Values.a .Values.b }}"
    assert _run(template, helm_numbers({"port": 0, "a": "x", "b": None})) == "none x"
    assert _run("{{ .Values.a | and true }}|{{ .Values.a | or false }}", {"a": "p"}) == "p|p"  # the piped value is last
    with pytest.raises(CannotRender, match="incompatible types"):
        _run("{{ if and .Values.port (ne .Values.port 0) }}grpc{{ end }}", helm_numbers({"port": 8001}))


# ---- review55c: a templates/ folder of another tool is no chart; and/or return their last argument untested


@pytest.mark.parametrize(
    "name, text",
    [
        # Backstage software templates (backstage.io/docs/features/software-templates): Nunjucks `${{ values.x }}`.
        (
            "template.yaml",
            "apiVersion: scaffolder.backstage.io/v1beta3\nkind: Template\nmetadata: {name: llm-service}\n"
            "spec:\n  steps:\n    - id: fetch\n      action: fetch:template\n      input: {values: {name: '${{ parameters.name }}'}}\n",
        ),
        # Argo Workflows WorkflowTemplates (argoproj.github.io/argo-workflows/variables): `{{inputs.parameters.x}}`.
        (
            "pull-model.yaml",
            "apiVersion: argoproj.io/v1alpha1\nkind: WorkflowTemplate\nmetadata: {name: pull-model}\nspec:\n  templates:\n"
            "    - name: pull\n      inputs: {parameters: [{name: model}]}\n"
            "      container: {image: ollama/ollama:0.5.4, args: [pull, '{{inputs.parameters.model}}']}\n",
        ),
        ("namespace.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: ollama}\n"),  # plain manifests
    ],
)
def test_a_public_charts_values_beside_another_tools_templates_folder_is_read_as_before(tmp_path, name, text):
    # Helm reads a values file only through templates that read .Values: a templates/ folder with none is no chart's.
    repo = write_tree(tmp_path, {"ollama/values.yaml": OLLAMA_PUBLIC_VALUES, f"ollama/templates/{name}": text})
    data = {"image": {"repository": "ollama/ollama", "tag": "0.5.4"}, "ollama": {"models": {"pull": ["llama3.2:3b"]}}}
    assert values_release(str(repo / "ollama/values.yaml"), data) is not None


def test_or_and_and_return_their_last_argument_without_testing_it():
    # go1.22 src/text/template/exec.go evalCall: the loop returns the deciding argument, else the last one evaluated
    # (or the piped value) whatever its truth. A headless chart's .Chart.AppVersion is unknown: the image is still read.
    table: dict = {}
    template = (
        "{{ or .Values.tag .Chart.AppVersion }}|{{ and .Values.on .Chart.AppVersion }}|{{ .Chart.AppVersion | or .Values.tag }}"
    )
    context = {"Values": {"tag": "", "on": True}, "Chart": {"AppVersion": UNKNOWN_VALUE}}
    out = Renderer(functions(), table).render(parse(template, table), context)
    assert out == "|".join([PLACEHOLDER] * 3)
    with pytest.raises(CannotRender, match="a condition on a value"):  # an unknown argument that would decide
        _run("{{ or .Values.a .Values.b }}", {"a": UNKNOWN_VALUE, "b": "x"})


@pytest.mark.parametrize("word", ["and", "or"])
def test_and_or_with_no_argument_fail_as_go_does(word):
    # go1.22 exec.go evalCall: "wrong number of args for and: want at least 1 got 0".
    with pytest.raises(CannotRender, match=f"wrong number of args for {word}"):
        _run(f"{{{{ {word} }}}}", {})
