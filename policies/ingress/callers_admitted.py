"""G62 (callers): a model server's NetworkPolicies admit the pods of the run that call it through its Service.

A pod selected for Ingress by some NetworkPolicy takes only the connections some ingress rule of the policies selecting
it allows, and a pod selected for Egress opens only what some egress rule allows
(https://kubernetes.io/docs/concepts/services-networking/network-policies/#the-two-sorts-of-pod-isolation); rules see
the traffic after the Service's translation, on the pods' target port (networking.k8s.io/v1 NetworkPolicyPort.port "a
numerical or named port on a pod"). So a model server whose pods are isolated for Ingress and which no ingress rule
admits from its callers, or a caller isolated for Egress with no egress rule to the server's pods, drops every request
through the Service: the client's connection times out.

Read here:
- the servers: workloads whose containers the serving readers take for model servers (policies/reading/serving.py
  model_servers; pod labels from pod_labels: a template's labels, LeaderWorkerSet's and KServe's added ones), isolated
  for Ingress by NetworkPolicies of their namespace (policies/reading/network_policies.py), with a Service of the run
  whose selector picks their pods;
- no ingress rule at all in the policies selecting them (a default deny and allow policies that select other pods):
  every caller is dropped (spent set 62: default-deny-ingress-egress over a namespace whose allow policies select the
  backend, frontend and data stores, while a ConfigMap gives VLLM_BASE_URL http://vllm:8000/v1);
- the callers: containers of the run whose env (literal, or from a ConfigMap of the run: policies/reading/container_env.py)
  holds a URL whose host is the Service (name, name.ns, name.ns.svc[.cluster.local]) on one of its ports; their pods
  must be admitted by some ingress rule of the server's policies (a rule with no ``from`` or an ipBlock peer admits
  them; a namespaceSelector on labels the files cannot check counts as admitting), and, where the caller is isolated for
  Egress, reach the server's pods by some egress rule.

Advice: a policy of another engine (Cilium, Calico, AdminNetworkPolicy) in the files may allow it (silent then), and a
namespace-less policy may be applied elsewhere (silent for those). Silent where an Ingress or route already makes
ingress-controller-admitted report the namespace's deny-all.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Iterator, Optional

from policies.framework import Resource, unproven
from policies.kube import as_dict, as_int, as_list, containers, get, memoized, pod_specs, split_type
from policies.reading.container_env import env_values
from policies.reading.label_selectors import selector_matches
from policies.reading.network_policies import applying, network_policies, other_engine, ports_admit, rules
from policies.reading.serving import model_servers, namespace_of, pod_labels
from policies.reading.urls import COMPARED, urls

_NAME_LABEL = "kubernetes.io/metadata.name"
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _selects_every(selector: Any) -> bool:
    return not isinstance(selector, Mapping) or not (selector.get("matchLabels") or selector.get("matchExpressions"))


def _namespace_admits(selector: Any, namespace: str) -> Optional[bool]:
    """Whether a peer's namespaceSelector selects ``namespace``: True/False where the files tell (every namespace, or
    kubernetes.io/metadata.name), None for other labels (the namespace's labels may be set outside the files)."""
    if _selects_every(selector):
        return True
    labels = as_dict(selector.get("matchLabels"))
    if set(labels) == {_NAME_LABEL} and not as_list(selector.get("matchExpressions")):
        return labels[_NAME_LABEL] == namespace
    return None


def _peers_admit(peers: list, policy_ns: str, other_ns: str, other_labels: list[dict]) -> bool:
    """Whether a rule's from/to peers may hold a pod of ``other_ns`` with one of ``other_labels`` (careful: True where
    unknown)."""
    if not peers:
        return True
    for peer in peers:
        if not isinstance(peer, Mapping) or "ipBlock" in peer:
            return True  # an address block may hold pod addresses (the VPC CNI); unread peers count as admitting
        if "namespaceSelector" in peer:
            namespaces = _namespace_admits(peer.get("namespaceSelector"), other_ns)
            if namespaces is None:
                return True
            if not namespaces:
                continue
        elif other_ns != policy_ns:
            continue  # a bare podSelector picks pods of the policy's namespace only
        selector = peer.get("podSelector")
        if _selects_every(selector) or any(selector_matches(selector, labels) for labels in other_labels):
            return True
    return False


def _rule_admits(policy: Any, rule: Mapping, key: str, ns: str, labels: list[dict], port: int, names: tuple) -> bool:
    if ports_admit(rule, port, names, "TCP") is False:
        return False
    return _peers_admit(as_list(rule.get(key)), namespace_of(policy, "default"), ns, labels)


def _target(service_port: Mapping, server_containers: list[Mapping]) -> Optional[tuple[int, tuple[str, ...]]]:
    """The pods' port a Service port forwards to, and its name, or None where a name is not resolved."""
    target = service_port.get("targetPort", service_port.get("port"))
    number = as_int(target)
    if number is not None:
        names = tuple(
            str(p.get("name"))
            for c in server_containers
            for p in as_list(c.get("ports"))
            if isinstance(p, Mapping) and as_int(p.get("containerPort")) == number and p.get("name")
        )
        return number, names
    for c in server_containers:
        for p in as_list(c.get("ports")):
            if isinstance(p, Mapping) and p.get("name") == target and as_int(p.get("containerPort")) is not None:
                return as_int(p.get("containerPort")) or 0, (str(target),)
    return None


def _host_service(host: str, namespace: str) -> Optional[tuple[str, str]]:
    parts = host.lower().split(".")
    if len(parts) == 1:
        return parts[0], namespace
    if len(parts) == 2 or (len(parts) >= 3 and parts[2] == "svc" and (len(parts) == 3 or parts[3:] == ["cluster", "local"])):
        return parts[0], parts[1]
    return None


def _callers(resources: list[Resource]) -> list[tuple[Resource, str, list[dict], str, str, str, Optional[int]]]:
    """(workload, namespace, pod label sets, variable, url, (service, ns) key, url port) of every env URL to a
    Service-shaped host in the run."""
    found = []
    for r in resources:
        if not isinstance(r.props, dict):
            continue
        specs = pod_specs(r)
        if not specs:
            continue
        ns = namespace_of(r, "default")
        labels: Optional[list[dict]] = None
        for _, spec in specs:
            for container in containers(spec):
                for name, value in env_values(container).items():
                    if "://" not in value or COMPARED.search(name):
                        continue
                    for url, scheme, host, port in urls(value):
                        key = _host_service(host, ns)
                        if key is None:
                            continue
                        if labels is None:
                            labels = pod_labels(r)
                        number = int(port) if port else _DEFAULT_PORTS.get(scheme.lower())
                        found.append((r, ns, labels, name, url, f"{key[0]}.{key[1]}", number))
    return found


def _services(resources: list[Resource]) -> list[Resource]:
    return [r for r in resources if split_type(r.type) == ("", "Service") and isinstance(r.props, dict)]


def _servers(resources: list[Resource]) -> Iterator[tuple[Resource, str, list[dict], list[Mapping]]]:
    for r in resources:
        if not isinstance(r.props, dict) or r.patch:
            continue
        servers = model_servers(r)
        if servers:
            yield r, namespace_of(r, "default"), pod_labels(r), [s.container for s in servers]


def _name(resource: Any) -> str:
    return f"{split_type(resource.type)[1]}/{get(resource.props, 'metadata', 'name')}"


def _no_rule(server: Resource, ns: str, fronting: list[Resource], callers: list) -> str:
    """Advice for a server whose isolating policies have no ingress rule at all, naming its callers of the run."""
    keys = {f"{get(s.props, 'metadata', 'name')}.{ns}" for s in fronting}
    named = sorted({f"{_name(c[0])} ({c[3]})" for c in callers if c[5] in keys and c[0] is not server})
    who = f" ({', '.join(named)} call it)" if named else ""
    services = ", ".join(str(get(s.props, "metadata", "name")) for s in fronting)
    return unproven(
        f"isolates the pods of {_name(server)} (a model server behind Service {services}) for Ingress, and no "
        f"NetworkPolicy selecting them has an ingress rule: every connection through the Service is dropped, so its "
        f"callers{who} time out; add a policy selecting these pods that admits the calling pods (podSelector, or "
        f"namespaceSelector for another namespace) on the server's port"
    )


def caller_findings(resources: list[Resource], reported: set[str]) -> list[tuple[str, str]]:
    """Findings (policy name, message) for model servers whose callers the NetworkPolicies drop; ``reported`` holds the
    names of policies already reported for the namespace's ingress controller."""
    policies = memoized(resources, "network_policies", network_policies)
    if not policies or other_engine(resources):
        return []
    services = _services(resources)
    callers: Optional[list] = None
    findings: list[tuple[str, str]] = []
    for server, ns, labels, server_containers in _servers(resources):
        isolating = [p for p in applying(policies, ns, labels, "Ingress") if not p.patch]
        fronting = [
            s
            for s in services
            if namespace_of(s, "default") == ns
            and any(selector_matches(as_dict(get(s.props, "spec", "selector")), ls, plain=True) for ls in labels)
        ]
        if not fronting:
            continue
        kind_name = _name(server)
        callers = _callers(resources) if callers is None else callers
        union = rules(isolating, "ingress") if isolating else []
        if isolating and not union:
            blocker = next((p for p in isolating if not as_list(get(p.props, "spec", "ingress"))), isolating[0])
            if blocker.name in reported:
                continue
            findings.append((blocker.name, _no_rule(server, ns, fronting, callers)))
            continue
        for service in fronting:
            sname = str(get(service.props, "metadata", "name"))
            for caller, cns, clabels, var, url, key, number in callers:
                if key != f"{sname}.{ns}" or caller is server:
                    continue
                port = next(
                    (
                        as_dict(p)
                        for p in as_list(get(service.props, "spec", "ports"))
                        if as_int(as_dict(p).get("port")) == number
                    ),
                    None,
                )
                target = _target(port, server_containers) if port is not None else None
                if target is None:
                    continue
                tport, tnames = target
                caller_name = _name(caller)
                if isolating and not any(_rule_admits(p, rule, "from", cns, clabels, tport, tnames) for p, _, rule in union):
                    findings.append(
                        (
                            isolating[0].name,
                            unproven(
                                f"isolates the pods of {kind_name} (a model server behind Service {sname}) for Ingress, "
                                f"and no ingress rule of the policies selecting them admits the pods of {caller_name} on "
                                f"port {tport}, while {caller_name} calls it ({var}={url}): its requests are dropped and "
                                f"time out; admit those pods (podSelector of their labels, namespaceSelector "
                                f"kubernetes.io/metadata.name for another namespace) on port {tport}"
                            ),
                        )
                    )
                    continue
                egress = [p for p in applying(policies, cns, clabels, "Egress") if not p.patch]
                if egress and not any(
                    _rule_admits(p, rule, "to", ns, labels, tport, tnames) for p, _, rule in rules(egress, "egress")
                ):
                    findings.append(
                        (
                            egress[0].name,
                            unproven(
                                f"isolates the pods of {caller_name} for Egress, and no egress rule of the policies "
                                f"selecting them reaches the pods of {kind_name} (a model server behind Service {sname}) "
                                f"on port {tport}, while {caller_name} calls it ({var}={url}): its requests are dropped "
                                f"and time out; add an egress rule to those pods on port {tport}"
                            ),
                        )
                    )
    return list(dict.fromkeys(findings))
