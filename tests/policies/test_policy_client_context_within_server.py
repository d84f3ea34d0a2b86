"""S54 client-context-within-server: an application told a context window larger than its vLLM server serves.

Fixture: set 29, diwanshuydv/sqora k8s/configmap.yaml and k8s/vllm.yaml @47b7abf0538ef5aed33bb75fabfe597aee3b3495:
ConfigMap teaching-app-config MODEL_CONTEXT_WINDOW 16384 beside VLLM_API_BASE_URL http://vllm:8000/v1; the Service vllm
selects the vLLM Deployment started with --max-model-len 8192. Checked on each repository folder of sets 13-25 and 29:
it fires there only. Silent: a window at or below the limit, a ConfigMap with no URL to the server's Service, a server
with no literal --max-model-len, a token count that is no context window (MAX_NEW_TOKENS).
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

_CONFIG = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "teaching-app-config"},
    "data": {
        "MAX_NEW_TOKENS": "4096",
        "MODEL_CONTEXT_WINDOW": "16384",
        "VLLM_API_BASE_URL": "http://vllm:8000/v1",
        "VLLM_SERVED_MODEL_NAME": "seed-coder-grpo",
    },
}
_VLLM = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm"},
    "spec": {
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "teaching-vllm:latest",
                        "command": ["vllm", "serve", "/models/served-model"],
                        "args": ["--port", "8000", "--max-model-len", "8192", "--gpu-memory-utilization", "0.9"],
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                    }
                ]
            },
        },
    },
}
_SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "vllm"},
    "spec": {"selector": {"app": "vllm"}, "ports": [{"port": 8000, "targetPort": 8000}]},
}


def test_a_larger_window_than_the_server_serves_is_advice():
    ((level, message),) = found_by([_CONFIG, _VLLM, _SERVICE], "client-context-within-server")
    assert level == "advisory"
    assert message.startswith("data MODEL_CONTEXT_WINDOW=16384 tells the application a context window larger")
    assert "--max-model-len 8192" in message


def test_careful_forms_stay_silent():
    fits = copy.deepcopy(_CONFIG)
    fits["data"]["MODEL_CONTEXT_WINDOW"] = "8192"
    assert found_by([fits, _VLLM, _SERVICE], "client-context-within-server") == []
    elsewhere = copy.deepcopy(_CONFIG)
    elsewhere["data"]["VLLM_API_BASE_URL"] = "https://api.example.com/v1"
    assert found_by([elsewhere, _VLLM, _SERVICE], "client-context-within-server") == []
    unset = copy.deepcopy(_VLLM)
    unset["spec"]["template"]["spec"]["containers"][0]["args"] = ["--port", "8000"]
    assert found_by([_CONFIG, unset, _SERVICE], "client-context-within-server") == []
    counts = copy.deepcopy(_CONFIG)
    del counts["data"]["MODEL_CONTEXT_WINDOW"]
    counts["data"]["MAX_NEW_TOKENS"] = "16384"
    assert found_by([counts, _VLLM, _SERVICE], "client-context-within-server") == []


def test_odd_values_are_read_without_a_crash():
    # Cold review 29b, finding 5: int() refused "²" and 5,000 digits, urlsplit an unclosed IPv6 bracket (exit 3).
    from policies.vllm.client_context_within_server import _target, _whole

    assert _whole("²") is None and _whole("9" * 5000) is None and _whole(" 16384 ") == 16384
    assert _target({"URL": "http://[fd00::1/v1"}, "default", {("default", "vllm"): 8192}) is None


def _litellm(window: int, base: str = "http://vllm:8000/v1") -> dict:
    """A LiteLLM proxy ConfigMap routing to the vLLM Service (spent set 61: PYTHON01100100/Serving-Large-Language-Models-
    at-Scale-Using-LiteLLM-and-vLLM-on-Alibaba-Cloud-ACK k8s/litellm-config.yaml, context_window 6144 beside a server
    on --max-model-len 4096, the server's manifest in namespace your-namespace and the proxy's in dga-ai)."""
    config = (
        "model_list:\n  - model_name: chat\n    litellm_params:\n      model: openai/chat\n"
        f'      api_base: "{base}"\n    model_info:\n      context_window: {window}\n'
    )
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "litellm-config", "namespace": "dga-ai"},
        "data": {"litellm-config.yaml": config},
    }


def _in(namespace: str, obj: dict) -> dict:
    obj = copy.deepcopy(obj)
    obj["metadata"]["namespace"] = namespace
    return obj


def test_a_litellm_route_told_a_larger_window_is_advice():
    vllm, service = _in("your-namespace", _VLLM), _in("your-namespace", _SERVICE)
    ((level, message),) = found_by([_litellm(16384), vllm, service], "client-context-within-server")
    assert level == "advisory"
    assert message.startswith("data litellm-config.yaml model_list[0].model_info context_window=16384 tells")
    assert found_by([_litellm(8192), vllm, service], "client-context-within-server") == []
    # Two Services of that name in other namespaces: the files do not say which one the bare name means.
    twin = [_in("a", _VLLM), _in("a", _SERVICE), _in("b", _VLLM), _in("b", _SERVICE)]
    assert found_by([_litellm(16384), *twin], "client-context-within-server") == []
    assert found_by([_litellm(16384, "http://vllm.other:8000/v1"), vllm, service], "client-context-within-server") == []
