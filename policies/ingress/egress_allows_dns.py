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

Review 46b: an init container's URL is a call at start only when a fetching tool opens it (curl, wget, git clone, a
Hub or cloud CLI, requests/urllib, nc, an until loop, on one line with backslash continuations joined); other URL text
(echo, a heredoc config file) is advice, and a native sidecar (an init container with ``restartPolicy: Always``) runs
beside the server. HTTPS_PROXY/HF_ENDPOINT by IP address: the client sends ``CONNECT huggingface.co:443`` and the proxy
resolves the name, so advice. A rule to the DNS pods (kube-system, a namespace named *dns* such as openshift-dns,
k8s-app kube-dns/coredns, dns.operator.openshift.io/daemonset-dns) on any UDP port reaches them: NetworkPolicy matches
the pod's port, 5353 on OpenShift (the dns-default Service maps 53 to it), 8053 on Gardener. An allow-DNS policy with no
(or a templated) namespace, applied per tenant with ``kubectl apply -n``, may apply: advice. Limit: a cluster-wide
allowance outside the files (a Calico GlobalNetworkPolicy of low order, an AdminNetworkPolicy allowing 53) overrides the
namespace's policies; blocking assumes the files hold every policy that applies.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from typing import Optional

from components.images import names_image
from policies.framework import Policy, Resource, unproven
from policies.ingress.network_policy_reach import downloading_servers, outside_https, runtime_pullers
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, get, memoized, pod_specs, split_type
from policies.reading.downloaders import fetches as loader_fetches
from policies.reading.engines import env_values, volume_at
from policies.reading.kserve_storage import ISVC, LLMISVC, downloaded_source
from policies.reading.llmisvc_pods import llmisvc_pod_labels
from policies.reading.mounted_scripts import mounted_scripts
from policies.reading.network_policies import (
    applying,
    isolates,
    network_policies,
    other_engine,
    ports_admit,
    rules,
    unplaced,
)
from policies.reading.serving import namespace_of, pod_labels
from policies.reading.urls import COMPARED, urls
from policies.reading.vllm_args import command_tokens

_METADATA_NAME = "kubernetes.io/metadata.name"
# The names CoreDNS's pods give port 53 (UDP "dns", TCP "dns-tcp"), which a NetworkPolicyPort may name.
_DNS_PORT_NAMES = ("dns", "dns-tcp", "domain")
_DNS_POD_VALUES = ("kube-dns", "coredns", "node-local-dns")
# OpenShift's DNS pods (namespace openshift-dns) carry this label; they listen on 5353, Gardener's CoreDNS on 8053.
_DNS_POD_KEYS = ("dns.operator.openshift.io/daemonset-dns",)
# The ranges pod and service IPs come from: the private ones and the shared CGNAT range (100.64.0.0/10, used for pods
# by EKS custom networking and some CNIs). A CIDR overlapping one of them may hold the DNS pods.
_CLUSTER_RANGES = tuple(
    ipaddress.ip_network(c) for c in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7")
)
# Tools that open a URL given to them (a call at start); other URL text in a command (echo, a heredoc, sed) resolves
# nothing.
_FETCHERS = re.compile(
    r"\b(curl|wget|git\s+clone|huggingface-cli|hf\s+download|aws\s+s3|gsutil|gcloud\s+storage|azcopy|rclone|nc|"
    r"until|requests|urllib|httpx|urlopen|snapshot_download|kubectl)\b"
)
_PROXY_ENV = ("HTTPS_PROXY", "https_proxy", "HF_ENDPOINT")
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
        if network.prefixlen != 0 and not network.is_private:
            # a public range is not the cluster's DNS pods; one overlapping a pod range (100.64.0.0/10, 0.0.0.0/1) may be
            overlaps = any(network.version == r.version and network.overlaps(r) for r in _CLUSTER_RANGES)
            return "maybe" if overlaps else None
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


