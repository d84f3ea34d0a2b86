"""Who may reach the model pods inside the cluster: Kubernetes NetworkPolicies, per model namespace.

Pure functions. The models' namespace gets a default deny of ingress for every pod in it, and each model
an allow for exactly the callers the stack has:

* the Istio ingress gateway's pods (namespace ``istio-ingress``, label ``istio: ingressgateway``) on the
  model's API port: every request from the ALB arrives through them;
* Prometheus on the same port (vLLM serves ``/metrics`` there): pods labelled ``app.kubernetes.io/name:
  prometheus`` in Prometheus's namespace, the selector label the Prometheus Operator puts on every pod of a
  ``Prometheus`` (prometheus-operator v0.93.0 pkg/prometheus/server/operator.go:1696-1703 makeSelectorLabels,
  :61 applicationNameLabelValue = "prometheus"; kube-prometheus-stack 88.5.3 runs operator v0.93.x);
* for a multi-node engine, the engine's own pods (``ray.io/cluster``) on every port (GCS, object manager,
  NCCL), and the KubeRay operator on the head's dashboard port, which its RayService and RayJob
  controllers call (ray-project/kuberay v1.7.0 ray-operator/controllers/ray/utils/dashboard_httpclient.go);
  the operator's pods carry ``app.kubernetes.io/name: kuberay-operator``
  (helm-chart/kuberay-operator/templates/deployment.yaml:22 at v1.7.0).

The kubelet's probes need no rule: they come from the node's own address, and the EKS network policy
agent always admits the local node (aws/aws-network-policy-agent v1.4.1
pkg/fwruleprocessor/fw_rule_processor.go:80-84, "Traffic from the local node should always be allowed");
Kubernetes' NetworkPolicy documentation says the same of every implementation.

Why NetworkPolicy and not Istio AuthorizationPolicy: the model pods carry no Istio sidecar (the mesh is
the ingress gateway alone; an Envoy beside each GPU pod would add a hop and its own drain to every
request), and an AuthorizationPolicy is enforced only by the destination's proxy. A NetworkPolicy is
enforced at the pod's network interface by the node's agent, whichever client calls. It needs the
VPC CNI's network policy agent, which is off by default: ``enableNetworkPolicy: "true"`` in the vpc-cni
add-on's configuration (docs/platform.md); without it the objects are accepted and enforce nothing.

Only with routing istio: with routing direct the ALB targets the pods from its own addresses in the
VPC, which a NetworkPolicy can name only by ``ipBlock``, and on the VPC CNI the pods' addresses are
VPC addresses too, so no rule could admit the ALB and refuse the pods.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Optional

from ..config import ModelConfig
from .ingress import GATEWAY_NAMESPACE, GATEWAY_SELECTOR
from .labels import recommended_labels
from .monitoring import METRICS_PORT
from .ray_cluster import DASHBOARD_PORT, RAY_CLUSTER_LABEL
from .serving_backend import serving_backend

DEFAULT_DENY = "llm-default-deny-ingress"
# The label Kubernetes sets on every namespace (its name), so a namespaceSelector needs no label of ours.
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"
PROMETHEUS_SELECTOR = {"app.kubernetes.io/name": "prometheus"}
KUBERAY_OPERATOR_SELECTOR = {"app.kubernetes.io/name": "kuberay-operator"}


def _peer(namespace: str, pods: Mapping[str, str]) -> dict[str, Any]:
    return {
        "namespaceSelector": {"matchLabels": {NAMESPACE_NAME_LABEL: namespace}},
        "podSelector": {"matchLabels": dict(pods)},
    }


def _policy(name: str, namespace: str, component: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": namespace, "labels": recommended_labels(name, component=component)},
        "spec": spec,
    }


def default_deny(namespace: str) -> dict[str, Any]:
    """Every pod of the namespace selected for ingress with no rule: nothing reaches it unless a policy allows it."""
    return _policy(DEFAULT_DENY, namespace, "network-policy", {"podSelector": {}, "policyTypes": ["Ingress"]})


def model_policy(
    m: ModelConfig, namespace: str, prometheus_namespace: Optional[str], kuberay_namespace: Optional[str] = None
) -> list[dict[str, Any]]:
    """The allows of one model: the gateway and Prometheus on its API port; a multi-node engine's own pods."""
    backend = serving_backend(m)
    api_pods = backend.metrics_pods(m)
    sources = [_peer(GATEWAY_NAMESPACE, GATEWAY_SELECTOR)]
    if prometheus_namespace is not None:
        sources.append(_peer(prometheus_namespace, PROMETHEUS_SELECTOR))
    out = [
        _policy(
            f"{m.name}-api-ingress",
            namespace,
            "network-policy",
            {
                "podSelector": {"matchLabels": dict(api_pods)},
                "policyTypes": ["Ingress"],
                # vLLM answers the API and /metrics on the same named port.
                "ingress": [{"from": sources, "ports": [{"protocol": "TCP", "port": METRICS_PORT}]}],
            },
        )
    ]
    if backend.multi_node:
        cluster = {RAY_CLUSTER_LABEL: m.name}
        rules: list[dict[str, Any]] = [{"from": [{"podSelector": {"matchLabels": cluster}}]}]
        out.append(
            _policy(
                f"{m.name}-engine-peers",
                namespace,
                "network-policy",
                {"podSelector": {"matchLabels": cluster}, "policyTypes": ["Ingress"], "ingress": rules},
            )
        )
        if kuberay_namespace is not None:
            out.append(
                _policy(
                    f"{m.name}-operator-dashboard",
                    namespace,
                    "network-policy",
                    {
                        "podSelector": {"matchLabels": dict(api_pods)},
                        "policyTypes": ["Ingress"],
                        "ingress": [
                            {
                                "from": [_peer(kuberay_namespace, KUBERAY_OPERATOR_SELECTOR)],
                                "ports": [{"protocol": "TCP", "port": DASHBOARD_PORT}],
                            }
                        ],
                    },
                )
            )
    return out


def network_policies(
    models: Iterable[ModelConfig],
    namespace: str,
    routing: str,
    prometheus_namespace: Optional[str],
    kuberay_namespace: Optional[str] = None,
) -> list[dict[str, Any]]:
    """The models' namespace's NetworkPolicies (routing istio only; [] for direct: see the module docstring)."""
    if routing != "istio":
        return []
    out = [default_deny(namespace)]
    for m in models:
        out.extend(model_policy(m, namespace, prometheus_namespace, kuberay_namespace))
    return out


def prometheus_namespace(url: Optional[str], monitoring_namespace: str) -> str:
    """The namespace of the Prometheus that scrapes the models: the one its in-cluster URL names
    (``http://<service>.<namespace>.svc:9090``), else the monitoring namespace where the platform installs it."""
    if url:
        host = url.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0]
        parts = host.split(".")
        if len(parts) >= 3 and parts[2] == "svc":
            return parts[1]
    return monitoring_namespace
