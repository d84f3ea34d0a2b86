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
  them; a namespaceSelector on labels the files cannot check counts as admitting).

The caller's end (caller-egress-reaches-service, session 49, blocking): any pod of the run, not only a model server's
client, isolated for Egress (kubernetes/api networking/v1/types.go:82-87@v0.34.0: outgoing traffic is allowed only if
it matches an egress rule of some policy selecting the pod; a namespace-wide allow-DNS policy with ``podSelector: {}``
and policyTypes Egress isolates every pod of the namespace) whose env URL names a Service of the files on one of its
ports, where no egress rule reaches the pods that Service selects on the port it forwards to (rules name "a numerical or
named port on a pod", :160-161): DNS-only and HTTPS-only rules drop the call (spent set 67 Envision-Construction/Open-OS
@3107d69b4ec252da595fa3788c46f1ae5554460f: open-webui -> dlp-proxy:8080 and dlp-proxy -> openclaw:11434). Silent when a
rule with no ``to`` or with an ipBlock admits the Service's own port (a plugin judging before the Service's translation),
when a peer may hold the pods (a namespaceSelector on labels the files cannot check), and for host-network pods. Advice
when the URL comes from a ConfigMap, the container sets a proxy variable, a Kustomize patch of the files targets one of
the caller's egress policies (the overlay may add the rule; its build is checked whole), a namespace-less policy may
apply, or another engine's policy is in the files; blocking assumes the files hold every policy that applies to the caller (as G81).