def _names_dns(peer: Mapping) -> bool:
    """Whether a ``to`` peer names the DNS pods: namespace kube-system or one whose name holds "dns" (openshift-dns),
    or pods labelled as CoreDNS/kube-dns/OpenShift DNS."""
    namespace = as_dict(as_dict(peer.get("namespaceSelector")).get("matchLabels")).get(_METADATA_NAME)
    if isinstance(namespace, str) and (namespace == "kube-system" or "dns" in namespace):
        return True
    pods = as_dict(peer.get("podSelector"))
    labels = as_dict(pods.get("matchLabels"))
    values = [str(v) for v in labels.values()]
    for expression in (as_dict(e) for e in as_list(pods.get("matchExpressions"))):
        values += [str(v) for v in as_list(expression.get("values"))]
    return any(v in _DNS_POD_VALUES for v in values) or any(k in labels for k in _DNS_POD_KEYS)


# The label keys the cluster DNS pods carry in the common installs: k8s-app (kube-dns in coredns/deployment
# coredns-1.14.0 kubernetes/coredns.yaml.sed:89-90, the manifest kubeadm, GKE, EKS, AKS and k3s ship; coredns, or the
# override, in the coredns/helm chart coredns-1.46.2 charts/coredns/templates/deployment.yaml:44-49, with
# app.kubernetes.io/name and app.kubernetes.io/instance), EKS's eks.amazonaws.com/component, OpenShift's daemonset-dns.
# kubernetes.io/name (the addon manifests' kube-dns Service label, "CoreDNS"/"KubeDNS") is let pass too: an install
# that puts it on its pods would be matched, and the files cannot tell (review51a).
_DNS_POD_LABEL_KEYS = frozenset(
    (
        "k8s-app",
        "app.kubernetes.io/name",
        "app.kubernetes.io/instance",
        "eks.amazonaws.com/component",
        "kubernetes.io/name",
        *_DNS_POD_KEYS,
    )
)


def _misses_dns(peer: Mapping, policy_ns: str) -> bool:
    """Whether a peer written for the DNS pods (kube-system, a DNS value such as kube-dns) selects them by a label key
    they do not carry (``app: kube-dns``: CoreDNS's pods say ``k8s-app: kube-dns``), so it matches none of them."""
    namespace = as_dict(as_dict(peer.get("namespaceSelector")).get("matchLabels")).get(_METADATA_NAME)
    if "namespaceSelector" in peer and namespace != "kube-system":
        return False
    if "namespaceSelector" not in peer and policy_ns != "kube-system":
        return False
    labels = as_dict(as_dict(peer.get("podSelector")).get("matchLabels"))
    return any(str(k) not in _DNS_POD_LABEL_KEYS and str(v) in _DNS_POD_VALUES for k, v in labels.items())


def _dns_rule(rule: Mapping, policy_ns: str) -> _Reach:
    """Whether an egress rule reaches the cluster DNS (see _Reach). A rule to the DNS pods on any UDP port reaches them:
    NetworkPolicy matches the pod's port, 5353 on OpenShift (dns-default maps 53 to it), 8053 on Gardener."""
    udp = ports_admit(rule, 53, _DNS_PORT_NAMES, "UDP")
    peers = [as_dict(p) for p in as_list(rule.get("to"))]
    if peers and all(_misses_dns(p, policy_ns) for p in peers):
        return "missed"
    if udp is not None:
        if udp:
            return "udp"
        peers = [as_dict(p) for p in as_list(rule.get("to"))]
        if any(_names_dns(p) for p in peers) and any(
            str(as_dict(p).get("protocol") or "TCP").upper() == "UDP" for p in as_list(rule.get("ports"))
        ):
            return "udp"
        return "tcp" if ports_admit(rule, 53, _DNS_PORT_NAMES, "TCP") else None
    peers = [as_dict(p) for p in as_list(rule.get("to"))]
    if not peers:
        return "udp"
    found = [_dns_peer(p, policy_ns) for p in peers]
    return next((r for r in ("udp", "maybe") if r in found), None)


