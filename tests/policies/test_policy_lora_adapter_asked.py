"""S59 lora-adapter-asked-by-name: a client of a server loading LoRA adapters asks for an adapter by name (advice).

Fixture: fresh set 47 mprahl/ibm-techxchange-2025 (NONE label, advisory: "app sends model yoda-llm, which KServe's vLLM
backend serves as the base Llama; the fine-tuned LoRA is registered only as lora"): k8s/kserve.yaml's
InferenceService yoda-llm with ``--enable-lora --lora-modules=lora=/mnt/models`` behind the OpenShift Route
yoda-predictor, and k8s/app.yaml's translator with KSERVE_URL on that Route's host and MODEL_ID=yoda-llm.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "lora-adapter-asked-by-name"

ISVC = {
    "apiVersion": "serving.kserve.io/v1beta1",
    "kind": "InferenceService",
    "metadata": {"name": "yoda-llm", "namespace": "kubeflow-user-example-com"},
    "spec": {
        "predictor": {
            "model": {
                "modelFormat": {"name": "huggingface"},
                "storageUri": "s3://mlpipeline/v2/artifacts/yoda-finetune/output_model",
                "args": ["--model_id=meta-llama/Llama-3.2-3B-Instruct", "--enable-lora", "--lora-modules=lora=/mnt/models"],
                "resources": {"limits": {"nvidia.com/gpu": "1"}},
            }
        }
    },
}
ROUTE = {
    "apiVersion": "route.openshift.io/v1",
    "kind": "Route",
    "metadata": {"name": "yoda-predictor", "namespace": "kubeflow-user-example-com"},
    "spec": {"to": {"kind": "Service", "name": "yoda-llm-predictor"}, "tls": {"termination": "edge"}},
}
APP = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "yoda-translator", "namespace": "yoda-translator"},
    "spec": {
        "selector": {"matchLabels": {"app": "yoda-translator"}},
        "template": {
            "metadata": {"labels": {"app": "yoda-translator"}},
            "spec": {
                "containers": [
                    {
                        "name": "app",
                        "image": "quay.io/mprahl/ibm-techxchange:latest",
                        "env": [
                            {
                                "name": "KSERVE_URL",
                                "value": "https://yoda-predictor-kubeflow-user-example-com.apps.example.com/openai/v1/chat/completions",
                            },
                            {"name": "MODEL_ID", "value": "yoda-llm"},
                        ],
                    }
                ]
            },
        },
    },
}
# The second form: a plain vLLM Deployment serving a base name and an adapter (vLLM's own LoRA example: --lora-modules
# sql-lora=..., docs.vllm.ai features/lora), its Service, and a client naming the base.
VLLM = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "llama", "namespace": "llm"},
    "spec": {
        "selector": {"matchLabels": {"app": "llama"}},
        "template": {
            "metadata": {"labels": {"app": "llama"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.10.1",
                        "args": [
                            "--model",
                            "meta-llama/Llama-3.1-8B-Instruct",
                            "--served-model-name",
                            "llama-base",
                            "--enable-lora",
                            "--lora-modules",
                            "sql-lora=/adapters/sql",
                        ],
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                    }
                ]
            },
        },
    },
}
SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "llm-api", "namespace": "llm"},
    "spec": {"selector": {"app": "llama"}, "ports": [{"port": 8000}]},
}


def _client(url: str, model: str) -> dict:
    app = copy.deepcopy(APP)
    app["spec"]["template"]["spec"]["containers"][0]["env"] = [
        {"name": "OPENAI_BASE_URL", "value": url},
        {"name": "LLM_MODEL", "value": model},
    ]
    return app


def test_a_client_asking_the_base_name_is_advice():
    ((enforcement, message),) = found_by([ISVC, ROUTE, APP], POLICY)
    assert enforcement == "advisory"
    assert message.startswith("container app: MODEL_ID=yoda-llm asks InferenceService yoda-llm for its base model")
    found = found_by([VLLM, SERVICE, _client("http://llm-api.llm.svc:8000/v1", "llama-base")], POLICY)
    assert [e for e, _ in found] == ["advisory"] and "sql-lora" in found[0][1]


def test_careful_forms_are_silent():
    # The client asks for the adapter; a client of another server; a server with no adapter.
    asks_adapter = copy.deepcopy(APP)
    asks_adapter["spec"]["template"]["spec"]["containers"][0]["env"][1]["value"] = "lora"
    assert found_by([ISVC, ROUTE, asks_adapter], POLICY) == []
    assert found_by([VLLM, SERVICE, _client("http://other-llm.llm.svc:8000/v1", "llama-base")], POLICY) == []
    plain = copy.deepcopy(VLLM)
    plain["spec"]["template"]["spec"]["containers"][0]["args"] = ["--model", "meta-llama/Llama-3.1-8B-Instruct"]
    assert found_by([plain, SERVICE, _client("http://llm-api.llm.svc:8000/v1", "meta-llama/Llama-3.1-8B-Instruct")], POLICY) == []
