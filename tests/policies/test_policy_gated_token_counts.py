"""S37 gated-model-has-token: a token *count* on the command line is not a token.

Fixture: set 29, QuanHNguyen232/ML-pipeline kubernetes/vllm-deployment.yaml@c556e27ea2a526afb2b8d07982eed6944fcc1645:
`vllm serve mistralai/Mistral-7B-Instruct-v0.3 ... --max_num_batched_tokens 1024` with no HF_TOKEN; the old substring
test read "token" in --max_num_batched_tokens as a token and stayed silent. The cache is a claim, so the finding is
advice (it may hold the model). Silent: set 20, JanLeyva/k8s-vllm inference/deployment.yaml@07411bd32e29323a301b559330491cb3827e9af7
(the same command line with HUGGING_FACE_HUB_TOKEN from a Secret), and command lines that name a token as a word.
"""

from __future__ import annotations

import copy

import pytest

from policies.models.gated_model_token import _argv_names_token
from tests.policies.policy_fixtures import found_by

_LINE = "vllm serve mistralai/Mistral-7B-Instruct-v0.3 --trust-remote-code --enable-chunked-prefill --max_num_batched_tokens 1024"
_DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm-server"},
    "spec": {
        "selector": {"matchLabels": {"app.kubernetes.io/name": "vllm"}},
        "template": {
            "metadata": {"labels": {"app.kubernetes.io/name": "vllm"}},
            "spec": {
                "volumes": [{"name": "model-cache", "persistentVolumeClaim": {"claimName": "vllm-models"}}],
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:latest",
                        "command": ["/bin/sh", "-c"],
                        "args": [_LINE],
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                        "volumeMounts": [{"name": "model-cache", "mountPath": "/root/.cache/huggingface"}],
                    }
                ],
            },
        },
    },
}


def test_a_batched_token_count_does_not_hide_the_missing_token():
    ((level, message),) = found_by([_DEPLOYMENT], "gated-model-has-token")
    assert level == "advisory"
    assert "downloads mistralai/Mistral-7B-Instruct-v0.3, a gated Hugging Face repository" in message


def test_a_token_from_a_secret_stays_silent():
    janleyva = copy.deepcopy(_DEPLOYMENT)
    janleyva["spec"]["template"]["spec"]["containers"][0]["env"] = [
        {"name": "HUGGING_FACE_HUB_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf-token-secret", "key": "token"}}}
    ]
    assert found_by([janleyva], "gated-model-has-token") == []


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("vllm serve m --hf-token $HF_TOKEN", True),
        ("huggingface-cli login && vllm serve m", True),
        ("python -c 'snapshot_download(repo, token=t)'", True),
        ("vllm serve m --max_num_batched_tokens 1024 --max-tokens 10", False),
        ("text-generation-launcher --max-input-tokens 4096 --max-total-tokens 8192", False),
    ],
)
def test_words_not_substrings(text, named):
    assert _argv_names_token(text) is named
