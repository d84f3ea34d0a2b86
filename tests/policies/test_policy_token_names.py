"""S28 reads which token variables each engine reads from components/engine_env.toml ([tokens.ENGINE], by release).

Silent form: qstonkr/axiomedge k8s/tei/deployment.yaml at 15b568870efee4154c87047c5982177f04fa69c9 (spent set 43,
trap S28): TEI 1.5 (text-embeddings-inference:cpu-1.5) with ``HUGGING_FACE_HUB_TOKEN: ""``. TEI reads its token only
from --hf-api-token / HF_API_TOKEN before v1.6.1 (router/src/main.rs L109-112 at v1.5.0, lib.rs L76-78 with_token),
so the empty variable is inert, and BAAI/bge-m3 is public.

Advisory form: HackLoading/Ai_Development_Platform k8s/vllm-deployment.yaml at 5a0aa4b94aee65de5ba3b6587f249aa11c4e9fec
(spent set 24, labelled S28 advisory): vLLM with ``HUGGING_FACE_HUB_TOKEN: ""`` for the public TinyLlama; vLLM reads the
name (huggingface_hub utils/_auth.py:147-149), but nothing in the files says the model needs a token.

Blocking form: the same manifest serving the gated meta-llama/Llama-3.2-1B-Instruct (components/hub_gated.toml): the
engine reads the empty variable and the download needs a token.
"""

from __future__ import annotations

import copy

import pytest
from policy_fixtures import found_by

from components.engine_env import EngineEnvError, engine_env_of, image_release, tokens_read
from components.serving_engines import engine_named

S28 = "hf-token-not-empty"

TEI = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "bge-m3", "namespace": "knowledge"},
    "spec": {
        "selector": {"matchLabels": {"app": "bge-m3"}},
        "template": {
            "metadata": {"labels": {"app": "bge-m3"}},
            "spec": {
                "containers": [
                    {
                        "name": "tei",
                        "image": "ghcr.io/huggingface/text-embeddings-inference:cpu-1.5",
                        "args": ["--model-id", "BAAI/bge-m3", "--port", "8080"],
                        "env": [{"name": "HUGGING_FACE_HUB_TOKEN", "value": ""}],
                    }
                ]
            },
        },
    },
}

VLLM = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm-server", "namespace": "ai-platform"},
    "spec": {
        "selector": {"matchLabels": {"app": "vllm-server"}},
        "template": {
            "metadata": {"labels": {"app": "vllm-server"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.4.2",
                        "args": ["--model", "TinyLlama/TinyLlama-1.1B-Chat-v1.0", "--port", "8000"],
                        "env": [{"name": "HUGGING_FACE_HUB_TOKEN", "value": ""}],
                    }
                ]
            },
        },
    },
}


def _with(obj: dict, *, image: str | None = None, env: str | None = None, model: str | None = None) -> dict:
    changed = copy.deepcopy(obj)
    container = changed["spec"]["template"]["spec"]["containers"][0]
    if image:
        container["image"] = image
    if env:
        container["env"][0]["name"] = env
    if model:
        container["args"][1] = model
    return changed


def test_a_variable_the_engine_never_reads_is_silent():
    assert found_by([TEI], S28) == []
    # HF_TOKEN arrived in TEI 1.6.1 (router/src/main.rs L115-117): at 1.5 it is inert too.
    assert found_by([_with(TEI, env="HF_TOKEN")], S28) == []


def test_a_variable_the_engine_reads_is_advice_for_a_public_model():
    [(level, message)] = found_by([_with(TEI, env="HF_API_TOKEN")], S28)
    assert level == "advisory" and message.startswith("container tei: env HF_API_TOKEN is an empty literal")
    [(level, _)] = found_by([_with(TEI, image="ghcr.io/huggingface/text-embeddings-inference:86-1.7", env="HF_TOKEN")], S28)
    assert level == "advisory"
    [(level, message)] = found_by([VLLM], S28)
    assert level == "advisory" and "a gated or private model fails with 401" in message


def test_a_gated_model_behind_an_empty_variable_the_engine_reads_blocks():
    [(level, message)] = found_by([_with(VLLM, model="meta-llama/Llama-3.2-1B-Instruct")], S28)
    assert level == "mandatory"
    assert message == (
        "container vllm: env HUGGING_FACE_HUB_TOKEN is an empty literal, so the Hub client sends no token and the "
        "download of the gated meta-llama/Llama-3.2-1B-Instruct fails with 401 at start; take it from "
        "valueFrom.secretKeyRef"
    )


