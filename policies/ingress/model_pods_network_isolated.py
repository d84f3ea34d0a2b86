"""G33: a serving namespace's model pods must not be reachable by every pod of the cluster.

vLLM's API key guards only a few path prefixes (0.33.0 ``entrypoints/serve/middleware/authenticate.py:11``):
``/invocations`` (the same inference), ``/tokenize`` and ``/metrics`` answer anyone who can open a
connection to the pod. Without a NetworkPolicy every pod of the cluster can (Kubernetes: "By default, a
pod is non-isolated for ingress; all inbound connections are allowed"), so one compromised or careless
workload anywhere reads and spends the GPUs.

A model-serving pod counts as isolated when at least one NetworkPolicy of its namespace selects it for
Ingress (``policyTypes`` lists Ingress, or is absent and the policy has ingress rules or none at all),
and none of the rules that select it admits every pod on its API port. A rule admits every pod when it
has no ``from`` (all sources), or a ``from`` peer that is ``namespaceSelector: {}`` with no or an empty
``podSelector`` (every pod of every namespace), or an ``ipBlock`` of all IPv4 or IPv6 addresses (on the
VPC CNI pods have VPC addresses, so an ipBlock names pods too). A rule limited to other ports than the
model server's API port (its ``--port``, 8000 by default, or that containerPort's name) does not open it. Allowing the pods of the same namespace only is not "every pod".

The kubelet's probes need no rule: traffic from the pod's own node is always admitted (EKS network
policy agent v1.4.1 ``pkg/fwruleprocessor/fw_rule_processor.go:80-84``). Policies are enforced only where
the cluster runs a network policy agent (on EKS, the VPC CNI with ``enableNetworkPolicy``).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any

from policies.framework import Policy, Resource
from policies.kube import as_dict, as_list, decimal, get, name_of, pod_specs, port_number, split_type
from policies.reading.serving import is_serving_app, model_servers, namespace_of, pod_labels, selector_matches

RAY_KINDS = ("RayCluster", "RayService")


def _serving_workloads(resources: list[Resource]) -> list[tuple[Resource, list[dict], list[dict]]]:
    """(workload, label sets of its API pods, its model-server containers) of every model-serving workload."""
    out = []
    for r in resources:
        group, kind = split_type(r.type)
        if group == "ray.io" and kind in RAY_KINDS:
            name = get(r.props, "metadata", "name")
            spec = as_dict(get(r.props, "spec"))
            cluster = as_dict(spec.get("rayClusterConfig") or spec)
            labels = dict(as_dict(get(cluster, "headGroupSpec", "template", "metadata", "labels")))
            labels.update({"ray.io/cluster": name, "ray.io/node-type": "head"})
            heads = [c for path, podspec in pod_specs(r) if "head" in path.lower() for c in as_list(podspec.get("containers"))]
            if model_servers(r):
                out.append((r, [labels], [c for c in heads if isinstance(c, dict)]))
        elif is_serving_app(r):
            out.append((r, pod_labels(r), [s.container for s in model_servers(r)]))
    return out


def _selects(policy: Resource, labels: Mapping[str, Any]) -> bool:
    selector = get(policy.props, "spec", "podSelector")
    if not isinstance(selector, Mapping) or not (selector.get("matchLabels") or selector.get("matchExpressions")):
        return True  # {} or absent: every pod of the namespace
    return selector_matches(selector, labels)


def _ingress_type(policy: Resource) -> bool:
    types = as_list(get(policy.props, "spec", "policyTypes"))
    # Without policyTypes, Ingress is always implied (networking.k8s.io/v1 NetworkPolicySpec.policyTypes).
    return not types or "Ingress" in types


def _everyone(peer: Any) -> bool:
    peer = as_dict(peer)
    if "ipBlock" in peer:
        block = as_dict(peer["ipBlock"])
        try:
            net = ipaddress.ip_network(str(block.get("cidr", "")).strip(), strict=False)
        except ValueError:
            return False
        return net.prefixlen == 0 and not as_list(block.get("except"))
    ns = peer.get("namespaceSelector")
    pods = peer.get("podSelector")
    empty = lambda s: isinstance(s, Mapping) and not (s.get("matchLabels") or s.get("matchExpressions"))  # noqa: E731
    return empty(ns) and (pods is None or empty(pods))


# vLLM's default --port (vllm/entrypoints/common/cli_args.py at 0.33.0), also the port of most other servers' samples.
DEFAULT_API_PORT = 8000


def _port_key(value: Any) -> Any:
    """A port as one comparable value: numbers as int (the offline engine hands them over as floats), names as str."""
    if isinstance(value, (int, float)) and float(value).is_integer():
        return int(value)
    text = str(value)
    number = decimal(text)
    return number if number is not None else text


def _api_port(container: Mapping) -> int:
    argv = [str(t) for key in ("command", "args") for t in as_list(container.get(key))]
    tokens = [t for a in argv for t in a.split()]
    for i, t in enumerate(tokens):
        if t == "--port" and i + 1 < len(tokens) and port_number(tokens[i + 1]) is not None:
            return port_number(tokens[i + 1]) or DEFAULT_API_PORT
        if t.startswith("--port=") and port_number(t[7:]) is not None:
            return port_number(t[7:]) or DEFAULT_API_PORT
    return DEFAULT_API_PORT


def _ports(containers: list[dict]) -> set[Any]:
    """The model servers' API ports, by number and by the name their containerPort gives them."""
    found: set[Any] = set()
    for c in containers:
        port = _api_port(c)
        found.add(port)
        for p in as_list(c.get("ports")):
            p = as_dict(p)
            if p.get("containerPort") is not None and _port_key(p["containerPort"]) == port and name_of(p):
                found.add(p["name"])
    return found


