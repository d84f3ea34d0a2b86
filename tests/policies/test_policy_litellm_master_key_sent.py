"""G92 litellm-master-key-sent: a client sends the master key of the LiteLLM proxy it calls; a proxy holding provider
keys sets one.

Fires (mandatory): spent set 81, fhswf/soccer-agent k8s/langflow-deployment.yaml (OPENAI_API_BASE http://litellm:4000/v1,
OPENAI_API_KEY dummy) with k8s/litellm-configmap.yaml (general_settings.master_key a literal) and
k8s/litellm-deployment.yaml, labelled blocking: litellm 1.55.0 proxy/auth/user_api_key_auth.py:742 compares the key with
the master key, :790-796 wants any other key to start with sk- (a virtual key), :1285-1290 answers 401.
Fires (advice): spent set 82, danielnuriyev/skein k8s/litellm-deployment.yaml + k8s/litellm-configmap.yaml: no master key
while the proxy holds AWS keys (user_api_key_auth.py:607-618: no master key, every caller is the proxy admin).
Silent: the client sends the master key; a master key in a Secret the files do not hold and a real-looking client key;
a proxy with a master key from a Secret; a proxy in front of a keyless local server (api_key EMPTY).
"""

from __future__ import annotations

import copy

from tests.policies.policy_fixtures import found_by

_MASTER = "sk-litellm-master-key-2026"
_CONFIG = f"""model_list:
  - model_name: gpt-4o
    litellm_params:
      model: gemini/gemini-1.5-pro
      api_key: "os.environ/GEMINI_API_KEY"
general_settings:
  master_key: "{_MASTER}"
"""


def _config_map(text: str = _CONFIG) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "litellm-config", "namespace": "soccer-agent"},
        "data": {"config.yaml": text},
    }


def _deployment(name: str, container: dict, volumes: list | None = None) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "soccer-agent"},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container], "volumes": volumes or []}},
        },
    }


def _proxy(env: list | None = None) -> dict:
    container = {
        "name": "litellm",
        "image": "ghcr.io/berriai/litellm:main",
        "args": ["--config", "/app/config.yaml", "--port", "4000"],
        "env": env
        if env is not None
        else [{"name": "GEMINI_API_KEY", "valueFrom": {"secretKeyRef": {"name": "gemini", "key": "k"}}}],
        "volumeMounts": [{"name": "config", "mountPath": "/app/config.yaml", "subPath": "config.yaml"}],
    }
    return _deployment("litellm", container, [{"name": "config", "configMap": {"name": "litellm-config"}}])


_SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "litellm", "namespace": "soccer-agent"},
    "spec": {"selector": {"app": "litellm"}, "ports": [{"port": 4000, "targetPort": 4000}]},
}


def _client(key: dict) -> dict:
    env = [{"name": "OPENAI_API_BASE", "value": "http://litellm:4000/v1"}, {"name": "OPENAI_API_KEY", **key}]
    return _deployment("langflow", {"name": "langflow", "image": "langflowai/langflow:1.4.2", "env": env})


def _found(objs: list[dict]) -> list[tuple[str, str]]:
    return found_by(objs, "litellm-master-key-sent")


def test_the_spent_dummy_key_to_a_literal_master_key_blocks():
    found = _found([_config_map(), _proxy(), _SERVICE, _client({"value": "dummy"})])
    assert [e for e, _ in found] == ["mandatory"]
    assert "container langflow: OPENAI_API_KEY is sent to the LiteLLM proxy litellm" in found[0][1]
    assert "401" in found[0][1] and _MASTER not in found[0][1]


def test_the_master_key_sent_stays_silent():
    assert _found([_config_map(), _proxy(), _SERVICE, _client({"value": _MASTER})]) == []


