"""Helm chart templates read best-effort (policies/reading/helm_chart.py, gotemplate.py, helm_funcs.py): rendered with
the chart's values.yaml, checked by every rule, every finding advice; what cannot be rendered is reported as before.

The charts here are written for the tests (no third-party template is copied); each reproduces the form of a real
chart, cited where it is used.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from policies.check import check_report, render, resources_of, scoped
from policies.framework import TEMPLATE_NOTE, UNKNOWN, Policy, Resource, evaluate_policies
from policies.manifests import read_manifests
from policies.reading.gotemplate import PLACEHOLDER, CannotRender, Renderer, parse
from policies.reading.helm_chart import repaired, settled
from policies.reading.helm_funcs import functions
from policies.registry import evaluate
from tests.policies.policy_fixtures import RAISED, chart_folder

ROOT = Path(__file__).resolve().parents[2]

HELPERS = """{{/* names, as `helm create` writes them */}}
{{- define "chat.fullname" -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- define "chat.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}
"""

# The form of zeeshanasghar2/llm-helm templates/ollama-deployment.yaml@e1f862cf8a85bff602562c11b0697c8597ede24e: the
# image from values (repository ollama/ollama, tag latest in values.yaml), an init container that pulls a model by
# its tag, and no probe on the serving container.
OLLAMA_TEMPLATE = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "chat.fullname" . }}-ollama
  labels:
    {{- include "chat.labels" . | nindent 4 }}
spec:
  replicas: {{ .Values.ollama.replicas | default 1 }}
  selector:
    matchLabels:
      app: ollama
  template:
    metadata:
      labels:
        app: ollama
    spec:
      containers:
        - name: ollama
          image: "{{ .Values.ollama.image.repository }}:{{ .Values.ollama.image.tag }}"
          ports:
            - containerPort: {{ .Values.ollama.port }}
          {{- with .Values.ollama.resources }}
          resources:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          {{- if .Values.ollama.probes.enabled }}
          readinessProbe:
            httpGet: {path: /, port: {{ .Values.ollama.port }}}
          {{- end }}
"""
OLLAMA_VALUES = """ollama:
  image: {repository: ollama/ollama, tag: latest}
  port: 11434
  resources:
    requests: {cpu: "1", memory: 4Gi}
    limits: {memory: 8Gi}
  probes: {enabled: false}
"""
CHART = "apiVersion: v2\nname: chat\nversion: 0.1.0\nappVersion: '1.0'\n"

# The form of Lintasarta/vllm-helm templates/deployment.yaml@1a4ef6c5b766f3b593ebc5f9f424a64b914b4388: vLLM with a
# literal livenessProbe block whose numbers come from values and no startupProbe in the template at all.
VLLM_TEMPLATE = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Values.app }}
spec:
  replicas: 1
  selector: {matchLabels: {app: {{ .Values.app }}}}
  template:
    metadata: {labels: {app: {{ .Values.app }}}}
    spec:
      containers:
      - name: {{ .Values.app }}
        image: {{ .Values.image.repository }}:{{ .Values.image.tag }}
        args:
          - "{{ .Values.modelName }}"
          {{- range .Values.extraArgs }}
          - "{{ . }}"
          {{- end }}
        resources:
          limits: {nvidia.com/gpu: {{ index .Values.resources.limits "nvidia.com/gpu" | quote }}}
        livenessProbe:
          httpGet: {path: /health, port: 8000}
          initialDelaySeconds: {{ .Values.probes.liveness.initialDelaySeconds }}
          periodSeconds: {{ .Values.probes.liveness.periodSeconds }}
        {{- if .Values.startupProbe }}
        startupProbe:
          {{- toYaml .Values.startupProbe | nindent 10 }}
        {{- end }}