def test_a_gated_model_with_another_token_source_is_advice():
    """Review 44 #3: huggingface_hub reads an empty variable as unset and goes on to the next source
    (``HF_TOKEN or HUGGING_FACE_HUB_TOKEN``, then the token file: utils/_auth.py _get_token_from_environment /
    _get_token_from_file), so another token variable from a Secret, HF_TOKEN_PATH, envFrom or a mounted Secret may
    supply the token: advice, not a block."""
    gated = _with(VLLM, model="meta-llama/Llama-3.2-1B-Instruct")
    secret_ref = {"valueFrom": {"secretKeyRef": {"name": "hf", "key": "token"}}}
    forms = []
    for extra in ({"name": "HF_TOKEN", **secret_ref}, {"name": "HF_TOKEN_PATH", "value": "/secrets/hf/token"}):
        form = copy.deepcopy(gated)
        form["spec"]["template"]["spec"]["containers"][0]["env"].append(extra)
        forms.append(form)
    env_from = copy.deepcopy(gated)
    env_from["spec"]["template"]["spec"]["containers"][0]["envFrom"] = [{"secretRef": {"name": "hf"}}]
    forms.append(env_from)
    mounted = copy.deepcopy(gated)
    mounted["spec"]["template"]["spec"]["volumes"] = [{"name": "token", "secret": {"secretName": "hf"}}]
    mounted["spec"]["template"]["spec"]["containers"][0]["volumeMounts"] = [{"name": "token", "mountPath": "/hf"}]
    forms.append(mounted)
    for form in forms:
        [(level, message)] = found_by([form], S28)
        assert level == "advisory" and "is an empty literal" in message
    # A public variable beside it that is itself empty is no other source: still a block.
    both_empty = copy.deepcopy(gated)
    both_empty["spec"]["template"]["spec"]["containers"][0]["env"].append({"name": "HF_TOKEN", "value": ""})
    assert {level for level, _ in found_by([both_empty], S28)} == {"mandatory"}


def test_a_moving_tag_reads_every_release_names():
    tei = engine_named("tei")
    assert image_release("ghcr.io/huggingface/text-embeddings-inference:cpu-1.5", tei) == "1.5"
    assert image_release("ghcr.io/huggingface/text-embeddings-inference:turing-1.7.2", tei) == "1.7.2"
    assert image_release("ghcr.io/huggingface/text-embeddings-inference:latest", tei) is None
    assert tokens_read(tei, "ghcr.io/huggingface/text-embeddings-inference:latest") == {"HF_TOKEN", "HF_API_TOKEN"}
    assert tokens_read(tei, "ghcr.io/huggingface/text-embeddings-inference:1.2") == {"HF_API_TOKEN"}
    assert tokens_read(None, "anything") is None


@pytest.mark.parametrize(
    "data, field",
    [
        ({"tokens": {"nope": {"releases": {"1.0": []}, "source": "x"}}}, "[tokens.nope]"),
        ({"tokens": {"tei": {"releases": {"one": ["HF_TOKEN"]}, "source": "x"}}}, "[tokens.tei].releases"),
        ({"tokens": {"tei": {"releases": {"1.0": ["HF_TOKEN"]}}}}, "[tokens.tei].source"),
        ({"tokens": {"tei": {"releases": {"1.0": ["hf token"]}, "source": "x"}}}, "[tokens.tei].releases.1.0"),
        ({"tokens": {"tei": {"release": {}, "source": "x"}}}, "unknown field 'release'"),
        ({"token": {}}, "unknown table 'token'"),
    ],
)
def test_a_bad_row_names_its_field(data, field):
    with pytest.raises(EngineEnvError, match=field.replace("[", r"\[").replace(".", r"\.")):
        engine_env_of(data)


S37 = "gated-model-has-token"


def test_s37_reads_the_same_column():
    """A gated model on TEI 1.5 whose only token is HF_TOKEN from a Secret: TEI 1.5 never reads HF_TOKEN (its column
    says HF_API_TOKEN), so the download has no token; at 1.7 the same pod is silent."""
    gated_tei = _with(TEI, env="HF_TOKEN", model="meta-llama/Llama-3.2-1B")
    container = gated_tei["spec"]["template"]["spec"]["containers"][0]
    container["env"][0] = {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf", "key": "token"}}}
    [(_, message)] = found_by([gated_tei], S37)
    assert "its token variable HF_TOKEN is a name no Hub client reads" in message
    container["image"] = "ghcr.io/huggingface/text-embeddings-inference:cpu-1.7"
    assert found_by([gated_tei], S37) == []