Session 50 (brief egress50) widens the caller's end to every destination the files show: an init container's calls
(not a native sidecar's: the pod waits for it, so a dropped call keeps the pod in Init), a scheme-less host:port env value
(``KAFKA_BROKERS=kafka.ns.svc:9092``), a shell script's ``nc HOST PORT`` and curl/wget URLs; and a Service the files do
not hold named ``NAME.NS.svc[.cluster.local]`` (certainly in-cluster, in namespace NS) blocks when no egress rule may
reach any pod of NS at all (each peer a namespaceSelector by kubernetes.io/metadata.name naming another namespace, or a
bare podSelector of the policy's own namespace), whatever the Service's target port: spent set 87
maxjeffwell/shared-ai-gateway@8e24b467cb826bdacafbdcd9510ce20a63e6ccd7 k8s/deployment.yaml, init container wait-for-kafka
``until nc -z vertex-kafka-kafka-bootstrap.microservices.svc 9092`` under a policy admitting only lunary:3333 and DNS.
These forms feed only the egress end (the model server's ingress end reads env URLs of app containers, as before).

Advice: a policy of another engine (Cilium, Calico, AdminNetworkPolicy) in the files may allow it (silent then), and a
namespace-less policy may be applied elsewhere (silent for those). Silent where an Ingress or route already makes
ingress-controller-admitted report the namespace's deny-all.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any, Iterator, NamedTuple, Optional

from policies.framework import Resource, unproven
from policies.kube import as_dict, as_int, as_list, containers, get, memoized, pod_specs, split_type
from policies.reading.call_sites import DEFAULT_PORTS, host_ports, script_calls, svc_host
from policies.reading.container_env import env_values
from policies.reading.edge import ingress_backend_ports, ingress_class, ingress_class_controllers
from policies.reading.label_selectors import selector_matches
from policies.reading.network_policies import (
    applying,
    isolates,
    network_policies,
    other_engine,
    ports_admit,
    rules,
)
from policies.reading.operator_pod_labels import operator_pod_labels
from policies.reading.serving import model_servers, namespace_of, pod_labels
from policies.reading.urls import COMPARED, urls

_NAME_LABEL = "kubernetes.io/metadata.name"
_INGRESSES = (("networking.k8s.io", "Ingress"), ("extensions", "Ingress"))
_PROXY_ENV = ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")


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


class Call(NamedTuple):
    """A container's env URL to a Service-shaped host of the run."""

    caller: Resource
    namespace: str
    labels: list[dict]
    variable: str
    url: str
    key: str  # "service.namespace"
    port: Optional[int]
    literal: bool  # the value is the container's own env ``value`` (not from a ConfigMap)
    proxied: bool  # the container sets an HTTP(S) proxy variable: its calls may go through it
    said: str = ""  # a form other than an env URL (a host:port env value, a script's nc/curl): how the files say it
    init: bool = False  # the caller is an init container (not a native sidecar): the pod waits for it
    svc: bool = False  # the host is NAME.NS.svc[.cluster.local]: certainly a Service of the cluster, in namespace NS


def _callers(resources: list[Resource]) -> list[Call]:
    """Every env URL to a Service-shaped host in the run (memoized per evaluation)."""
    return memoized(resources, "service_callers", _find_callers)


def _find_callers(resources: list[Resource]) -> list[Call]:
    found: list[Call] = []
    for r in resources:
        if not isinstance(r.props, dict):
            continue
        specs = pod_specs(r)
        if not specs:
            continue
        ns = namespace_of(r, "default")
        labels: list[list[dict]] = []
        for _, spec in specs:
            if spec.get("hostNetwork") is True:
                continue  # not isolated by NetworkPolicy
            apps = as_list(spec.get("containers"))
            for container in containers(spec, init=True):
                init = not any(container is c for c in apps) and container.get("restartPolicy") != "Always"
                found.extend(_container_calls(r, ns, labels, container, init))
    return found


def _container_calls(r: Resource, ns: str, labels: list[list[dict]], container: dict, init: bool) -> list[Call]:
    """The calls of one container: its env URLs and host:port values, its script's nc/curl (``labels`` caches the
    pod's label sets)."""
    values = env_values(container)
    proxied = any(v in values for v in _PROXY_ENV)
    literals = {
        e["name"]: e["value"]
        for e in as_list(container.get("env"))
        if isinstance(e, dict) and isinstance(e.get("name"), str) and isinstance(e.get("value"), str)
    }
    # (variable, text, host, port, literal, said): said is "" only for an app container's env URL (the ingress end's)
    sites: list[tuple[str, str, str, Optional[int], bool, str]] = []
    for name, value in values.items():
        if COMPARED.search(name):
            continue
        literal = literals.get(name) == value
        if "://" not in value:
            sites.extend((name, value, host, number, literal, f"{name}={value}") for host, number in host_ports(value))
            continue
        for url, scheme, host, given in urls(value):
            number = int(given) if given else DEFAULT_PORTS.get(scheme.lower())
            sites.append((name, url, host, number, literal, f"{name}={url}" if init else ""))
    sites.extend(("command", said, host, number, True, said) for host, number, said in script_calls(container))
    calls = []
    for name, text, host, port, literal, said in sites:
        key = _host_service(host, ns)
        if key is None:
            continue
        if not labels:
            labels.append(pod_labels(r))
        key_text = f"{key[0]}.{key[1]}"
        calls.append(Call(r, ns, labels[0], name, text, key_text, port, literal, proxied, said, init, svc_host(host)))
    return calls


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
    named = sorted(
        {f"{_name(c.caller)} ({c.variable})" for c in callers if c.key in keys and c.caller is not server and not c.said}
    )
    who = f" ({', '.join(named)} call it)" if named else ""
    services = ", ".join(str(get(s.props, "metadata", "name")) for s in fronting)
    return unproven(
        f"isolates the pods of {_name(server)} (a model server behind Service {services}) for Ingress, and no "
        f"NetworkPolicy selecting them has an ingress rule: every connection through the Service is dropped, so its "
        f"callers{who} time out; add a policy selecting these pods that admits the calling pods (podSelector, or "
        f"namespaceSelector for another namespace) on the server's port"
    )


def _service_port(service: Resource, number: Optional[int]) -> Optional[Mapping]:
    return next(
        (as_dict(p) for p in as_list(get(service.props, "spec", "ports")) if as_int(as_dict(p).get("port")) == number),
        None,
    )


def caller_findings(resources: list[Resource], reported: set[str]) -> list[tuple[str, str]]:
    """Findings (policy name, message) for model servers whose ingress rules drop their callers; ``reported`` holds the
    names of policies already reported for the namespace's ingress controller. A caller's own egress rules are
    caller-egress-reaches-service's (below)."""
    policies = memoized(resources, "network_policies", network_policies)
    if not policies or other_engine(resources):
        return []
    services = _services(resources)
    callers: Optional[list[Call]] = None
    findings: list[tuple[str, str]] = []
    for server, ns, labels, server_containers in _servers(resources):
        isolating = [p for p in applying(policies, ns, labels, "Ingress") if not p.patch]
        if not isolating:
            continue
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
        union = rules(isolating, "ingress")
        if not union:
            blocker = next((p for p in isolating if not as_list(get(p.props, "spec", "ingress"))), isolating[0])
            if blocker.name in reported:
                continue
            findings.append((blocker.name, _no_rule(server, ns, fronting, callers)))
            continue
        for service in fronting:
            sname = str(get(service.props, "metadata", "name"))
            for call in callers:
                if call.key != f"{sname}.{ns}" or call.caller is server or call.said:
                    continue
                port = _service_port(service, call.port)
                target = _target(port, server_containers) if port is not None else None
                if target is None:
                    continue
                tport, tnames = target
                caller_name = _name(call.caller)
                if not any(_rule_admits(p, rule, "from", call.namespace, call.labels, tport, tnames) for p, _, rule in union):
                    findings.append(
                        (
                            isolating[0].name,
                            unproven(
                                f"isolates the pods of {kind_name} (a model server behind Service {sname}) for Ingress, "
                                f"and no ingress rule of the policies selecting them admits the pods of {caller_name} on "
                                f"port {tport}, while {caller_name} calls it ({call.variable}={call.url}): its requests "
                                f"are dropped and time out; admit those pods (podSelector of their labels, "
                                f"namespaceSelector kubernetes.io/metadata.name for another namespace) on port {tport}"
                            ),
                        )
                    )
    return list(dict.fromkeys(findings))


# --- callers from outside the cluster ------------------------------------------------------------------------------

# Ingress classes (and IngressClass spec.controller values) of controllers that run as pods of the cluster and connect
# to the backends from their pod address: a cloud load balancer's class (gce, alb, azure/application-gateway) connects
# from its own ranges and is not read.
_IN_CLUSTER_CONTROLLERS = (
    "nginx",
    "traefik",
    "haproxy",
    "kong",
    "contour",
    "istio",
    "cilium",
    "envoy",
    "apisix",
    "skipper",
    "ambassador",
    "emissary",
)
_CLOUD_CONTROLLERS = ("gce", "alb", "azure", "application-gateway", "elbv2")
_EXTERNAL_TYPES = ("LoadBalancer", "NodePort")
_POD_RANGE_PREFIX = 16  # the narrowest pod range a cluster is given by default (kubeadm/flannel, k3s, Calico: a /16)


def _in_cluster_class(route: Resource, controllers: Mapping[str, str]) -> Optional[str]:
    cls = ingress_class(route)
    if not cls:
        return None
    said = f"{cls} {controllers.get(cls, '')}".lower()
    if any(t in said for t in _CLOUD_CONTROLLERS) or not any(t in said for t in _IN_CLUSTER_CONTROLLERS):
        return None
    return cls


def _narrow_blocks(peers: list) -> Optional[list[str]]:
    """The CIDRs of a rule's peers when every peer is an ipBlock narrower than a cluster's pod range; None otherwise."""
    cidrs = []
    for peer in peers:
        block = as_dict(as_dict(peer).get("ipBlock")) if isinstance(peer, Mapping) and set(peer) == {"ipBlock"} else None
        cidr = block.get("cidr") if block else None
        if not isinstance(cidr, str):
            return None
        try:
            network = ipaddress.ip_network(cidr, strict=False)
        except ValueError:
            return None
        if network.version != 4 or network.prefixlen <= _POD_RANGE_PREFIX:
            return None
        cidrs.append(cidr)
    return cidrs


def _port_matches(port: Mapping, backend_port: Any) -> bool:
    return backend_port is not None and (
        as_int(port.get("port")) == as_int(backend_port) or (isinstance(backend_port, str) and port.get("name") == backend_port)
    )


def outside_findings(resources: list[Resource]) -> list[tuple[str, str]]:
    """Findings (policy name, message) for pods whose ingress rules drop the clients a Service takes from outside the
    cluster: a LoadBalancer/NodePort Service's (only pod and namespace peers), an in-cluster Ingress controller's (only
    address blocks narrower than a pod range)."""
    policies = memoized(resources, "network_policies", network_policies)
    if not any(isolates(p, "Ingress") for p in policies) or other_engine(resources):
        return []
    controllers = ingress_class_controllers(resources)
    routed: dict[str, list[tuple[str, str, Any]]] = {}
    for route in resources:
        if split_type(route.type) not in _INGRESSES or not isinstance(route.props, dict) or route.patch:
            continue
        cls = _in_cluster_class(route, controllers)
        if cls is None:
            continue
        ns = namespace_of(route, "default")
        for service_name, backend_port in ingress_backend_ports(route):
            routed.setdefault(f"{service_name}.{ns}", []).append((_name(route), cls, backend_port))
    findings: list[tuple[str, str]] = []
    for service in _services(resources):
        if service.patch:
            continue
        sname, ns = str(get(service.props, "metadata", "name")), namespace_of(service, "default")
        stype = get(service.props, "spec", "type")
        external = stype in _EXTERNAL_TYPES
        routes = routed.get(f"{sname}.{ns}", [])
        if not external and not routes:
            continue
        ports = [as_dict(p) for p in as_list(get(service.props, "spec", "ports"))]
        for backend, labels, ctrs in _backends(resources, service):
            specs = pod_specs(backend)
            if specs and all(spec.get("hostNetwork") is True for _, spec in specs):
                continue
            isolating = [p for p in applying(policies, ns, labels, "Ingress") if not p.patch]
            union = rules(isolating, "ingress")
            if not union:
                continue  # no ingress rule at all: the namespace's deny-all and a model server's no-rule advice say it
            blamed = next((p for p in isolating if as_list(get(p.props, "spec", "ingress"))), isolating[0])
            for port in ports:
                target = _target(port, ctrs)
                if target is None:
                    continue
                tport, tnames = target
                on_port = [(p, rule) for p, _, rule in union if ports_admit(rule, tport, tnames, "TCP") is not False]
                peer_lists = [as_list(rule.get("from")) for _, rule in on_port]
                if (
                    external
                    and on_port
                    and not any(
                        not peers or any(not isinstance(q, Mapping) or "ipBlock" in q for q in peers) for peers in peer_lists
                    )
                ):
                    findings.append((blamed.name, _outside_message(backend, stype, sname, tport)))
                    continue
                for route_name, cls, backend_port in routes:
                    if not _port_matches(port, backend_port):
                        continue
                    blocks = [_narrow_blocks(peers) if peers else None for peers in peer_lists]
                    if blocks and all(b is not None for b in blocks):
                        cidrs = sorted({c for b in blocks if b for c in b})
                        findings.append((blamed.name, _controller_message(backend, sname, route_name, cls, tport, cidrs)))
    return list(dict.fromkeys(findings))


def _outside_message(backend: Resource, stype: str, sname: str, tport: int) -> str:
    return unproven(
        f"isolates the pods of {_name(backend)} (behind {stype} Service {sname}) for Ingress, and the ingress rules of the "
        f"policies selecting them admit on port {tport} only pods and namespaces (podSelector/namespaceSelector peers), "
        f"while the Service takes clients from outside the cluster: they arrive from their own address "
        f"(externalTrafficPolicy Local) or a node's (Cluster), never a pod's, so they are dropped (only the pod's own "
        f"node is exempt) and time out; admit them with an ipBlock (the clients' or load balancer's ranges, 0.0.0.0/0 "
        f"for any) on port {tport}"
    )


def _controller_message(backend: Resource, sname: str, route: str, cls: str, tport: int, cidrs: list[str]) -> str:
    return unproven(
        f"isolates the pods of {_name(backend)} (behind Service {sname}, routed by {route} of class {cls}) for Ingress, "
        f"and the ingress rules of the policies selecting them admit on port {tport} only the address blocks "
        f"{', '.join(cidrs)}, narrower than a cluster's pod range: the {cls} controller runs as pods and connects from "
        f"its pod address, so requests through the Ingress are dropped and time out (unless the controller runs on the "
        f"host network of a node in those blocks); admit the controller's namespace (namespaceSelector "
        f"kubernetes.io/metadata.name: <its namespace>) on port {tport}"
    )


# --- the caller's end: its egress rules ----------------------------------------------------------------------------


def _backends(resources: list[Resource], service: Resource) -> list[tuple[Resource, list[dict], list[Mapping]]]:
    """(workload, pod label sets, containers) of every workload of the run whose pods the Service's selector picks."""
    selector = as_dict(get(service.props, "spec", "selector"))
    if not selector:
        return []
    ns = namespace_of(service, "default")
    found: list[tuple[Resource, list[dict], list[Mapping]]] = []
    for r in resources:
        if not isinstance(r.props, dict) or r.patch or namespace_of(r, "default") != ns:
            continue
        specs = pod_specs(r)
        if not specs:
            continue
        label_sets = [*pod_labels(r), *(dict(ls) for ls in operator_pod_labels(r))]
        if any(selector_matches(selector, ls, plain=True) for ls in label_sets):
            found.append((r, label_sets, [c for _, spec in specs for c in containers(spec)]))
    return found
