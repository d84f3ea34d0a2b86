"""Terraform read wider (policies/reading/terraform_scope.py, terraform_kubernetes.py): literal variable defaults and
locals, template vars, conditionals, count/for_each, and the kubernetes provider's HCL resources.

Firing forms, reduced from third-party repositories:
- CyrusTC/aws-eks-llm-perf-test@495597736088138539f5e1aea9b6298965dc083a model.tf + variables.tf: ``vllm serve
  ${var.llm_model}`` with ``variable "llm_model" { default = "openai/gpt-oss-20b" }`` in the folder's variables.tf.
- brokedba/vllm-lab@ccbb525332596805c4c9e6e5ea321ab3ae6dfc7f terraform/aws/eks/vllm-production-stack.tf: a ``data
  "template_file"`` with ``count`` whose render is a ``helm_release``'s values (``data.template_file.X[0].rendered``).
- brunostjohn/homelab@fca067c71dab89e32325a8620fcc81c9538065d1 terraform/cluster_apps/ollama.tf: ``templatefile(path,
  {vars})`` values.
- sarvamai/uidai-deployment@b1012bd02931535fa4ae51d7c25cd405deb61f34 terraform/environments/uidai/models/
  05-llama3-1-8b.tf: a ``kubernetes_deployment`` GPU server with a GPU limit and no memory limit, and the
  ``kubernetes_service_v1`` in front of it.
Careful forms that stay silent: a variable with no default, a conditional whose results differ (brokedba's
``file(var.inference_hardware == "gpu" ? ... : ...)``), a memory limit set in HCL, a ``for_each`` name.
"""

from __future__ import annotations

import json

from policies.manifests import read_manifests
from tests.conftest import check_in_process

MODEL_TF = """\
resource "kubectl_manifest" "llm" {
  yaml_body = yamlencode({
    apiVersion = "apps/v1"
    kind       = "Deployment"
    metadata   = { name = "llm-gpu" }
    spec = {
      selector = { matchLabels = { app = "llm" } }
      template = {
        metadata = { labels = { app = "llm" } }
        spec = {
          containers = [{
            name    = "llm"
            image   = "vllm/vllm-openai:v0.10.1"
            command = ["vllm", "serve", "${var.llm_model}", "--port", "${local.port}"]
            resources = { limits = { "nvidia.com/gpu" = "1", memory = "64Gi" } }
          }]
        }
      }
    }
  })
}
"""

VALUES_TPL = """\
servingEngineSpec:
  modelSpec:
  - name: llama
    repository: vllm/vllm-openai
    tag: "${tag}"
    modelURL: TinyLlama/TinyLlama-1.1B-Chat-v1.0
"""

TEMPLATE_FILE_TF = """\
data "template_file" "vllm_values" {
  count    = var.enable_vllm ? 1 : 0
  template = file(PATH)
  vars = {
    tag = TAG
  }
}

resource "helm_release" "vllm_stack" {
  count      = var.enable_vllm ? 1 : 0
  name       = "vllm"
  repository = "https://vllm-project.github.io/production-stack"
  chart      = "vllm-stack"
  version    = "0.1.5"
  values     = [data.template_file.vllm_values[0].rendered]
}
"""

DEPLOYMENT_TF = """\
resource "kubernetes_deployment" "nim" {
  metadata {
    name = "llm"
  }
  spec {
    replicas = "1"
    selector {
      match_labels = { "app.kubernetes.io/name" = "llm" }
    }
    template {
      metadata {
        labels = { "app.kubernetes.io/name" = "llm" }
      }
      spec {
        container {
          name  = "vllm"
          image = "vllm/vllm-openai:v0.10.1"
          args  = ["--model", "Qwen/Qwen2.5-1.5B-Instruct", "--revision", "989aa7980e4cf806f80c7fef2b1adb7bc71aa306"]
          port {
            container_port = 8000
          }
          env {
            name  = "HUGGING_FACE_HUB_TOKEN"
            value = ""
          }
          resources {
            limits = LIMITS
          }
        }
      }
    }
  }
}

resource "kubernetes_service_v1" "llm" {
  metadata {
    name = "llm"
  }
  spec {
    selector = { "app.kubernetes.io/name" = "llm" }
    port {
      port        = 8000
      target_port = "8000"
    }
  }
}
"""


