"""G56 service-one-model: a Service selecting the pods of workloads that serve different models.

Firing third-party form: googleforgames/GenAI-quickstart@46ee86d6f45bd4bfb633d28e7b9bf5cabde4e287
genai/language/huggingface_tgi/k8s.yaml (spent set 113): Service huggingface-tgi-api selects ``name:
huggingface-tgi-api``, carried by TGI Deployments of Mistral-7B-Instruct-v0.2 and Mixtral-8x7B-Instruct-v0.1.
Careful form: the same Deployments each with a label of their own in the selector: silent.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

from policies.k8s_generic.service_one_model import POLICY


def _tgi(name, model):
    labels = {"name": "huggingface-tgi-api", "variant": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {
                    "containers": [
                        {
                            "name": "tgi",
                            "image": "ghcr.io/huggingface/text-generation-inference:1.4",
                            "args": [f"--model-id={model}"],
                            "ports": [{"containerPort": 80}],
                        }
                    ]
                },
            },
        },
    }


CPU = _tgi("huggingface-tgi-mistral-cpu", "mistralai/Mistral-7B-Instruct-v0.2")
BIG = _tgi("huggingface-tgi-mixtral-big", "mistralai/Mixtral-8x7B-Instruct-v0.1")
SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "huggingface-tgi-api"},
    "spec": {"selector": {"name": "huggingface-tgi-api"}, "ports": [{"port": 8080, "targetPort": 80}]},
}


def test_a_service_over_two_models_is_advice():
    ((level, message),) = found_by([CPU, BIG, SERVICE], POLICY.name)
    assert level == "advisory"
    assert "Deployment/huggingface-tgi-mistral-cpu (mistralai/Mistral-7B-Instruct-v0.2)" in message
    assert "Deployment/huggingface-tgi-mixtral-big (mistralai/Mixtral-8x7B-Instruct-v0.1)" in message


def test_careful_forms_stay_silent():
    service = copy.deepcopy(SERVICE)
    service["spec"]["selector"]["variant"] = "huggingface-tgi-mistral-cpu"
    assert found_by([CPU, BIG, service], POLICY.name) == []
    # Two replicas sets of one model behind one Service.
    twin = _tgi("huggingface-tgi-mistral-cpu-2", "mistralai/Mistral-7B-Instruct-v0.2")
    assert found_by([CPU, twin, SERVICE], POLICY.name) == []


def _vllm(name, args):
    deployment = copy.deepcopy(_tgi(name, "x"))
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    container.update({"name": "vllm", "image": "vllm/vllm-openai:v0.10.1", "args": args})
    return deployment


def test_replicas_of_one_model_from_other_weights_stay_silent():
    # review54b: one model's Deployments on two GPU types, one from a quantised copy under the same served name, one from
    # a local path, one TGI; and a GGUF copy on CPU.
    fleet = [
        _vllm("llama-a100", ["--model", "meta-llama/Llama-3.1-8B-Instruct"]),
        _vllm("llama-l4", ["--model", "RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8", "--served-model-name", "llama-3.1-8b"]),
        _vllm("llama-local", ["--model", "/models/llama", "--served-model-name", "meta-llama/Llama-3.1-8B-Instruct"]),
        _tgi("llama-tgi", "meta-llama/Llama-3.1-8B-Instruct"),
        _tgi("llama-gguf", "bartowski/Meta-Llama-3.1-8B-Instruct-GGUF"),
    ]
    assert found_by([*fleet, SERVICE], POLICY.name) == []
    # A different model beside them still fires.
    ((_, message),) = found_by([*fleet, BIG, SERVICE], POLICY.name)
    assert "Deployment/huggingface-tgi-mixtral-big (mistralai/Mixtral-8x7B-Instruct-v0.1)" in message