def test_a_master_key_from_a_secret_of_the_files_is_compared():
    text = _CONFIG.replace(f'"{_MASTER}"', '"os.environ/LITELLM_MASTER_KEY"')
    ref = {"valueFrom": {"secretKeyRef": {"name": "litellm", "key": "master"}}}
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "litellm", "namespace": "soccer-agent"},
        "stringData": {"master": "sk-9f8e7d6c5b4a"},
    }
    proxy = _proxy([{"name": "LITELLM_MASTER_KEY", **ref}])
    found = _found([_config_map(text), proxy, _SERVICE, secret, _client({"value": "not-needed"})])
    assert [e for e, _ in found] == ["mandatory"]
    # The client reads the same Secret: nothing to compare, silent.
    assert _found([_config_map(text), proxy, _SERVICE, secret, _client(ref)]) == []


def test_a_master_key_the_files_do_not_hold():
    text = _CONFIG.replace(f'"{_MASTER}"', '"os.environ/LITELLM_MASTER_KEY"')
    proxy = _proxy([{"name": "LITELLM_MASTER_KEY", "valueFrom": {"secretKeyRef": {"name": "elsewhere", "key": "k"}}}])
    stand_in = _found([_config_map(text), proxy, _SERVICE, _client({"value": "dummy"})])
    assert [e for e, _ in stand_in] == ["advisory"]
    assert _found([_config_map(text), proxy, _SERVICE, _client({"value": "sk-team-a-7f3k2"})]) == []


def test_an_sk_key_with_a_database_may_be_a_virtual_key():
    proxy = _proxy()
    proxy["spec"]["template"]["spec"]["containers"][0]["env"].append(
        {"name": "DATABASE_URL", "valueFrom": {"secretKeyRef": {"name": "db", "key": "url"}}}
    )
    found = _found([_config_map(), proxy, _SERVICE, _client({"value": "sk-team-a-7f3k2"})])
    assert [e for e, _ in found] == ["advisory"]


_BEDROCK = """model_list:
  - model_name: bedrock-claude-opus-4-6
    litellm_params:
      model: bedrock/us.anthropic.claude-sonnet-4-6
      aws_region_name: us-east-1
litellm_settings:
  modify_params: true
"""
_AWS = [
    {"name": "AWS_ACCESS_KEY_ID", "valueFrom": {"secretKeyRef": {"name": "goose-secrets", "key": "AWS_ACCESS_KEY_ID"}}},
    {"name": "AWS_SECRET_ACCESS_KEY", "valueFrom": {"secretKeyRef": {"name": "goose-secrets", "key": "AWS_SECRET_ACCESS_KEY"}}},
]


def test_the_spent_unguarded_proxy_spending_bedrock_keys_is_advised():
    found = _found([_config_map(_BEDROCK), _proxy(copy.deepcopy(_AWS)), _SERVICE])
    assert [e for e, _ in found] == ["advisory"] and "sets no master key" in found[0][1] and "AWS_ACCESS_KEY_ID" in found[0][1]


def test_a_guarded_or_keyless_proxy_stays_silent():
    master = {"name": "LITELLM_MASTER_KEY", "valueFrom": {"secretKeyRef": {"name": "litellm", "key": "master"}}}
    assert _found([_config_map(_BEDROCK), _proxy([*copy.deepcopy(_AWS), master]), _SERVICE]) == []
    local = "model_list:\n  - model_name: qwen\n    litellm_params:\n      model: hosted_vllm/qwen\n      api_base: http://vllm:8000/v1\n      api_key: EMPTY\n"
    assert _found([_config_map(local), _proxy([]), _SERVICE]) == []


def test_a_lone_key_that_is_no_api_key_is_not_compared():
    env = [{"name": "LLM_ENDPOINT", "value": "http://litellm:4000"}, {"name": "SECRET_KEY", "value": "django-signing-9f8e"}]
    client = _deployment("app", {"name": "app", "image": "acme/app:1.0", "env": env})
    assert _found([_config_map(), _proxy(), _SERVICE, client]) == []
    env[1] = {"name": "LLM_API_KEY", "value": "dummy"}
    assert [e for e, _ in _found([_config_map(), _proxy(), _SERVICE, client])] == ["mandatory"]
