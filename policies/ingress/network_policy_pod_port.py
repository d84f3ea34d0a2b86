"""G75: a NetworkPolicy's ports name the pod's port, not the Service's.

A NetworkPolicyPort's ``port`` is "a numerical or named port on a pod" (Kubernetes API, networking.k8s.io/v1
NetworkPolicyPort.port): the policy sees traffic after the Service has translated its ``port`` to the pods'
``targetPort`` (https://kubernetes.io/docs/concepts/services-networking/network-policies/). A rule that lists the
Service's port where the Service forwards to another one therefore matches nothing that reaches the pods through it:

- ingress: a policy selecting a model server's pods admits port 80 while the Service in front maps 80 to 8000, and no
  ingress rule of the policies selecting those pods admits 8000: every request through the Service is dropped;
- egress: a policy lets its pods out to a Service's pods on port 80 while that Service maps 80 to 8000, and no egress
  rule admits 8000 to them: every call through the Service is dropped (spent set 38
  dataandai/aibrix-tenant-gateway k8s/tenant-policy-gateway/networkpolicy.yaml allows TCP 80 to aibrix-system, whose
  gateway Service maps 80 to 8000; that Service is AIBrix's, outside the files, so the set's own file is not judged).

Judged only where the files hold the Service (its targetPort a number, or a name the selected pods' containers
declare) and the workload behind it; silent when the pods also listen on the Service's port, when another rule admits
the target port (no ports, the port, its name, or a range holding it), and for ipBlock peers. Advice: a CNI's own
policies (Cilium, Calico) may admit it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Optional

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, as_int, as_list, containers, get, pod_specs, split_type, viewed_resources
from policies.reading.serving import namespace_of, pod_labels, selector_matches

NETWORK_POLICY_TYPE = "kubernetes:networking.k8s.io/v1:NetworkPolicy"
_METADATA_NAME = "kubernetes.io/metadata.name"


def _ns(resource: Any) -> str:
    return namespace_of(resource, "default")


def _selects(policy_props: Mapping, labels: Mapping[str, Any]) -> bool:
    selector = get(policy_props, "spec", "podSelector")
    if not isinstance(selector, Mapping) or not (selector.get("matchLabels") or selector.get("matchExpressions")):
        return True  # {} or absent: every pod of the namespace
    return selector_matches(selector, labels)


def _has_type(policy_props: Mapping, kind: str) -> bool:
    types = as_list(get(policy_props, "spec", "policyTypes"))
    if types:
        return kind in types
    return kind == "Ingress" or bool(as_list(get(policy_props, "spec", "egress")))


def _admits(ports: Any, number: int, name: Optional[str]) -> bool:
    """Whether a rule's ports admit the pod port ``number`` (named ``name`` on the pod): no ports, the number, the
    name, or a range port..endPort holding it."""
    ports = as_list(ports)
    if not ports:
        return True
    for port in ports:
        port = as_dict(port)
        value, end = port.get("port"), as_int(port.get("endPort"))
        if str(port.get("protocol") or "TCP").upper() != "TCP":
            continue
        if value is None or as_int(value) == number or (name is not None and value == name):
            return True
        first = as_int(value)
        if first is not None and end is not None and first <= number <= end:
            return True
    return False


def _lists(ports: Any, number: int) -> bool:
    """Whether a rule lists ``number`` itself as a TCP port."""
    return any(
        as_int(as_dict(p).get("port")) == number and str(as_dict(p).get("protocol") or "TCP").upper() == "TCP"
        for p in as_list(ports)
    )


def _backends(view: tuple[Any, ...]) -> Iterator[tuple[Any, Any, list[dict], int, int, Optional[str]]]:
    """(Service, workload, its pod label sets, Service port, pod port, pod port name) for each Service port of the files
    that forwards to another port of the workloads it selects."""
    workloads = [r for r in view if r.type in WORKLOAD_TYPES and split_type(r.type)[1] != "CronJob"]
    for service in (r for r in view if split_type(r.type) == ("", "Service")):
        selector = as_dict(get(service.props, "spec", "selector"))
        if not selector:
            continue
        for workload in workloads:
            if _ns(workload) != _ns(service):
                continue
            labels = [ls for ls in pod_labels(workload) if selector_matches(selector, ls, plain=True)]
            if not labels:
                continue
            declared = {
                as_int(p.get("containerPort")): p.get("name")
                for _, podspec in pod_specs(workload)
                for c in containers(podspec)
                for p in (as_dict(x) for x in as_list(as_dict(c).get("ports")))
            }
            for sp in (as_dict(x) for x in as_list(get(service.props, "spec", "ports"))):
                port, target = as_int(sp.get("port")), sp.get("targetPort", sp.get("port"))
                if port is None or str(sp.get("protocol") or "TCP").upper() != "TCP":
                    continue
                number = as_int(target)
                if number is None and isinstance(target, str):
                    number = next((n for n, name in declared.items() if name == target and n is not None), None)
                if number is None or number == port or port in declared:
                    continue  # same port, unknown target, or the pods listen on the Service's port too
                yield service, workload, labels, port, number, declared.get(number)


def _peer_reaches(peer: Mapping, policy_ns: str, target_ns: str, labels: list[dict]) -> Optional[bool]:
    """Whether an egress peer names the target pods: True, False, or None where it does not single them out (an
    ipBlock, every namespace, a namespace label other than its name)."""
    if "ipBlock" in peer:
        return None
    ns_selector, pod_selector = peer.get("namespaceSelector"), peer.get("podSelector")
    empty_pods = not isinstance(pod_selector, Mapping) or not (
        pod_selector.get("matchLabels") or pod_selector.get("matchExpressions")
    )
    if ns_selector is None:
        if empty_pods:
            return None  # every pod of the policy's namespace
        ns_ok = target_ns == policy_ns
    else:
        match = as_dict(as_dict(ns_selector).get("matchLabels"))
        if as_list(as_dict(ns_selector).get("matchExpressions")):
            return None
        if not match or set(match) != {_METADATA_NAME}:
            return None  # every namespace (no sign of this Service), or a label a Namespace outside the files may carry
        ns_ok = match == {_METADATA_NAME: target_ns}
    if not ns_ok:
        return False
    if empty_pods:
        return True
    return any(selector_matches(pod_selector, ls) for ls in labels)


def _ingress(resource: Resource, view: tuple[Any, ...]) -> list[str]:
    found: list[str] = []
    policies = [r for r in view if r.type == NETWORK_POLICY_TYPE and _ns(r) == _ns(resource) and _has_type(r.props, "Ingress")]
    for service, workload, labels, port, number, name in _backends(view):
        if _ns(service) != _ns(resource) or not any(_selects(resource.props, ls) for ls in labels):
            continue
        rules = [as_dict(r) for r in as_list(get(resource.props, "spec", "ingress"))]
        listing = [i for i, rule in enumerate(rules) if _lists(rule.get("ports"), port)]
        if not listing:
            continue
        selecting = [p for p in policies if any(_selects(p.props, ls) for ls in labels)]
        if any(
            _admits(as_dict(r).get("ports"), number, name) for p in selecting for r in as_list(get(p.props, "spec", "ingress"))
        ):
            continue
        found.append(
            unproven(
                f"spec.ingress[{listing[0]}].ports admits {port}, the port of Service {get(service.props, 'metadata', 'name')}, "
                f"but the Service forwards it to port {number} of {split_type(workload.type)[1]} "
                f"{get(workload.props, 'metadata', 'name')}'s pods and a NetworkPolicy matches the pod's port after that "
                f"translation; no ingress rule of the policies selecting those pods admits {number}, so every request "
                f"through the Service is dropped; list port {number}" + (f" (or its name {name})" if name else "")
            )
        )
    return found


def _egress(resource: Resource, view: tuple[Any, ...]) -> list[str]:
    found: list[str] = []
    rules = [as_dict(r) for r in as_list(get(resource.props, "spec", "egress"))]
    for service, _, labels, port, number, name in _backends(view):
        if _ns(service) == _ns(resource) and any(_selects(resource.props, ls) for ls in labels):
            continue  # the policy's own pods: no sign they call their own Service
        reach = [
            (i, rule)
            for i, rule in enumerate(rules)
            for peer in as_list(rule.get("to"))
            if _peer_reaches(as_dict(peer), _ns(resource), _ns(service), labels)
        ]
        listing = [i for i, rule in reach if _lists(rule.get("ports"), port)]
        if not listing or any(_admits(rule.get("ports"), number, name) for _, rule in reach):
            continue
        if any(not as_list(rule.get("to")) and _admits(rule.get("ports"), number, name) for rule in rules):
            continue  # a rule to every destination on that port
        found.append(
            unproven(
                f"spec.egress[{listing[0]}].ports allows {port} to the pods of Service "
                f"{_ns(service)}/{get(service.props, 'metadata', 'name')}, but the Service forwards {port} to their port "
                f"{number} and a NetworkPolicy matches the destination pod's port after that translation; no egress rule "
                f"admits {number} to them, so every call through the Service is dropped; allow port {number}"
            )
        )
    return found


def _check(resource: Resource, config: dict) -> list[str]:
    view = viewed_resources()
    if not view:
        return []
    found = _ingress(resource, view) if _has_type(resource.props, "Ingress") else []
    return found + (_egress(resource, view) if _has_type(resource.props, "Egress") else [])


POLICY = Policy(
    name="network-policy-pod-port",
    description=(
        "A NetworkPolicy's ports name the pods' port: not a Service's port that the Service forwards to another "
        "targetPort (NetworkPolicy matches traffic after the Service's translation)."
    ),
    catalog="G75",
    severity="high",
    enforcement="advisory",
    remediation_steps=(
        "List the container port (the Service's targetPort, or its name) in the NetworkPolicy's ports, not the Service's port."
    ),
    resource_types=(NETWORK_POLICY_TYPE,),
    check_resource=_check,
    rationale=(
        "NetworkPolicyPort.port is 'a numerical or named port on a pod' (Kubernetes API networking.k8s.io/v1), and "
        "policies apply to pod traffic after a Service has translated its port to the targetPort "
        "(https://kubernetes.io/docs/concepts/services-networking/network-policies/)."
    ),
)
