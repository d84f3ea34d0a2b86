"""A helmfile's releases are read as the charts they install, with their values (policies/reading/helmfile.py).

Firing forms (reduced):
- quickbeard/llm-serving-helm@ece636eb69e56637fb960a6b308c57734ede2b17 helmfile.yaml, charts/vllm and
  values/{staging,production}/vllm.yaml (spent set 121), its release ``vllm`` given its environment's file
  (``values: [values/{{ .Environment.Name }}/vllm.yaml]``, the form helmfile's docs/environments.md@v1.7.4 shows):
  the chart renders vllm/vllm-openai:latest behind a NodePort Service from it. As written there the release names no
  values: helmfile gives a chart only a release's ``values`` (pkg/state/state.go:5023 generateVanillaValuesFiles), so
  it renders with the chart's defaults, never with the environment files beside it (review57).
- NickCao/comfyui-vllm-omni-on-openshift@85d22a8c7e014ec457d0810a0d4aebf828ea4aac helmfile.yaml.gotmpl: a local
  chart given two values files (one a .gotmpl), its namespace a fill-in (``{{ .Values.namespace }}``).
- A release of the otwld Ollama chart from its repository with no ``version`` (G1 on the chart: helmfile passes no
  --version, and helm installs the newest chart).
Careful form that stays silent: alecron/kube-helper-ai-demo@0e2dc83c59330aad995a12ef07c4fccaf24a0021
helmfile.yaml.gotmpl, the Ollama chart pinned (``version: 1.26.0``) with its image tag pinned (``tag: 0.11.3``).
"""

from __future__ import annotations

import json
from pathlib import Path

from policies.manifests import read_manifests
from tests.conftest import check_in_process
from tests.policies.policy_fixtures import chart_folder

QUICKBEARD_HELMFILE = """\
environments:
  staging:
    values:
      - ./values/staging/vllm.yaml
  production:
    values:
      - ./values/production/vllm.yaml

---

releases:
- name: nvidia-device-plugin
  chart: ./charts/nvidia-device-plugin
  namespace: aiops
- name: vllm
  chart: ./charts/vllm
  namespace: aiops
  createNamespace: true
  values:
    - ./values/{{ .Environment.Name }}/vllm.yaml
"""

# quickbeard's helmfile.yaml as written: environments' values files named for the release, the release given none
QUICKBEARD_AS_WRITTEN = QUICKBEARD_HELMFILE.split("  values:\n    - ./values/{{")[0]

CHART_YAML = "apiVersion: v2\nname: vllm\nversion: 0.0.1\n"

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: "{{ .Release.Name }}-deployment-vllm"
  namespace: {{ .Release.Namespace }}
spec:
  replicas: {{ .Values.replicaCount }}
  selector:
    matchLabels:
      release: "test"
  template:
    metadata:
      labels:
        release: "test"
    spec:
      containers:
        - name: "vllm"
          image: "{{ required "image.repository" .Values.image.repository }}:{{ required "image.tag" .Values.image.tag }}"
          command:
            {{- toYaml .Values.image.command | nindent 12 }}
          ports:
            - containerPort: 8000
          resources:
            limits:
              nvidia.com/gpu: 1
"""

SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: "{{ .Release.Name }}-service"
spec:
  type: {{ .Values.serviceType }}
  ports:
    - port: 80
      targetPort: 8000
      nodePort: {{ .Values.nodePort }}
  selector:
    release: "test"
"""

VALUES = """\
serviceType: NodePort
nodePort: 32000
image:
  repository: "vllm/vllm-openai"
  tag: "TAG"
  command: ["vllm", "serve", "/data/", "--served-model-name", "opt-125m"]
replicaCount: 1
"""


def _quickbeard(root: Path, tag: str = "latest") -> Path:
    chart_folder(root / "charts" / "vllm", {"deployment.yaml": DEPLOYMENT, "service.yaml": SERVICE}, chart=CHART_YAML)
    for env in ("staging", "production"):
        (root / "values" / env).mkdir(parents=True)
        (root / "values" / env / "vllm.yaml").write_text(VALUES.replace("TAG", tag))
    (root / "helmfile.yaml").write_text(QUICKBEARD_HELMFILE)
    return root


def _findings(*paths: str) -> list[dict]:
    result = check_in_process(*paths, "--format", "json")
    return json.loads(result.stdout)["violations"]


