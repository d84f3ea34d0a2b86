"""S37 gated-model-has-token on Triton's vLLM flavour, and HUGGING_FACE_TOKEN as a name no Hub client reads.

Fixture: set 38, rick-c-goog/gke-gpu-autoscale triton-deployment.yaml@969d3b68a8568717a9409bf0366568a491292910:
nvcr.io/nvidia/tritonserver:24.03-vllm-python-py3 with env model_name=google/gemma-2b (gated) and the token only as
HUGGING_FACE_TOKEN; the vLLM backend hands model.json to vLLM (triton-inference-server/vllm_backend r24.03
src/model.py:112-124), which downloads through huggingface_hub, reading HF_TOKEN / HUGGING_FACE_HUB_TOKEN only. The
model repository (gs://...) is not in the files, so this is advice.

Silent: set 16, llm-on-gke/triton-vllm-gke vllm-gke-deploy.yaml@0d1338a8eea903ad896180f376b6ef7e737c8fc4 (an S37 trap:
the repository's model.py logs in with HUGGING_FACE_TOKEN), whose container names no model in a variable; the token
as HF_TOKEN; Triton's plain py3 flavour (no vLLM backend).
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "gated-model-has-token"

TRITON = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "triton-inference-server"},
    "spec": {
        "selector": {"matchLabels": {"app": "triton"}},
        "template": {
            "metadata": {"labels": {"app": "triton"}},
            "spec": {
                "containers": [
                    {
                        "name": "triton-inference-server",
                        "image": "nvcr.io/nvidia/tritonserver:24.03-vllm-python-py3",
                        "env": [
                            {"name": "TRANSFORMERS_CACHE", "value": "/home/triton-server/.cache"},
                            {
                                "name": "HUGGING_FACE_TOKEN",
                                "valueFrom": {"secretKeyRef": {"name": "huggingface", "key": "HF_TOKEN"}},
                            },
                            {"name": "model_name", "value": "google/gemma-2b"},
                        ],
                        "args": ["tritonserver", "--model-store=gs://triton-inference-llm-repos/model_repository"],
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                        "volumeMounts": [{"mountPath": "/home/triton-server/.cache", "name": "cache"}],
                    }
                ],
                "volumes": [{"name": "cache", "emptyDir": {}}],
            },
        },
    },
}


def _container(obj: dict) -> dict:
    return obj["spec"]["template"]["spec"]["containers"][0]


def test_triton_vllm_with_an_unread_token_name_is_advice():
    found = found_by([TRITON], POLICY)
    assert len(found) == 1
    level, message = found[0]
    assert level == "advisory"
    assert message.startswith("container triton-inference-server: downloads google/gemma-2b, a gated Hugging Face repository")
    assert "its token variable HUGGING_FACE_TOKEN is a name no Hub client reads" in message
    assert message.endswith(
        "(the model repository, not in the files, holds the model.json that names the model the vLLM backend "
        "downloads, and may hold a Python backend model.py that logs in with the variable itself)"
    )


def test_hf_token_is_silent():
    triton = copy.deepcopy(TRITON)
    _container(triton)["env"][1]["name"] = "HF_TOKEN"
    assert found_by([triton], POLICY) == []


def test_no_model_variable_is_silent():
    # set 16 llm-on-gke/triton-vllm-gke: the model is named only by a stray positional word, not a variable.
    triton = copy.deepcopy(TRITON)
    del _container(triton)["env"][2]
    _container(triton)["args"].append("model_name=google/gemma-7b")
    assert found_by([triton], POLICY) == []


def test_the_plain_triton_flavour_is_silent():
    triton = copy.deepcopy(TRITON)
    _container(triton)["image"] = "nvcr.io/nvidia/tritonserver:24.03-py3"
    assert found_by([triton], POLICY) == []


def test_hugging_face_token_on_vllms_own_image_is_no_token():
    # The same unread name in vLLM's own image, whose entrypoint runs no script of the project's: proven.
    vllm = copy.deepcopy(TRITON)
    container = _container(vllm)
    container["image"] = "vllm/vllm-openai:v0.10.1"
    container["args"] = ["--model", "google/gemma-2b"]
    container["env"] = [container["env"][1]]
    container["volumeMounts"] = [{"mountPath": "/root/.cache/huggingface", "name": "cache"}]
    found = found_by([vllm], POLICY)
    assert [level for level, _ in found] == ["mandatory"]
    assert "its token variable HUGGING_FACE_TOKEN is a name no Hub client reads" in found[0][1]
