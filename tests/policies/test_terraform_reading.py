"""Kubernetes objects and Helm releases written inside Terraform are read (policies/reading/terraform.py).

Firing forms (reduced from spent set 119 and 121 repositories):
- CyrusTC/aws-eks-llm-perf-test@495597736088138539f5e1aea9b6298965dc083a model.tf: ``resource "kubectl_manifest"``
  whose ``yaml_body = yamlencode({...})`` is a vLLM Deployment (image ``vllm/vllm-openai:latest``, a ``<<-EOT`` shell
  command inside the object, ``${var.llm_model}``); nodepool.tf: a Karpenter GPU NodePool without GPU limits.
- brokedba/vllm-lab@ccbb525332596805c4c9e6e5ea321ab3ae6dfc7f terraform/aws/eks/vllm-production-stack.tf: a
  ``helm_release`` of the vllm-stack chart with no ``version``; a ``yaml_body = <<YAML`` heredoc whose closing marker
  has trailing blanks.
- brunostjohn/homelab@fca067c71dab89e32325a8620fcc81c9538065d1 terraform/cluster_apps/ollama.tf: a module call of
  the repository's own helm wrapper (repo_url, chart, target_revision, ``values = templatefile("...yml.tpl", {...})``).
A release whose values are one file of the run is reported on that file (the labels of set 121 are on the
values template). Careful forms that stay silent: a chart pinned to one version, an image pinned through a variable, a .tf file with no
Kubernetes resource (not reported at all). Every finding on a Terraform object is advice.
"""

from __future__ import annotations

import json

from policies.manifests import read_manifests
from tests.conftest import check_in_process

DEPLOYMENT_TF = """\
# GPU LLM Deployment
resource "kubectl_manifest" "llm_gpu_deployment" {
  yaml_body = yamlencode({
    apiVersion = "apps/v1"
    kind       = "Deployment"
    metadata = {
      name      = "llm-gpu"
      namespace = "llm"
    }
    spec = {
      replicas = 1
      selector = { matchLabels = { app = "llm" } }
      template = {
        metadata = { labels = { app = "llm" } }
        spec = {
          containers = [
            {
              name  = "llm"
              image = "IMAGE"
              command = [
                "bash",
                "-c",
                <<-EOT
                uv pip install --pre vllm \\
                  --index-strategy unsafe-best-match && \\
                vllm serve ${var.llm_model} --tensor-parallel-size 8
                EOT
              ]
              resources = {
                limits = { "nvidia.com/gpu" = "8", memory = "160Gi" }
              }
            }
          ]
        }
      }
    }
  })
  depends_on = [module.llm_eks]
}
"""

HELM_TF = """\
resource "helm_release" "vllm_stack" {
  count      = var.enable_vllm ? 1 : 0
  name       = "vllm-${var.inference_hardware}"
  repository = "https://vllm-project.github.io/production-stack"
  chart      = "vllm-stack"
  VERSION
  values = [data.template_file.vllm_values[0].rendered]
}

resource "kubectl_manifest" "vllm_service_monitor" {
  yaml_body = <<YAML
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: vllm-monitor
spec:
  selector:
    matchLabels: {app: vllm}
  endpoints:
  - port: service-port
YAML  \n
  depends_on = [helm_release.vllm_stack]
}
"""

MODULE_TF = """\
module "ollama_helm" {
  source          = "../helm_deployment"
  repo_url        = "https://helm.openwebui.com/"
  chart           = "open-webui"
  target_revision = "3.5.1"
  name            = "ollama"
  values = templatefile("${path.module}/templates/ollama.yml.tpl", {
    global_fqdn = var.global_fqdn
  })
}
"""

OLLAMA_TPL = """\
ollama:
  image:
    tag: latest
image:
  repository: ghcr.io/open-webui/open-webui
  tag: latest
ingress:
  enabled: true
  host: chat.${global_fqdn}
"""


def check(folder):
    """The JSON report's findings of `python -m policies check FOLDER`, run in this process (tests.conftest)."""
    return json.loads(check_in_process(str(folder), "--format", "json").stdout)["violations"]


def test_kubectl_manifest_yamlencode_deployment_is_read_at_the_resource_line(tmp_path):
    (tmp_path / "model.tf").write_text(DEPLOYMENT_TF.replace("IMAGE", "vllm/vllm-openai:latest"))
    (obj,) = read_manifests([str(tmp_path)]).objects
    assert (obj.kind, obj.name, obj.line, obj.best_effort) == ("Deployment", "llm-gpu", 2, True)
    container = obj.obj["spec"]["template"]["spec"]["containers"][0]
    assert "vllm serve ${var_llm_model} --tensor-parallel-size 8" in container["command"][2]  # a fill-in: UNKNOWN
    assert "\\\n" in container["command"][2]  # the heredoc's line continuations as Terraform reads them
    found = check(tmp_path)
    assert {v["enforcement"] for v in found} == {"advisory"}  # nothing new blocks
    assert any(v["catalog"] == "G1" and "latest" in v["message"] for v in found)
    assert all(v["file"].endswith("model.tf") for v in found)
    assert not any("unsafe-best-match" in v["message"] for v in found)  # uv's --index-strategy value is no package
    assert not any("var_llm_model" in v["message"] and v["catalog"] in ("S26", "S27") for v in found)


