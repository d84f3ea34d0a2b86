"""A Helm values file of a chart the pack knows is read as the release it configures (policies/values_files.py).

Firing form: spent set 111 tzervas/self-hosted-ai@8ceff0f137f851444c24bc3561c1e1c6be2f04c3 argocd/helm/ollama/values.yaml
(otwld/ollama-helm values: an Ingress of class traefik with no auth, nodeSelector ``nvidia.com/gpu: present``), whose
labels G32 and G103/S15 were missed because the file "holds no Kubernetes object". Careful forms that must stay unread:
the same repository's helm/ollama/values.yaml (its own chart, keys ``env``, ``modelsPersistence``, ``gpu`` the public
chart never reads), a chart's own values.yaml beside its Chart.yaml, a file whose name does not say values.
"""

from __future__ import annotations

import json
import subprocess
import sys

from policies.manifests import read_manifests
from policies.values_files import READ_FROM, values_release
from tests.conftest import ROOT

OLLAMA_VALUES = """\
image:
  repository: ollama/ollama
  tag: "0.5.4"
ollama:
  gpu:
    enabled: true
    type: nvidia
    number: 1
  models:
    pull: [llama3.2:3b]
service:
  type: ClusterIP
  port: 11434
ingress:
  enabled: true
  className: traefik
  hosts:
    - host: ollama.homelab.local
      paths: [{path: /, pathType: Prefix}]
  tls:
    - secretName: ollama-tls
      hosts: [ollama.homelab.local]
nodeSelector:
  nvidia.com/gpu: "present"
resources:
  requests: {memory: 8Gi}
  limits: {memory: 14Gi}
"""

OWN_CHART_VALUES = """\
image: {repository: ollama/ollama, tag: "0.5.4"}
env:
  OLLAMA_ORIGINS: "*"
modelsPersistence: {enabled: true, size: 200Gi}
gpu: {enabled: false}
"""


def check(folder):
    proc = subprocess.run(
        [sys.executable, "-m", "policies", "check", str(folder), "--format", "json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    return json.loads(proc.stdout)


def test_known_chart_values_file_is_read_as_its_release(tmp_path):
    folder = tmp_path / "argocd" / "helm" / "ollama"
    folder.mkdir(parents=True)
    (folder / "values.yaml").write_text(OLLAMA_VALUES)
    read = read_manifests([str(tmp_path)])
    (obj,) = read.objects
    assert obj.obj["kind"] == "HelmRelease" and obj.obj["metadata"]["name"] == "ollama"
    assert "Ollama" in obj.obj["metadata"]["annotations"][READ_FROM] and read.unreadable == []
    assert read.counts.skipped == {}
    found = {(v["catalog"], v["resource"]) for v in check(tmp_path)["violations"]}
    assert ("G103", "HelmRelease/ollama") in found  # nvidia.com/gpu is a resource, not a node label
    assert ("G32", "HelmRelease/ollama") in found  # the chart's Ingress, no auth in front of Ollama


def test_file_name_names_the_chart(tmp_path):
    (tmp_path / "openwebui-values.yaml").write_text("ollama:\n  enabled: false\nservice:\n  type: ClusterIP\n")
    release = values_release(str(tmp_path / "openwebui-values.yaml"), {"ollama": {"enabled": False}, "service": {}})
    assert release is not None and release["spec"]["chart"]["spec"]["chart"] == "open-webui"
    assert [o.obj["kind"] for o in read_manifests([str(tmp_path)]).objects] == ["HelmRelease"]


def test_careful_forms_stay_unread(tmp_path):
    own = tmp_path / "helm" / "ollama"
    own.mkdir(parents=True)
    (own / "values.yaml").write_text(OWN_CHART_VALUES)  # someone's own chart named ollama: keys the public chart lacks
    vendored = tmp_path / "charts" / "ollama"
    vendored.mkdir(parents=True)
    (vendored / "Chart.yaml").write_text("apiVersion: v2\nname: ollama\nversion: 1.0.0\n")
    (vendored / "values.yaml").write_text(OLLAMA_VALUES)  # the chart's own defaults: rendered with its templates
    (tmp_path / "ollama.yaml").write_text(OLLAMA_VALUES)  # not named as values
    # no chart of the table in its path, generic keys only (a file with the chart's own keys is read by its shape:
    # tests/policies/test_values_shape.py)
    (tmp_path / "unknown-values.yaml").write_text("image: {repository: ollama/ollama}\nservice: {type: ClusterIP}\n")
    read = read_manifests([str(own), str(tmp_path / "ollama.yaml"), str(tmp_path / "unknown-values.yaml")])
    assert read.objects == [] and len(read.unreadable) == 3
    assert values_release(str(vendored / "values.yaml"), {"image": {}}) is None
    assert values_release("x/ollama/values.yaml", {"apiVersion": "v1", "kind": "ConfigMap"}) is None
    assert values_release("x/ollama/values.yaml", ["image"]) is None
    assert values_release("x/ollama/values.yaml", {}) is None
    assert values_release("x/ollama/values.yaml", {1: "x"}) is None


def test_layered_values_files_are_no_redefinition(tmp_path):
    # Review 54a: values.yaml and values-gpu.yaml of one release (helm -f values.yaml -f values-gpu.yaml) are each read
    # as HelmRelease/ollama; they are not two definitions `kubectl apply -f` replaces one with (G58 was told so).
    folder = tmp_path / "deploy" / "ollama"
    folder.mkdir(parents=True)
    (folder / "values.yaml").write_text(OLLAMA_VALUES)
    (folder / "values-gpu.yaml").write_text("ollama:\n  gpu:\n    enabled: true\n    number: 2\n")
    found = check(tmp_path)["violations"]
    assert {v["resource"] for v in found} == {"HelmRelease/ollama"}
    assert [v for v in found if v["catalog"] == "G58"] == []


def test_a_run_of_the_file_names_words_names_the_chart():
    # <env>-<chart>-values.yaml, the form of set 117 yo0x/devops-smarthome root/environments/open-webui-values.yaml
    # beside an environment word; and the first named chart whose templates read every key wins.
    webui = {"ollama": {"enabled": False}, "service": {"type": "ClusterIP"}}
    release = values_release("x/prod-open-webui-values.yaml", webui)
    assert release is not None and release["spec"]["chart"]["spec"]["chart"] == "open-webui"
    ollama = {"ollama": {"gpu": {"enabled": True}}, "persistentVolume": {"enabled": True}}
    release = values_release("x/ollama-open-webui-values.yaml", ollama)
    assert release is not None and release["spec"]["chart"]["spec"]["chart"] == "ollama"
    assert values_release("x/prod-values.yaml", {"service": {"type": "ClusterIP"}}) is None  # no chart named