"""
VLLM_VALUES = """app: qwen3-0-6b
modelName: Qwen/Qwen3-0.6B
image: {repository: vllm/vllm-openai, tag: v0.11.2}
extraArgs: ["--gpu-memory-utilization", "0.9"]
resources: {limits: {nvidia.com/gpu: "1"}}
probes: {liveness: {initialDelaySeconds: 30, periodSeconds: 30}}
"""


def chart(tmp_path: Path, template: str, values: str | None, name: str = "deployment.yaml") -> Path:
    return chart_folder(tmp_path / "chart", {"_helpers.tpl": HELPERS, name: template}, values, CHART)


def findings(path: Path, config: dict | None = None):
    manifests = read_manifests([str(path)])
    return manifests, evaluate(resources_of(manifests), config)


def on_templates(violations):
    return {(v.policy, v.enforcement) for v in violations if "~rendered" in v.resource}


# ---- what a template rendered from its values shows ------------------------------------------------------------


def test_an_ollama_latest_image_from_values_is_found_and_is_advice(tmp_path):
    root = chart(tmp_path, OLLAMA_TEMPLATE, OLLAMA_VALUES)
    manifests, violations = findings(root)
    [obj] = manifests.objects
    assert obj.name == "chat-ollama" and obj.chart
    assert obj.obj["metadata"]["labels"] == {"app.kubernetes.io/name": "chat", "app.kubernetes.io/instance": "release-name"}
    g1 = [v for v in violations if v.policy == "image-tag-pinned"]
    assert [(v.enforcement, v.resource) for v in g1] == [
        ("advisory", f"{root}/templates/deployment.yaml#0~rendered Deployment/chat-ollama")
    ]
    assert g1[0].message.endswith(f"({TEMPLATE_NOTE})")
    assert ("serving-readiness-probe", "advisory") in on_templates(violations)
    assert all(v.enforcement == "advisory" for v in violations)


def test_missing_probes_in_a_vllm_template_are_advice_while_the_same_literal_manifest_blocks(tmp_path):
    # With the hygiene rows raised to mandatory (as a platform may, policy_fixtures.RAISED), a template still only
    # advises, while the same object written out as a literal manifest blocks on its missing readinessProbe, unpinned
    # model and missing requests: the level comes from the template, not from the rule.
    root = chart(tmp_path, VLLM_TEMPLATE, VLLM_VALUES)
    manifests, violations = findings(root, RAISED)
    found = on_templates(violations)
    assert {("llm-startup-probe-budget", "advisory"), ("serving-readiness-probe", "advisory")} <= found
    assert not [v for v in violations if v.enforcement == "mandatory"]
    literal = tmp_path / "literal.yaml"
    literal.write_text(json.dumps(manifests.objects[0].obj))
    _, plain = findings(literal, RAISED)
    mandatory = {v.policy for v in plain if v.enforcement == "mandatory"}
    assert {"serving-readiness-probe", "model-source-pinned", "serving-resource-requests"} <= mandatory
    assert mandatory <= {p for p, _ in found}


def test_values_that_pin_the_image_and_set_probes_stay_silent(tmp_path):
    careful = OLLAMA_VALUES.replace("tag: latest", "tag: 0.6.8").replace("enabled: false", "enabled: true")
    _, violations = findings(chart(tmp_path, OLLAMA_TEMPLATE, careful))
    found = {p for p, _ in on_templates(violations)}
    assert not found & {"image-tag-pinned", "serving-readiness-probe"}
    startup = "startupProbe: {httpGet: {path: /health, port: 8000}, periodSeconds: 10, failureThreshold: 90}\n"
    _, violations = findings(chart(tmp_path / "v", VLLM_TEMPLATE, VLLM_VALUES + startup))
    assert "llm-startup-probe-budget" not in {p for p, _ in on_templates(violations)}


def test_the_s27_finding_stays_and_says_the_template_was_read_best_effort(tmp_path):
    root = chart(tmp_path, OLLAMA_TEMPLATE, OLLAMA_VALUES)
    manifests, violations = findings(root)
    [s27] = [v for v in violations if v.policy == "manifest-is-kubernetes" and "templates/deployment.yaml" in v.resource]
    assert s27.enforcement == "advisory"
    assert "a Helm template (chart" in s27.message and "read best-effort with the chart's defaults" in s27.message
    assert "1 object rendered and checked, every finding advice" in s27.message
    report = check_report(manifests, violations)
    [row] = report["templates"]
    assert row["file"].endswith("templates/deployment.yaml") and row["values"].endswith("chart/values.yaml")
    assert row["objects"] == 1
    assert "[read from a template]" in render(report, "text") and "Read from Helm templates" in render(report, "markdown")


# ---- what cannot be rendered stays exactly as today --------------------------------------------------------------


def _as_today(path: Path) -> list[tuple[str, str, str]]:
    manifests = read_manifests([str(path)])
    assert not manifests.objects and not manifests.templates
    return [(u.why, u.kind, u.object_kind) for u in manifests.unreadable]


TODAY = [
    (
        "an unrendered template ({{ ... }}): render it first, e.g. helm template CHART | python -m policies check -",
        "template",
        "Deployment",
    )
]


@pytest.mark.parametrize(
    "edit",
    [
        # a condition on what only the cluster or another file knows: the branch would be a guess
        lambda t: t.replace("{{- if .Values.ollama.probes.enabled }}", '{{- if .Files.Get "probes.yaml" }}'),
        # a template the engine cannot parse
        lambda t: t.replace("{{- end }}\n          {{- if", "{{- if"),
        # `fail` stops helm too
        lambda t: t.replace("{{ .Values.ollama.port }}", '{{ fail "set ollama.port" }}'),
    ],
)
def test_a_template_that_cannot_be_rendered_is_reported_as_before(tmp_path, edit):
    root = chart(tmp_path, edit(OLLAMA_TEMPLATE), OLLAMA_VALUES)
    assert _as_today(root / "templates" / "deployment.yaml") == TODAY


def test_a_required_value_the_run_does_not_hold_is_unknown_and_the_rest_is_read(tmp_path):
    # quickbeard/llm-serving-helm@ece636eb charts/vllm/templates/deployment.yaml: the image is `required`, given only
    # by the values/<env>/vllm.yaml files helmfile passes; the rest of the object is still read, the image unknown.
    template = OLLAMA_TEMPLATE.replace("{{ .Values.ollama.port }}", '{{ required "set ollama.port" .Values.missing }}')
    root = chart(tmp_path, template, OLLAMA_VALUES)
    manifests = read_manifests([str(root)])
    [obj] = manifests.objects
    assert obj.name == "chat-ollama" and obj.chart
    [container] = obj.obj["spec"]["template"]["spec"]["containers"]
    assert [p["containerPort"] for p in container["ports"]] == [UNKNOWN]


@pytest.mark.parametrize("given", ["chart/templates/deployment.yaml", "chart/templates", "chart", "."])
def test_the_chart_is_found_from_the_file_its_templates_folder_or_above(tmp_path, given):
    chart(tmp_path, OLLAMA_TEMPLATE, OLLAMA_VALUES)
    manifests = read_manifests([str(tmp_path / given)])
    assert [(o.name, o.chart) for o in manifests.objects] == [("chat-ollama", str(tmp_path / "chart"))]


def test_a_template_outside_a_chart_is_reported_as_before(tmp_path):
    (tmp_path / "deployment.yaml").write_text(OLLAMA_TEMPLATE)
    assert _as_today(tmp_path / "deployment.yaml") == TODAY
    # beside a Chart.yaml but outside its templates/ folder: Helm renders nothing there
    (tmp_path / "Chart.yaml").write_text(CHART)
    assert _as_today(tmp_path / "deployment.yaml") == TODAY


def test_defines_of_a_vendored_library_subchart_are_used(tmp_path):
    # The form of Bitnami's charts (StackVista/helm-charts local/kafka@HEAD vendors charts/common): names and labels
    # come from the library chart's defines, in files other than _helpers.tpl.
    template = OLLAMA_TEMPLATE.replace('include "chat.fullname" .', 'include "lib.names.fullname" .')
    root = chart(tmp_path, template, OLLAMA_VALUES)
    lib = root / "charts" / "lib"
    (lib / "templates").mkdir(parents=True)
    (lib / "Chart.yaml").write_text("apiVersion: v2\nname: lib\ntype: library\nversion: 1.0.0\n")
    (lib / "templates" / "_names.tpl").write_text(
        '{{/*\nUsage: {{ include "lib.names.fullname" . }}\n*/}}\n'
        '{{- define "lib.names.fullname" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end -}}\n'
    )
    manifests, _ = findings(root)
    assert [o.name for o in manifests.objects] == ["chat-ollama"]


def test_a_literal_manifest_beside_a_chart_keeps_its_findings(tmp_path):
    literal = tmp_path / "vllm.yaml"
    literal.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: vllm}\nspec:\n  template:\n    spec:\n      containers:\n"
        "      - {name: vllm, image: 'vllm/vllm-openai:latest', command: [vllm, serve], args: [m]}\n"
    )
    _, alone = findings(literal)
    chart(tmp_path, OLLAMA_TEMPLATE, OLLAMA_VALUES)
    _, beside = findings(tmp_path)
    literal_name = f"{literal}#0 Deployment/vllm"
    assert [v for v in beside if v.resource == literal_name] == [v for v in alone if v.resource == literal_name]


def test_a_document_without_template_actions_beside_a_template_is_read_once(tmp_path):
    service = "apiVersion: v1\nkind: Service\nmetadata: {name: ollama}\nspec: {ports: [{port: 11434}]}\n"
    root = chart(tmp_path, service + "---\n" + OLLAMA_TEMPLATE, OLLAMA_VALUES)
    manifests, _ = findings(root)
    assert sorted((o.kind, bool(o.chart)) for o in manifests.objects) == [("Deployment", True), ("Service", False)]


# A literal Secret whose token is not base64 (G47 blocks it when stated) between documents of a cross-document
# structure: cold review 2026-12-05 finding 6 (/tmp/review/h/cond), the same shape with `range` and `with`.
LEGACY_SECRET = """apiVersion: v1
kind: Secret
metadata:
  name: legacy-token
