"""G75 network-policy-pod-port: a NetworkPolicy that lists a Service's port where the Service forwards to another pod
port (NetworkPolicy matches the pod's port after the Service's translation)."""

from __future__ import annotations

import copy

import pytest
from policy_fixtures import found_by

POLICY = "network-policy-pod-port"

SERVER = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "aibrix-gateway", "namespace": "aibrix-system"},
    "spec": {
        "selector": {"matchLabels": {"app": "gateway"}},
        "template": {
            "metadata": {"labels": {"app": "gateway"}},
            "spec": {"containers": [{"name": "gw", "image": "envoyproxy/envoy:v1.33.0", "ports": [{"containerPort": 8000}]}]},
        },
    },
}
SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "aibrix-gateway", "namespace": "aibrix-system"},
    "spec": {"selector": {"app": "gateway"}, "ports": [{"name": "http", "port": 80, "targetPort": 8000}]},
}
# The shape of dataandai/aibrix-tenant-gateway k8s/tenant-policy-gateway/networkpolicy.yaml (set 38, label filed none):
# egress to namespace aibrix-system on TCP 80 only, with DNS beside it; here the Service it calls is in the files.
EGRESS = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "NetworkPolicy",
    "metadata": {"name": "tenant-policy-gateway", "namespace": "tenant-gateway"},
    "spec": {
        "podSelector": {"matchLabels": {"app.kubernetes.io/name": "tenant-policy-gateway"}},
        "policyTypes": ["Egress"],
        "egress": [
            {
                "to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "aibrix-system"}}}],
                "ports": [{"protocol": "TCP", "port": 80}],
            },
            {"to": [{"namespaceSelector": {}}], "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]},
        ],
    },
}
# A model server's own ingress policy on the Service's port 80 while vLLM listens on 8000.
VLLM = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm", "namespace": "llm"},
    "spec": {
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {
                "containers": [
                    {"name": "vllm", "image": "vllm/vllm-openai:v0.9.2", "ports": [{"name": "http", "containerPort": 8000}]}
                ]
            },
        },
    },
}
VLLM_SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "vllm", "namespace": "llm"},
    "spec": {"selector": {"app": "vllm"}, "ports": [{"port": 80, "targetPort": "http"}]},
}
INGRESS = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "NetworkPolicy",
    "metadata": {"name": "vllm-allow", "namespace": "llm"},
    "spec": {
        "podSelector": {"matchLabels": {"app": "vllm"}},
        "policyTypes": ["Ingress"],
        "ingress": [{"from": [{"namespaceSelector": {}}], "ports": [{"protocol": "TCP", "port": 80}]}],
    },
}


def test_egress_on_the_service_port_is_advised():
    assert found_by([SERVER, SERVICE, EGRESS], POLICY) == [
        (
            "advisory",
            "spec.egress[0].ports allows 80 to the pods of Service aibrix-system/aibrix-gateway, but the Service forwards "
            "80 to their port 8000 and a NetworkPolicy matches the destination pod's port after that translation; no "
            "egress rule admits 8000 to them, so every call through the Service is dropped; allow port 8000",
        )
    ]


def test_ingress_on_the_service_port_is_advised():
    assert found_by([VLLM, VLLM_SERVICE, INGRESS], POLICY) == [
        (
            "advisory",
            "spec.ingress[0].ports admits 80, the port of Service vllm, but the Service forwards it to port 8000 of "
            "Deployment vllm's pods and a NetworkPolicy matches the pod's port after that translation; no ingress rule "
            "of the policies selecting those pods admits 8000, so every request through the Service is dropped; list "
            "port 8000 (or its name http)",
        )
    ]


@pytest.mark.parametrize(
    "ports", [[{"port": 8000}], [{"port": "http"}], [{"port": 80}, {"port": 8000}], [], [{"port": 7000, "endPort": 9000}]]
)
def test_an_ingress_rule_admitting_the_pod_port_is_silent(ports):
    policy = copy.deepcopy(INGRESS)
    policy["spec"]["ingress"][0]["ports"] = ports
    assert found_by([VLLM, VLLM_SERVICE, policy], POLICY) == []


def test_a_second_policy_admitting_the_pod_port_is_silent():
    other = copy.deepcopy(INGRESS)
    other["metadata"]["name"] = "metrics"
    other["spec"]["ingress"][0]["ports"] = [{"port": 8000}]
    assert found_by([VLLM, VLLM_SERVICE, INGRESS, other], POLICY) == []


def test_pods_that_also_listen_on_the_service_port_are_silent():
    server = copy.deepcopy(VLLM)
    server["spec"]["template"]["spec"]["containers"][0]["ports"].append({"containerPort": 80})
    assert found_by([server, VLLM_SERVICE, INGRESS], POLICY) == []


@pytest.mark.parametrize(
    "peer",
    [
        {"namespaceSelector": {}},  # every namespace: no sign of this Service (set 38 Ting-YuChou's 443/80 egress)
        {"ipBlock": {"cidr": "10.0.0.0/8"}},
        {"namespaceSelector": {"matchLabels": {"team": "platform"}}},
    ],
)
def test_egress_peers_that_do_not_single_the_service_out_are_silent(peer):
    policy = copy.deepcopy(EGRESS)
    policy["spec"]["egress"][0]["to"] = [peer]
    assert found_by([SERVER, SERVICE, policy], POLICY) == []


def test_a_service_outside_the_files_is_silent():
    assert found_by([EGRESS], POLICY) == []  # set 38 itself: AIBrix's Service is not in the files
