"""G81 egress-allows-dns: a pod isolated for Egress by the NetworkPolicies of its run can still resolve names.

A pod selected by a NetworkPolicy for Egress may open only what the union of the egress rules of the policies selecting
it allows (policies/reading/network_policies.py). Name lookups are connections too: with the default ``dnsPolicy``
(ClusterFirst) the pod sends them to the cluster DNS Service, whose pods (CoreDNS, label ``k8s-app: kube-dns`` in
kube-system) answer on port 53, over UDP first (glibc and musl resolvers send UDP and use TCP only for a truncated
answer; https://kubernetes.io/docs/concepts/services-networking/dns-pod-service/#pod-s-dns-policy for ClusterFirst).
With no rule reaching UDP 53 every lookup times out, so every name the pod dials fails: a Hub download, an init
container's fetch, a backend by Service name (``http://vllm:8000``).

A rule reaches DNS when it lists port 53 (or a range holding it, or a port named ``dns``/``dns-tcp``, CoreDNS's port
names) over UDP, whatever its peers (the author meant DNS), or lists no ports and has a peer that may be the DNS pods:
no ``to``, an ipBlock (a ``0.0.0.0/0`` whose ``except`` removes the private ranges may not: advice), a
namespaceSelector of every namespace or of kube-system (a podSelector other than kube-dns there: advice), a namespace
label other than its name (advice). Port 53 over TCP alone is advice (lookups go over UDP first).

Blocking when the pod must resolve a name to start: a model server that downloads its model at start (the same servers
G33 egress-allows-model-download reads; when no rule reaches the internet on HTTPS that policy reports it and this one
does not), KServe's storage initializer downloading the model, a downloader init container (hf download, kthena's
downloader, curl of a Hub URL), or an init container that fetches or waits on a URL by host name. Advice when only a
container's env names a URL by host name (a proxy such as LiteLLM or Open WebUI calling its backend by Service name:
every call fails, but the pod starts), when a persistent cache may hold the model, when the download is a sidecar's or
its failure is swallowed (``|| true``), when the pod's ``dnsPolicy`` is not ClusterFirst, and when a network policy of
another engine (Cilium, Calico) is in the files. Pods on the host network are not isolated and are not read.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Optional

from components.images import names_image
from policies.framework import Policy, Resource, unproven
from policies.ingress.network_policy_reach import downloading_servers, outside_https
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, get, pod_specs, split_type
from policies.reading.downloaders import fetches as loader_fetches
from policies.reading.engines import env_values, volume_at
from policies.reading.kserve_storage import ISVC, LLMISVC, downloaded_source
from policies.reading.llmisvc_pods import llmisvc_pod_labels
from policies.reading.mounted_scripts import mounted_scripts
from policies.reading.network_policies import applying, network_policies, other_engine, ports_admit, rules
from policies.reading.serving import namespace_of, pod_labels
from policies.reading.urls import COMPARED, urls
from policies.reading.vllm_args import command_tokens

_METADATA_NAME = "kubernetes.io/metadata.name"
# The names CoreDNS's pods give port 53 (UDP "dns", TCP "dns-tcp"), which a NetworkPolicyPort may name.
_DNS_PORT_NAMES = ("dns", "dns-tcp", "domain")
_DNS_POD_VALUES = ("kube-dns", "coredns", "node-local-dns")
_EPHEMERAL = ("emptyDir", "ephemeral")
_LOCAL_HOSTS = ("localhost", "127.0.0.1", "0.0.0.0")
_SWALLOWED = ("|| true", "|| :", "|| echo", "||true")
# Reaching DNS: "udp" (yes), "tcp" (port 53 over TCP only), "maybe" (a peer that may hold the DNS pods), None (no).
_Reach = Optional[str]


def _dns_peer(peer: Mapping, policy_ns: str) -> _Reach:
    """Whether one ``to`` peer of a rule with no ports may be the cluster DNS pods."""
    block = as_dict(peer.get("ipBlock"))
    if block:
        try:
            network = ipaddress.ip_network(str(block.get("cidr", "")).strip(), strict=False)
        except ValueError:
            return "maybe"
        if not network.is_private and network.prefixlen != 0:
            return None  # a public range: not the cluster's DNS pods
        return "maybe" if as_list(block.get("except")) else "udp"
    pods = peer.get("podSelector")
    selected = as_dict(as_dict(pods).get("matchLabels"))
    any_pod = not selected and not as_list(as_dict(pods).get("matchExpressions"))
    dns_pods = any(str(v) in _DNS_POD_VALUES for v in selected.values())
    if "namespaceSelector" not in peer:
        return "udp" if policy_ns == "kube-system" and (any_pod or dns_pods) else None
    selector = as_dict(peer.get("namespaceSelector"))
    match, expressions = as_dict(selector.get("matchLabels")), as_list(selector.get("matchExpressions"))
    if expressions or (match and set(match) != {_METADATA_NAME}):
        return "maybe"
    if match and match[_METADATA_NAME] != "kube-system" and "dns" not in str(match[_METADATA_NAME]):
        return None
    return "udp" if any_pod or dns_pods else "maybe"


def _dns_rule(rule: Mapping, policy_ns: str) -> _Reach:
    """Whether an egress rule reaches the cluster DNS (see _Reach)."""
    udp = ports_admit(rule, 53, _DNS_PORT_NAMES, "UDP")
    if udp is not None:
        if udp:
            return "udp"
        return "tcp" if ports_admit(rule, 53, _DNS_PORT_NAMES, "TCP") else None
    peers = [as_dict(p) for p in as_list(rule.get("to"))]
    if not peers:
        return "udp"
    found = [_dns_peer(p, policy_ns) for p in peers]
    return next((r for r in ("udp", "maybe") if r in found), None)


def _hosts(text: str) -> list[str]:
    """The host names (not addresses, not this pod) of the URLs of a text."""
    found = []
    for url, _, host, _ in urls(text):
        try:
            ipaddress.ip_address(host)
            continue
        except ValueError:
            pass
        if host not in _LOCAL_HOSTS and any(ch.isalpha() for ch in host):
            found.append(url)
    return found


class _Need:
    """Why a pod needs names: what, whether at start (blocking), and why it may not be (advice)."""

    def __init__(self, what: str, start: bool, why: str = "") -> None:
        self.what, self.start, self.why = what, start, why


def _needs(workload: Resource, outside: bool) -> list[_Need]:
    found: list[_Need] = []
    if outside:
        for label, podspec, container, model, dirs, row in downloading_servers(workload):
            volumes = [volume_at(podspec, container, d) for d in dirs] or [None]
            why = ""
            if any(v is not None and not any(k in v for k in _EPHEMERAL) for v in volumes):
                why = "the cache is on a persistent volume, which may hold the model already"
            elif container.get("envFrom"):
                why = "the container's envFrom may set HF_HUB_OFFLINE"
            elif not names_image(container.get("image"), row.images):
                why = f"the image {container.get('image')} is not the engine's own and may hold the model"
            found.append(_Need(f"{label} downloads {model} at start", True, why))
        source = downloaded_source(workload) if split_type(workload.type) in (ISVC, LLMISVC) else None
        if source is not None and "://" in source[0]:
            scheme = source[0].strip().partition("://")[0]
            why = "" if scheme in ("hf", "gs", "https", "http") else "its endpoint may be an address, not a name"
            found.append(_Need(f"KServe's storage initializer downloads {source[0]} at start", True, why))
    seen: set[int] = set()
    for fetch in loader_fetches(workload):
        if fetch.source.startswith(("pvc://", "/")) or id(fetch.container) in seen:
            continue
        seen.add(id(fetch.container))
        init = any(fetch.container is c for c in as_list(fetch.podspec.get("initContainers")))
        why = "" if init else "a sidecar downloads it, beside the server"
        if init and fetch.into and (v := volume_at(fetch.podspec, fetch.container, fetch.into)) is not None:
            if not any(k in v for k in _EPHEMERAL):
                why = "it downloads into a persistent volume, which may hold the model already"
        found.append(_Need(f"{fetch.label} ({fetch.tool}) downloads {fetch.source}", init, why))
    for _, podspec in pod_specs(workload):
        for box in (as_dict(c) for c in as_list(podspec.get("initContainers"))):
            if id(box) in seen:
                continue
            argv, _ = command_tokens(box)
            texts = [" ".join(argv), *mounted_scripts(podspec, box)]
            hosts = [u for t in texts for u in _hosts(t)]
            if hosts:
                swallowed = any(s in t for t in texts for s in _SWALLOWED)
                why = "its command goes on when the call fails (|| ...)" if swallowed else ""
                found.append(_Need(f"init container {box.get('name')} calls {hosts[0]} before the server starts", True, why))
        for container in (as_dict(c) for c in as_list(podspec.get("containers"))):
            for variable, value in env_values(container).items():
                if isinstance(value, str) and "://" in value and not COMPARED.search(variable):
                    hosts = _hosts(value)
                    if hosts:
                        found.append(_Need(f"container {container.get('name')} env {variable} names {hosts[0]}", False))
                        break
    return found


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    policies = network_policies(resources)
    if not policies:
        return []
    others = other_engine(resources)
    findings: dict[str, tuple[bool, str]] = {}
    for workload in resources:
        kind = split_type(workload.type)
        if not isinstance(workload.props, dict) or (workload.type not in WORKLOAD_TYPES and kind not in (ISVC, LLMISVC)):
            continue
        specs = [spec for _, spec in pod_specs(workload)]
        if specs and all(spec.get("hostNetwork") is True for spec in specs):
            continue
        name = get(workload.props, "metadata", "name")
        labels = llmisvc_pod_labels(workload, name) if kind == LLMISVC else pod_labels(workload)
        namespace = namespace_of(workload, "default")
        egress = applying(policies, namespace, labels, "Egress")
        if not egress:
            continue
        union = rules(egress, "egress")
        reach = {_dns_rule(rule, namespace_of(p, "default")) for p, _, rule in union}
        if "udp" in reach:
            continue
        needs = _needs(workload, any(outside_https(rule) is True for _, _, rule in union))
        if not needs:
            continue
        need = next((n for n in needs if n.start and not n.why), next((n for n in needs if n.start), needs[0]))
        blocker = next((p for p in egress if not as_list(get(p.props, "spec", "egress"))), egress[0])
        dns_policy = next((s.get("dnsPolicy") for s in specs if s.get("dnsPolicy")), "ClusterFirst")
        how = (
            "its egress rules allow port 53 over TCP only, while resolvers ask over UDP first"
            if "tcp" in reach
            else "no egress rule of the policies selecting them reaches port 53 (UDP) of the cluster DNS"
        )
        message = (
            f"selects the pods of {kind[1]}/{name} for Egress, and {how}: every name lookup fails, and {need.what}"
            + (", so the pod never starts" if need.start else ", so every call by name fails")
            + "; add an egress rule to namespace kube-system (kubernetes.io/metadata.name) pods k8s-app: kube-dns on "
            "UDP and TCP 53"
        )
        why = need.why
        if not why and "maybe" in reach:
            why = "a peer of the policies (a namespace label, an ipBlock with exceptions) may hold the DNS pods"
        elif not why and "tcp" in reach:
            why = "a resolver that falls back to TCP may still answer"
        elif not why and dns_policy not in ("ClusterFirst", "ClusterFirstWithHostNet"):
            why = f"dnsPolicy {dns_policy} sends lookups to a resolver the files do not show"
        elif not why and others:
            why = "another kind of network policy in the files may allow it"
        blocking = need.start and not why
        text = message if blocking else unproven(f"{message} ({why})" if why else message)
        if blocker.name not in findings or (blocking and not findings[blocker.name][0]):
            findings[blocker.name] = (blocking, text)
    return [(policy, text) for policy, (_, text) in findings.items()]


POLICY = Policy(
    name="egress-allows-dns",
    description="A NetworkPolicy that isolates pods for Egress lets them reach the cluster DNS (port 53, UDP) when they "
    "resolve a name: a model download at start, an init container's fetch, a backend by Service name.",
    catalog="G81",
    severity="high",
    enforcement="mandatory",
    remediation_steps="Add an egress rule for the pods to namespaceSelector kubernetes.io/metadata.name: kube-system with "
    "podSelector k8s-app: kube-dns on UDP 53 and TCP 53 (or a namespace-wide allow-dns policy with podSelector {}).",
    config_schema={},
    check_stack=_check,
    rationale=(
        "A pod isolated for Egress may open only what some egress rule of a policy selecting it allows "
        "(https://kubernetes.io/docs/concepts/services-networking/network-policies/); name lookups go to the cluster "
        "DNS on port 53 over UDP, so without a rule for it every name the pod dials fails."
    ),
)