data:
  token: "REPLACE ME WITH YOUR TOKEN"
"""


@pytest.mark.parametrize(
    "opening, values",
    [
        ("{{- if .Values.legacy.enabled }}", "legacy: {enabled: false}\n"),
        ("{{- range .Values.tokens }}", "tokens: []\n"),
        ("{{- with .Values.legacy }}", "legacy: null\n"),
    ],
)
def test_a_literal_document_inside_a_cross_document_structure_is_rendered_not_stated(tmp_path, opening, values):
    text = f"{opening}\n---\n{LEGACY_SECRET}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: legacy-{{{{ .Release.Name }}}}\n{{{{- end }}}}\n"
    root = chart(tmp_path, text, values, name="legacy.yaml")
    manifests, violations = findings(root)
    assert manifests.objects == [] and [v for v in violations if v.enforcement == "mandatory"] == []
    # Switched on, Helm renders the Secret: it is checked from the render, its finding advice.
    (root / "values.yaml").write_text("legacy: {enabled: true}\ntokens: [a]\n")
    manifests, violations = findings(root)
    assert {(o.kind, bool(o.chart)) for o in manifests.objects} == {("Secret", True), ("ConfigMap", True)}
    assert {(v.policy, v.enforcement) for v in violations if v.catalog == "G47"} == {("secret-data-base64", "advisory")}


def test_a_literal_document_after_a_closed_structure_is_still_the_files_own(tmp_path):
    text = "{{- if .Values.legacy.enabled }}\n# legacy on\n{{- end }}\n---\n" + LEGACY_SECRET
    root = chart(tmp_path, text, "legacy: {enabled: false}\n", name="legacy.yaml")
    manifests, violations = findings(root)
    assert [(o.kind, o.chart) for o in manifests.objects] == [("Secret", "")]
    assert {(v.catalog, v.enforcement) for v in violations if v.catalog == "G47"} == {("G47", "mandatory")}


def test_a_rendered_object_never_splits_the_files_into_clusters(tmp_path):
    # The chart renders a Deployment named as a file's own (qwen3-0-6b): the files alone are one cluster, and stay so.
    root = chart(tmp_path / "repo", VLLM_TEMPLATE, VLLM_VALUES)
    manifests, _ = findings(root)
    (tmp_path / "repo" / "k8s").mkdir()
    (tmp_path / "repo" / "k8s" / "vllm.yaml").write_text(json.dumps(manifests.objects[0].obj))
    (tmp_path / "repo" / "k8s" / "svc.yaml").write_text("apiVersion: v1\nkind: Service\nmetadata: {name: qwen}\n")
    both = read_manifests([str(tmp_path / "repo")])
    assert len(both.objects) == 3 and scoped(both, resources_of(both)) == ([], None, None)


def test_the_cli_exits_0_on_a_chart_and_imports_the_renderer_only_for_templates(tmp_path):
    root = chart(tmp_path, OLLAMA_TEMPLATE, OLLAMA_VALUES)
    proc = subprocess.run(
        [sys.executable, "-m", "policies", "check", str(root), "--format", "json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["templates"][0]["objects"] == 1
    code = (
        "import sys; from policies.manifests import read_manifests; read_manifests([sys.argv[1]]); "
        "print('policies.reading.gotemplate' in sys.modules)"
    )
    plain = tmp_path / "plain.yaml"
    plain.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    for path, loaded in ((plain, "False"), (root, "True")):
        out = subprocess.run([sys.executable, "-c", code, str(path)], cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert out.stdout.strip() == loaded, out.stderr


# ---- the engine ---------------------------------------------------------------------------------------------------


def run(template: str, values: dict | None = None, defines: str = "") -> str:
    table: dict = {}
    parse(defines, table)
    nodes = parse(template, table)
    return Renderer(functions(), table).render(nodes, {"Values": values or {}, "Release": {"Name": "r"}})


@pytest.mark.parametrize(
    "template, values, expected",
    [
        (
            "a:\n  {{- if .Values.x }}\n  b: 1\n  {{- else if .Values.y }}\n  c: 2\n  {{- else }}\n  d: 3\n  {{- end }}\n",
            {"y": 1},
            "a:\n  c: 2\n",
        ),
        ('{{ .Values.tag | default "v1" | quote }}', {"tag": ""}, '"v1"'),
        ('{{ .Values.tag | default "v1" }}', {"tag": "v2"}, "v2"),
        ("r:{{- toYaml .Values.res | nindent 2 }}", {"res": {"limits": {"memory": "1Gi"}}}, "r:\n  limits:\n    memory: 1Gi"),
        ("{{- range $k, $v := .Values.env }}{{ $k }}={{ $v }};{{- end }}", {"env": {"b": 2, "a": 1}}, "a=1;b=2;"),
        ("{{- range .Values.args }}[{{ . }}]{{- else }}none{{- end }}", {"args": []}, "none"),
        ("{{ with .Values.image }}{{ .repo }}:{{ .tag }}{{ end }}", {"image": {"repo": "r", "tag": "t"}}, "r:t"),
        ('{{/* a comment */}}x{{ printf "%s-%d" .Release.Name 3 }}', {}, "xr-3"),
        ("{{ $n := 2 }}{{ if gt $n 1 }}{{ add $n 1 }}{{ end }}", {}, "3"),
        ('{{ include "n" . }}', {}, "r-n"),
        ('{{ template "n" . }}', {}, "r-n"),
        ("{{ .Values.a.b.c }}", {}, ""),
        ('{{ index .Values.m "nvidia.com/gpu" }}', {"m": {"nvidia.com/gpu": 1}}, "1"),
    ],
)
def test_the_engine_renders_what_charts_write(template, values, expected):
    assert run(template, values, '{{- define "n" -}}{{ .Release.Name }}-n{{- end }}') == expected


def test_what_the_chart_does_not_determine_is_a_placeholder_or_stops_the_render():
    assert run('{{ randAlphaNum 8 }} {{ include "absent" . }}') == f"{PLACEHOLDER} {PLACEHOLDER}"
    with pytest.raises(CannotRender):
        run('{{ if include "absent" . }}a{{ end }}')
    with pytest.raises(CannotRender):
        run("{{ if .Values.x }}a")
    with pytest.raises(CannotRender):
        run('{{ fail "no" }}')


def test_an_unknown_block_keeps_the_yaml_around_it_readable():
    assert run('a:{{- include "absent" . | nindent 2 }}') == f"a:\n  {PLACEHOLDER}"
    assert run('a:{{ include "absent" . }}') == f"a: {PLACEHOLDER}"
    # Under labels it becomes an entry whose key holds the placeholder, which settled() drops; the stated labels stay.
    text = run('metadata:\n  labels:{{- include "absent" . | nindent 4 }}\n    app: ollama\n')
    data = yaml.safe_load(repaired(text))
    assert settled(data) == {"metadata": {"labels": {"app": "ollama"}}}


def test_a_check_that_cannot_read_a_rendered_object_finds_nothing_there_and_the_run_goes_on():
    def fragile(resource: Resource, config: dict) -> list[str]:
        return [f"{len(resource.props['spec']['containers'])} containers"]

    policy = Policy(
        name="fragile-check",
        description="Counts containers.",
        catalog="S27",
        severity="low",
        enforcement="mandatory",
        remediation_steps="None.",
        resource_types=("kubernetes:apps/v1:Deployment",),
        check_resource=fragile,
    )
    unknown = {"spec": {"containers": UNKNOWN}}
    rendered = Resource(type="kubernetes:apps/v1:Deployment", name="t", props=unknown, template="chart")
    stated = Resource(type="kubernetes:apps/v1:Deployment", name="s", props={"spec": {"containers": [{}]}})
    found = evaluate_policies([rendered, stated], None, [policy])
    assert [(v.resource, v.enforcement, v.message) for v in found] == [("s", "mandatory", "1 containers")]
    with pytest.raises(TypeError):  # a file's own object that a check cannot read is a bug, as before
        evaluate_policies([Resource(type="kubernetes:apps/v1:Deployment", name="s", props=unknown)], None, [policy])
