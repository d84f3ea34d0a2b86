"""The models' NetworkPolicies: a default deny for the namespace, and per model the gateway and Prometheus on its
API port; a multi-node engine's own pods on every port (issue 31, deliverable 3).

Upstream facts:
- prometheus-operator v0.93.0 pkg/prometheus/server/operator.go:1696-1703 makeSelectorLabels and :61: every pod of a
  Prometheus carries app.kubernetes.io/name: prometheus (kube-prometheus-stack 88.5.3 runs operator v0.93.x);
- Istio 1.30.3 gateway chart: the gateway pods carry istio: ingressgateway (the Gateway's selector, builders/ingress.py);
- aws-network-policy-agent v1.4.1 pkg/fwruleprocessor/fw_rule_processor.go:80-84: traffic from the local node is
  always allowed, so the kubelet's probes need no rule;
- kuberay v1.7.0 helm-chart/kuberay-operator/templates/deployment.yaml:22: the operator's pods carry
  app.kubernetes.io/name: kuberay-operator.
"""

from __future__ import annotations

from components.builders import network_policy as netpol
from tests.builders.test_ingress_builder import stack
from tests.kube_schemas import validate_object

GATEWAY = {
    "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "istio-ingress"}},
    "podSelector": {"matchLabels": {"istio": "ingressgateway"}},
}
PROMETHEUS = {
    "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}},
    "podSelector": {"matchLabels": {"app.kubernetes.io/name": "prometheus"}},
}


def prod_policies():
    cfg, _, _ = stack()
    return cfg, netpol.network_policies(cfg.models, cfg.namespace, cfg.ingress.routing, "monitoring", "kuberay-system")


def test_prod_renders_a_default_deny_and_one_allow_per_model_that_validate():
    cfg, policies = prod_policies()
    assert all(validate_object(p) == [] for p in policies)
    names = [p["metadata"]["name"] for p in policies]
    assert names == [
        "llm-default-deny-ingress",
        "chat-8b-api-ingress",
        "qwen3-32b-api-ingress",
        "llama-70b-api-ingress",
        "llama-405b-api-ingress",
        "llama-405b-engine-peers",
        "llama-405b-operator-dashboard",
    ]
    deny = policies[0]["spec"]
    assert deny == {"podSelector": {}, "policyTypes": ["Ingress"]}


def test_a_model_admits_the_gateway_and_prometheus_on_its_api_port_only():
    _, policies = prod_policies()
    chat = next(p for p in policies if p["metadata"]["name"] == "chat-8b-api-ingress")["spec"]
    # KServe labels every predictor pod with its InferenceService (the PodMonitor selects on it too).
    assert chat["podSelector"] == {"matchLabels": {"serving.kserve.io/inferenceservice": "chat-8b"}}
    assert chat["ingress"] == [{"from": [GATEWAY, PROMETHEUS], "ports": [{"protocol": "TCP", "port": "http"}]}]


def test_a_multi_node_engine_reaches_its_own_pods_and_the_operator_its_dashboard():
    _, policies = prod_policies()
    by_name = {p["metadata"]["name"]: p["spec"] for p in policies}
    api = by_name["llama-405b-api-ingress"]
    assert api["podSelector"] == {"matchLabels": {"ray.io/cluster": "llama-405b", "ray.io/node-type": "head"}}
    peers = by_name["llama-405b-engine-peers"]
    assert peers["podSelector"] == {"matchLabels": {"ray.io/cluster": "llama-405b"}}
    assert peers["ingress"] == [{"from": [{"podSelector": {"matchLabels": {"ray.io/cluster": "llama-405b"}}}]}]
    dashboard = by_name["llama-405b-operator-dashboard"]["ingress"][0]
    assert dashboard["ports"] == [{"protocol": "TCP", "port": 8265}]
    assert dashboard["from"][0]["podSelector"] == {"matchLabels": {"app.kubernetes.io/name": "kuberay-operator"}}


def test_direct_routing_renders_none():
    # The ALB reaches the pods from VPC addresses, which on the VPC CNI pods share: no ipBlock separates them.
    cfg, _, _ = stack("dev")
    assert netpol.network_policies(cfg.models, cfg.namespace, cfg.ingress.routing, "monitoring") == []


def test_prometheus_namespace_comes_from_its_url_or_the_monitoring_namespace():
    assert netpol.prometheus_namespace("http://prometheus-operated.observability.svc:9090", "monitoring") == "observability"
    assert netpol.prometheus_namespace("http://prometheus-operated.obs.svc.cluster.local:9090/", "monitoring") == "obs"
    assert netpol.prometheus_namespace(None, "monitoring") == "monitoring"
    assert netpol.prometheus_namespace("https://prom.example.com", "monitoring") == "monitoring"
