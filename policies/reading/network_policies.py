"""Which NetworkPolicies of a run apply to a pod, and what the union of their rules lets through.

Kubernetes semantics (https://kubernetes.io/docs/concepts/services-networking/network-policies/, networking.k8s.io/v1
NetworkPolicySpec): a policy applies to the pods of its own namespace its ``podSelector`` matches (``{}`` or absent:
every pod); it isolates them for Egress when ``policyTypes`` lists Egress, or, with no ``policyTypes``, when it has
egress rules; for Ingress when ``policyTypes`` lists Ingress or is absent. Once isolated, a pod may open only what some
rule of some policy applying to it allows (the union): a rule with no ``to``/``from`` admits every peer, one with no
``ports`` every port and protocol; a NetworkPolicyPort's ``protocol`` defaults to TCP, its ``port`` absent means every
port of that protocol, ``endPort`` makes a range. Pods on the host network are not isolated: "NetworkPolicy behavior
for hostNetwork pods is undefined" and most plugins do not apply it (same page, "Pod lifecycle" and hostNetwork notes).

A policy with no (or a templated) ``metadata.namespace`` lands in whichever namespace ``kubectl apply -n`` names
(ARK322/voxeil-panel tenant/networkpolicy-deny-all.yaml: "namespace is set by the controller per tenant"): ``unplaced``
lists those that would select a pod of another namespace, for a reader to count their rules as maybe-present.

Read by G33 egress-allows-model-download, G81 egress-allows-dns and G82 scrape-and-scaler-reach.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Iterable, Optional

from policies.kube import as_dict, as_int, as_list, get, memoized, split_type
from policies.reading.serving import namespace_of, selector_matches

NETPOL = ("networking.k8s.io", "NetworkPolicy")
# Policy kinds of other engines (Cilium, Calico, the cluster-wide AdminNetworkPolicy) that may allow what a
# NetworkPolicy does not: where the files hold one, a finding is advice.
OTHER_POLICIES = (
    "CiliumNetworkPolicy",
    "CiliumClusterwideNetworkPolicy",
    "GlobalNetworkPolicy",
    "AdminNetworkPolicy",
    "BaselineAdminNetworkPolicy",
)
_CALICO = "projectcalico.org"


def network_policies(resources: Iterable[Any]) -> list[Any]:
    """Every networking.k8s.io NetworkPolicy of the run whose body is a mapping."""
    return [r for r in resources if split_type(r.type) == NETPOL and isinstance(r.props, dict)]


def other_engine(resources: Iterable[Any]) -> bool:
    """Whether the files hold a network policy of another engine (Cilium, Calico, AdminNetworkPolicy)."""
    for r in resources:
        group, kind = split_type(r.type)
        if kind in OTHER_POLICIES or (_CALICO in group and "Policy" in kind):
            return True
    return False


def selects(policy: Any, labels: Mapping[str, Any]) -> bool:
    """Whether the policy's podSelector matches a pod with these labels (``{}`` or absent: every pod)."""
    selector = get(policy.props, "spec", "podSelector")
    if not isinstance(selector, Mapping) or not (selector.get("matchLabels") or selector.get("matchExpressions")):
        return True
    return selector_matches(selector, labels)


def selects_every_pod(policy: Any) -> bool:
    """Whether the policy's podSelector is ``{}`` or absent (every pod of its namespace): a namespace-wide default, no
    one workload's policy, so a finding of what it leaves out is said on the workload as well."""
    selector = get(policy.props, "spec", "podSelector")
    return not isinstance(selector, Mapping) or not (selector.get("matchLabels") or selector.get("matchExpressions"))


def isolates(policy: Any, direction: str) -> bool:
    """Whether the policy isolates the pods it selects for ``direction`` ("Ingress" or "Egress")."""
    types = as_list(get(policy.props, "spec", "policyTypes"))
    if types:
        return direction in types
    return direction == "Ingress" or bool(as_list(get(policy.props, "spec", "egress")))


def applying(policies: list[Any], namespace: str, label_sets: list[dict], direction: str) -> list[Any]:
    """The policies of ``namespace`` that isolate a pod with one of ``label_sets`` for ``direction``."""
    return [
        p
        for p in policies
        if namespace_of(p, "default") == namespace and isolates(p, direction) and any(selects(p, ls) for ls in label_sets)
    ]


def _placed(policy: Any) -> bool:
    """Whether the policy names its namespace: a literal metadata.namespace (not a ``${NS}``/``{{ }}`` template)."""
    value = get(policy.props, "metadata", "namespace")
    return isinstance(value, str) and bool(value) and not any(t in value for t in ("${", "{{", "$("))


def unplaced(policies: list[Any], namespace: str, label_sets: list[dict], direction: str) -> list[Any]:
    """Policies that leave their namespace out (or template it) and would isolate such pods for ``direction`` when
    applied with ``kubectl apply -n NS``, a per-tenant form: they may apply to a pod of ``namespace`` (when it is not
    "default", where ``applying`` already counts them), so a rule of theirs is a "maybe", not an absence."""
    return [
        p
        for p in policies
        if not _placed(p)
        and namespace_of(p, "default") != namespace
        and isolates(p, direction)
        and any(selects(p, ls) for ls in label_sets)
    ]


def rules(policies: list[Any], direction: str) -> list[tuple[Any, int, dict]]:
    """(policy, index, rule) of every rule of ``direction`` ("ingress" or "egress") of the policies: their union."""
    return [(p, i, as_dict(r)) for p in policies for i, r in enumerate(as_list(get(p.props, "spec", direction)))]


def port_admits(port: Mapping, number: int, names: tuple[str, ...], protocol: str) -> bool:
    """Whether one NetworkPolicyPort admits ``number`` (or a pod port named one of ``names``) over ``protocol``."""
    if str(port.get("protocol") or "TCP").upper() != protocol:
        return False
    value, end = port.get("port"), as_int(port.get("endPort"))
    if value is None or as_int(value) == number or (isinstance(value, str) and value in names):
        return True
    first = as_int(value)
    return first is not None and end is not None and first <= number <= end


def ports_admit(rule: Mapping, number: int, names: tuple[str, ...], protocol: str) -> Optional[bool]:
    """Whether a rule's ports admit ``number`` over ``protocol``: True when listed (or a range holds it), None when the
    rule lists no ports (every port and protocol), False otherwise."""
    ports = [as_dict(p) for p in as_list(rule.get("ports"))]
    if not ports:
        return None
    return any(port_admits(p, number, names, protocol) for p in ports)


def egress_isolated(resources: list[Any], namespace: str, label_sets: list[dict]) -> list[Any]:
    """The NetworkPolicies of the run that isolate such pods for Egress (memoized list of the run's policies)."""
    return applying(memoized(resources, "network_policies", network_policies), namespace, label_sets, "Egress")
