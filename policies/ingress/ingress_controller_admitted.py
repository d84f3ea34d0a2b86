"""G62 ingress-controller-admitted: a namespace whose NetworkPolicies drop the ingress controller its routes need.

A NetworkPolicy with an empty ``podSelector`` and Ingress among its ``policyTypes`` (Ingress is implied when the field
is absent) isolates every pod of its namespace for ingress: "the only allowed connections into the pod are those from
the pod's node and those allowed by the ingress list of some NetworkPolicy that applies to the pod"
(https://kubernetes.io/docs/concepts/services-networking/network-policies/#the-two-sorts-of-pod-isolation). A peer that
is a bare ``podSelector`` selects pods "in the same namespace as the NetworkPolicy"; only a ``namespaceSelector`` admits
pods of other namespaces and only an ``ipBlock`` admits addresses outside the cluster (same page, "Behavior of to and
from selectors"). An ingress controller runs in a namespace of its own (ingress-nginx, traefik, istio-system,
envoy-gateway-system) and a cloud load balancer that targets pod IPs connects from outside the cluster, so when every
ingress rule of the namespace's policies admits only pods of the namespace, an Ingress or HTTPRoute that sends traffic
to a Service there gets no connection through: requests time out (spent set 37, qais001-pr/Multi-Tenant-AI-Inference-
And-Traffic-Hub k8s/networkpolicies/all-deny.yaml@e3d9eb8 default-deny-all, with allow policies from the backend and
frontend pods only, while Ingress ollama-ingress routes / and /api to Services of namespace ollamahub).

Advice: a controller on the host network connects from the node, which the page admits ("those from the pod's node")
only for the pod's own node and which plugins treat differently, and a controller may run in the namespace itself (the
rule is silent when a workload of the namespace runs a proxy image). Silent when any ingress rule of the namespace
admits a namespace, an address block or every source, or when another kind of network policy (Cilium, Calico,
AdminNetworkPolicy) is in the run.

The same row covers the model server's other callers (policies/ingress/callers_admitted.py): a model server isolated for
Ingress with no ingress rule at all behind a Service of the run, or whose rules do not admit a pod of the run that calls
its Service by URL: those requests time out too (spent set 62). The caller's own egress rules are
caller-egress-reaches-service's (same module, blocking).

And callers from outside the cluster (session 49, advice; callers_admitted.outside_findings): the pods behind a
LoadBalancer or NodePort Service isolated for Ingress whose rules on the target port admit only pod and namespace peers:
outside clients arrive from their own address (externalTrafficPolicy Local keeps it) or a node's (Cluster masquerades:
kubernetes/api core/v1/types.go:5967-5975@v0.34.0), never a pod's, and only the pod's own node is exempt
(networking/v1/types.go:71-75) (spent set 67 Josh-Archer/swe-agent k8s/networkpolicy.yaml@83f04a5); and the pods behind an
Ingress of a controller that runs as pods (nginx, Traefik, HAProxy, Kong, Contour, Istio...) whose rules admit only
address blocks narrower than a /16, the narrowest default pod range, while the controller connects from its pod address
(spent set 68 jakepage91/operating-llms-on-kubernetes kubernetes/network-policies.yaml@1a140d0: 192.168.1.0/24 behind
Traefik). A cloud balancer's class (gce, alb) connects from its own ranges and is not read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from policies.framework import Policy, Resource
from policies.ingress.callers_admitted import caller_findings, outside_findings
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, containers, get, pod_specs, split_type
from policies.reading.edge import ingress_backend_ports
from policies.reading.serving import namespace_of

_NETPOL = ("networking.k8s.io", "NetworkPolicy")
_INGRESS_GROUPS = ("networking.k8s.io", "extensions")
_ROUTES = ("HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute")
_OTHER_POLICIES = ("CiliumNetworkPolicy", "CiliumClusterwideNetworkPolicy", "GlobalNetworkPolicy", "AdminNetworkPolicy")
# Images of proxies that serve Ingresses or Gateways: one running in the namespace is admitted by a podSelector peer.
_PROXY_IMAGES = ("ingress-nginx", "nginx-ingress", "traefik", "envoy", "haproxy", "kong", "istio/proxyv2", "contour")


def _isolates_ingress(policy: Resource) -> bool:
    """networking.k8s.io/v1 NetworkPolicySpec.policyTypes: Ingress is always implied when the field is absent."""
    types = as_list(get(policy.props, "spec", "policyTypes"))
    return "Ingress" in types or not types


def _every_pod(policy: Resource) -> bool:
    selector = get(policy.props, "spec", "podSelector")
    return not isinstance(selector, Mapping) or not (selector.get("matchLabels") or selector.get("matchExpressions"))


def _admits_outside(rule: Any) -> bool:
    """True when an ingress rule may admit a connection from outside the namespace: no ``from`` (every source), or a
    peer that is not a bare podSelector (a namespaceSelector, an ipBlock, or something unreadable)."""
    peers = as_list(as_dict(rule).get("from"))
    return not peers or any(not isinstance(p, Mapping) or set(p) != {"podSelector"} for p in peers)


def _routes_into(resources: list[Resource], namespace: str) -> list[str]:
    """ "Kind name (Services a, b)" of every Ingress or Gateway API route that sends traffic to a Service of the
    namespace."""
    found = []
    for route in resources:
        group, kind = split_type(route.type)
        if not isinstance(route.props, dict) or route.patch:
            continue
        name = get(route.props, "metadata", "name")
        if kind == "Ingress" and group in _INGRESS_GROUPS and namespace_of(route, "default") == namespace:
            services = [service for service, _ in ingress_backend_ports(route)]
        elif kind in _ROUTES and group.startswith("gateway.networking.k8s.io"):
            own = namespace_of(route, "default")
            refs = [
                as_dict(ref) for rule in as_list(get(route.props, "spec", "rules")) for ref in as_list(get(rule, "backendRefs"))
            ]
            services = [
                r["name"]
                for r in refs
                if isinstance(r.get("name"), str) and r.get("kind") in (None, "Service") and r.get("namespace", own) == namespace
            ]
        else:
            continue
        if services:
            found.append(f"{kind} {name} (Service {', '.join(dict.fromkeys(services))})")
    return found


def _proxy_in(resources: list[Resource], namespace: str) -> bool:
    for workload in resources:
        if workload.type not in WORKLOAD_TYPES or not isinstance(workload.props, dict):
            continue
        if namespace_of(workload, "default") != namespace:
            continue
        images = [str(c.get("image") or "") for _, spec in pod_specs(workload) for c in containers(spec)]
        if any(marker in image for image in images for marker in _PROXY_IMAGES):
            return True
    return False


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    if any(split_type(r.type)[1] in _OTHER_POLICIES for r in resources):
        return []
    if not any(split_type(r.type) == _NETPOL for r in resources):
        return []
    by_namespace: dict[str, list[Resource]] = {}
    for policy in resources:
        if split_type(policy.type) == _NETPOL and isinstance(policy.props, dict) and not policy.patch:
            by_namespace.setdefault(namespace_of(policy, "default"), []).append(policy)
    findings: list[tuple[str, str]] = []
    for namespace, policies in sorted(by_namespace.items()):
        isolating = [p for p in policies if _isolates_ingress(p)]
        deny_all = [p for p in isolating if _every_pod(p)]
        rules = [rule for p in isolating for rule in as_list(get(p.props, "spec", "ingress"))]
        if not deny_all or any(_admits_outside(rule) for rule in rules) or _proxy_in(resources, namespace):
            continue
        routes = _routes_into(resources, namespace)
        if not routes:
            continue
        allows = [p for p in isolating if as_list(get(p.props, "spec", "ingress"))]
        admitted = (
            f"the ingress rules of {', '.join(get(p.props, 'metadata', 'name') for p in allows)} admit only pods of "
            f"{namespace} (podSelector peers, no namespaceSelector or ipBlock)"
            if allows
            else "no ingress rule admits anything"
        )
        message = (
            f"isolates every pod of namespace {namespace} for Ingress, and {admitted}, while {'; '.join(routes)} "
            f"sends traffic to this namespace: the ingress controller runs in a namespace of its own (a cloud load "
            f"balancer connects from outside the cluster), so its connections to the backend pods are dropped and "
            f"requests time out; admit the controller's namespace (namespaceSelector kubernetes.io/metadata.name: "
            f"<its namespace>) on the backends' ports (a controller on the host network or in this namespace may "
            f"still get through)"
        )
        findings.append((deny_all[0].name, message))
    return findings + caller_findings(resources, {name for name, _ in findings}) + outside_findings(resources)


POLICY = Policy(
    name="ingress-controller-admitted",
    description=(
        "A namespace whose NetworkPolicies isolate every pod for Ingress admits the ingress controller (another "
        "namespace) when an Ingress or Gateway API route sends traffic to a Service in it, and a model server's "
        "NetworkPolicies admit the pods of the run that call its Service (ingress rules on the server, egress rules on "
        "the caller), and pods behind a LoadBalancer/NodePort Service or an in-cluster controller's Ingress admit those "
        "outside callers (an ipBlock, a namespaceSelector) (advice)."
    ),
    rationale=(
        "A bare podSelector peer admits pods of the policy's own namespace only; an ingress controller runs in its own "
        "namespace and a pod-IP load balancer outside the cluster "
        "(https://kubernetes.io/docs/concepts/services-networking/network-policies/)."
    ),
    catalog="G62",
    severity="high",
    enforcement="advisory",
    remediation_steps=(
        "Add an ingress rule to the backend pods' policy with `from: [{namespaceSelector: {matchLabels: "
        "{kubernetes.io/metadata.name: ingress-nginx}}}]` (the controller's namespace) on the container port, or an "
        "ipBlock of the load balancer's subnets for a pod-IP cloud load balancer."
    ),
    config_schema={},
    check_stack=_check,
)
