"""S37 gated-model-has-token: a token variable under a name no Hub client reads is no token.

Fixture: set 37, MissawB/Animetix deploy/k8s/vllm-deployment.yaml and deploy/k8s/secrets.yaml
@b61f2b49e63e198d0d200f189d6989c482a46e4d: vLLM's own image serves meta-llama (gated) and takes its only token by
``envFrom`` from Secret animetix-secrets, whose key is HUGGINGFACE_TOKEN; huggingface_hub reads HF_TOKEN and
HUGGING_FACE_HUB_TOKEN only (v1.28.0 src/huggingface_hub/utils/_auth.py:58-84), so the download answers 401. The
Secret is among the files, so its keys are known: it moves no cache either, and the emptyDir cache starts empty.

Silent: the same Secret with key HF_TOKEN; the unread name handed on by the command line (``--hf-token
$(HUGGINGFACE_TOKEN)``); an envFrom Secret that is not among the files (its keys unknown); and set 31,
aws-samples/scalable-hw-agnostic-inference mistral/mistral-g5-deploy.yaml@ed2cb2646d45f188efd18cf1660ae0db7067af42,
whose own image runs its own script (/run-llama.sh), which may read HUGGINGFACE_TOKEN.
"""

from __future__ import annotations

import copy

from tests.policies.policy_fixtures import found_by

_SECRET = {
    "apiVersion": "v1",
    "kind": "Secret",
    "metadata": {"name": "animetix-secrets"},
    "type": "Opaque",
    "stringData": {"HUGGINGFACE_TOKEN": "hf_x", "DATABASE_URL": "postgres://db:5432/dbname"},
}
_DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm-inference"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "vllm-inference"}},
        "template": {
            "metadata": {"labels": {"app": "vllm-inference"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:latest",
                        "args": [
                            "--model",
                            "meta-llama/Llama-3-8B-Instruct",
                            "--dtype",
                            "auto",
                            "--gpu-memory-utilization",
                            "0.5",
                        ],
                        "ports": [{"containerPort": 8000}],
                        "envFrom": [{"secretRef": {"name": "animetix-secrets"}}],
                        "resources": {"limits": {"nvidia.com/gpu": 1, "memory": "8Gi"}},
                        "volumeMounts": [{"mountPath": "/root/.cache/huggingface", "name": "hf-cache"}],
                    }
                ],
                "volumes": [{"name": "hf-cache", "emptyDir": {}}],
            },
        },
    },
}


def _container(deployment: dict) -> dict:
    return deployment["spec"]["template"]["spec"]["containers"][0]


def test_a_token_under_an_unread_name_blocks():
    ((level, message),) = found_by([_DEPLOYMENT, _SECRET], "gated-model-has-token")
    assert level == "mandatory"
    assert "downloads meta-llama/Llama-3-8B-Instruct, a gated Hugging Face repository" in message
    assert "its token variable HUGGINGFACE_TOKEN is a name no Hub client reads" in message


def test_the_unread_name_as_an_env_variable_blocks_too():
    deployment = copy.deepcopy(_DEPLOYMENT)
    ref = {"secretKeyRef": {"name": "hf", "key": "token"}}
    _container(deployment).pop("envFrom")
    _container(deployment)["env"] = [{"name": "HUGGINGFACEHUB_API_TOKEN", "valueFrom": ref}]
    ((level, message),) = found_by([deployment], "gated-model-has-token")
    assert level == "mandatory" and "HUGGINGFACEHUB_API_TOKEN is a name no Hub client reads" in message


def test_a_secret_with_hf_token_stays_silent():
    secret = copy.deepcopy(_SECRET)
    secret["stringData"] = {"HF_TOKEN": "hf_x"}
    assert found_by([_DEPLOYMENT, secret], "gated-model-has-token") == []


def test_an_unread_name_the_command_line_hands_on_stays_silent():
    deployment = copy.deepcopy(_DEPLOYMENT)
    _container(deployment)["args"] += ["--hf-token", "$(HUGGINGFACE_TOKEN)"]
    assert found_by([deployment, _SECRET], "gated-model-has-token") == []


def test_an_envfrom_secret_outside_the_files_stays_silent():
    assert found_by([_DEPLOYMENT], "gated-model-has-token") == []


def test_a_custom_image_with_its_own_script_stays_silent():
    aws = copy.deepcopy(_DEPLOYMENT)
    container = _container(aws)
    container.update(image="123456789012.dkr.ecr.us-west-2.amazonaws.com/stablediffusion:amd64-cuda")
    container.update(command=["/run-llama.sh"], args=["run-llama"])
    container.pop("envFrom")
    container["env"] = [
        {"name": "MODEL_ID", "value": "mistralai/Mistral-7B-Instruct-v0.2"},
        {"name": "HUGGINGFACE_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf-secrets", "key": "HUGGINGFACE_TOKEN"}}},
    ]
    assert found_by([aws], "gated-model-has-token") == []


def test_a_same_named_secret_in_another_namespace_is_not_read():
    # Review 43 #18: the pod reads Secrets of its own namespace; a same-named Secret elsewhere says nothing of its keys.
    deployment = copy.deepcopy(_DEPLOYMENT)
    deployment["metadata"]["namespace"] = "prod"
    secret = copy.deepcopy(_SECRET)
    secret["metadata"]["namespace"] = "dev"
    assert found_by([deployment, secret], "gated-model-has-token") == []
    secret["metadata"]["namespace"] = "prod"
    assert [lv for lv, _ in found_by([deployment, secret], "gated-model-has-token")] == ["mandatory"]
