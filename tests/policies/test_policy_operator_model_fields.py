"""S17 model-source-pinned reads the model an operator's custom resource names in its own fields, and the containers of
a pod template an operator runs (policies/reading/operator_models.py). All advice.

Firing forms:
- nebari-dev/llm-serving-pack examples/models/advanced-scheduling.yaml@502536264e025064eaf38143a0ed31e86ab127dc (spent
  set 36, labelled S17): LLMModel ``spec.model.name`` Qwen/Qwen3.5-35B-A3B-GPTQ-Int4, ``source: huggingface``, no
  ``spec.model.revision``, which the CRD offers (operator/api/v1alpha1/llmmodel_types.go:58-60) and the operator passes
  to its download as --revision only when set (operator/internal/controller/reconcilers/storage.go:151-155);
- substratusai/substratus examples/llama2-70b/base-model.yaml@7352fb05897b42d2cf31022e528f93f60fdc931b (spent set 30,
  labelled S17): Model ``spec.params.name`` meta-llama/Llama-2-70b-hf loaded by substratusai/model-loader-huggingface;
- Azure/kaito docs/custom-model-integration/reference-image-deployment.yaml (spent set 31, labelled S17): a Workspace
  whose inference template runs inference_api.py with --trust_remote_code and no revision.
Careful forms: nebari's own examples/models/oci-model.yaml (``source: oci``, an org/name that is no Hub id to fetch), the
LLMModel with its revision set, and a resource whose org/name field says nothing of Hugging Face.
"""

import copy

from policy_fixtures import manifest

from policies.models.model_source_pinned import POLICY
from policies.registry import evaluate

LLMMODEL = {
    "apiVersion": "llm.nebari.dev/v1alpha1",
    "kind": "LLMModel",
    "metadata": {"name": "advanced-scheduling", "namespace": "nebari-llm-serving-system"},
    "spec": {
        "model": {"name": "Qwen/Qwen3.5-35B-A3B-GPTQ-Int4", "source": "huggingface", "storage": {"type": "pvc"}},
        "resources": {"gpu": {"count": 1, "type": "nvidia"}},
        "serving": {"replicas": 1},
        "advanced": {"vllm": {"extraArgs": ["--max-model-len", "8192"]}},
    },
}
SUBSTRATUS = {
    "apiVersion": "substratus.ai/v1",
    "kind": "Model",
    "metadata": {"name": "llama-2-70b"},
    "spec": {"image": "substratusai/model-loader-huggingface", "params": {"name": "meta-llama/Llama-2-70b-hf"}},
}
KAITO = {
    "apiVersion": "kaito.sh/v1alpha1",
    "kind": "Workspace",
    "metadata": {"name": "workspace-custom-llm"},
    "resource": {"instanceType": "Standard_NC12s_v3", "labelSelector": {"matchLabels": {"apps": "custom-llm"}}},
    "inference": {
        "template": {
            "spec": {
                "containers": [
                    {
                        "name": "custom-llm-container",
                        "image": "ghcr.io/azure/kaito/llm-reference-preset:latest",
                        "command": ["accelerate"],
                        "args": [
                            "launch",
                            "inference_api.py",
                            "--trust_remote_code",
                            "--pretrained_model_name_or_path",
                            "tiiuae/falcon-7b-instruct",
                        ],
                    }
                ]
            }
        }
    },
}


def _found(*objs):
    return [(v.enforcement, v.message) for v in evaluate([manifest(o) for o in objs], None, policies=[POLICY])]


def test_operator_model_field_without_its_revision_is_advice():
    ((level, message),) = _found(LLMMODEL)
    assert level == "advisory"
    assert message.startswith(
        "spec.model.name: names the Hugging Face model Qwen/Qwen3.5-35B-A3B-GPTQ-Int4 with no revision beside it "
        "(spec.model.revision)"
    )


def test_hugging_face_loader_params_are_read():
    ((level, message),) = _found(SUBSTRATUS)
    assert level == "advisory" and "meta-llama/Llama-2-70b-hf" in message and "spec.params.revision" in message


def test_operator_pod_template_with_remote_code_is_advice():
    found = _found(KAITO)
    assert {level for level, _ in found} == {"advisory"}
    assert any("--trust-remote-code imports Python from the repository of tiiuae/falcon-7b-instruct" in m for _, m in found)
    assert any("tiiuae/falcon-7b-instruct with no revision" in m for _, m in found)


def test_careful_forms_stay_silent():
    pinned = copy.deepcopy(LLMMODEL)
    pinned["spec"]["model"]["revision"] = "0123456789abcdef0123456789abcdef01234567"
    assert _found(pinned) == []
    oci = copy.deepcopy(LLMMODEL)
    oci["spec"]["model"] = {"name": "my-org/my-model", "source": "oci", "image": "registry.example.com/models/my-model:v1"}
    assert _found(oci) == []
    unrelated = {
        "apiVersion": "example.com/v1",
        "kind": "Catalog",
        "metadata": {"name": "c"},
        "spec": {"entry": {"name": "team-a/project-b"}},
    }
    assert _found(unrelated) == []
    # The loader image alone does not make every org/name field of the resource a Hub model.
    other = copy.deepcopy(SUBSTRATUS)
    other["spec"]["owner"] = {"name": "team-a/project-b"}
    assert [m for _, m in _found(other) if "team-a" in m] == []


# Triton's vLLM backend reads vLLM's own arguments from model.json (triton-inference-server/vllm_backend 8de0c148
# src/model.py:44, :210-227). Firing forms: deepaksatna/LLM-Inference-Server-Benchmarking-Framework
# k8s/triton/deployment.yaml@54df88d2b4708821b5c584ba85890da128194df3 (spent set 26, labelled S17: ConfigMap
# triton-model-config, trust_remote_code true on mistralai/Mistral-7B-Instruct-v0.2, no revision), and the backend's own
# samples/model_repository/vllm_model/1/model.json shipped in a ConfigMap (facebook/opt-125m, no revision).
def _model_json(text):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "triton-model-config"}, "data": {"model.json": text}}


def test_triton_vllm_model_json_is_read():
    found = _found(_model_json('{"model": "mistralai/Mistral-7B-Instruct-v0.2", "trust_remote_code": true}'))
    assert {level for level, _ in found} == {"advisory"}
    assert any(m.startswith('data.model.json: "trust_remote_code" in model.json imports Python') for _, m in found)
    assert any("Mistral-7B-Instruct-v0.2 comes from the Hugging Face Hub with no revision" in m for _, m in found)
    ((_, message),) = _found(_model_json('{"model": "facebook/opt-125m", "gpu_memory_utilization": 0.1}'))
    assert 'pin "revision" in model.json to a commit SHA' in message


def test_triton_model_json_careful_forms_stay_silent():
    pinned = '{"model": "facebook/opt-125m", "revision": "27dcfa74d334bc871f3234de431e71c6eeba5dd6"}'
    assert _found(_model_json(pinned)) == []
    assert _found(_model_json('{"model": "/models/opt-125m", "gpu_memory_utilization": 0.1}')) == []
    assert _found(_model_json("not json")) == []
    other = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "app"}, "data": {"settings.json": '{"model": "a/b"}'}}
    assert _found(other) == []