def test_a_release_given_no_values_renders_the_charts_defaults_not_its_environment_values(tmp_path):
    """helmfile hands ``environments:`` values to its own templates only (docs/environments.md:38@v1.7.4): the release
    renders with the chart's defaults; a chart with no values file then stops at its ``required`` image, as helm does."""
    root = _quickbeard(tmp_path)
    (root / "helmfile.yaml").write_text(QUICKBEARD_AS_WRITTEN)
    read = read_manifests([str(root)])
    environment = {str(root / "values" / env / "vllm.yaml") for env in ("staging", "production")}
    assert not [o for o in read.objects if o.file in environment]
    assert not [o for o in read.objects if o.kind == "Deployment" and o.chart.startswith("helmfile release")]
    services = [o for o in read.objects if o.kind == "Service" and o.chart.startswith("helmfile release vllm")]
    assert [(o.name, o.obj["spec"]["type"]) for o in services] == [("vllm-service", None)]
    assert not [u for u in read.unreadable if u.file in environment]  # the helmfile's own values: read with it


def test_local_chart_release_renders_with_the_environment_values_file_it_names(tmp_path):
    root = _quickbeard(tmp_path)
    objects = read_manifests([str(root)]).objects
    rendered = {(o.file, o.kind, o.name, (o.obj.get("metadata") or {}).get("namespace")) for o in objects}
    for env in ("staging", "production"):
        shown = str(root / "values" / env / "vllm.yaml")
        assert (shown, "Deployment", "vllm-deployment-vllm", "aiops") in rendered
        assert (shown, "Service", "vllm-service", None) in rendered
    deployment = next(o for o in objects if o.kind == "Deployment")
    assert deployment.obj["spec"]["template"]["spec"]["containers"][0]["image"] == "vllm/vllm-openai:latest"
    assert deployment.chart.startswith("helmfile release vllm: chart ./charts/vllm -f ")


def test_local_chart_release_findings_sit_on_its_values_file_and_are_advice(tmp_path):
    root = _quickbeard(tmp_path)
    found = _findings(str(root))
    production = str(root / "values" / "production" / "vllm.yaml")
    on_values = {(f["policy"], f["resource"].split("/")[-1]) for f in found if f["file"] == production}
    assert ("image-tag-pinned", "vllm-deployment-vllm") in on_values
    assert ("no-load-balancer-service", "vllm-service") in on_values
    assert all(f["enforcement"] == "advisory" for f in found if f["file"] == production)
    message = next(f["message"] for f in found if f["file"] == production and f["policy"] == "image-tag-pinned")
    assert "from a helmfile release vllm: chart ./charts/vllm -f " in message


def test_a_pinned_image_in_the_release_values_stays_silent(tmp_path):
    root = _quickbeard(tmp_path, tag="v0.6.3")
    found = _findings(str(root))
    assert not [f for f in found if f["policy"] == "image-tag-pinned"]


def test_values_files_the_helmfile_reads_are_not_reported_as_unread(tmp_path):
    root = _quickbeard(tmp_path)
    unreadable = read_manifests([str(root)]).unreadable
    read = {str(root / "helmfile.yaml"), *(str(root / "values" / env / "vllm.yaml") for env in ("staging", "production"))}
    assert not [u for u in unreadable if u.file in read]


NICKCAO_HELMFILE = """\
environments:
  default:
    values:
      - namespace: comfyui-vllm-omni

---

releases:
  - name: vllm-omni
    namespace: {{ .Values.namespace }}
    chart: ./charts/vllm
    values:
      - ./charts/vllm/values.yaml
      - values/vllm-omni.yaml.gotmpl
"""


def test_gotmpl_helmfile_with_two_values_files_is_reported_on_the_helmfile(tmp_path):
    root = _quickbeard(tmp_path)
    (root / "helmfile.yaml").unlink()
    (root / "helmfile.yaml.gotmpl").write_text(NICKCAO_HELMFILE)
    (root / "charts" / "vllm" / "values.yaml").write_text(VALUES.replace("TAG", "latest"))
    (root / "values" / "vllm-omni.yaml.gotmpl").write_text('serviceType: {{ env "TYPE" | default "ClusterIP" }}\n')
    objects = read_manifests([str(root)]).objects
    deployments = [o for o in objects if o.kind == "Deployment" and o.chart.startswith("helmfile release")]
    assert [(o.file, o.name) for o in deployments] == [(str(root / "helmfile.yaml.gotmpl"), "vllm-omni-deployment-vllm")]
    assert "namespace" not in deployments[0].obj["metadata"]  # a fill-in: the release's namespace is unknown
    service = next(o for o in objects if o.kind == "Service" and o.file.endswith(".gotmpl"))
    assert service.obj["spec"]["type"] == "${helmfile_fill_in}"


