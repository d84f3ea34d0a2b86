"""Argo CD and Flux releases are read as the charts they install (policies/reading/gitops_charts.py).

Firing forms (reduced, the chart's templates written here, not copied):
- nicolas-budin/ollama_agent@07e5cf81a305cd00dd77373f32a00c85cf9590bd argocd/application.yaml: an Application of
  ``path: helm/ollama-agent`` (a chart folder of the repository) with ``helm.valueFiles: [values-openshift.yaml]``
  beside its Chart.yaml (helm/ollama-agent/values-openshift.yaml@1aaefdc36622bd213e0d35214ccf2b7a9f123934): the
  chart renders with that file over values.yaml, as release ``ollama-agent`` (the Application's name) in namespace
  ``ollama-agent``.
- BSFishy/k8s-homelab@fb0cbd2782a2c4543e9a846bfaf180f8d7934171 kubernetes/apps/ai/litellm-gateway/app/helmrelease.yaml
  (spent set 107): a HelmRelease with ``chartRef`` to the OCIRepository beside it (``oci://ghcr.io/berriai/
  litellm-helm``): read as a release of litellm-helm at the OCIRepository's ``ref.tag``. As written (tag 0.1.808) it
  is the careful form G1 leaves silent; its ``ref`` turned to a semver range, or dropped, G1 reports it.
Careful forms that stay silent: an Application whose valueFiles entry is another source's ``$values/...`` (the run
does not show the values), a Flux release whose ``valuesFrom`` is a Secret, and a chartRef to bjw-s app-template (no
chart the pack reads: the release is left as written).
"""

from __future__ import annotations

import json
from pathlib import Path

from policies.manifests import read_manifests
from tests.conftest import check_in_process
from tests.policies.policy_fixtures import chart_folder

CHART_YAML = "apiVersion: v2\nname: ollama-agent\nversion: 0.1.0\nappVersion: '1.0'\n"
VALUES = "image:\n  repository: ollama-agent\n  tag: ''\nollamaUrl: http://ollama:11434/api/chat\nmodel: gemma3:4b\n"
CLUSTER_VALUES = "image:\n  repository: registry.example/ollama-agent\n  tag: '0185546'\n"
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
  namespace: {{ .Release.Namespace }}
spec:
  replicas: 1
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
      containers:
        - name: agent
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
          env:
            - name: OLLAMA_MODEL
              value: {{ .Values.model | quote }}
"""
APPLICATION = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: ollama-agent
  namespace: openshift-gitops
spec:
  project: default
  source:
    repoURL: https://github.com/nicolas-budin/ollama_agent.git
    targetRevision: main
    path: helm/ollama-agent
    helm:
      valueFiles:
        - values-openshift.yaml
  destination:
    server: https://kubernetes.default.svc
    namespace: ollama-agent
  syncPolicy:
    syncOptions:
      - CreateNamespace=true
"""


def _chart(root: Path, folder: str = "helm/ollama-agent") -> Path:
    files = {"values-openshift.yaml": CLUSTER_VALUES}
    return chart_folder(root / folder, {"deployment.yaml": DEPLOYMENT}, VALUES, CHART_YAML, files)


def _released(root: Path, file: str) -> list[dict]:
    return [o.obj for o in read_manifests([str(root)]).objects if o.file.endswith(file) and o.chart]


def test_argo_application_of_a_chart_folder_renders_it_with_its_value_files_name_and_namespace(tmp_path):
    _chart(tmp_path)
    (tmp_path / "argocd").mkdir()
    (tmp_path / "argocd" / "application.yaml").write_text(APPLICATION)
    [deployment] = _released(tmp_path, "application.yaml")
    assert deployment["metadata"] == {"name": "ollama-agent", "namespace": "ollama-agent"}
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container["image"] == "registry.example/ollama-agent:0185546"
    assert container["env"] == [{"name": "OLLAMA_MODEL", "value": "gemma3:4b"}]


