"""G35 no-literal-secret-env: one compliant fixture, one mutation per case."""

import pytest

from policies.k8s_generic.no_literal_secret_env import POLICY
from policy_fixtures import isvc, isvc_props, messages, vllm_container

TOKEN_VALUE = "hf_SuperSecretValue123"


def with_env(*env):
    props = isvc_props()
    vllm_container(props)["env"] = list(env)
    return isvc(props)


def literal(name):
    return f"container kserve-container: env {name} has a literal value; a secret must come from " \
           f"valueFrom.secretKeyRef (a literal lands in the pod spec, etcd and the Pulumi state)"


def test_compliant_inference_service_passes():
    assert messages(POLICY, isvc()) == []


@pytest.mark.parametrize("name", ["HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "GITHUB_TOKEN", "DB_SECRET_KEY",
                                  "ADMIN_PASSWORD", "OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "hf_token"])
def test_literal_secret_is_reported_without_its_value(name):
    found = messages(POLICY, with_env({"name": name, "value": TOKEN_VALUE}))
    assert found == [literal(name)]
    assert TOKEN_VALUE not in found[0]


def test_redacted_literal_is_still_a_literal():
    assert messages(POLICY, with_env({"name": "HF_TOKEN", "value": "[secret]"})) == [literal("HF_TOKEN")]


def test_empty_value_is_not_a_secret():
    assert messages(POLICY, with_env({"name": "HF_TOKEN", "value": ""})) == []


def test_config_map_ref_is_not_a_secret_store():
    assert messages(POLICY, with_env({"name": "HF_TOKEN", "valueFrom": {
        "configMapKeyRef": {"name": "settings", "key": "token"}}})) == [
        "container kserve-container: env HF_TOKEN comes from valueFrom.configMapKeyRef; a secret must come "
        "from valueFrom.secretKeyRef"]


def test_ordinary_env_is_fine():
    assert messages(POLICY, with_env({"name": "TOKENIZERS_PARALLELISM", "value": "false"},
                                     {"name": "VLLM_HTTP_TIMEOUT_KEEP_ALIVE", "value": "75"})) == []


def test_config_name_patterns():
    env = {"name": "MY_CREDENTIAL", "value": TOKEN_VALUE}
    assert messages(POLICY, with_env(env)) == []
    assert messages(POLICY, with_env(env), config={"namePatterns": ["*CREDENTIAL*"]}) == [
        literal("MY_CREDENTIAL")]