def _shown_peer(rule: Mapping) -> str:
    """The pod labels of a rule's first DNS peer that misses the DNS pods, as ``app=kube-dns`` in kube-system."""
    labels = as_dict(as_dict(as_dict(as_list(rule.get("to"))[0]).get("podSelector")).get("matchLabels"))
    return "pods " + ", ".join(f"{k}={v}" for k, v in labels.items()) + " in kube-system"


def _fetched(text: str) -> list[str]:
    """The host-name URLs of a command or script that a fetching tool opens: those on a line (backslash continuations
    joined) that calls curl, wget, git clone, a Hub/cloud CLI, python's requests/urllib, nc or an until loop."""
    found = []
    for line in text.replace("\\\n", " ").splitlines():
        if "://" in line and _FETCHERS.search(line):
            found += _hosts(line)
    return found


def _proxied(podspec: Mapping, container: Mapping) -> Optional[str]:
    """The variable that sends the container's HTTPS through a proxy (or Hub mirror) given by address: the proxy
    resolves the Hub's name (CONNECT huggingface.co:443), so no lookup leaves the pod."""
    values = env_values(container)
    for variable in _PROXY_ENV:
        value = values.get(variable)
        if isinstance(value, str) and "://" in value:
            parsed = list(urls(value))
            if parsed and not _hosts(value) and parsed[0][2] not in _LOCAL_HOSTS:
                return variable
    return None


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
            if proxy := _proxied(podspec, container):
                why = f"{proxy} names a proxy by address, which resolves the Hub's name itself"
            elif any(v is not None and not any(k in v for k in _EPHEMERAL) for v in volumes):
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
    for puller, _, pulled_from in runtime_pullers(workload):
        found.append(_Need(f"{puller} pulls models from {pulled_from} when a client asks", False))
    seen: set[int] = set()
    for fetch in loader_fetches(workload):
        if fetch.source.startswith(("pvc://", "/")) or id(fetch.container) in seen:
            continue
        seen.add(id(fetch.container))
        init = any(
            fetch.container is c and as_dict(c).get("restartPolicy") != "Always"
            for c in as_list(fetch.podspec.get("initContainers"))
        )
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
            texts = [" ".join(str(a) for a in argv), *mounted_scripts(podspec, box)]
            if not any("://" in t for t in texts):
                continue
            if box.get("restartPolicy") == "Always":  # a native sidecar runs beside the server, not before it
                hosts = [u for t in texts for u in _hosts(t)]
                if hosts:
                    found.append(_Need(f"sidecar {box.get('name')} calls {hosts[0]}", False))
                continue
            fetched = [u for t in texts for u in _fetched(t)]
            if fetched:
                swallowed = any(s in t for t in texts for s in _SWALLOWED)
                why = "its command goes on when the call fails (|| ...)" if swallowed else ""
                found.append(_Need(f"init container {box.get('name')} calls {fetched[0]} before the server starts", True, why))
            elif hosts := [u for t in texts for u in _hosts(t)]:
                why = "no fetching tool (curl, wget, a Hub CLI) is seen opening it: it may be text (echo, a config file)"
                found.append(_Need(f"init container {box.get('name')} names {hosts[0]} before the server starts", True, why))
        for container in (as_dict(c) for c in as_list(podspec.get("containers"))):
            for variable, value in env_values(container).items():
                if isinstance(value, str) and "://" in value and not COMPARED.search(variable):
                    hosts = _hosts(value)
                    if hosts:
                        found.append(_Need(f"container {container.get('name')} env {variable} names {hosts[0]}", False))
                        break
    return found


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    policies = memoized(resources, "network_policies", network_policies)
    # Prefilter: only the namespaces some policy isolates for Egress have pods to read (applying() reads no other).
    isolated = {namespace_of(p, "default") for p in policies if isolates(p, "Egress")}
    if not isolated:
        return []
    others = other_engine(resources)
    findings: dict[tuple[str, str], tuple[bool, str, str]] = {}
    for workload in resources:
        kind = split_type(workload.type)
        if not isinstance(workload.props, dict) or (workload.type not in WORKLOAD_TYPES and kind not in (ISVC, LLMISVC)):
            continue
        namespace = namespace_of(workload, "default")
        if namespace not in isolated:
            continue
        specs = [spec for _, spec in pod_specs(workload)]
        if specs and all(spec.get("hostNetwork") is True for spec in specs):
            continue
        name = get(workload.props, "metadata", "name")
        labels = llmisvc_pod_labels(workload, name) if kind == LLMISVC else pod_labels(workload)
        egress = applying(policies, namespace, labels, "Egress")
        if not egress:
            continue
        union = rules(egress, "egress")
        reach = {_dns_rule(rule, namespace_of(p, "default")) for p, _, rule in union}
        if "udp" in reach:
            continue
        floating = rules(unplaced(policies, namespace, labels, "Egress"), "egress")
        if any(_dns_rule(rule, namespace) in ("udp", "maybe") for _, _, rule in floating):
            reach.add("unplaced")
        needs = _needs(workload, any(outside_https(rule) is True for _, _, rule in union))
        if not needs:
            continue
        need = next((n for n in needs if n.start and not n.why), next((n for n in needs if n.start), needs[0]))
        blocker = next((p for p in egress if not as_list(get(p.props, "spec", "egress"))), egress[0])
        dns_policy = next((s.get("dnsPolicy") for s in specs if s.get("dnsPolicy")), "ClusterFirst")
        missed = next((_shown_peer(r) for p, _, r in union if _dns_rule(r, namespace_of(p, "default")) == "missed"), "")
        how = (
            "its egress rules allow port 53 over TCP only, while resolvers ask over UDP first"
            if "tcp" in reach
            else f"its rule to port 53 selects {missed}, a label the cluster DNS pods do not carry (CoreDNS's pods are "
            f"labelled k8s-app: kube-dns), so no egress rule reaches the cluster DNS"
            if missed
            else "no egress rule of the policies selecting them reaches port 53 (UDP) of the cluster DNS"
        )
        message = (
            f"selects the pods of {kind[1]}/{name} for Egress, and {how}: every name lookup fails, and {need.what}"
            + (", so the pod never starts" if need.start else ", so every call by name fails")
            + "; add an egress rule to namespace kube-system (kubernetes.io/metadata.name) pods k8s-app: kube-dns on "
            "UDP and TCP 53"
        )
        why = need.why
        if not why and "unplaced" in reach:
            why = "a policy that leaves its namespace out (applied with kubectl apply -n) allows DNS and may apply here"
        elif not why and "maybe" in reach:
            why = "a peer of the policies (a namespace label, an ipBlock with exceptions) may hold the DNS pods"
        elif not why and "tcp" in reach:
            why = "a resolver that falls back to TCP may still answer"
        elif not why and dns_policy not in ("ClusterFirst", "ClusterFirstWithHostNet"):
            why = f"dnsPolicy {dns_policy} sends lookups to a resolver the files do not show"
        elif not why and others:
            why = "another kind of network policy in the files may allow it"
        blocking = need.start and not why
        text = message if blocking else unproven(f"{message} ({why})" if why else message)
        key = (namespace_of(blocker, "default"), str(blocker.name))
        if key not in findings or (blocking and not findings[key][0]):
            findings[key] = (blocking, blocker.name, text)
    return [(policy, text) for _, policy, text in findings.values()]


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
        "DNS on port 53 over UDP, so without a rule for it every name the pod dials fails. Limit: a cluster-wide "
        "allowance kept outside the files (a Calico GlobalNetworkPolicy, an AdminNetworkPolicy allowing port 53) "
        "overrides the namespace's policies; the finding is advice when such an object is among the files read, and "
        "blocking assumes the files hold every policy that applies to the pod."
    ),
)