def test_argo_precedence_is_parameters_over_values_object_over_values_over_value_files(tmp_path):
    _chart(tmp_path)
    app = APPLICATION.replace(
        "        - values-openshift.yaml\n",
        "        - values-openshift.yaml\n"
        "      values: |\n        model: from-values\n        image: {tag: from-values}\n"
        "      valuesObject:\n        model: from-object\n"
        "      releaseName: agent\n"
        "      parameters:\n        - name: image.tag\n          value: '2.0'\n",
    )
    (tmp_path / "app.yaml").write_text(app)
    [deployment] = _released(tmp_path, "app.yaml")
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert deployment["metadata"]["name"] == "agent"
    assert container["image"] == "registry.example/ollama-agent:2.0"
    assert container["env"][0]["value"] == "from-object"


def test_argo_findings_on_the_rendered_release_sit_on_the_application_and_are_advice(tmp_path):
    _chart(tmp_path)
    (tmp_path / "app.yaml").write_text(APPLICATION)
    (tmp_path / "helm/ollama-agent/values-openshift.yaml").write_text(CLUSTER_VALUES.replace("'0185546'", "latest"))
    report = json.loads(check_in_process(str(tmp_path), "--format", "json").stdout)
    on_app = [v for v in report["violations"] if v["file"].endswith("app.yaml") and v["catalog"] == "G1"]
    assert [v["resource"] for v in on_app] == ["Deployment/ollama-agent"]
    assert {v["enforcement"] for v in on_app} == {"advisory"}
    assert "registry.example/ollama-agent:latest" in on_app[0]["message"]


def test_argo_release_whose_values_the_run_does_not_show_is_not_rendered(tmp_path):
    _chart(tmp_path)
    (tmp_path / "app.yaml").write_text(APPLICATION.replace("- values-openshift.yaml", "- $values/envs/prod.yaml"))
    (tmp_path / "set.yaml").write_text(
        APPLICATION.replace("kind: Application", "kind: ApplicationSet").replace(
            "spec:\n  project", "spec:\n  template:\n    metadata: {name: '{{name}}'}\n    spec:\n      project"
        )
    )
    assert _released(tmp_path, "app.yaml") == []
    assert _released(tmp_path, "set.yaml") == []


FLUX_RELEASE = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: agent
  namespace: ai
spec:
  interval: 30m
  targetNamespace: llm
  chart:
    spec:
      chart: ./helm/ollama-agent
      sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}
  valuesFrom:
    - kind: ConfigMap
      name: agent-values
  values:
    model: qwen3:8b
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: agent-values
  namespace: ai
data:
  values.yaml: |
    image: {tag: '3.1', repository: ghcr.io/example/agent}
    model: from-config-map
"""


def test_flux_release_of_a_git_chart_folder_renders_it_with_value_sources_name_and_target_namespace(tmp_path):
    _chart(tmp_path)
    (tmp_path / "release.yaml").write_text(FLUX_RELEASE)
    [deployment] = _released(tmp_path, "release.yaml")
    assert deployment["metadata"] == {"name": "llm-agent", "namespace": "llm"}
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container["image"] == "ghcr.io/example/agent:3.1"
    assert container["env"][0]["value"] == "qwen3:8b"


def test_flux_release_with_values_from_a_secret_is_not_rendered(tmp_path):
    _chart(tmp_path)
    (tmp_path / "release.yaml").write_text(FLUX_RELEASE.replace("- kind: ConfigMap", "- kind: Secret"))
    assert _released(tmp_path, "release.yaml") == []


BSFISHY = """\
apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata:
  name: litellm-gateway
spec:
  interval: 10m
  layerSelector:
    mediaType: application/vnd.cncf.helm.chart.content.v1.tar+gzip
    operation: copy
  ref:
    tag: 0.1.808
  url: oci://ghcr.io/berriai/litellm-helm
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: litellm-gateway
spec:
  interval: 30m
  chartRef:
    kind: OCIRepository
    name: litellm-gateway
  values:
    image:
      repository: ghcr.io/berriai/litellm
      tag: v1.79.0-stable