OLLAMA_HELMFILE = """\
repositories:
  - name: ollama-helm
    url: https://otwld.github.io/ollama-helm/

releases:
  - name: ollama
    namespace: ollama
    chart: ollama-helm/ollama
    VERSION
    values:
      - values/{{ .Environment.Name }}/ollama.yaml
      - ollama:
          models:
            pull:
              - llama3.1:8b
        nodeSelector:
          cloud.google.com/gke-accelerator: nvidia-l4
    set:
      - name: image.tag
        value: TAG
"""


def _ollama(root: Path, version: str, tag: str) -> Path:
    (root / "helmfile.yaml").write_text(OLLAMA_HELMFILE.replace("VERSION", version).replace("TAG", tag))
    for env in ("dev", "prod"):
        (root / "values" / env).mkdir(parents=True)
        (root / "values" / env / "ollama.yaml").write_text("ollama:\n  gpu:\n    enabled: true\n    number: 1\n")
    return root


def test_published_chart_release_is_read_once_per_values_file_with_set_over_values(tmp_path):
    root = _ollama(tmp_path, "version: 1.26.0", "0.11.3")
    releases = [o for o in read_manifests([str(root)]).objects if o.kind == "HelmRelease"]
    assert len(releases) == 2  # values/dev and values/prod, each once (not again as a values file of its own)
    values = releases[0].obj["spec"]["values"]
    assert values["image"] == {"tag": "0.11.3"}
    assert values["ollama"]["gpu"] == {"enabled": True, "number": 1} and values["ollama"]["models"]["pull"] == ["llama3.1:8b"]
    assert releases[0].obj["spec"]["chart"]["spec"] == {"chart": "ollama", "version": "1.26.0"}


def test_published_chart_release_with_no_version_fires_chart_version_pinned(tmp_path):
    root = _ollama(tmp_path, "", "0.11.3")
    found = [f for f in _findings(str(root)) if f["policy"] == "chart-version-pinned"]
    assert found and all(f["enforcement"] == "advisory" for f in found)
    assert "spec.chart.spec.version is unset for chart ollama (ollama): helmfile passes version to helm" in found[0]["message"]


def test_pinned_chart_and_image_stay_silent(tmp_path):
    root = _ollama(tmp_path, "version: 1.26.0", "0.11.3")
    found = _findings(str(root))
    assert not [f for f in found if f["policy"] in ("chart-version-pinned", "image-tag-pinned")]


def test_no_helmfile_reads_nothing_new(tmp_path):
    (tmp_path / "values.yaml").write_text("releases:\n  - name: x\n    chart: ./nowhere\n")
    assert read_manifests([str(tmp_path)]).objects == []


def test_values_paths_of_fill_ins_or_other_files_are_not_read(tmp_path):
    (tmp_path / "a" / "b" / "c").mkdir(parents=True)
    (tmp_path / "a" / "b" / "c" / "x.yaml").write_text("image:\n  tag: latest\n")
    (tmp_path / "secret.txt").write_text("image:\n  tag: latest\n")
    (tmp_path / "helmfile.yaml").write_text(
        "repositories:\n  - name: o\n    url: https://otwld.github.io/ollama-helm/\n"
        "releases:\n  - name: ollama\n    chart: o/ollama\n    version: 1.26.0\n    values:\n"
        "      - '{{ .A }}/{{ .B }}/{{ .C }}/x.yaml'\n      - secret.txt\n"
    )
    releases = [o for o in read_manifests([str(tmp_path)]).objects if o.kind == "HelmRelease"]
    assert [r.obj["spec"]["values"] for r in releases] == [{}]


