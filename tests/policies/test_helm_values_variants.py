"""A chart's other values files (values-<name>.yaml beside Chart.yaml) rendered too (policies/reading/helm_chart.py
values_variants, policies/manifests.py _Charts._variants): the objects a values file turns on that values.yaml leaves off.

The form (written here, nothing copied) is obike007/llama-kuberay@4fef9558 helm/llama-server: values.yaml has no
``ray`` key, so templates/ray-service.yaml (``{{- if .Values.ray.enabled }}``) renders nothing with it, and
values-kuberay.yaml sets ``ray.enabled: true``; the RayService it then renders writes serveConfigV2 as a map and
spec.rayClusterName, which the API server refuses (spent set 112, S26). Careful form: a values file that only retags
an image values.yaml already renders adds no second object.
"""

from __future__ import annotations

from pathlib import Path

from policies.check import resources_of
from policies.manifests import read_manifests
from policies.reading.helm_chart import coalesced
from policies.registry import evaluate
from tests.policies.policy_fixtures import chart_folder

CHART = "apiVersion: v2\nname: llama-server\nversion: 0.1.0\n"
RAY_SERVICE = """{{- if .Values.ray.enabled }}
apiVersion: ray.io/v1
kind: RayService
metadata:
  name: {{ .Values.ray.service.name }}
spec:
  rayClusterName: {{ .Values.ray.cluster.name }}
  serveConfigV2:
    importPath: {{ .Values.ray.service.importPath }}
{{- end }}
"""
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama
spec:
  selector: {matchLabels: {app: llama}}
  template:
    metadata: {labels: {app: llama}}
    spec:
      containers:
        - name: llama
          image: "llama-server:{{ .Values.image.tag }}"
"""
VALUES = "image:\n  tag: latest\n"
KUBERAY = """ray:
  enabled: true
  cluster: {name: llama-ray-cluster}
  service: {name: llama-ray-service, importPath: "llama_serve:app"}
"""


def _chart(tmp_path: Path, templates: dict[str, str], extra: dict[str, str]) -> Path:
    return chart_folder(tmp_path / "llama-server", templates, VALUES, CHART, extra)


def test_a_template_only_another_values_file_turns_on_is_read_with_it(tmp_path):
    root = _chart(tmp_path, {"ray-service.yaml": RAY_SERVICE}, {"values-kuberay.yaml": KUBERAY})
    manifests = read_manifests([str(root)])
    [obj] = manifests.objects
    assert (obj.kind, obj.name) == ("RayService", "llama-ray-service")
    assert obj.chart == f"{root} -f {root}/values-kuberay.yaml"
    refused = [v for v in evaluate(resources_of(manifests)) if v.policy == "crd-validation-rules"]
    assert {v.enforcement for v in refused} == {"advisory"}
    assert any(v.message.startswith("spec.rayClusterName: not a field of the CRD's schema") for v in refused)
    assert all(f"values.yaml and {root}/values-kuberay.yaml; values files" in v.message for v in refused)


def test_a_values_file_that_retags_a_rendered_object_adds_no_second_one(tmp_path):
    root = _chart(tmp_path, {"deployment.yaml": DEPLOYMENT}, {"values-prod.yaml": "image:\n  tag: 1.2.3\n"})
    manifests = read_manifests([str(root)])
    assert [(o.name, o.chart) for o in manifests.objects] == [("llama", str(root))]
    assert manifests.objects[0].obj["spec"]["template"]["spec"]["containers"][0]["image"] == "llama-server:latest"


def test_files_that_are_no_values_file_are_not_read_as_one(tmp_path):
    root = _chart(tmp_path, {"ray-service.yaml": RAY_SERVICE}, {"kuberay.yaml": KUBERAY})
    assert read_manifests([str(root)]).objects == []


def test_a_values_file_merges_over_values_yaml_as_helm_does():
    base = {"ray": {"enabled": False, "image": {"tag": "2.9.0", "pullPolicy": "Always"}}, "persistence": {"size": "5Gi"}}
    over = {"ray": {"enabled": True, "image": {"tag": "latest"}}, "persistence": None}
    assert coalesced(base, over) == {"ray": {"enabled": True, "image": {"tag": "latest", "pullPolicy": "Always"}}}
