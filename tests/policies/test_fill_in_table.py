"""Fill-ins as data (components/fill_ins.toml, components/fill_ins.py): S27 names them on any object's string field, a
kustomization's patches and image tags and a Secret's values (advisory); the other rules still read the value as
written. Each firing form is cut down from the spent set named beside it; each careful form must stay silent."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from components import fill_ins
from components.fill_ins import fill_in, image_fill_in, load
from policies.check import resources_of
from policies.manifests import read_manifests
from policies.reading.placeholders import placeholder_in
from policies.registry import evaluate


def _check(tmp_path: Path, text: str, name: str = "manifest.yaml") -> list[tuple[str, str, str, str]]:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return [(v.catalog, v.enforcement, v.policy, v.message) for v in evaluate(resources_of(read_manifests([str(path)])))]


def _s27(found: list) -> list:
    return [f for f in found if f[0] == "S27"]


# spent set 83 Anis16/rag-resume@a2642f0f k8s/http-scaledobject.yaml (cut down)
HTTP_SCALED_OBJECT = """\
    apiVersion: http.keda.sh/v1alpha1
    kind: HTTPScaledObject
    metadata: {name: orchestrator-http-scaledobject, namespace: cv-rag}
    spec:
      hosts:
        - HOST
      targetPendingRequests: 5
      scaleTargetRef: {name: orchestrator, kind: Deployment, apiVersion: apps/v1, service: orchestrator, port: 8000}
    """


def test_a_documentation_domain_in_a_host_field_is_a_fill_in(tmp_path):
    (s27,) = _s27(_check(tmp_path, HTTP_SCALED_OBJECT.replace("HOST", "cv-rag.example.com")))
    assert s27[1] == "advisory" and "spec.hosts[0] holds 'cv-rag.example.com'" in s27[3]
    assert "fill-in" in s27[3]


@pytest.mark.parametrize("host", ["cv-rag.mydomain.io", "example.company.com", "myexample.com", "llm.internal"])
def test_a_real_host_is_not_a_fill_in(tmp_path, host):
    assert not _s27(_check(tmp_path, HTTP_SCALED_OBJECT.replace("HOST", host)))


def test_a_documentation_domain_outside_a_host_field_is_not_judged():
    assert fill_in("https://docs.example.com/guide", "description") is None


# spent set 87 adminless-io/aks-llm-platform@6b5fdadb gitops/apps/llm/overlays/prod/kustomization.yaml (cut down)
OVERLAY = """\
    apiVersion: kustomize.config.k8s.io/v1beta1
    kind: Kustomization
    resources: [../../base]
    patches:
      - target: {kind: ServiceAccount, name: llm-serving}
        patch: |
          - op: replace
            path: /metadata/annotations/azure.workload.identity~1client-id
            value: "CLIENT"
      - target: {kind: Deployment, name: llm-serving}
        patch: |
          - op: replace
            path: /spec/template/spec/containers/0/image
            value: "IMAGE"
    """
ZERO_UUID = "00000000-0000-0000-0000-000000000000"
ZERO_IMAGE = "yourregistry.azurecr.io/vllm/vllm-openai@sha256:" + "0" * 64


def test_an_overlay_patching_in_a_zero_uuid_and_a_zero_digest_is_named(tmp_path):
    text = OVERLAY.replace("CLIENT", ZERO_UUID).replace("IMAGE", ZERO_IMAGE)
    (s27,) = _s27(_check(tmp_path, text, "kustomization.yaml"))
    assert f"patches[0].patch holds '{ZERO_UUID}'" in s27[3]
    assert "patches[1].patch holds '@sha256:" in s27[3]


def test_an_overlay_patching_in_real_values_is_silent(tmp_path):
    real = "3f1c2a9e-7b4d-4e2a-9c1f-0a2b3c4d5e6f"
    image = "myacr.azurecr.io/vllm/vllm-openai@sha256:" + "9f" * 32
    assert not _s27(_check(tmp_path, OVERLAY.replace("CLIENT", real).replace("IMAGE", image), "kustomization.yaml"))


def test_image_fill_ins():
    assert image_fill_in(ZERO_IMAGE) == "@sha256:" + "0" * 64
    assert image_fill_in("yourregistry.azurecr.io/vllm/vllm-openai:v0.8.5") == "yourregistry.azurecr.io"
    assert image_fill_in("ai-agent:TAG") == "TAG"
    assert image_fill_in("vllm/vllm-openai:v0.8.5") is None
    assert image_fill_in("registry.k8s.io/pause:3.9") is None
    # The image field reads the table too, and the value stays as written for the other rules (engine recognition).
    assert placeholder_in("yourregistry.azurecr.io/vllm/vllm-openai:v0.8.5", ("image",)) == "yourregistry.azurecr.io"


# spent set 88 biswa123642/local-k8s-ai-agent@aa428151 k8s/kustomization.yaml (cut down)
KUSTOMIZATION_IMAGES = """\
    apiVersion: kustomize.config.k8s.io/v1beta1
    kind: Kustomization
    images:
    - name: ai-agent
      newName: ai-agent
      newTag: "NEWTAG"
    """


def test_a_new_tag_naming_the_field_is_a_fill_in(tmp_path):
    (s27,) = _s27(_check(tmp_path, KUSTOMIZATION_IMAGES.replace("NEWTAG", "TAG"), "kustomization.yaml"))
    assert "images[0].newTag holds 'TAG'" in s27[3]


@pytest.mark.parametrize("tag", ["v1.2.3", "latest", "0.8.5", "sha-1a2b3c"])
def test_a_real_new_tag_is_silent(tmp_path, tag):
    assert not _s27(_check(tmp_path, KUSTOMIZATION_IMAGES.replace("NEWTAG", tag), "kustomization.yaml"))


# spent set 85 arnaudroubinet/omega-pnj@1a834738 k8s/configmap.yaml and set 87 V0vaG/vovagpt_src@6fdc7501
# k8s/vovagpt-deployment.yaml (cut down)
SECRET = """\
    apiVersion: v1
    kind: Secret
    metadata: {name: app-secrets}
    type: Opaque
    stringData:
      KEY: "VALUE"
    """


@pytest.mark.parametrize(
    "key,value",
    [("DB_PASSWORD", "changeme"), ("secret-key", "change-this-secret-key-in-production"), ("token", "put-your-token-here")],
)
def test_a_secret_value_of_fill_in_words_is_named(tmp_path, key, value):
    found = _s27(_check(tmp_path, SECRET.replace("KEY", key).replace("VALUE", value)))
    assert [(f[1], f[2]) for f in found] == [("advisory", "secret-value-not-placeholder")]
    assert f"holds the fill-in {value!r}" in found[0][3]


@pytest.mark.parametrize("value", ["set-by-ci", "change-password-policy", "production", "Xk29qLmZ81"])
def test_a_secret_value_without_a_fill_in_cue_is_not_a_fill_in(tmp_path, value):
    assert not _s27(_check(tmp_path, SECRET.replace("KEY", "mode").replace("VALUE", value)))


# spent set 59 whchoi98/deepseek-using-vllm-on-eks@edabec2e manifests/deepseek-deployment-gpu.yaml (cut down)
SHELL = """\
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: deepseek-deployment}
    spec:
      selector: {matchLabels: {app: deepseek}}
      template:
        metadata: {labels: {app: deepseek}}
        spec:
          containers:
            - name: vllm
              image: vllm/vllm-openai:v0.7.3
              command: ["/bin/sh", "-c"]
              args: ["vllm serve ARG"]
    """


def test_a_sed_marker_inside_a_shell_command_is_named(tmp_path):
    (s27,) = _s27(_check(tmp_path, SHELL.replace("ARG", "__MODEL_NAME_AND_PARAMETERS__")))
    assert "args[0] holds __MODEL_NAME_AND_PARAMETERS__" in s27[3]


def test_a_shell_variable_stays_the_shells(tmp_path):
    assert not _s27(_check(tmp_path, SHELL.replace("ARG", "$MODEL_ID --port ${PORT}")))


def test_the_table_rows_carry_their_source_and_a_bad_row_names_itself():
    assert all(p.source and p.what for p in fill_ins.PATTERNS) and fill_ins.PHRASES.source
    good = {
        "pattern": [{"name": "n", "field": "any", "needs": "x", "regex": "x", "what": "w", "source": "s"}],
        "phrases": {"alone": ["a"], "verbs": ["v"], "cues": ["c"], "source": "s"},
    }
    assert load(good)[0][0].name == "n"
    with pytest.raises(ValueError, match=r"\[\[pattern\]\] #1: field must be one of"):
        load({**good, "pattern": [{**good["pattern"][0], "field": "everywhere"}]})
    with pytest.raises(ValueError, match=r"#1: regex does not compile"):
        load({**good, "pattern": [{**good["pattern"][0], "regex": "("}]})
    with pytest.raises(ValueError, match=r"unknown fields \['extra'\]"):
        load({**good, "pattern": [{**good["pattern"][0], "extra": 1}]})
    with pytest.raises(ValueError, match=r"\[phrases\]: cues must be a list of words"):
        load({**good, "phrases": {**good["phrases"], "cues": []}})


# spent set 76 opea-project/GenAIExamples@d311b85f CodeTrans/kubernetes/intel/cpu/xeon/manifest/codetrans.yaml (cut down)
TOKEN_CONFIG_MAP = """\
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: codetrans-tgi-config}
    data:
      MODEL_ID: mistralai/Mistral-7B-Instruct-v0.3
      HF_TOKEN: "VALUE"
    """


def test_a_config_map_token_fill_in_is_named_on_the_config_map(tmp_path):
    found = [
        f for f in _check(tmp_path, TOKEN_CONFIG_MAP.replace("VALUE", "insert-your-huggingface-token-here")) if f[0] == "S28"
    ]
    assert [(f[1], f[2]) for f in found] == [("advisory", "hf-token-not-empty")]
    assert "data.HF_TOKEN holds the fill-in 'insert-your-huggingface-token-here'" in found[0][3]


def test_a_config_map_without_a_token_fill_in_is_silent(tmp_path):
    assert not [f for f in _check(tmp_path, TOKEN_CONFIG_MAP.replace("VALUE", "")) if f[0] == "S28"]


# spent set 86 oscka/rag-llm-k8s@4aae52d6 llm/secret.yaml: the key's own name where the token goes, in data (not base64)
def test_a_token_secret_holding_its_own_key_name_is_a_fill_in(tmp_path):
    text = "apiVersion: v1\nkind: Secret\nmetadata: {name: hf-token}\ntype: Opaque\ndata:\n  HF_TOKEN: hf_token\n"
    found = [f for f in _check(tmp_path, text) if f[0] == "S28"]
    assert [f[2] for f in found] == ["hf-token-secret-not-placeholder"] and "'hf_token'" in found[0][3]
    real = text.replace("hf_token\n", "aGZfQWJDZEVmR2hJaktsTW5PcFFyU3RVdld4WXo=\n")  # a token-shaped value: G35's
    assert not [f for f in _check(tmp_path, real) if f[0] == "S28"]


# spent set 51 roen019/LiteLLM-K8s-Deploy@738ba83b local-manifests/secrets.yaml and litellm.yaml (cut down): the Secret's
# key is read as LITELLM_MASTER_KEY, the key the LiteLLM proxy enforces (components/server_keys.toml).
LITELLM_SECRET = """\
    apiVersion: v1
    kind: Secret
    metadata: {name: litellm-local-secrets, namespace: litellm}
    type: Opaque
    stringData:
      master-key: "VALUE"
    ---
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: litellm, namespace: litellm}
    spec:
      selector: {matchLabels: {app: litellm}}
      template:
        metadata: {labels: {app: litellm}}
        spec:
          containers:
            - name: litellm
              image: ghcr.io/berriai/litellm:main-v1.55.0
              args: ["--config", "/app/config.yaml"]
              env:
                - name: VARIABLE
                  valueFrom: {secretKeyRef: {name: litellm-local-secrets, key: master-key}}
    """


def _g35(found: list) -> list:
    return [(f[1], f[2]) for f in found if f[0] == "G35"]


def test_a_secret_key_a_server_enforces_blocks_whatever_its_words(tmp_path):
    text = LITELLM_SECRET.replace("VALUE", "sk-local-master-key-123").replace("VARIABLE", "LITELLM_MASTER_KEY")
    assert _g35(_check(tmp_path, text)) == [("mandatory", "no-literal-credential")]


def test_a_client_variable_or_a_not_a_key_word_does_not_block(tmp_path):
    # Read as a client's variable of no credential name: not the server's key.
    client = LITELLM_SECRET.replace("VALUE", "sk-local-master-key-123").replace("VARIABLE", "UPSTREAM_LABEL")
    assert ("mandatory", "no-literal-credential") not in _g35(_check(tmp_path, client))
    for word in ("EMPTY", "change-this-in-production", "${LITELLM_MASTER_KEY}"):
        text = LITELLM_SECRET.replace("VALUE", word).replace("VARIABLE", "LITELLM_MASTER_KEY")
        assert ("mandatory", "no-literal-credential") not in _g35(_check(tmp_path, text)), word


# spent set 86 alexmachulsky/devops-chatbot@37636001 k8s/deployment.yaml (cut down): the web app's signing key.
SIGNING_KEY = """\
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: devops-chatbot}
    spec:
      selector: {matchLabels: {app: chatbot}}
      template:
        metadata: {labels: {app: chatbot}}
        spec:
          containers:
            - name: chatbot
              image: python:3.12-slim
              env:
                - name: SECRET_KEY
                  value: "VALUE"
    """


def test_a_literal_signing_key_is_a_literal_secret(tmp_path):
    assert _g35(_check(tmp_path, SIGNING_KEY.replace("VALUE", "devops-chatbot-k8s-demo"))) == [
        ("mandatory", "no-literal-secret-env")
    ]
