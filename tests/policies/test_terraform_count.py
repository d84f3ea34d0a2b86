"""Terraform resources that make no object are not read, and a called module's .tfvars set nothing (review57).

- ``count = 0``, ``count = false ? 1 : 0`` (or a local that is false) and ``for_each = {}`` make no instance
  (developer.hashicorp.com/terraform/language/meta-arguments/count, for_each): a switched-off ``kubectl_manifest`` or
  ``helm_release`` (the toggle form of terraform-aws-modules/terraform-aws-eks@v20.31.6 node_groups.tf, ``count =
  local.create ? 1 : 0``) is no object of the run.
- Careful form that is still read: ``count = var.enabled ? 1 : 0`` with ``default = false``: ``-var``, ``TF_VAR_`` or
  a .tfvars may turn it on, so the resource may exist (its findings are advice, as every Terraform object's).
- Only a root module loads ``terraform.tfvars``/``*.auto.tfvars`` (language/values/variables "Variable Definition
  Precedence"): in a folder the run calls as a module, a variable its .tfvars set is unknown, never that file's value.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from policies.manifests import read_manifests

POD = """\
LOCALS
variable "enabled" {
  default = false
}
resource "kubectl_manifest" "vllm" {
  COUNT
  yaml_body = <<-YAML
    apiVersion: v1
    kind: Pod
    metadata:
      name: vllm
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:latest
  YAML
}
"""


def _pods(folder: Path, count: str, locals_: str = "") -> list:
    (folder / "main.tf").write_text(POD.replace("COUNT", count).replace("LOCALS", locals_))
    return [o for o in read_manifests([str(folder)]).objects if o.kind == "Pod"]


@pytest.mark.parametrize(
    ("count", "locals_"),
    [
        ("count = 0", ""),
        ("count = false ? 1 : 0", ""),
        ("count = local.on ? 1 : 0", "locals {\n  on = false\n}"),
        ("count = local.replicas", "locals {\n  replicas = 0\n}"),
        ("for_each = {}", ""),
    ],
)
def test_a_resource_that_makes_no_instance_is_not_read(tmp_path, count, locals_):
    assert _pods(tmp_path, count, locals_) == []


@pytest.mark.parametrize(
    ("count", "locals_"),
    [("count = var.enabled ? 1 : 0", ""), ("count = 1", ""), ("count = true ? 1 : 0", ""), ("", "")],
)
def test_a_resource_that_may_exist_is_read(tmp_path, count, locals_):
    assert [p.name for p in _pods(tmp_path, count, locals_)] == ["vllm"]


MODULE = """\
variable "model" {
  default = "Qwen/Qwen2.5-1.5B-Instruct"
}
resource "kubectl_manifest" "vllm" {
  yaml_body = <<-YAML
    apiVersion: v1
    kind: Pod
    metadata:
      name: vllm
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.10.1
          args: ["--model", "${var.model}"]
  YAML
}
"""


def test_a_called_modules_tfvars_set_no_variable(tmp_path):
    (tmp_path / "modules" / "vllm").mkdir(parents=True)
    (tmp_path / "modules" / "vllm" / "main.tf").write_text(MODULE)
    (tmp_path / "modules" / "vllm" / "terraform.tfvars").write_text('model = "meta-llama/Llama-3.1-8B-Instruct"\n')
    (tmp_path / "main.tf").write_text('module "vllm" {\n  source = "./modules/vllm"\n}\n')
    (pod,) = [o for o in read_manifests([str(tmp_path)]).objects if o.kind == "Pod"]
    assert pod.obj["spec"]["containers"][0]["args"] == ["--model", "${var_model}"]
