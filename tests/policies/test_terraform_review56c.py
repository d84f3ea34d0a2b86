"""Review56c of Terraform read wider (policies/reading/terraform_scope.py, terraform_kubernetes.py): careful forms
that were read wrong.

- ``dynamic "env" { for_each ...; content {...} }`` in a ``kubernetes_deployment``'s container (Terraform's dynamic
  blocks, developer.hashicorp.com/terraform/language/expressions/dynamic-blocks): the blocks its content makes, not a
  field named ``dynamic`` (api-schema-valid said "not a field of Deployment").
- a ``terraform.tfvars`` / ``*.auto.tfvars`` beside the module sets its variables over their defaults (Terraform loads
  them automatically: language/values/variables "Variable Definition Precedence"); another ``.tfvars`` of the folder
  is given with -var-file, so a variable it sets is unknown, not its default.
- a ``sensitive = true`` variable (a token) whose default is ``""``: the secret is given at plan time, not the default.
"""

from __future__ import annotations

import json

from policies.manifests import read_manifests
from tests.conftest import check_in_process

DEPLOYMENT_TF = """\
variable "model" {
  default = "openai/gpt-oss-20b"
}
variable "hf_token" {
  type      = string
  default   = ""
  SENSITIVE
}
resource "kubernetes_deployment_v1" "vllm" {
  metadata {
    name = "vllm"
  }
  spec {
    selector {
      match_labels = { app = "vllm" }
    }
    template {
      metadata {
        labels = { app = "vllm" }
      }
      spec {
        container {
          name  = "vllm"
          image = "vllm/vllm-openai:v0.10.1"
          args  = ["--model", var.model]
          env {
            name  = "HUGGING_FACE_HUB_TOKEN"
            value = var.hf_token
          }
          dynamic "env" {
            for_each = var.extra_env
            content {
              name  = env.key
              value = env.value
            }
          }
          resources {
            limits = { "nvidia.com/gpu" = 1, memory = "32Gi" }
          }
        }
      }
    }
  }
  lifecycle {
    ignore_changes = [spec[0].replicas]
  }
}
"""


def check(folder):
    return json.loads(check_in_process(str(folder), "--format", "json").stdout)["violations"]


def test_dynamic_block_is_the_blocks_it_makes_not_a_field(tmp_path):
    (tmp_path / "main.tf").write_text(DEPLOYMENT_TF.replace("SENSITIVE", ""))
    (obj,) = read_manifests([str(tmp_path)]).objects
    container = obj.obj["spec"]["template"]["spec"]["containers"][0]
    assert "dynamic" not in container and len(container["env"]) == 2
    assert not [v for v in check(tmp_path) if "dynamic" in v["message"]]


def test_auto_tfvars_set_variables_over_their_defaults(tmp_path):
    (tmp_path / "main.tf").write_text(DEPLOYMENT_TF.replace("SENSITIVE", ""))
    (tmp_path / "terraform.tfvars").write_text('model = "Qwen/Qwen2.5-1.5B-Instruct"\nhf_token = "hf_abc"\n')
    (obj,) = read_manifests([str(tmp_path)]).objects
    container = obj.obj["spec"]["template"]["spec"]["containers"][0]
    assert container["args"] == ["--model", "Qwen/Qwen2.5-1.5B-Instruct"]
    found = check(tmp_path)
    assert not [v for v in found if v["policy"] == "hf-token-not-empty" or "gpt-oss" in v["message"]]


def test_a_variable_another_tfvars_sets_is_unknown(tmp_path):
    (tmp_path / "main.tf").write_text(DEPLOYMENT_TF.replace("SENSITIVE", ""))
    (tmp_path / "prod.tfvars").write_text('model = "Qwen/Qwen2.5-1.5B-Instruct"\n')
    (obj,) = read_manifests([str(tmp_path)]).objects
    assert obj.obj["spec"]["template"]["spec"]["containers"][0]["args"][1] == "${var_model}"
    # hf_token is set by no .tfvars: still read at its default, as advice
    assert [v["enforcement"] for v in check(tmp_path) if v["policy"] == "hf-token-not-empty"] == ["advisory"]


def test_sensitive_variable_default_is_not_the_secret(tmp_path):
    (tmp_path / "main.tf").write_text(DEPLOYMENT_TF.replace("SENSITIVE", "sensitive = true"))
    assert not [v for v in check(tmp_path) if v["policy"] == "hf-token-not-empty"]


