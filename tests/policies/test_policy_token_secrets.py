"""S28 reads the Secrets of the same run: a token taken from a committed Secret whose value is empty is advice.

Firing form, written out minimally: aubree-lianto/Orchard at 376d28461652927a4da42fba6580a3e88bf61b0f (spent set 23),
k8s/vllm-deployment.yaml takes HUGGING_FACE_HUB_TOKEN from key HF_TOKEN of Secret orchard-secrets, and
k8s/secrets.yaml commits that Secret with ``data: {HF_TOKEN: ""}`` in the same namespace. The API server merges
``stringData`` over ``data`` (kubernetes/api core/v1 types.go Secret.StringData), so both are read. Careful forms
that must stay silent: a non-empty value, a Secret of another namespace, a Secret not among the files.
"""

from __future__ import annotations

import base64
import copy

from tests.policies.policy_fixtures import found_by

_SECRET = {
    "apiVersion": "v1",
    "kind": "Secret",
    "metadata": {"name": "orchard-secrets", "namespace": "orchard"},
    "type": "Opaque",
    "data": {"OPENAI_API_KEY": "", "HF_TOKEN": ""},
}
_DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm", "namespace": "orchard"},
    "spec": {
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.8.5",
                        "args": ["--model", "meta-llama/Meta-Llama-3-8B-Instruct", "--max-model-len", "8192"],
                        "env": [
                            {
                                "name": "HUGGING_FACE_HUB_TOKEN",
                                "valueFrom": {"secretKeyRef": {"name": "orchard-secrets", "key": "HF_TOKEN"}},
                            }
                        ],
                        "resources": {"limits": {"nvidia.com/gpu": "1"}},
                    }
                ]
            },
        },
    },
}
_EXPECTED = (
    "container vllm: env HUGGING_FACE_HUB_TOKEN comes from key HF_TOKEN of Secret orchard-secrets, whose committed value "
    "is empty: applied as these files stand, the token is an empty string, the Hub client sends none and a gated model "
    "fails with 401 at start; create the Secret out of band (and leave it out of the applied files) or fill it from a "
    "secret store"
)


# On the Secret itself (brief api49 item 3): the empty key is read as the token of a gated model's download with no
# other token source, so applied as it stands the download gets 401: blocking, reported once, on the Secret.
_ON_SECRET = (
    "key HF_TOKEN is empty while Deployment/vllm container vllm reads it as its Hugging Face token to download the "
    "gated meta-llama/Meta-Llama-3-8B-Instruct"
)


def test_token_from_a_committed_empty_secret_is_advice():
    def found(objs: list) -> list:
        return [(level, m.split(":")[0] if m.startswith("key ") else m) for level, m in found_by(objs, "hf-token-not-empty")]

    assert found([_SECRET, _DEPLOYMENT]) == [("advisory", _EXPECTED), ("mandatory", _ON_SECRET)]
    as_string = copy.deepcopy(_SECRET)
    del as_string["data"]
    as_string["stringData"] = {"HF_TOKEN": " "}
    assert found([as_string, _DEPLOYMENT]) == [("advisory", _EXPECTED), ("mandatory", _ON_SECRET)]


def test_token_from_an_empty_secret_by_env_from():
    deployment = copy.deepcopy(_DEPLOYMENT)
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    del container["env"]
    container["envFrom"] = [{"secretRef": {"name": "orchard-secrets"}}]
    [(level, message), (on_secret, _)] = found_by([_SECRET, deployment], "hf-token-not-empty")
    assert level == "advisory" and on_secret == "advisory"  # envFrom may bring another token: no 401 proven
    assert message.startswith("container vllm: env HF_TOKEN comes from Secret orchard-secrets (envFrom), whose committed")


def test_careful_secret_forms_stay_silent():
    filled = copy.deepcopy(_SECRET)
    filled["data"]["HF_TOKEN"] = base64.b64encode(b"hf_example").decode()
    assert found_by([filled, _DEPLOYMENT], "hf-token-not-empty") == []
    # stringData wins over data on write.
    merged = copy.deepcopy(_SECRET)
    merged["stringData"] = {"HF_TOKEN": "hf_example"}
    assert found_by([merged, _DEPLOYMENT], "hf-token-not-empty") == []
    elsewhere = copy.deepcopy(_SECRET)
    elsewhere["metadata"]["namespace"] = "other"
    assert found_by([elsewhere, _DEPLOYMENT], "hf-token-not-empty") == []
    assert found_by([_DEPLOYMENT], "hf-token-not-empty") == []