def test_a_helmfile_action_is_a_fill_in_no_rule_reports(tmp_path):
    """A .gotmpl values file is rendered by helmfile: its action is a value the pack does not know, not a placeholder
    (S27) nor an unpinned tag (G1). A plain .yaml values file holding one stays what it is: YAML helm cannot read."""
    from policies.reading.helmfile import _FILL_IN
    from policies.reading.placeholders import HELMFILE_FILL_IN

    assert _FILL_IN == HELMFILE_FILL_IN
    root = _quickbeard(tmp_path)
    (root / "helmfile.yaml").write_text(
        "releases:\n  - name: vllm\n    namespace: aiops\n    chart: ./charts/vllm\n    values:\n"
        "      - values/vllm.yaml.gotmpl\n"
    )
    tag = '{{ env "VLLM_TAG" | default "v0.6.3" }}'
    (root / "values" / "vllm.yaml.gotmpl").write_text(VALUES.replace('"TAG"', tag))
    found = [f for f in _findings(str(root)) if f["file"].endswith("vllm.yaml.gotmpl")]  # its one values file
    assert [f for f in found if f["policy"] == "no-load-balancer-service"]  # the release was read
    assert not [f for f in found if f["policy"] in ("image-tag-pinned", "manifest-is-kubernetes", "container-can-start")]


# review56a: defects found reviewing the landing, each test failing before its fix.


def test_template_actions_are_scrubbed_in_linear_time():
    """A line of many actions backtracked exponentially (26 took 15 s) and unclosed ``{{`` re-scanned to the end."""
    import time

    from policies.reading.helmfile import _scrubbed

    start = time.monotonic()
    assert _scrubbed("  " + "{{ a }}" * 2000 + "x\n") == "  " + "${helmfile_fill_in}" * 2000 + "x\n"
    assert _scrubbed("{{" * 200_000) == "{{" * 200_000
    assert time.monotonic() - start < 2
    assert _scrubbed("a: 1\n  {{ if .x }}\nb: {{ .V }} c\n{{- end }}\n") == "a: 1\n\nb: ${helmfile_fill_in} c\n\n"


def test_a_set_name_deeper_than_the_reader_limits_is_not_an_internal_error(tmp_path):
    deep = ".".join(["a"] * 200_000)
    (tmp_path / "helmfile.yaml").write_text(
        f"releases:\n  - name: ollama\n    chart: o/ollama\n    version: 1.26.0\n    set:\n      - name: {deep}\n"
        "        value: 1\n      - name: image.tag\n        value: 0.11.3\n"
    )
    result = check_in_process(str(tmp_path), "--format", "json")
    assert "internal error" not in result.stderr
    releases = [o for o in read_manifests([str(tmp_path)]).objects if o.kind == "HelmRelease"]
    assert [r.obj["spec"]["values"] for r in releases] == [{"image": {"tag": "0.11.3"}}]


def test_a_helmfile_that_cannot_be_read_is_reported(tmp_path):
    """Plain YAML helmfile cannot read either is S27 as any manifest is; a template whose fill-ins leave no YAML is
    advice (helmfile may render it)."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "helmfile.yaml").write_text("releases:\n  - name: x\n    chart: a/b\n  bad: [\n")
    (tmp_path / "b" / "helmfile.yaml.gotmpl").write_text("releases:\n{{ .Values.x }}: [\n")
    found = {(f["policy"], f["enforcement"], Path(f["file"]).parent.name) for f in _findings(str(tmp_path))}
    assert ("manifest-readable", "mandatory", "a") in found
    assert ("manifest-is-kubernetes", "advisory", "b") in found
    assert not [f for f in found if f[2] == "b" and f[1] == "mandatory"]


INSTALLED_HELMFILE = """\
environments:
  default:
    values:
      - ollama: {enabled: false}
        vllm: {enabled: true}
  gpu:
    values:
      - ollama: {enabled: false}
---
repositories:
  - name: o
    url: https://otwld.github.io/ollama-helm/
releases:
  - name: off
    chart: o/ollama
    installed: false
  - name: never
    chart: o/ollama
    condition: ollama.enabled
  - name: literal
    chart: o/ollama
    condition: "false"
  - name: switched-on
    chart: o/ollama
    condition: vllm.enabled
  - name: plain
    chart: o/ollama