def _rule_reaches(rule: Mapping, ports: set[Any]) -> bool:
    listed = as_list(rule.get("ports"))
    if not listed:
        return True
    for p in listed:
        port = as_dict(p).get("port")
        if port is None or _port_key(port) in ports:
            return True
        end = as_dict(p).get("endPort")
        if isinstance(_port_key(port), int) and end is not None:
            if any(isinstance(x, int) and _port_key(port) <= x <= _port_key(end) for x in ports):
                return True
    return False


def _open_rule(policies: list[Resource], ports: set[Any]) -> str | None:
    """The first rule of these policies that admits every pod on the model's ports, described."""
    for pol in policies:
        for i, rule in enumerate(as_list(get(pol.props, "spec", "ingress"))):
            rule = as_dict(rule)
            if not _rule_reaches(rule, ports):
                continue
            peers = as_list(rule.get("from"))
            if not peers:
                return f"NetworkPolicy {get(pol.props, 'metadata', 'name')} spec.ingress[{i}] has no from: every source"
            for j, peer in enumerate(peers):
                if _everyone(peer):
                    return f"NetworkPolicy {get(pol.props, 'metadata', 'name')} spec.ingress[{i}].from[{j}] admits every pod"
    return None


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    by_ns: dict[str | None, list[Resource]] = {}
    for r in resources:
        if split_type(r.type)[1] == "NetworkPolicy":
            by_ns.setdefault(namespace_of(r), []).append(r)
    findings = []
    for workload, label_sets, servers in _serving_workloads(resources):
        ns = namespace_of(workload)
        kind, name = split_type(workload.type)[1], get(workload.props, "metadata", "name")
        where = f"{kind} {ns or '<default>'}/{name}"
        for labels in label_sets:
            selecting = [p for p in by_ns.get(ns, []) if _ingress_type(p) and _selects(p, labels)]
            if not selecting:
                findings.append(
                    (
                        workload.name,
                        f"{where}: no NetworkPolicy of namespace {ns or '<default>'} selects its model pods for Ingress, so "
                        "every pod of the cluster reaches them, and with them the paths vLLM's API key does not guard "
                        "(/invocations, /tokenize, /metrics)",
                    )
                )
                break
            opened = _open_rule(selecting, _ports(servers))
            if opened:
                findings.append(
                    (
                        workload.name,
                        f"{where}: {opened} on the model server's port, so every pod of the cluster reaches its model pods "
                        "(and the paths vLLM's API key does not guard: /invocations, /tokenize, /metrics)",
                    )
                )
                break
    return findings


POLICY = Policy(
    name="model-pods-network-isolated",
    description="A serving namespace's model pods must be selected by a NetworkPolicy that admits only named callers "
    "(the gateway, Prometheus), not every pod of the cluster.",
    catalog="G33",
    severity="high",
    enforcement="advisory",
    remediation_steps=(
        "Add a default-deny NetworkPolicy to the serving namespace (podSelector: {}, policyTypes: [Ingress]) and one per "
        "model that admits its API port from the ingress gateway's pods and Prometheus's pods only (namespaceSelector on "
        "kubernetes.io/metadata.name plus a podSelector); the kubelet's probes need no rule. On EKS enable the VPC CNI's "
        'network policy agent (enableNetworkPolicy: "true"). llm-serving renders these with routing istio. Annotate '
        'llm-serving.io/exempt-model-pods-network-isolated: "<reason>" where a mesh policy or a separate cluster isolates them.'
    ),
    check_stack=_check,
    rationale=(
        "Pods are non-isolated for ingress until a NetworkPolicy selects them "
        "(https://kubernetes.io/docs/concepts/services-networking/network-policies/); vLLM's key leaves /invocations, "
        "/tokenize and /metrics open (0.33.0 entrypoints/serve/middleware/authenticate.py:11, :59), so any pod that can "
        "connect can run inference. Catalogue row 33 (Kyverno add-network-policy / require-netpol, Polaris "
        "missingNetworkPolicy, kube-linter non-isolated-pod). The EKS agent always admits the local node, so probes "
        "keep working (aws-network-policy-agent v1.4.1 pkg/fwruleprocessor/fw_rule_processor.go:80-84)."
    ),
)
