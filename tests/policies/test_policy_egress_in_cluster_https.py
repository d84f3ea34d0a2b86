"""G33 egress-allows-model-download, generic form: HTTPS allowed only to pods of the cluster, for a pod that names a
model and runs no engine the pack knows.

Fixture that fires: set 34, sahu04/hf-llm-gitops-project k8s/networkpolicy.yaml and k8s/deployment.yaml
@306bb62b5f1729d7014478a7fdfd84e89f47afd0: egress on 443 only to namespaceSelector {} (every pod of every namespace,
no outside address: networking.k8s.io/v1 NetworkPolicyPeer), while the hf-llm-api image (MODEL_NAME distilgpt2)
downloads the model from huggingface.co at start. Advice: the image's code is not in the files.
Silent: the same pod with egress on 443 to ipBlock 0.0.0.0/0 except the RFC 1918 ranges (the careful form); a pod that
names no model; egress policies with no HTTPS rule at all (nothing shows the pod meant to reach outside).
"""

from __future__ import annotations

import copy

from policy_fixtures import manifest

from policies.registry import evaluate

_POLICY = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "NetworkPolicy",
    "metadata": {"name": "hf-llm-api-restrict", "namespace": "hf-llm"},
    "spec": {
        "podSelector": {"matchLabels": {"app": "hf-llm-api"}},
        "policyTypes": ["Ingress", "Egress"],
        "ingress": [
            {
                "from": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "ingress-nginx"}}}],
                "ports": [{"protocol": "TCP", "port": 8000}],
            }
        ],
        "egress": [
            {
                "to": [{"namespaceSelector": {}}],
                "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}],
            },
            {"to": [{"namespaceSelector": {}}], "ports": [{"protocol": "TCP", "port": 443}]},
        ],
    },
}
_DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "hf-llm-api", "namespace": "hf-llm", "labels": {"app": "hf-llm-api"}},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "hf-llm-api"}},
        "template": {
            "metadata": {"labels": {"app": "hf-llm-api"}},
            "spec": {
                "containers": [
                    {
                        "name": "hf-llm-api",
                        "image": "hf-llm-api:local",
                        "imagePullPolicy": "Never",
                        "ports": [{"containerPort": 8000, "name": "http"}],
                        "env": [
                            {"name": "MODEL_NAME", "value": "distilgpt2"},
                            {"name": "MAX_NEW_TOKENS", "value": "80"},
                        ],
                        "volumeMounts": [{"name": "hf-cache", "mountPath": "/app/.cache"}],
                    }
                ],
                "volumes": [{"name": "hf-cache", "emptyDir": {}}],
            },
        },
    },
}


def _g33(*objs: dict) -> list[tuple[str, str]]:
    return [
        (v.enforcement, v.message)
        for v in evaluate([manifest(o) for o in objs], None)
        if v.policy == "egress-allows-model-download"
    ]


def test_https_only_to_pods_of_the_cluster_is_advice():
    ((level, message),) = _g33(_POLICY, _DEPLOYMENT)
    assert level == "advisory"
    assert message.startswith(
        "selects the pods of Deployment/hf-llm-api for Egress, and NetworkPolicy/hf-llm-api-restrict spec.egress[1] "
        "allows 443 only to namespaceSelector: {}: those select pods of the cluster, never an outside address"
    )
    assert "container hf-llm-api names the model distilgpt2 (env MODEL_NAME)" in message


def test_careful_forms_stay_silent():
    outside = copy.deepcopy(_POLICY)
    outside["spec"]["egress"][1]["to"] = [
        {"ipBlock": {"cidr": "0.0.0.0/0", "except": ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"]}}
    ]
    assert _g33(outside, _DEPLOYMENT) == []
    nameless = copy.deepcopy(_DEPLOYMENT)
    nameless["spec"]["template"]["spec"]["containers"][0]["env"] = [{"name": "MAX_NEW_TOKENS", "value": "80"}]
    assert _g33(_POLICY, nameless) == []
    dns_only = copy.deepcopy(_POLICY)
    del dns_only["spec"]["egress"][1]
    assert _g33(dns_only, _DEPLOYMENT) == []
    # A path, not a Hub id.
    local = copy.deepcopy(_DEPLOYMENT)
    local["spec"]["template"]["spec"]["containers"][0]["env"][0]["value"] = "/models/distilgpt2"
    assert _g33(_POLICY, local) == []