"""


def _g1(tmp_path: Path, text: str) -> list[dict]:
    (tmp_path / "helmrelease.yaml").write_text(text)
    report = json.loads(check_in_process(str(tmp_path), "--format", "json").stdout)
    return [v for v in report["violations"] if v["policy"] == "chart-version-pinned"]


def test_chart_ref_release_is_read_as_the_chart_its_oci_repository_names(tmp_path):
    (tmp_path / "helmrelease.yaml").write_text(BSFISHY)
    [release] = [o.obj for o in read_manifests([str(tmp_path)]).objects if o.obj["kind"] == "HelmRelease"]
    assert release["spec"]["chart"]["spec"]["chart"] == "litellm-helm"
    assert release["spec"]["chart"]["spec"]["version"] == "0.1.808"
    assert "chartRef" not in release["spec"]
    assert release["metadata"]["annotations"] == {"llm-serving.io/chart-ref": "OCIRepository//litellm-gateway"}


def test_chart_ref_pinned_by_its_oci_tag_is_silent(tmp_path):
    assert _g1(tmp_path, BSFISHY) == []
    assert _g1(tmp_path, BSFISHY.replace("tag: 0.1.808", "digest: sha256:" + "a" * 64)) == []


def test_chart_ref_to_a_semver_range_is_reported(tmp_path):
    [finding] = _g1(tmp_path, BSFISHY.replace("tag: 0.1.808", "semver: '>=0.1.0'"))
    assert finding["resource"] == "HelmRelease/litellm-gateway"
    assert finding["enforcement"] == "advisory"
    assert finding["message"].startswith(
        "spec.chartRef: OCIRepository litellm-gateway's spec.ref.semver '>=0.1.0' is a range for chart litellm-helm"
    )


def test_chart_ref_whose_oci_repository_pins_nothing_is_reported(tmp_path):
    [finding] = _g1(tmp_path, BSFISHY.replace("  ref:\n    tag: 0.1.808\n", ""))
    assert "OCIRepository litellm-gateway pins no version" in finding["message"]
    [latest] = _g1(tmp_path, BSFISHY.replace("tag: 0.1.808", "tag: latest"))
    assert "spec.ref.tag is 'latest'" in latest["message"]


def test_chart_ref_to_a_source_in_another_namespace_or_not_in_the_run_is_matched_by_namespace(tmp_path):
    moved = BSFISHY.replace(
        "name: litellm-gateway\nspec:\n  interval: 10m", "name: litellm-gateway\n  namespace: flux-system\nspec:\n  interval: 10m"
    )
    moved = moved.replace("tag: 0.1.808", "semver: '*'")
    assert _g1(tmp_path, moved) == []  # the release looks in its own namespace: the source is not in the run
    assert (
        len(
            _g1(
                tmp_path,
                moved.replace(
                    "    name: litellm-gateway\n  values", "    name: litellm-gateway\n    namespace: flux-system\n  values"
                ),
            )
        )
        == 1
    )


def test_chart_ref_to_app_template_is_left_as_written(tmp_path):
    text = BSFISHY.replace("oci://ghcr.io/berriai/litellm-helm", "oci://ghcr.io/bjw-s-labs/helm/app-template")
    (tmp_path / "helmrelease.yaml").write_text(text.replace("tag: 0.1.808", "semver: '*'"))
    [release] = [o.obj for o in read_manifests([str(tmp_path)]).objects if o.obj["kind"] == "HelmRelease"]
    assert release["spec"]["chartRef"] == {"kind": "OCIRepository", "name": "litellm-gateway"}
    assert _g1(tmp_path, text.replace("tag: 0.1.808", "semver: '*'")) == []


def test_argo_values_are_ignored_beside_values_object(tmp_path):
    # "valuesObject trumps values - therefore values will be ignored" (argo-cd docs/user-guide/helm.md:410@v3.5.1)
    _chart(tmp_path)
    app = APPLICATION.replace(
        "        - values-openshift.yaml\n",
        "        - values-openshift.yaml\n"
        "      values: |\n        image: {repository: from-values}\n"
        "      valuesObject:\n        model: from-object\n",
    )
    (tmp_path / "app.yaml").write_text(app)
    [deployment] = _released(tmp_path, "app.yaml")
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container["image"] == "registry.example/ollama-agent:0185546"
    assert container["env"][0]["value"] == "from-object"


def test_argo_source_is_ignored_beside_sources(tmp_path):
    # "When you specify the `sources` field, Argo CD will ignore the `source` (singular) field"
    # (argo-cd docs/user-guide/multiple_sources.md:9-10@v3.5.1): an app migrated to sources that kept its old source
    # installs the chart once, with the values of sources.
    _chart(tmp_path)
    app = APPLICATION.replace(
        "  destination:\n",
        "  sources:\n    - repoURL: https://github.com/nicolas-budin/ollama_agent.git\n      targetRevision: main\n"
        "      path: helm/ollama-agent\n      helm:\n        valuesObject:\n          model: from-sources\n"
        "  destination:\n",
    )
    (tmp_path / "app.yaml").write_text(app)
    [deployment] = _released(tmp_path, "app.yaml")
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container["image"] == "ollama-agent:1.0"
    assert container["env"][0]["value"] == "from-sources"
    hydrated = APPLICATION.replace(
        "  destination:\n", "  sourceHydrator:\n    drySource: {path: helm/ollama-agent}\n  destination:\n"
    )
    (tmp_path / "app.yaml").write_text(hydrated)
    assert _released(tmp_path, "app.yaml") == []


def test_chart_ref_to_one_exact_semver_is_silent(tmp_path):
    # "`=`: equal (aliased to no operator)" (Masterminds/semver v3.4.0 README.md:139): one version, pinned
    for exact in ("semver: '0.1.808'", "semver: '=0.1.808'", "semver: '= v0.1.808'"):
        assert _g1(tmp_path, BSFISHY.replace("tag: 0.1.808", exact)) == [], exact
    assert len(_g1(tmp_path, BSFISHY.replace("tag: 0.1.808", "semver: '>=0.1.808'"))) == 1


def test_chart_ref_release_of_no_map_spec_or_metadata_is_left_as_written(tmp_path):
    # review56e: an internal error (AttributeError, TypeError) before; the pack's own annotation written by hand too
    hostile = BSFISHY.replace("metadata:\n  name: litellm-gateway\nspec:\n  interval: 30m", "metadata: 7\nspec:\n  interval: 30m")
    by_hand = BSFISHY + "---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: r\n"
    by_hand += "  annotations: {llm-serving.io/chart-ref: OCIRepository//litellm-gateway}\nspec: 5\n"
    for text in (hostile, by_hand):
        (tmp_path / "helmrelease.yaml").write_text(text)
        result = check_in_process(str(tmp_path), "--format", "json")
        assert "internal error" not in result.stdout + result.stderr
        json.loads(result.stdout)


def test_values_text_is_read_with_the_packs_bounds(tmp_path):
    # review56e: an Argo CD helm.values (or a Flux valuesFrom ConfigMap) holding a "billion laughs" block was loaded
    # unbounded and rendered through the chart: the run hung. Now refused, so the release is not rendered.
    from policies.reading.gitops_charts import _text

    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    assert _text("\n".join(lines)) is None
    assert _text("model: m\nimage: {tag: '1'}\n") == {"model": "m", "image": {"tag": "1"}}
    _chart(tmp_path)
    bomb = "\n".join("        " + line for line in lines)
    (tmp_path / "app.yaml").write_text(
        APPLICATION.replace("      valueFiles:\n", f"      values: |\n{bomb}\n      valueFiles:\n")
    )
    assert _released(tmp_path, "app.yaml") == []