def test_image_pinned_through_a_variable_stays_silent(tmp_path):
    (tmp_path / "model.tf").write_text(DEPLOYMENT_TF.replace("IMAGE", "vllm/vllm-openai:${var.vllm_tag}"))
    found = check(tmp_path)
    assert not [v for v in found if v["policy"] == "image-tag-pinned"]


def test_helm_release_without_version_is_a_release_of_the_chart(tmp_path):
    (tmp_path / "vllm-production-stack.tf").write_text(HELM_TF.replace("VERSION", ""))
    objects = read_manifests([str(tmp_path)]).objects
    assert [(o.kind, o.name) for o in objects] == [("HelmRelease", "vllm-stack"), ("ServiceMonitor", "vllm-monitor")]
    assert objects[0].line == 1 and objects[1].line == 10
    found = check(tmp_path)
    assert any(v["policy"] == "chart-version-pinned" and "terraform-provider-helm" in v["message"] for v in found)
    assert {v["enforcement"] for v in found} == {"advisory"}


def test_helm_release_pinned_to_one_version_stays_silent(tmp_path):
    (tmp_path / "main.tf").write_text(HELM_TF.replace("VERSION", 'version = "0.1.7"'))
    (release, _) = read_manifests([str(tmp_path)]).objects
    assert release.obj["spec"]["chart"]["spec"]["version"] == "0.1.7"
    assert not [v for v in check(tmp_path) if v["policy"] == "chart-version-pinned"]


def test_module_call_of_a_helm_wrapper_reads_its_templatefile_values(tmp_path):
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "ollama.yml.tpl").write_text(OLLAMA_TPL)
    (tmp_path / "ollama.tf").write_text(MODULE_TF)
    (release,) = read_manifests([str(tmp_path)]).objects
    assert release.file == str(tmp_path / "templates" / "ollama.yml.tpl") and release.line == 1  # its values' file
    spec = release.obj["spec"]
    assert spec["chart"]["spec"] == {"chart": "open-webui", "version": "3.5.1"}
    assert spec["values"]["ingress"]["host"] == "chat.${global_fqdn}"
    found = [v for v in check(tmp_path) if v["file"].endswith("ollama.yml.tpl")]
    assert any(v["policy"] == "image-tag-pinned" and "open-webui:latest" in v["message"] for v in found)
    assert not [v for v in found if v["policy"] == "chart-version-pinned"]


def test_kubernetes_manifest_object_and_yamldecode_file(tmp_path):
    (tmp_path / "svc.yaml").write_text("apiVersion: v1\nkind: Service\nmetadata: {name: from-file}\nspec: {}\n")
    (tmp_path / "main.tf").write_text(
        'resource "kubernetes_manifest" "ns" {\n  manifest = {\n    apiVersion = "v1"\n    kind = "Namespace"\n'
        '    metadata = { name = "llm" }\n  }\n}\n\n'
        'resource "kubernetes_manifest" "svc" {\n  manifest = yamldecode(file("${path.module}/svc.yaml"))\n}\n'
    )
    tf = [(o.kind, o.name, o.line) for o in read_manifests([str(tmp_path / "main.tf")]).objects]
    assert tf == [("Namespace", "llm", 1), ("Service", "from-file", 9)]  # svc.yaml read through Terraform alone
    both = [(o.kind, o.file) for o in read_manifests([str(tmp_path)]).objects]
    assert both == [("Namespace", str(tmp_path / "main.tf")), ("Service", str(tmp_path / "svc.yaml"))]  # read once


def test_terraform_without_kubernetes_resources_or_not_parsing_is_not_reported(tmp_path):
    (tmp_path / "vpc.tf").write_text('resource "aws_vpc" "main" {\n  cidr_block = "10.0.0.0/16"\n}\n')
    (tmp_path / "broken.tf").write_text('resource "helm_release" "x" {\n  chart = \n')
    (tmp_path / "ns.yaml").write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: llm}\n")
    read = read_manifests([str(tmp_path)])
    assert [o.kind for o in read.objects] == ["Namespace"] and read.unreadable == []


def test_hostile_terraform_bodies_are_bounded(tmp_path):
    # review55e: a heredoc nested 5,000 deep raised RecursionError (an internal error, no findings) and an alias bomb
    # never finished, while the same text as a .yaml file is refused at once by the pack's bounded composer; a .tf
    # larger than the parser handles quickly is not parsed.
    deep = "[" * 5000 + "]" * 5000
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{n}: &{n} [{', '.join(['*' + p] * 9)}]\n" for p, n in zip("abcdefgh", "bcdefghi")
    )
    body = "\n".join(f"      {line}" for line in bomb.splitlines())
    (tmp_path / "deep.tf").write_text(
        f'resource "kubectl_manifest" "deep" {{\n  yaml_body = <<-YAML\n      kind: ConfigMap\n      data: {deep}\n  YAML\n}}\n'
    )
    (tmp_path / "bomb.tf").write_text(f'resource "kubectl_manifest" "bomb" {{\n  yaml_body = <<-YAML\n{body}\n  YAML\n}}\n')
    (tmp_path / "big.tf").write_text("# a helm chart\n" + 'locals { x = "y" }\n' * 20000)
    assert read_manifests([str(tmp_path)]).objects == []


