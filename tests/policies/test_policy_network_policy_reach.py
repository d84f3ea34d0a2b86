"""G33 egress-allows-model-download and namespace-selector-label-exists.

Fixture: set 29, JSXSTEWART/rise-local-lead-maker kubernetes/namespace-config.yaml and kubernetes/vllm-deployment.yaml
@61b9a0f5f31a2ea7ac4b5bb00a1680574d4f6721: NetworkPolicy default-deny-all (Ingress and Egress, every pod of
llm-tenants, no egress rule) while vLLM v0.11.0 downloads meta-llama/Meta-Llama-3.1-8B-Instruct at start into a claim
(advice: a persistent cache may hold the model; blocking on an emptyDir); allow-ingress-from-gateway admits namespaces
labelled name=ingress-nginx, which no Namespace of the files carries (advice).
Silent: jkershawrh/fleet-llm-d deploy/arena/network-policies.yaml@e32439843589cf62d9ed61a7d70ce61ebff35d44 (a
default-deny-all beside an allow policy with egress to ipBlock 0.0.0.0/0 on 443 and to the DNS namespace on 53, by
kubernetes.io/metadata.name), OchiShuji/vllm-eks manifests/03-network-policy.yaml@89ff5ff09e486d1aef9256cbf6d4afdc4ba1a75b
(Ingress only, from kubernetes.io/metadata.name: kube-system), HF_HUB_OFFLINE=1.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

_NAMESPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "llm-tenants", "labels": {"name": "llm-tenants"}}}
_DENY = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "NetworkPolicy",
    "metadata": {"name": "default-deny-all", "namespace": "llm-tenants"},
    "spec": {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]},
}
_FROM_GATEWAY = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "NetworkPolicy",
    "metadata": {"name": "allow-ingress-from-gateway", "namespace": "llm-tenants"},
    "spec": {
        "podSelector": {"matchLabels": {"app": "llm-service"}},
        "policyTypes": ["Ingress"],
        "ingress": [
            {
                "from": [{"namespaceSelector": {"matchLabels": {"name": "ingress-nginx"}}}],
                "ports": [{"protocol": "TCP", "port": 8000}],
            }
        ],
    },
}
_VLLM = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm-llama3-8b", "namespace": "llm-tenants"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "llm-service", "tenant": "example-tenant"}},
        "template": {
            "metadata": {"labels": {"app": "llm-service", "model": "llama3-8b", "tenant": "example-tenant"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.11.0",
                        "env": [
                            {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "huggingface-token", "key": "token"}}}
                        ],
                        "command": ["python", "-m", "vllm.entrypoints.openai.api_server"],
                        "args": ["--model", "meta-llama/Meta-Llama-3.1-8B-Instruct", "--max-model-len", "8192", "--port", "8000"],
                        "ports": [{"containerPort": 8000, "name": "http"}],
                        "resources": {"limits": {"nvidia.com/gpu": "1"}, "requests": {"nvidia.com/gpu": "1"}},
                        "volumeMounts": [{"name": "hf-cache", "mountPath": "/root/.cache/huggingface"}],
                    }
                ],
                "volumes": [{"name": "hf-cache", "persistentVolumeClaim": {"claimName": "vllm-hf-cache"}}],
            },
        },
    },
}
# fleet-llm-d's allow policy, aimed at the model pods.
_ALLOW_EGRESS = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "NetworkPolicy",
    "metadata": {"name": "allow-fleet-agent-egress", "namespace": "llm-tenants"},
    "spec": {
        "podSelector": {"matchLabels": {"app": "llm-service"}},
        "policyTypes": ["Egress"],
        "egress": [
            {
                "to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "openshift-dns"}}}],
                "ports": [{"port": 53, "protocol": "UDP"}, {"port": 53, "protocol": "TCP"}],
            },
            {"to": [{"ipBlock": {"cidr": "0.0.0.0/0"}}], "ports": [{"port": 443, "protocol": "TCP"}]},
        ],
    },
}


def _on_empty_dir(doc: dict) -> dict:
    doc = copy.deepcopy(doc)
    doc["spec"]["template"]["spec"]["volumes"] = [{"name": "hf-cache", "emptyDir": {}}]
    return doc


def _on_policies(found):
    """The findings said on the NetworkPolicies (session 51: a namespace-wide policy's finding is said on the server's
    workload too, as advice starting "NetworkPolicy <name> ...")."""
    return [f for f in found if not f[1].startswith("NetworkPolicy ")]


def test_a_deny_all_egress_policy_stops_the_download():
    found = found_by([_NAMESPACE, _DENY, _FROM_GATEWAY, _VLLM], "egress-allows-model-download")
    ((level, message),) = _on_policies(found)
    assert level == "advisory"  # the cache is a claim, which may hold the model already
    assert "downloads meta-llama/Meta-Llama-3.1-8B-Instruct at start" in message
    found = found_by([_NAMESPACE, _DENY, _on_empty_dir(_VLLM)], "egress-allows-model-download")
    ((level, _),) = _on_policies(found)
    assert level == "mandatory"
    # The deny-all policy selects every pod: the workload hears it too, as advice.
    ((copy_level, copy_message),) = [f for f in found if f not in _on_policies(found)]
    assert copy_level == "advisory" and copy_message.startswith(f"NetworkPolicy {_DENY['metadata']['name']} selects")


def test_an_https_port_range_reaches_the_hub():
    # Cold review 29b, finding 1: port 80 with endPort 443 admits 443 (NetworkPolicyPort.endPort, GA in 1.25).
    ranged = copy.deepcopy(_ALLOW_EGRESS)
    for rule in ranged["spec"]["egress"]:
        for port in rule.get("ports", []):
            if port.get("port") in (443, "443"):
                port["port"], port["endPort"] = 80, 443
    assert found_by([_DENY, ranged, _on_empty_dir(_VLLM)], "egress-allows-model-download") == []


def test_what_the_files_do_not_show_makes_it_advice():
    # Cold review 29b, finding 4: envFrom may set HF_HUB_OFFLINE; an image that is not the engine's own may hold the
    # model; both leave the download unproven.
    with_env_from = _on_empty_dir(_VLLM)
    with_env_from["spec"]["template"]["spec"]["containers"][0]["envFrom"] = [{"configMapRef": {"name": "vllm-env"}}]
    ((level, _),) = _on_policies(found_by([_NAMESPACE, _DENY, with_env_from], "egress-allows-model-download"))
    assert level == "advisory"
    baked = _on_empty_dir(_VLLM)
    baked["spec"]["template"]["spec"]["containers"][0]["image"] = "registry.example.com/team/llama3-vllm:1.0"
    baked["spec"]["template"]["spec"]["containers"][0]["command"] = ["vllm", "serve"]
    assert [lv for lv, _ in _on_policies(found_by([_NAMESPACE, _DENY, baked], "egress-allows-model-download"))] in (
        [],
        ["advisory"],
    )


def test_a_namespace_label_nobody_sets_is_advice():
    ((level, message),) = found_by([_NAMESPACE, _DENY, _FROM_GATEWAY, _VLLM], "namespace-selector-label-exists")
    assert level == "advisory"
    assert message.startswith("spec.ingress[0].from admits namespaces labelled name=ingress-nginx")


def test_careful_forms_stay_silent():
    served = _on_empty_dir(_VLLM)
    assert found_by([_DENY, _ALLOW_EGRESS, served], "egress-allows-model-download") == []
    offline = copy.deepcopy(served)
    offline["spec"]["template"]["spec"]["containers"][0]["env"].append({"name": "HF_HUB_OFFLINE", "value": "1"})
    assert found_by([_DENY, offline], "egress-allows-model-download") == []
    ingress_only = copy.deepcopy(_DENY)
    ingress_only["spec"]["policyTypes"] = ["Ingress"]
    assert found_by([ingress_only, served], "egress-allows-model-download") == []
    # OchiShuji/vllm-eks: selected by the automatic label.
    by_name = copy.deepcopy(_FROM_GATEWAY)
    by_name["spec"]["ingress"][0]["from"] = [
        {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}}}
    ]
    assert found_by([by_name], "namespace-selector-label-exists") == []
    labelled = {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "ingress-nginx", "labels": {"name": "ingress-nginx"}},
    }
    assert found_by([_FROM_GATEWAY, labelled], "namespace-selector-label-exists") == []