def check(folder):
    """The JSON report's findings of `python -m policies check FOLDER`, run in this process (tests.conftest)."""
    return json.loads(check_in_process(str(folder), "--format", "json").stdout)["violations"]


def test_literal_variable_default_and_local_are_read(tmp_path):
    (tmp_path / "model.tf").write_text(MODEL_TF)
    (tmp_path / "variables.tf").write_text(
        'variable "llm_model" {\n  type    = string\n  default = "openai/gpt-oss-20b"\n}\nlocals {\n  port = 8000\n}\n'
    )
    (obj,) = read_manifests([str(tmp_path)]).objects
    command = obj.obj["spec"]["template"]["spec"]["containers"][0]["command"]
    assert command == ["vllm", "serve", "openai/gpt-oss-20b", "--port", "8000"]
    found = [v for v in check(tmp_path) if v["policy"] == "model-source-pinned"]
    assert [v["enforcement"] for v in found] == ["advisory"] and "openai/gpt-oss-20b" in found[0]["message"]


def test_variable_without_default_stays_unknown(tmp_path):
    (tmp_path / "model.tf").write_text(MODEL_TF)
    (tmp_path / "variables.tf").write_text('variable "llm_model" {\n  type = string\n}\n')
    (obj,) = read_manifests([str(tmp_path)]).objects
    assert obj.obj["spec"]["template"]["spec"]["containers"][0]["command"][2] == "${var_llm_model}"
    assert not [v for v in check(tmp_path) if v["policy"] == "model-source-pinned"]


def test_template_file_render_is_the_releases_values_reported_on_the_template(tmp_path):
    (tmp_path / "values.yaml.tpl").write_text(VALUES_TPL)
    (tmp_path / "main.tf").write_text(
        TEMPLATE_FILE_TF.replace("PATH", '"${path.module}/values.yaml.tpl"').replace("TAG", '"latest"')
    )
    (release,) = read_manifests([str(tmp_path)]).objects
    assert release.file == str(tmp_path / "values.yaml.tpl")
    assert release.obj["spec"]["values"]["servingEngineSpec"]["modelSpec"][0]["tag"] == "latest"
    found = [v for v in check(tmp_path) if v["policy"] == "image-tag-pinned" and "vllm/vllm-openai:latest" in v["message"]]
    assert found and all(v["file"].endswith("values.yaml.tpl") for v in found)


def test_conditional_template_path_whose_results_differ_stays_unknown(tmp_path):
    (tmp_path / "values.yaml.tpl").write_text(VALUES_TPL)
    path = 'var.hw == "gpu" ? "${path.module}/values.yaml.tpl" : "${path.module}/cpu.yaml.tpl"'
    (tmp_path / "main.tf").write_text(TEMPLATE_FILE_TF.replace("PATH", path).replace("TAG", '"latest"'))
    (release,) = read_manifests([str(tmp_path)]).objects
    assert release.file == str(tmp_path / "main.tf") and release.obj["spec"]["values"] == {}
    agree = 'var.hw == "gpu" ? "v0.10.1" : "v0.10.1"'  # both results the same literal: known
    (tmp_path / "main.tf").write_text(TEMPLATE_FILE_TF.replace("PATH", '"values.yaml.tpl"').replace("TAG", agree))
    (release,) = read_manifests([str(tmp_path)]).objects
    assert release.obj["spec"]["values"]["servingEngineSpec"]["modelSpec"][0]["tag"] == "v0.10.1"
    assert not [v for v in check(tmp_path) if v["policy"] == "image-tag-pinned" and "vllm-openai" in v["message"]]