# review55e's five advisory defects, each as its reviewer's minimal form.


def test_body_from_a_file_of_the_run_is_that_files_object_read_once(tmp_path):
    # (a) yaml_body = file("manifests/deploy.yaml") with manifests/ in the run read the Deployment twice, and S20
    # counted its GPUs twice.
    (tmp_path / "manifests").mkdir()
    (tmp_path / "manifests" / "deploy.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: llm}\nspec:\n  template:\n    spec:\n"
        "      containers: [{name: vllm, image: vllm/vllm-openai:v0.6.4}]\n"
    )
    (tmp_path / "main.tf").write_text('resource "kubectl_manifest" "deploy" {\n  yaml_body = file("manifests/deploy.yaml")\n}\n')
    read = read_manifests([str(tmp_path)])
    assert [(o.kind, o.file) for o in read.objects] == [("Deployment", str(tmp_path / "manifests" / "deploy.yaml"))]
    assert read.counts.objects == 1


def test_terraform_interpolation_is_a_fill_in_for_every_rule(tmp_path):
    # (b) ${...} inside a value was read as unrendered text (G46 InvalidImageName, S27 "render it first", S28 a Secret's
    # rendering variable): Terraform renders it before the provider applies the object.
    (tmp_path / "main.tf").write_text(
        'resource "kubectl_manifest" "d" {\n  yaml_body = yamlencode({\n    apiVersion = "apps/v1"\n    kind = "Deployment"\n'
        '    metadata = { name = "llm" }\n    spec = { template = { spec = { containers = [{\n'
        '      name = "vllm", image = "${var.registry}/vllm-openai:v0.6.4", args = ["--model", var.model]\n'
        "    }] } } }\n  })\n}\n"
        'resource "kubernetes_manifest" "hf" {\n  manifest = {\n    apiVersion = "v1"\n    kind = "Secret"\n'
        '    metadata = { name = "hf" }\n    stringData = { HF_TOKEN = var.hf_token, "api-key" = "${var.key}" }\n  }\n}\n'
    )
    found = check(tmp_path)
    assert not [v for v in found if v["catalog"] in ("G46", "S27", "S28")]


def test_chart_given_as_a_versioned_package_url_is_pinned(tmp_path):
    # (c) a chart given as the URL of NAME-VERSION.tgz, with no version argument: the URL pins it (G1 was wrong).
    url = "https://github.com/vllm-project/production-stack/releases/download/vllm-stack-0.1.5/vllm-stack-0.1.5.tgz"
    (tmp_path / "main.tf").write_text(f'resource "helm_release" "vllm" {{\n  name  = "vllm"\n  chart = "{url}"\n}}\n')
    (release,) = read_manifests([str(tmp_path)]).objects
    assert release.obj["spec"]["chart"]["spec"] == {"chart": "vllm-stack", "version": "0.1.5"}
    assert not [v for v in check(tmp_path) if v["policy"] == "chart-version-pinned"]


def test_values_file_of_a_release_is_not_a_file_without_objects(tmp_path):
    # (d) the values file a helm_release reads also got S27 "not checked".
    (tmp_path / "values.yaml").write_text("routerSpec:\n  replicaCount: 2\n")
    (tmp_path / "main.tf").write_text(
        'resource "helm_release" "vllm" {\n  name = "vllm"\n  repository = "https://vllm-project.github.io/production-stack"\n'
        '  chart = "vllm-stack"\n  version = "0.1.5"\n  values = [file("${path.module}/values.yaml")]\n}\n'
    )
    read = read_manifests([str(tmp_path)])
    assert [(o.kind, o.file) for o in read.objects] == [("HelmRelease", str(tmp_path / "values.yaml"))]
    assert read.unreadable == []


def test_jsonencode_nested_in_yamlencode_keeps_the_object(tmp_path):
    # (e) the nested jsonencode() was read as the body, and the ConfigMap was lost.
    (tmp_path / "main.tf").write_text(
        'resource "kubectl_manifest" "cm" {\n  yaml_body = yamlencode({\n    apiVersion = "v1"\n    kind = "ConfigMap"\n'
        '    metadata = { name = "cfg" }\n    data = { "config.json" = jsonencode({ port = 8000, model = "x" }) }\n  })\n}\n'
    )
    (cm,) = read_manifests([str(tmp_path)]).objects
    assert cm.obj["data"] == {"config.json": '{"model":"x","port":8000}'}  # Terraform's jsonencode: sorted, compact
