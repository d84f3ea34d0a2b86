"""G81 egress-allows-dns: a pod isolated for Egress reaches the cluster DNS (port 53 over UDP) when it resolves names.

Fires: set 29's vLLM Deployment (JSXSTEWART/rise-local-lead-maker kubernetes/vllm-deployment.yaml
@61b9a0f5f31a2ea7ac4b5bb00a1680574d4f6721, downloading meta-llama/Meta-Llama-3.1-8B-Instruct at start) under the common
"allow internet egress" policy (podSelector {}, 0.0.0.0/0 except the private ranges on TCP 443 and 80, as the code
corpus shows it unattributed) and no rule for port 53: the download reaches the Hub's addresses but no lookup of
huggingface.co gets out. A LiteLLM-style proxy whose env names its backend by Service name: advice.
Silent, the allow-DNS policy in its common forms: codota/terraform-google-gke-tabnine tabnine_cloud_values.yaml.tpl
(kube-system by kubernetes.io/metadata.name + k8s-app: kube-dns, UDP 53), shiftlabs-helm-library
charts/common/templates/_networkpolicy.tpl (namespaceSelector {} on UDP and TCP 53), an ipBlock to the cluster DNS IP
on 53, egress to all on UDP/TCP 53, a separate namespace-wide allow-dns policy; hostNetwork pods.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

_NS = "llm-tenants"
_VLLM = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm-llama3-8b", "namespace": _NS},
    "spec": {
        "selector": {"matchLabels": {"app": "llm-service"}},
        "template": {
            "metadata": {"labels": {"app": "llm-service"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.11.0",
                        "command": ["python", "-m", "vllm.entrypoints.openai.api_server"],
                        "args": ["--model", "meta-llama/Meta-Llama-3.1-8B-Instruct", "--port", "8000"],
                        "ports": [{"containerPort": 8000, "name": "http"}],
                        "resources": {"limits": {"nvidia.com/gpu": "1"}},
                        "volumeMounts": [{"name": "hf-cache", "mountPath": "/root/.cache/huggingface"}],
                    }
                ],
                "volumes": [{"name": "hf-cache", "emptyDir": {}}],
            },
        },
    },
}
_INTERNET = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "NetworkPolicy",
    "metadata": {"name": "allow-internet-egress", "namespace": _NS},
    "spec": {
        "podSelector": {},
        "policyTypes": ["Egress"],
        "egress": [
            {
                "to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"]}}],
                "ports": [{"protocol": "TCP", "port": 443}, {"protocol": "TCP", "port": 80}],
            }
        ],
    },
}
_KUBE_DNS_PEER = {
    "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
    "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}},
}
_UDP_TCP_53 = [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]
_PROXY = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "litellm", "namespace": _NS},
    "spec": {
        "selector": {"matchLabels": {"app": "litellm"}},
        "template": {
            "metadata": {"labels": {"app": "litellm"}},
            "spec": {
                "containers": [
                    {
                        "name": "litellm",
                        "image": "ghcr.io/berriai/litellm:main-v1.74.0-stable",
                        "env": [{"name": "OPENAI_API_BASE", "value": "http://vllm-llama3-8b:8000/v1"}],
                    }
                ]
            },
        },
    },
}
_TO_VLLM = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "NetworkPolicy",
    "metadata": {"name": "litellm-egress", "namespace": _NS},
    "spec": {
        "podSelector": {"matchLabels": {"app": "litellm"}},
        "policyTypes": ["Egress"],
        "egress": [{"to": [{"podSelector": {"matchLabels": {"app": "llm-service"}}}], "ports": [{"port": 8000}]}],
    },
}


def _with_rule(policy: dict, rule: dict) -> dict:
    policy = copy.deepcopy(policy)
    policy["spec"]["egress"].append(rule)
    return policy


def _allow_dns(rule: dict) -> dict:
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": "allow-dns", "namespace": _NS},
        "spec": {"podSelector": {}, "policyTypes": ["Egress"], "egress": [rule]},
    }


def test_a_download_at_start_with_no_dns_blocks():
    ((level, message),) = found_by([_INTERNET, _VLLM], "egress-allows-dns")
    assert level == "mandatory"
    assert "no egress rule of the policies selecting them reaches port 53 (UDP)" in message
    assert "downloads meta-llama/Meta-Llama-3.1-8B-Instruct at start" in message
    # No rule reaches the internet either: G33 egress-allows-model-download reports that, not this policy.
    deny = copy.deepcopy(_INTERNET)
    deny["spec"]["egress"] = []
    assert found_by([deny, _VLLM], "egress-allows-dns") == []
    assert found_by([deny, _VLLM], "egress-allows-model-download") != []


def test_an_init_container_fetching_by_name_blocks():
    waiting = copy.deepcopy(_PROXY)
    waiting["spec"]["template"]["spec"]["initContainers"] = [
        {
            "name": "wait-for-model",
            "image": "curlimages/curl:8.8.0",
            "command": ["sh", "-c", "until curl -sf http://vllm-llama3-8b:8000/health; do sleep 5; done"],
        }
    ]
    ((level, message),) = found_by([_TO_VLLM, waiting], "egress-allows-dns")
    assert level == "mandatory"
    assert "init container wait-for-model calls http://vllm-llama3-8b:8000" in message


def test_a_backend_by_service_name_is_advice():
    ((level, message),) = found_by([_TO_VLLM, _PROXY], "egress-allows-dns")
    assert level == "advisory"
    assert "env OPENAI_API_BASE names http://vllm-llama3-8b:8000" in message


def test_unproven_forms_are_advice():
    tcp_only = _with_rule(_INTERNET, {"to": [_KUBE_DNS_PEER], "ports": [{"port": 53}]})  # protocol defaults to TCP
    ((level, message),) = found_by([tcp_only, _VLLM], "egress-allows-dns")
    assert level == "advisory" and "port 53 over TCP only" in message
    labelled = _with_rule(_INTERNET, {"to": [{"namespaceSelector": {"matchLabels": {"name": "kube-system"}}}]})
    assert [lv for lv, _ in found_by([labelled, _VLLM], "egress-allows-dns")] == ["advisory"]
    cilium = {"apiVersion": "cilium.io/v2", "kind": "CiliumNetworkPolicy", "metadata": {"name": "dns", "namespace": _NS}}
    assert [lv for lv, _ in found_by([_INTERNET, cilium, _VLLM], "egress-allows-dns")] == ["advisory"]
    claim = copy.deepcopy(_VLLM)
    claim["spec"]["template"]["spec"]["volumes"] = [{"name": "hf-cache", "persistentVolumeClaim": {"claimName": "c"}}]
    assert [lv for lv, _ in found_by([_INTERNET, claim], "egress-allows-dns")] == ["advisory"]


def test_the_allow_dns_policy_in_its_forms_stays_silent():
    forms = [
        _with_rule(_INTERNET, {"to": [_KUBE_DNS_PEER], "ports": _UDP_TCP_53}),
        _with_rule(_INTERNET, {"to": [_KUBE_DNS_PEER], "ports": [{"protocol": "UDP", "port": 53}]}),
        _with_rule(_INTERNET, {"to": [{"namespaceSelector": {}}], "ports": _UDP_TCP_53}),
        _with_rule(_INTERNET, {"to": [{"ipBlock": {"cidr": "10.96.0.10/32"}}], "ports": _UDP_TCP_53}),
        _with_rule(_INTERNET, {"ports": _UDP_TCP_53}),
        _with_rule(_INTERNET, {"to": [{"namespaceSelector": {}, "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}}]}),
        _with_rule(_INTERNET, {"ports": [{"protocol": "UDP", "port": "dns"}]}),
        _with_rule(_INTERNET, {"ports": [{"protocol": "UDP", "port": 1, "endPort": 1024}]}),
        _with_rule(_INTERNET, {}),
    ]
    for form in forms:
        assert found_by([form, _VLLM], "egress-allows-dns") == [], form["spec"]["egress"][-1]
    separate = _allow_dns({"to": [_KUBE_DNS_PEER], "ports": _UDP_TCP_53})
    assert found_by([_INTERNET, separate, _VLLM], "egress-allows-dns") == []
    assert found_by([_TO_VLLM, separate, _PROXY], "egress-allows-dns") == []
    host = copy.deepcopy(_VLLM)
    host["spec"]["template"]["spec"]["hostNetwork"] = True
    assert found_by([_INTERNET, host], "egress-allows-dns") == []
    ingress_only = copy.deepcopy(_INTERNET)
    ingress_only["spec"]["policyTypes"] = ["Ingress"]
    assert found_by([ingress_only, _VLLM], "egress-allows-dns") == []
    offline = copy.deepcopy(_VLLM)
    offline["spec"]["template"]["spec"]["containers"][0]["env"] = [{"name": "HF_HUB_OFFLINE", "value": "1"}]
    assert found_by([_INTERNET, offline], "egress-allows-dns") == []
