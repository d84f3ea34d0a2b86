"""The open-webui chart writes the OpenAI API keys a release sets as literal env values (OPENAI_API_KEY /
OPENAI_API_KEYS, open-webui/helm-charts charts/open-webui/templates/workload-manager.yaml:156-233@open-webui-16.0.0),
so G35 no-literal-secret-env reads them in the pod the chart renders.

Firing form: spent set 112 akamai-developers/kuberay-gpu-llm-quickstart@2622d851607364a5c9e0b8f97582f297e00df99d
openwebui-values.yaml (``openaiApiKeys: ["sk-test-key-..."]`` with ``openaiBaseApiUrls``; label G35 missed). Careful
forms: the key from ``openaiApiKeysExistingSecret``, no key set (the chart's own Pipelines default is not the
release's literal), a pinned chart before 13.3.0, the OpenAI API turned off.
"""

from __future__ import annotations

from policy_fixtures import found_by

POLICY = "no-literal-secret-env"


def release(values, version=None):
    chart = {"chart": "open-webui", "sourceRef": {"kind": "HelmRepository", "name": "open-webui"}}
    if version:
        chart["version"] = version
    return {
        "apiVersion": "helm.toolkit.fluxcd.io/v2",
        "kind": "HelmRelease",
        "metadata": {"name": "open-webui", "namespace": "default"},
        "spec": {"chart": {"spec": chart}, "values": values},
    }


AKAMAI = {
    "ollama": {"enabled": False},
    "openaiBaseApiUrls": ["http://ray-serve-llm-serve-svc.default.svc.cluster.local:8000/v1"],
    "service": {"type": "ClusterIP", "port": 8080},
    "openaiApiKeys": ["sk-test-key-xyz9876543210fed"],
}


def test_spent_set_112_keys_are_a_literal_env():
    ((level, message),) = found_by([release(AKAMAI)], POLICY)
    assert level == "advisory" and "env OPENAI_API_KEYS has a literal value" in message
    single = {"openaiBaseApiUrl": "http://vllm:8000/v1", "pipelines": {"enabled": False}, "openaiApiKey": "sk-abc123def456"}
    ((_, message),) = found_by([release(single, "16.0.0")], POLICY)
    assert "env OPENAI_API_KEY has a literal value" in message


def test_careful_forms_are_silent():
    hidden = {**AKAMAI, "openaiApiKeysExistingSecret": "openai-keys", "openaiApiKeysExistingSecretKey": "keys"}
    assert found_by([release(hidden)], POLICY) == []
    assert found_by([release({"openaiBaseApiUrls": ["http://vllm:8000/v1"]})], POLICY) == []  # chart default only
    assert found_by([release(AKAMAI, "8.0.0")], POLICY) == []  # before the block read here
    assert found_by([release({**AKAMAI, "enableOpenaiApi": False})], POLICY) == []
    # a single URL with Pipelines on (the default) takes openaiApiKeys: a lone openaiApiKey is not written
    assert found_by([release({"openaiBaseApiUrl": "http://vllm:8000/v1", "openaiApiKey": "sk-abc123def456"})], POLICY) == []


def test_bad_input_is_silent():
    assert found_by([release({**AKAMAI, "openaiApiKeys": {"a": "b"}})], POLICY) == []
    assert found_by([release(AKAMAI, "not-a-version")], POLICY) == []