def test_a_module_call_sets_its_modules_variables(tmp_path):
    # A root module calling the serving module (environments/prod/main.tf -> ../../modules/vllm): the call's
    # arguments, not the module's defaults, are what is deployed (language/modules/syntax "Calling a Child Module").
    module = tmp_path / "modules" / "vllm"
    module.mkdir(parents=True)
    (module / "main.tf").write_text(DEPLOYMENT_TF.replace("SENSITIVE", ""))
    prod = tmp_path / "environments" / "prod"
    prod.mkdir(parents=True)
    (prod / "main.tf").write_text(
        'module "vllm" {\n  source   = "../../modules/vllm"\n  model    = "Qwen/Qwen2.5-1.5B-Instruct"\n'
        "  hf_token = var.hf_token\n}\n"
    )
    (obj,) = read_manifests([str(tmp_path)]).objects
    container = obj.obj["spec"]["template"]["spec"]["containers"][0]
    assert container["args"] == ["--model", "Qwen/Qwen2.5-1.5B-Instruct"]
    assert container["env"][0]["value"] == "${var_hf_token}"
    assert not [v for v in check(tmp_path) if v["policy"] == "hf-token-not-empty" or "gpt-oss" in v["message"]]
    # two calls giving different models: unknown
    (tmp_path / "environments" / "dev.tf").write_text(
        'module "vllm" {\n  source = "../modules/vllm"\n  model  = "openai/gpt-oss-20b"\n}\n'
    )
    (obj,) = read_manifests([str(tmp_path)]).objects
    assert obj.obj["spec"]["template"]["spec"]["containers"][0]["args"][1] == "${var_model}"


SERVICE_TF = """\
resource "kubernetes_service_v1" "vllm" {
  metadata {
    name = "vllm-headless"
  }
  spec {
    cluster_ip = "None"
    selector   = { app = "vllm" }
    port {
      port        = 8000
      target_port = "8000"
    }
    session_affinity = "ClientIP"
    session_affinity_config {
      client_ip {
        timeout_seconds = 600
      }
    }
  }
}
"""


def test_acronym_fields_are_the_apis_names(tmp_path):
    # hashicorp/terraform-provider-kubernetes v2.38.0 docs/resources/service_v1.md:54 cluster_ip, :94 client_ip: the
    # API's clusterIP and clientIP (not clusterIp): a headless Service read as one, and no "not a field" finding.
    (tmp_path / "main.tf").write_text(SERVICE_TF)
    (obj,) = read_manifests([str(tmp_path)]).objects
    assert obj.obj["spec"]["clusterIP"] == "None"
    assert obj.obj["spec"]["sessionAffinityConfig"] == {"clientIP": {"timeoutSeconds": 600}}
    assert not [v for v in check(tmp_path) if v["policy"] in ("api-schema-valid", "api-object-valid")]


def test_provider_strings_are_the_apis_numbers(tmp_path):
    # default_mode/mode are strings the provider parses base 8 (v2.38.0 kubernetes/structures_pod.go:1108-1109,
    # 1160-1161: strconv.ParseInt(mode, 8, 32)): "0644" is 420, not 644; toleration_seconds (String) is an integer.
    tf = DEPLOYMENT_TF.replace("SENSITIVE", "").replace(
        "      spec {\n        container {",
        '      spec {\n        toleration {\n          key = "k"\n          operator = "Exists"\n          effect = "NoExecute"\n'
        '          toleration_seconds = "300"\n        }\n        volume {\n          name = "cfg"\n          config_map {\n            name = "cfg"\n'
        '            default_mode = "0644"\n            items {\n              key  = "a"\n              path = "a"\n'
        '              mode = "0400"\n            }\n          }\n        }\n        container {',
    )
    (tmp_path / "main.tf").write_text(tf)
    (obj,) = read_manifests([str(tmp_path)]).objects
    config_map = obj.obj["spec"]["template"]["spec"]["volumes"][0]["configMap"]
    assert config_map["defaultMode"] == 0o644 and config_map["items"][0]["mode"] == 0o400
    assert obj.obj["spec"]["template"]["spec"]["tolerations"][0]["tolerationSeconds"] == 300
