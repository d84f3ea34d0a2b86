"""S28 widened: a Hugging Face token that is a committed fill-in (your-huggingface-token-here, REPLACE_WITH_...), on
the Secret that holds it and on the workload that reads it (advice). Minimal hand-written shapes of the cited files."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

WORKLOAD = "hf-token-not-empty"
SECRET = "hf-token-secret-not-placeholder"


def _secret(name: str, namespace: str | None, **values: str) -> dict:
    meta = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {"apiVersion": "v1", "kind": "Secret", "metadata": meta, "type": "Opaque", "stringData": values}


def _vllm(name: str, namespace: str | None, env: list[dict]) -> dict:
    meta = {"name": name, **({"namespace": namespace} if namespace else {})}
    container = {"name": "vllm", "image": "vllm/vllm-openai:v0.6.3", "args": ["--model", "mistralai/Mistral-7B-v0.3"]}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": meta,
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [{**container, "env": env}]}},
        },
    }


def _ref(variable: str, secret: str, key: str) -> dict:
    return {"name": variable, "valueFrom": {"secretKeyRef": {"name": secret, "key": key}}}


# Set 16: egdcrypto/microk8s-gpu-stack applications/gpu-llm-inference.yaml (Secret hf-token, token
# "your-huggingface-token-here", read as HUGGING_FACE_HUB_TOKEN by Deployment llm-inference).
EGD = [
    _secret("hf-token", "gpu-workloads", token="your-huggingface-token-here"),
    _vllm("llm-inference", "gpu-workloads", [_ref("HUGGING_FACE_HUB_TOKEN", "hf-token", "token")]),
]
# Set 15: AyeniOluwatosinOlawale/vllm-k8s-stack vllm/deployment.yaml (Secret vllm-secrets, HF_TOKEN
# "REPLACE_WITH_REAL_TOKEN").
AYENI = _secret("vllm-secrets", "llm-serving", HF_TOKEN="REPLACE_WITH_REAL_TOKEN", VLLM_API_KEY="REPLACE_WITH_REAL_API_KEY")
# Found with find_string: vllm-project/vllm docs/deployment/k8s.md at 07b3dbf3a5dc86a5caaf71b512fb1b3af07e5e37, the GPU
# example's Secret hf-token-secret with token "REPLACE_WITH_TOKEN", read as HUGGING_FACE_HUB_TOKEN by mistral-7b.
VLLM_DOCS = [
    _secret("hf-token-secret", "default", token="REPLACE_WITH_TOKEN"),
    _vllm("mistral-7b", "default", [_ref("HUGGING_FACE_HUB_TOKEN", "hf-token-secret", "token")]),
]


def test_a_placeholder_token_secret_is_advice_on_the_secret():
    # VLLM_API_KEY's fill-in is a credential's too (any *_API_KEY: tests/policies/test_policy_engine_credentials.py),
    # reported under S27 (secret-value-not-placeholder); S28 keeps the Hugging Face token.
    ((level, message),) = found_by([AYENI], SECRET)
    ((api_level, api_key),) = found_by([AYENI], "secret-value-not-placeholder")
    assert api_level == "advisory" and api_key.startswith("key VLLM_API_KEY holds the fill-in 'REPLACE_WITH_REAL_API_KEY'")
    assert level == "advisory"
    assert message.startswith(
        "key HF_TOKEN holds the fill-in 'REPLACE_WITH_REAL_TOKEN', not a Hugging Face token: applying this Secret with "
        "the files overwrites a real token"
    )
    assert [m.split(" holds")[0] for _, m in found_by(EGD, SECRET)] == ["key token"]
    assert [lv for lv, _ in found_by(VLLM_DOCS, SECRET)] == ["advisory"]


def test_a_workload_reading_the_placeholder_token_is_advice():
    ((level, message),) = found_by(EGD, WORKLOAD)
    assert level == "advisory"
    assert message.startswith(
        "container vllm: env HUGGING_FACE_HUB_TOKEN comes from key token of Secret hf-token, whose committed value is "
        "the fill-in 'your-huggingface-token-here': applied as these files stand, the Hub client sends it as the token"
    )
    assert [lv for lv, _ in found_by(VLLM_DOCS, WORKLOAD)] == ["advisory"]
    literal = _vllm("m", None, [{"name": "HF_TOKEN", "value": "<your-hf-token>"}])
    ((level, message),) = found_by([literal], WORKLOAD)
    assert level == "advisory" and "env HF_TOKEN is the fill-in '<your-hf-token>'" in message


def test_a_real_looking_or_rendered_token_and_other_secrets_stay_silent():
    real = _secret("hf-token", None, token="hf_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bD1fH3")
    rendered = _secret("hf-token", None, token="${HF_TOKEN}")
    other = _secret("db-credentials", None, token="changeme", password="REPLACE_ME")
    for objs in ([real], [other]):
        assert found_by(objs, SECRET) == [], objs
    # Session 46 (spent set 53 felipemoz/vllm-on-azure k8s/hf-secret.yaml): nothing expands ${HF_TOKEN} in a Secret,
    # so the Secret itself gets advice (render it before applying); the workload reading it stays silent.
    assert [level for level, _ in found_by([rendered], SECRET)] == ["advisory"]
    reader = _vllm("m", None, [_ref("HF_TOKEN", "hf-token", "token")])
    assert found_by([real, reader], WORKLOAD) == []
    assert found_by([rendered, reader], WORKLOAD) == []


def test_a_fill_in_behind_the_token_prefix_is_a_placeholder():
    """Sealed set 44, read after the freeze: devfloor9/engineering-playbook deploy/nvidia-platform/base/hf-token-secret.yaml
    (Secret hf-token, token "hf_YOUR_TOKEN_HERE"). A fill-in behind Hugging Face's hf_ prefix is still a fill-in; a
    real-looking hf_ token stays silent."""
    for value in ("hf_YOUR_TOKEN_HERE", "hf_REPLACE_ME"):
        assert [lv for lv, _ in found_by([_secret("hf-token", "dynamo-system", token=value)], SECRET)] == ["advisory"]
    real = _secret("hf-token", "dynamo-system", token="hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345")
    assert found_by([real], SECRET) == []


def test_a_credential_described_in_capitals_is_a_fill_in():
    # Spent set 24 (label filed NONE): MohammadB88/rag-anythingllm models/nvidia_nim/llama3-8b_all_resources.yaml@aea543d3,
    # Secret ngc-api-key with NGC_API_KEY "API_KEY_GENERATED_FROM_NGC": no service issues a key of underscored words.
    # Not a Hugging Face token, so S27's (secret-value-not-placeholder), not S28's.
    assert found_by([_secret("ngc-api-key", "nim", NGC_API_KEY="API_KEY_GENERATED_FROM_NGC")], SECRET) == []
    found = found_by([_secret("ngc-api-key", "nim", NGC_API_KEY="API_KEY_GENERATED_FROM_NGC")], "secret-value-not-placeholder")
    assert found == [
        (
            "advisory",
            "key NGC_API_KEY holds the fill-in 'API_KEY_GENERATED_FROM_NGC', not a credential: applying this Secret with "
            "the files overwrites a real one, and a pod that reads it sends the fill-in, which the service (NGC, an API, "
            "a login) refuses or, for a key the app issues itself, accepts from anyone who reads the repository; create "
            "the Secret out of band (kubectl create secret generic ... --from-literal) and leave it out of the applied "
            "files",
        )
    ]
    # An NGC personal key's shape, a capitals value naming no credential word, and a non-credential key stay silent.
    for values in (
        {"NGC_API_KEY": "nvapi-Qx3V9z7aLkP0b2mN4cR8tY1uW6eH5jS0dF3gK7lZ9xC2vB4nM"},
        {"API_KEY": "PROD_EU_WEST_1"},
        {"MODE": "API_KEY_FROM_ENV"},
    ):
        assert found_by([_secret("ngc-api-key", "nim", **values)], "secret-value-not-placeholder") == [], values


def test_a_hugging_face_key_is_s28_whatever_the_secret_is_called():
    """Spent set 57 rakanbakir/vllm-gpu-cluster kubernetes/vllm-secret.yaml (Secret vllm-secrets, stringData.hf_token
    REPLACE_ME_WITH_YOUR_HUGGINGFACE_TOKEN) and set 54 grandiv/fragrance-palette-scalable k8s/secrets.yaml (Secret
    app-secret, data.hf-token base64 of your-huggingface-token): S28's, not S27's."""
    rakan = _secret("vllm-secrets", "vllm", hf_token="REPLACE_ME_WITH_YOUR_HUGGINGFACE_TOKEN")
    ((level, message),) = found_by([rakan], SECRET)
    assert level == "advisory" and "key hf_token holds the fill-in 'REPLACE_ME_WITH_YOUR_HUGGINGFACE_TOKEN'" in message
    assert found_by([rakan], "secret-value-not-placeholder") == []
    grandiv = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "app-secret"},
        "data": {"hf-token": "eW91ci1odWdnaW5nZmFjZS10b2tlbg==", "jwt-secret": "eW91ci1qd3Qtc2VjcmV0LWtleQ=="},
    }
    ((_, message),) = found_by([grandiv], SECRET)
    assert "key hf-token holds the fill-in 'your-huggingface-token'" in message
    ((_, other),) = found_by([grandiv], "secret-value-not-placeholder")
    assert "key jwt-secret" in other


def test_a_token_key_a_pod_reads_as_hf_token_is_s28():
    secret = _secret("app-credentials", "llm", token="your-token-here")
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "tgi", "namespace": "llm"},
        "spec": {
            "containers": [
                {
                    "name": "tgi",
                    "image": "ghcr.io/huggingface/text-generation-inference:3.3.4",
                    "env": [{"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "app-credentials", "key": "token"}}}],
                }
            ]
        },
    }
    assert [m for _, m in found_by([secret, pod], SECRET)][0].startswith("key token holds the fill-in 'your-token-here'")
    # Careful: read as another service's key (or by nothing), it stays S27's.
    other = copy.deepcopy(pod)
    other["spec"]["containers"][0]["env"][0]["name"] = "OPENAI_API_KEY"
    assert found_by([secret, other], SECRET) == []
    assert len(found_by([secret, other], "secret-value-not-placeholder")) == 1
    openai = _secret("litellm-local-secrets", "litellm", **{"openai-api-key": "sk-your-openai-key"})
    assert found_by([openai], SECRET) == []
    ((_, message),) = found_by([openai], "secret-value-not-placeholder")
    assert "key openai-api-key holds the fill-in" in message
