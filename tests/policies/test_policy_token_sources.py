"""S28 widened to a token a ConfigMap of the files gives (envFrom / configMapKeyRef), and to lower-case fill-in words;
G95: a model server's token passed under a name its Hub client never reads.

S28 firing form: opea-project/GenAIExamples@d311b85f11b228899e1328e1b3b0ecfa52b1d975
CodeTrans/kubernetes/intel/cpu/xeon/manifest/codetrans.yaml (spent set 76, labelled S28): ConfigMap codetrans-tgi-config
``HF_TOKEN: "insert-your-huggingface-token-here"`` read by envFrom by the TGI Deployment codetrans-tgi
(ghcr.io/huggingface/text-generation-inference:2.4.0-intel-cpu, MODEL_ID mistralai/Mistral-7B-Instruct-v0.3).

G95 firing form: homel-dev/memory-steward k8s/vllm-steward.yaml (spent set 75, labelled NONE advisory): vLLM
vllm/vllm-openai:latest given ``HUGGINGFACE_HUB_TOKEN`` from Secret hf-token. huggingface_hub reads HF_TOKEN, else
HUGGING_FACE_HUB_TOKEN (v1.28.0 src/huggingface_hub/utils/_auth.py:145-147; v0.26.0 utils/_auth.py:118; v0.20.0
_login.py:360; v0.10.0 utils/_hf_folder.py:48 HUGGING_FACE_HUB_TOKEN only); HUGGINGFACE_HUB_TOKEN is in no release's src/.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

from policies.reading.hf_tokens import token_placeholder

S28 = "hf-token-not-empty"
G95 = "hub-token-name-read"


def _config_map(name: str, **data: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


def _deployment(name: str, container: dict) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}},
        },
    }


TGI = _deployment(
    "codetrans-tgi",
    {
        "name": "tgi",
        "image": "ghcr.io/huggingface/text-generation-inference:2.4.0-intel-cpu",
        "envFrom": [{"configMapRef": {"name": "codetrans-tgi-config"}}],
    },
)
OPEA = [
    _config_map(
        "codetrans-tgi-config",
        MODEL_ID="mistralai/Mistral-7B-Instruct-v0.3",
        PORT="2080",
        HF_TOKEN="insert-your-huggingface-token-here",
    ),
    TGI,
]


def test_a_config_map_fill_in_token_read_by_a_model_server_is_advice():
    found = found_by(OPEA, S28)
    # Reported on the reader and, since manifests51, on the ConfigMap whose key holds it (data.HF_TOKEN ...).
    assert sorted(m.split(" ", 1)[0] for _, m in found) == ["container", "data.HF_TOKEN"]
    ((level, message),) = [f for f in found if f[1].startswith("container")]
    assert level == "advisory"
    assert message.startswith(
        "container tgi: env HF_TOKEN comes from key HF_TOKEN of ConfigMap codetrans-tgi-config, which holds the fill-in "
        "'insert-your-huggingface-token-here'"
    )
    # configMapKeyRef reaches it too, and an empty value is advice as well.
    keyed = copy.deepcopy(OPEA)
    keyed[1]["spec"]["template"]["spec"]["containers"][0].pop("envFrom")
    keyed[1]["spec"]["template"]["spec"]["containers"][0]["env"] = [
        {"name": "MODEL_ID", "value": "mistralai/Mistral-7B-Instruct-v0.3"},
        {"name": "HF_TOKEN", "valueFrom": {"configMapKeyRef": {"name": "codetrans-tgi-config", "key": "HF_TOKEN"}}},
    ]
    assert [lv for lv, _ in found_by(keyed, S28)] == ["advisory", "advisory"]
    keyed[0]["data"]["HF_TOKEN"] = ""
    ((level, message),) = found_by(keyed, S28)
    assert level == "advisory" and "which is empty" in message


def test_a_config_map_real_looking_token_or_a_client_app_stays_silent():
    real = copy.deepcopy(OPEA)
    real[0]["data"]["HF_TOKEN"] = "hf_kQ3mZt8VbLr2WnXc5YpDa7HsJe4GfUo1Ni"
    assert found_by(real, S28) == []
    # OPEA's LangChain service reads HUGGINGFACEHUB_API_TOKEN itself: no model server, not the Hub client's name.
    app = [
        _config_map("codetrans-llm-uservice-config", HUGGINGFACEHUB_API_TOKEN="insert-your-huggingface-token-here"),
        _deployment(
            "codetrans-llm-uservice",
            {
                "name": "codetrans",
                "image": "opea/llm-tgi:latest",
                "envFrom": [{"configMapRef": {"name": "codetrans-llm-uservice-config"}}],
            },
        ),
    ]
    assert found_by(app, S28) == []


def test_lower_case_fill_in_words_are_read_as_fill_ins():
    for value in ("changeme", "replace_me", "hf_token_here", "insert-your-huggingface-token-here", "paste-token"):
        assert token_placeholder(value) == value, value
    for value in ("hf_kQ3mZt8VbLr2WnXc5YpDa7HsJe4GfUo1Ni", "mytoken", "secret", "token"):
        assert token_placeholder(value) is None, value


def _vllm(env: list[dict], args: list[str] | None = None, env_from: list[dict] | None = None) -> dict:
    container = {
        "name": "vllm",
        "image": "vllm/vllm-openai:latest",
        "args": args or ["Qwen/Qwen2.5-32B-Instruct-AWQ", "--port", "8000"],
        "env": env,
        **({"envFrom": env_from} if env_from else {}),
    }
    return _deployment("vllm-steward", container)


HOMEL_TOKEN = {"name": "HUGGINGFACE_HUB_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf-token", "key": "HF_TOKEN"}}}


def test_a_token_under_a_name_no_hub_client_reads_is_advice():
    ((level, message),) = found_by([_vllm([HOMEL_TOKEN])], G95)
    assert level == "advisory"
    assert message.startswith(
        "container vllm: the Hugging Face token is passed as HUGGINGFACE_HUB_TOKEN (from Secret hf-token), a name vLLM "
        "never reads at this release (it reads HF_TOKEN, HUGGING_FACE_HUB_TOKEN)"
    )


def test_a_token_name_the_engine_reads_stays_silent():
    read = {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf-token", "key": "HF_TOKEN"}}}
    assert found_by([_vllm([read])], G95) == []
    assert found_by([_vllm([HOMEL_TOKEN, read])], G95) == []
    # passed on by the command line, a local model, an envFrom Secret the files do not show
    passed = _vllm([HOMEL_TOKEN], ["Qwen/Qwen2.5-7B", "--hf-token", "$(HUGGINGFACE_HUB_TOKEN)"])
    assert found_by([passed], G95) == []
    assert found_by([_vllm([HOMEL_TOKEN], ["/models/qwen"])], G95) == []
    assert found_by([_vllm([HOMEL_TOKEN], env_from=[{"secretRef": {"name": "more"}}])], G95) == []


def test_the_fix_names_a_variable_the_engine_reads():
    """review50b: TEI before v1.6.1 reads only HF_API_TOKEN (components/engine_env.toml [tokens.tei]: text-embeddings-
    inference v1.5.0 router/src/main.rs L109-112), so a token given to it as HF_TOKEN is advised with HF_API_TOKEN as
    the name to use, not HF_TOKEN again."""
    tei = _deployment(
        "tei",
        {
            "name": "tei",
            "image": "ghcr.io/huggingface/text-embeddings-inference:cpu-1.5",
            "args": ["--model-id", "BAAI/bge-large-en-v1.5"],
            "env": [{"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf", "key": "token"}}}],
        },
    )
    ((level, message),) = found_by([tei], G95)
    assert level == "advisory" and "(it reads HF_API_TOKEN)" in message
    assert message.endswith("name the variable HF_API_TOKEN")
    ((_, vllm_message),) = found_by([_vllm([HOMEL_TOKEN])], G95)
    assert vllm_message.endswith("name the variable HF_TOKEN")


def test_a_token_file_the_hub_client_reads_stays_silent():
    """review50b: huggingface_hub reads the token file at HF_TOKEN_PATH (default HF_HOME/token) after the environment
    (v1.28.0 src/huggingface_hub/utils/_auth.py:79-84 get_token, :150 _get_token_from_file; constants.py:247-254), so a
    Secret mounted there reaches the Hub whatever name the variable beside it has."""
    mounted = _vllm([HOMEL_TOKEN])
    container = mounted["spec"]["template"]["spec"]["containers"][0]
    container["volumeMounts"] = [{"name": "hf", "mountPath": "/root/.cache/huggingface/token", "subPath": "token"}]
    mounted["spec"]["template"]["spec"]["volumes"] = [{"name": "hf", "secret": {"secretName": "hf-token"}}]
    assert found_by([mounted], G95) == []
    pathed = _vllm([HOMEL_TOKEN, {"name": "HF_TOKEN_PATH", "value": "/secrets/hf/token"}])
    assert found_by([pathed], G95) == []