"""


def test_releases_helmfile_does_not_install_are_not_read(tmp_path):
    """``installed: false`` and a ``condition`` no environment sets true (helmfile pkg/state/release.go:251
    ``Desired``, pkg/state/state.go:3488 ``ConditionEnabled``@v1.7.4)."""
    (tmp_path / "helmfile.yaml").write_text(INSTALLED_HELMFILE)
    releases = sorted(o.name for o in read_manifests([str(tmp_path)]).objects if o.kind == "HelmRelease")
    assert releases == ["plain", "switched-on"]


def _local_ollama(root: Path, chart: str) -> Path:
    pod = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  containers:\n"
        "    - name: ollama\n      image: ollama/ollama:{{ .Values.tag }}\n"
    )
    chart_folder(root / "charts" / "ollama", {"pod.yaml": pod}, "tag: latest\n", "apiVersion: v2\nname: ollama\nversion: 1.0.0\n")
    (root / "helmfile.yaml").write_text(f"releases:\n  - name: ollama\n    chart: {chart}\n")
    return root


def test_a_repo_slash_name_chart_that_is_a_chart_folder_of_the_run_is_rendered(tmp_path):
    """helm installs a path that exists before it looks for a repository (helm v3.16.4 pkg/action/install.go:748):
    ``charts/ollama`` is the run's folder, no published chart with an unset version."""
    root = _local_ollama(tmp_path, "charts/ollama")
    found = _findings(str(root))
    assert not [f for f in found if f["policy"] == "chart-version-pinned"]
    assert [f["resource"] for f in found if f["policy"] == "image-tag-pinned" and f["file"].endswith("helmfile.yaml")]


def test_a_chart_folder_a_helmfile_release_renders_is_reported_once(tmp_path):
    """The folder's own render with its defaults and the release's render are one pod: the release's is kept."""
    root = _local_ollama(tmp_path, "./charts/ollama")
    found = [f for f in _findings(str(root)) if f["policy"] == "serving-readiness-probe"]
    assert [Path(f["file"]).name for f in found] == ["helmfile.yaml"]


def _environment_release(root: Path, values: str) -> Path:
    """quickbeard's environments and chart, its release given helmfile's values written out as YAML (the form of
    helmfile docs/writing-helmfile.md:454@v1.7.4, ``- {{ toYaml .Values | nindent 4 }}``)."""
    _quickbeard(root)
    (root / "helmfile.yaml").unlink()
    environments = QUICKBEARD_HELMFILE.split("---")[0]
    release = f"---\nreleases:\n- name: vllm\n  chart: ./charts/vllm\n  namespace: aiops\n  values:\n{values}"
    (root / "helmfile.yaml.gotmpl").write_text(environments + release)
    return root


def _rendered(root: Path) -> list[tuple[str, str, object]]:
    return [
        (
            o.kind,
            o.chart,
            o.obj["spec"]["template"]["spec"]["containers"][0]["image"] if o.kind == "Deployment" else o.obj["spec"]["type"],
        )
        for o in read_manifests([str(root)]).objects
        if o.chart.startswith("helmfile release")
    ]


def test_a_release_given_helmfiles_values_as_yaml_renders_with_the_environments_values(tmp_path):
    """``- {{ toYaml .Values | nindent 4 }}`` gives the chart the chosen environment's values (review57h: it was a
    fill-in path that matched the helmfile itself, read as a values file)."""
    root = _environment_release(tmp_path, "    - {{ toYaml .Values | nindent 6 }}\n")
    label = "helmfile release vllm: chart ./charts/vllm"
    assert _rendered(root) == [("Deployment", label, "vllm/vllm-openai:latest"), ("Service", label, "NodePort")]


def test_a_release_value_naming_an_environment_key_gets_that_key(tmp_path):
    root = _environment_release(tmp_path, "    - image: {{ .Environment.Values.image | toYaml | nindent 8 }}\n")
    label = "helmfile release vllm: chart ./charts/vllm"
    assert _rendered(root) == [("Deployment", label, "vllm/vllm-openai:latest"), ("Service", label, None)]


def test_each_environment_with_its_own_values_is_one_release(tmp_path):
    root = _environment_release(tmp_path, "    - {{ .Values | toYaml | nindent 6 }}\n")
    (root / "values" / "staging" / "vllm.yaml").write_text(VALUES.replace("TAG", "v0.6.4"))
    images = sorted(image for kind, _, image in _rendered(root) if kind == "Deployment")
    assert images == ["vllm/vllm-openai:latest", "vllm/vllm-openai:v0.6.4"]