def test_templatefile_vars_are_rendered(tmp_path):
    (tmp_path / "values.yml.tpl").write_text(VALUES_TPL)
    (tmp_path / "main.tf").write_text(
        'variable "vllm_tag" {\n  default = "v0.10.1"\n}\n'
        'resource "helm_release" "vllm" {\n  name = "vllm"\n  repository = "https://vllm-project.github.io/production-stack"\n'
        '  chart = "vllm-stack"\n  version = "0.1.5"\n'
        '  values = [templatefile("${path.module}/values.yml.tpl", { tag = var.vllm_tag })]\n}\n'
    )
    (release,) = read_manifests([str(tmp_path)]).objects
    assert release.obj["spec"]["values"]["servingEngineSpec"]["modelSpec"][0]["tag"] == "v0.10.1"


def test_kubernetes_deployment_hcl_is_the_deployment_it_creates(tmp_path):
    (tmp_path / "model.tf").write_text(DEPLOYMENT_TF.replace("LIMITS", '{ "nvidia.com/gpu" = "1" }'))
    deployment, service = read_manifests([str(tmp_path)]).objects
    assert (deployment.kind, deployment.name, deployment.line, service.kind) == ("Deployment", "llm", 1, "Service")
    spec = deployment.obj["spec"]
    assert spec["replicas"] == 1 and spec["selector"] == {"matchLabels": {"app.kubernetes.io/name": "llm"}}
    container = spec["template"]["spec"]["containers"][0]
    assert container["ports"] == [{"containerPort": 8000}] and container["resources"] == {"limits": {"nvidia.com/gpu": "1"}}
    assert service.obj["spec"]["ports"] == [{"port": 8000, "targetPort": 8000}]
    found = check(tmp_path)
    assert {v["enforcement"] for v in found} == {"advisory"}
    assert any(v["policy"] == "serving-memory-limit" and v["file"].endswith("model.tf") for v in found)
    assert any(v["policy"] == "hf-token-not-empty" for v in found)  # the empty HUGGING_FACE_HUB_TOKEN
    assert not [v for v in found if v["policy"] in ("serving-app-service", "api-schema-valid", "api-object-valid")]


def test_kubernetes_deployment_with_a_memory_limit_is_silent_on_it(tmp_path):
    (tmp_path / "model.tf").write_text(DEPLOYMENT_TF.replace("LIMITS", '{ "nvidia.com/gpu" = "1", memory = "24Gi" }'))
    assert not [v for v in check(tmp_path) if v["policy"] in ("serving-memory-limit", "workload-memory-limit")]


def test_for_each_name_is_a_fill_in_not_a_bad_name(tmp_path):
    tf = DEPLOYMENT_TF.replace("LIMITS", '{ "nvidia.com/gpu" = "1", memory = "24Gi" }')
    tf = tf.replace(
        'resource "kubernetes_deployment" "nim" {\n  metadata {\n    name = "llm"',
        'resource "kubernetes_deployment" "nim" {\n  for_each = toset(["a", "b"])\n  metadata {\n    name = "llm-${each.key}"',
    )
    (tmp_path / "model.tf").write_text(tf)
    deployment, _ = read_manifests([str(tmp_path)]).objects
    assert deployment.name == "llm-${each_key}"
    assert not [v for v in check(tmp_path) if v["catalog"] in ("S26", "S27")]


def test_hostile_scopes_are_bounded(tmp_path):
    # A template_file whose template is its own render, and conditionals nested 3,000 deep: read, never a traceback.
    (tmp_path / "main.tf").write_text(
        'data "template_file" "a" {\n  template = data.template_file.a.rendered\n}\n'
        "locals {\n  tag = " + "true ? " * 3000 + '"x"' + ' : "x"' * 3000 + "\n}\n"
        'resource "helm_release" "r" {\n  name = "r"\n  chart = "vllm-stack"\n  version = local.tag\n'
        "  values = [data.template_file.a.rendered]\n}\n"
    )
    read = read_manifests([str(tmp_path)])
    assert [o.kind for o in read.objects] in ([], ["HelmRelease"])
