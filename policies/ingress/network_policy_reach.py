"""G33 (beside model-pods-network-isolated): NetworkPolicies that cut a model server off from what it needs.

egress-allows-model-download: a NetworkPolicy that selects a model server's pods for Egress makes the pod isolated for
egress: only what some egress rule of a policy selecting it allows gets out ("If a Pod is isolated for egress, the only
allowed connections from the pod are those allowed by the egress list of some NetworkPolicy that applies to the pod",
https://kubernetes.io/docs/concepts/services-networking/network-policies/#the-two-sorts-of-pod-isolation). A server that
downloads its model from the Hugging Face Hub at start needs DNS and HTTPS to the internet; with no rule that reaches
an outside address (no ``to``, or an ipBlock of all addresses) the download fails and the server exits at start (set 29:
JSXSTEWART/rise-local-lead-maker kubernetes/namespace-config.yaml@61b9a0f default-deny-all, Ingress and Egress for
every pod of llm-tenants, where vLLM downloads meta-llama/Meta-Llama-3.1-8B-Instruct). Blocking when the model lands
on the node's ephemeral storage (it starts empty); advice when a persistent volume holds the cache (it may hold the
model already: the Hub client falls back to cached files), when a proxy variable (HTTPS_PROXY) or HF_ENDPOINT points
elsewhere, when an ipBlock narrower than every address may hold the Hub's, when another kind of network policy
(Cilium, Calico, AdminNetworkPolicy) in the files may allow it, when the container's envFrom (not in the files) may set
HF_HUB_OFFLINE or a proxy, or when the image is not the engine's own (a custom image may hold the model); a port range
(port..endPort) holding 443 reaches HTTPS (cold review 29b, findings 1 and 4). A KServe InferenceService or
LLMInferenceService whose storage initializer downloads the model (hf://, gs://, an outside https:// host; s3:// is
advice, its endpoint may be in the cluster) counts the same: its init container needs the outside address (set 42).

namespace-selector-label-exists: a NetworkPolicy peer ``namespaceSelector.matchLabels`` on a label no Namespace of the
files carries, where the only label the API server sets on every namespace is ``kubernetes.io/metadata.name`` (its
value the namespace's name, from Kubernetes 1.21: https://kubernetes.io/docs/reference/labels-annotations-taints/
#kubernetes-io-metadata-name). ``name: ingress-nginx`` matches the stock ingress-nginx namespace only if someone
labels it so: advice (set 29: the same file's allow-ingress-from-gateway).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from typing import Iterator, Optional

from components.images import names_image
from components.serving_engines import Engine
from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, as_int, as_list, containers, get, name_of, pod_specs, split_type
from policies.reading.engines import env_values, fetches, hub_offline, table_servers, volume_at
from policies.reading.kserve_storage import ISVC, LLMISVC, downloaded_source
from policies.reading.llmisvc_pods import llmisvc_pod_labels
from policies.reading.model_ids import model_id
from policies.reading.network_policies import (
    NETPOL,
    applying,
    network_policies,
    other_engine,
    rules,
    selects_every_pod,
    unplaced,
)
from policies.reading.serving import engine_row, namespace_of, pod_labels
from policies.reading.vllm_args import served_model, vllm_servers

_PROXY_ENV = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "HF_ENDPOINT")
_EPHEMERAL = ("emptyDir", "ephemeral")
_METADATA_NAME = "kubernetes.io/metadata.name"


def _covers_https(port: Mapping) -> bool:
    """A NetworkPolicyPort that admits 443: no port (every port), 443 or "https", or a range port..endPort holding it
    (networking.k8s.io/v1 NetworkPolicyPort.endPort, GA in 1.25; cold review 29b, finding 1)."""
    value, end = port.get("port"), port.get("endPort")
    if value in (None, 443, "443", "https"):
        return True
    first, last = as_int(value), as_int(end)
    return first is not None and last is not None and first <= 443 <= last


def outside_https(rule: Mapping) -> Optional[bool]:
    """Whether an egress rule reaches an address outside the cluster on HTTPS: True (no ``to``, or an ipBlock of every
    address), None (an ipBlock that may hold the Hub's addresses), False (pods and namespaces only)."""
    ports = [as_dict(p) for p in as_list(rule.get("ports"))]
    if ports and not any(_covers_https(p) for p in ports):
        return False
    peers = as_list(rule.get("to"))
    if not peers:
        return True
    found: Optional[bool] = False
    for peer in peers:
        cidr = as_dict(as_dict(peer).get("ipBlock")).get("cidr")
        if not isinstance(cidr, str):
            continue
        try:
            network = ipaddress.ip_network(cidr, strict=False)
        except ValueError:
            return None
        if network.prefixlen == 0:
            return True
        if not network.is_private:
            found = None
    return found


def downloading_servers(resource: Resource) -> Iterator[tuple[str, dict, dict, str, tuple[str, ...], Engine]]:
    """(label, pod spec, container, model, cache folders, engine row) of every server that downloads its model at
    start."""
    from policies.reading.engines import cache_dirs

    vllm = engine_row("vllm")
    rows = [(s.label, s.podspec, s.container, served_model(s), s.args, vllm) for s in vllm_servers(resource)]
    rows += [(s.label, s.podspec, s.container, s.model, s.args, s.row) for s in table_servers(resource)]
    for label, podspec, container, model, args, row in rows:
        if row is None or row.downloads is None or hub_offline(row, container):
            continue
        what = fetches(row, model if isinstance(model, str) else None)
        if what is not None and isinstance(model, str) and model.strip():
            yield label, podspec, container, what, cache_dirs(container, args, row), row


def _download_findings(resources: list[Resource]) -> list[tuple[str, str]]:
    policies = network_policies(resources)
    others = other_engine(resources)
    findings: list[tuple[str, str]] = []
    reported: set[str] = set()
    for workload in resources:
        if workload.type not in WORKLOAD_TYPES or not isinstance(workload.props, dict):
            continue
        namespace, label_sets = namespace_of(workload, "default"), pod_labels(workload)
        for label, podspec, container, model, dirs, row in downloading_servers(workload):
            egress = applying(policies, namespace, label_sets, "Egress")
            if not egress:
                continue
            reach = [outside_https(as_dict(rule)) for p in egress for rule in as_list(get(p.props, "spec", "egress"))]
            if True in reach:
                continue
            first = next((p for p in egress if not as_list(get(p.props, "spec", "egress"))), egress[0])
            wide = selects_every_pod(first)
            blocker = _blocker(egress, reported)
            if blocker is None and not wide:
                continue
            volumes = [volume_at(podspec, container, d) for d in dirs] or [None]
            persistent = any(v is not None and not any(k in v for k in _EPHEMERAL) for v in volumes)
            proxied = [v for v in _PROXY_ENV if v in env_values(container)]
            message = (
                f"selects the pods of {get(workload.props, 'kind')}/{get(workload.props, 'metadata', 'name')} "
                f"({label}) for Egress, and no egress rule of a policy selecting them reaches the internet on HTTPS "
                f"(nor, without a rule for port 53, DNS), but the server downloads {model} at start: the download "
                f"fails and the server exits; allow egress to 0.0.0.0/0 on 443 and to kube-dns on "
                f"53, or serve the model from a volume with HF_HUB_OFFLINE=1"
            )
            why = ""
            if None in reach:
                why = "an ipBlock of the policies may hold the Hub's addresses"
            elif any(
                outside_https(r) is not False for _, _, r in rules(unplaced(policies, namespace, label_sets, "Egress"), "egress")
            ):
                why = "a policy that leaves its namespace out (applied with kubectl apply -n) may allow it"
            elif persistent:
                why = "the cache is on a persistent volume, which may hold the model already"
            elif proxied:
                why = f"{', '.join(proxied)} may send the download through a proxy the policies allow"
            elif others:
                why = "another kind of network policy in the files may allow it"
            elif container.get("envFrom"):
                why = "the container's envFrom may set HF_HUB_OFFLINE or a proxy"
            elif not names_image(container.get("image"), row.images):
                why = f"the image {container.get('image')} is not the engine's own and may hold the model"
            text = unproven(f"{message} ({why})") if why else message
            if blocker is not None:
                findings.append((blocker.name, text))
                if (rule_holder := _in_cluster_policy(egress, blocker, reported)) is not None:
                    findings.append((rule_holder.name, text))
            if wide:
                # A namespace-wide policy is no one workload's mistake: said on the server's workload too, as advice
                # (spent set 62 david66l/travelagent3 k8s/vllm-deployment.yaml, labelled G33 there).
                findings.append((workload.name, unproven(f"NetworkPolicy {get(first.props, 'metadata', 'name')} {text}")))
    return findings


# A model a container of no known engine names: model_ids' flags and variables, and MODEL_NAME (read here only,
# beside an egress rule that shows the author meant to reach outside: see _generic_findings).
_BARE_MODEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)?$")


def _named_model(container: Mapping) -> Optional[tuple[str, str]]:
    """(model, where it is named) of a container that names a Hub-style model id (org/name or a bare root-level name
    such as gpt2), or None."""
    named = model_id(container)
    found = (named.model, named.field) if named is not None and named.field else None
    if found is None and "MODEL_NAME" in (env := env_values(container)):
        found = (env["MODEL_NAME"], "env MODEL_NAME")
    if found is None or not isinstance(found[0], str) or not _BARE_MODEL.match(found[0].strip()):
        return None
    if not any(ch.isalpha() for ch in found[0]):
        return None
    return found[0].strip(), found[1]


def _in_cluster_https(policies: list[Resource]) -> Optional[str]:
    """Where an egress rule admits HTTPS (443) only to pods of the cluster: a ``to`` of namespaceSelector / podSelector
    peers and no ipBlock. A NetworkPolicyPeer's selectors select pods, ``namespaceSelector: {}`` every pod of every
    namespace, and only an ipBlock admits an address outside the cluster (networking.k8s.io/v1 NetworkPolicyPeer,
    https://kubernetes.io/docs/concepts/services-networking/network-policies/#behavior-of-to-and-from-selectors)."""
    for policy in policies:
        for i, rule in enumerate(as_dict(r) for r in as_list(get(policy.props, "spec", "egress"))):
            ports = [as_dict(p) for p in as_list(rule.get("ports"))]
            peers = [as_dict(p) for p in as_list(rule.get("to"))]
            if not ports or not any(as_int(p.get("port")) == 443 or p.get("port") == "https" for p in ports):
                continue
            if peers and not any("ipBlock" in p for p in peers):
                shown = "; ".join(", ".join(f"{k}: {v or '{}'}" for k, v in p.items()) for p in peers)
                return f"{policy.name.rsplit(' ', 1)[-1]} spec.egress[{i}] allows 443 only to {shown}"
    return None


def _in_cluster_policy(policies: list[Resource], blocker: Resource, reported: set[str]) -> Optional[Resource]:
    """The policy whose HTTPS egress rule admits only pods of the cluster (_in_cluster_https), when it is not the one a
    finding is already reported on: the rule written for the download is the field to change, so the finding is said
    on it too (spent set 110 johnahull/llm-d-xks-gke@7630140c deployments/istio-kserve/pattern1-baseline/manifests/
    networkpolicies/allow-vllm-egress.yaml, beside default-deny.yaml; brief crossfile56). ``reported`` is updated."""
    for policy in policies:
        if policy is blocker or policy.name in reported:
            continue
        if _in_cluster_https([policy]) is not None:
            reported.add(policy.name)
            return policy
    return None


def _generic_findings(resources: list[Resource], policies: list[Resource], reported: set[str]) -> list[tuple[str, str]]:
    """Advice for pods of no known engine that name a model (_named_model), isolated for egress by policies whose only
    HTTPS rule admits pods of the cluster (_in_cluster_https): the author meant the pod to reach outside on HTTPS, and
    the rule does not. Set 34: sahu04/hf-llm-gitops-project k8s/networkpolicy.yaml@306bb62 allows 443 to
    namespaceSelector {} while hf-llm-api (MODEL_NAME distilgpt2) downloads the model from huggingface.co at start."""
    findings: list[tuple[str, str]] = []
    for workload in resources:
        if workload.type not in WORKLOAD_TYPES or not isinstance(workload.props, dict):
            continue
        known = {id(s.container) for s in vllm_servers(workload)} | {id(s.container) for s in table_servers(workload)}
        namespace, label_sets = namespace_of(workload, "default"), pod_labels(workload)
        egress = applying(policies, namespace, label_sets, "Egress")
        if not egress or any(
            outside_https(as_dict(r)) is not False for p in egress for r in as_list(get(p.props, "spec", "egress"))
        ):
            continue
        rule = _in_cluster_https(egress)
        named = [
            (c, m) for _, spec in pod_specs(workload) for c in containers(spec) if id(c) not in known and (m := _named_model(c))
        ]
        if rule is None or not named or egress[0].name in reported:
            continue
        container, (model, field) = named[0]
        reported.add(egress[0].name)
        message = (
            f"selects the pods of {get(workload.props, 'kind')}/{get(workload.props, 'metadata', 'name')} for Egress, "
            f"and {rule}: those select pods of the cluster, never an outside address, so no rule reaches the internet "
            f"on HTTPS; container {container.get('name')} names the model {model} ({field}): if its image downloads it "
            f"from the Hugging Face Hub at start (its code is not in the files), the download fails and the server "
            f"cannot start; allow egress to 0.0.0.0/0 (except the cluster's ranges) on 443 with an ipBlock"
        )
        findings.append((egress[0].name, unproven(message)))
    return findings


# Where KServe's storage initializer fetches a storage URI from, by scheme: hf:// from the Hugging Face Hub, gs:// from
# Google Cloud Storage (kserve v0.20.0 python/storage/kserve_storage/kserve_storage.py:154-240 download by prefix; hf://
# through huggingface_hub's snapshot_download, :614-666). s3:// goes to the endpoint of the storage secret or the
# service account's annotations, which may be an in-cluster MinIO: advice. An https:// URI goes to its host.
_STORAGE_HOSTS = {"hf": "the Hugging Face Hub (huggingface.co)", "gs": "Google Cloud Storage"}


def _blocker(egress: list[Resource], reported: set[str]) -> Optional[Resource]:
    """The policy a finding is reported on (one with no egress rule at all, else the first), None when a finding is
    already on it; ``reported`` is updated."""
    blocker = next((p for p in egress if not as_list(get(p.props, "spec", "egress"))), egress[0])
    if blocker.name in reported:
        return None
    reported.add(blocker.name)
    return blocker


def _storage_host(uri: str) -> Optional[tuple[str, bool]]:
    """(where the storage initializer downloads ``uri`` from, proven outside the cluster) or None (a cluster host)."""
    scheme, _, rest = uri.strip().partition("://")
    if scheme in _STORAGE_HOSTS:
        return _STORAGE_HOSTS[scheme], True
    if scheme == "s3":
        return "S3 (the storage secret's endpoint, not in the files, may be an in-cluster MinIO)", False
    authority = rest.split("/", 1)[0].rsplit("@", 1)[-1].lower()
    host, _, port = authority.partition(":")
    if scheme not in ("http", "https") or "." not in host or host.endswith((".svc", ".local", ".internal")):
        return None
    labels = host.split(".")
    if len(labels) == 2 and not labels[1].isdigit() and labels[1] not in _TOP_LEVEL:
        return None  # <service>.<namespace>, the short in-cluster form (review 44 #5: minio-service.kubeflow)
    try:
        private = ipaddress.ip_address(host).is_private
    except ValueError:
        private = False
    if private:
        return None
    # Only HTTPS on 443 is what the egress rules are read for; another port or plain http is judged as advice.
    return host, scheme == "https" and port in ("", "443")


# Top-level domains a two-label model host ends in (a host such as minio-service.kubeflow with another last label is a
# Service in a namespace, which the pod's DNS search list resolves).
_TOP_LEVEL = frozenset(
    "com org net io ai co dev app cloud edu gov info biz me us uk de fr jp cn in eu ca au ch nl se no ru br kr tw sg hk".split()
)


def _reaches_block(rule: Mapping) -> bool:
    """Whether an egress rule admits HTTPS to an ipBlock of any range: a private block may be where a host of the
    user's own (an artifact store behind a proxy or VPN) resolves (review 44 #4)."""
    ports = [as_dict(p) for p in as_list(rule.get("ports"))]
    if ports and not any(_covers_https(p) for p in ports):
        return False
    return any(isinstance(as_dict(as_dict(peer).get("ipBlock")).get("cidr"), str) for peer in as_list(rule.get("to")))


def _initializer_overridden(workload: Resource, resources: list[Resource]) -> bool:
    """Whether the user may route the storage initializer's download elsewhere: KServe merges an init container named
    storage-initializer of the object's own pod spec into the one it generates (env, envFrom, volumes; kserve v0.20.0
    pkg/controller/v1alpha2/llmisvc/workload_storage.go:398, :432-445), and a ClusterStorageContainer of the files
    replaces the initializer (review 44 #10). A proxy variable, HF_ENDPOINT or envFrom there makes the block advice."""
    if any(split_type(r.type)[1] == "ClusterStorageContainer" for r in resources):
        return True
    for _, podspec in pod_specs(workload):
        for init in as_list(as_dict(podspec).get("initContainers")):
            init = as_dict(init)
            if init.get("name") != "storage-initializer":
                continue
            names = {n for n in (name_of(e) for e in as_list(init.get("env"))) if n is not None}
            if as_list(init.get("envFrom")) or names & set(_PROXY_ENV):
                return True
    return False


def _storage_findings(resources: list[Resource], policies: list[Resource], reported: set[str]) -> list[tuple[str, str]]:
    """KServe objects whose storage initializer (an init container of the model pod) downloads the model from outside
    the cluster at start, where every NetworkPolicy selecting the pods for Egress reaches no outside address on HTTPS:
    the init container never completes and the server never starts (set 42: johnahull/llmd-gke
    pattern1/manifests/networkpolicy-allow-vllm-egress.yaml@b810339 allows 443 only to namespaceSelector {} while the
    LLMInferenceService qwen2-3b-pattern1 downloads hf://Qwen/Qwen2.5-3B-Instruct)."""
    findings: list[tuple[str, str]] = []
    for workload in resources:
        kind = split_type(workload.type)
        if kind not in (ISVC, LLMISVC) or not isinstance(workload.props, dict):
            continue
        source = downloaded_source(workload)
        where = _storage_host(source[0]) if source else None
        if source is None or where is None:
            continue
        name = get(workload.props, "metadata", "name")
        label_sets = llmisvc_pod_labels(workload, name) if kind == LLMISVC else pod_labels(workload)
        namespace = namespace_of(workload, "default")
        egress = applying(policies, namespace, label_sets, "Egress")
        if not egress:
            continue
        rules = [as_dict(rule) for p in egress for rule in as_list(get(p.props, "spec", "egress"))]
        reach = [outside_https(rule) for rule in rules]
        if source[0].strip().partition("://")[0] in ("http", "https"):
            reach = [None if r is False and _reaches_block(rule) else r for r, rule in zip(reach, rules)]
        if True in reach:
            continue
        blocker = _blocker(egress, reported)
        if blocker is None:
            continue
        rule = _in_cluster_https(egress)
        how = (
            f"{rule}, which selects pods of the cluster, never an outside address"
            if rule
            else "no egress rule of a policy selecting them reaches an outside address on HTTPS"
        )
        message = (
            f"selects the pods of {kind[1]}/{name} for Egress, and {how}; KServe's storage initializer (an init "
            f"container of those pods) downloads {source[0]} from {where[0]} into {source[1]} before the server "
            f"starts: the download fails and the pod never starts; allow egress on 443 to 0.0.0.0/0 (except the "
            f"cluster's ranges) with an ipBlock, and DNS to kube-dns"
        )
        if None in reach:
            message = unproven(f"{message} (an ipBlock of the policies may hold its addresses)")
        elif not where[1] or other_engine(resources):
            message = unproven(message)
        elif _initializer_overridden(workload, resources):
            message = unproven(f"{message} (a storage-initializer override may send it through a proxy or mirror)")
        findings.append((blocker.name, message))
        if (rule_holder := _in_cluster_policy(egress, blocker, reported)) is not None:
            findings.append((rule_holder.name, message))
    return findings


def runtime_pullers(workload: Resource) -> list[tuple[str, str, str]]:
    """(container label, engine, where it pulls from) of each server of the workload started with no model that pulls
    one when a client asks (engine table downloads ``unset`` with a source pulled at run time: Ollama)."""
    found = []
    for server in table_servers(workload):
        downloads = server.row.downloads if server.row is not None else None
        if downloads is not None and "unset" in downloads.models and "run time" in downloads.source and not server.model:
            found.append((server.label, server.row.display if server.row is not None else "", downloads.source))
    return found


def _pull_findings(resources: list[Resource], policies: list[Resource], reported: set[str]) -> list[tuple[str, str]]:
    """Advice for a server that starts with no model and pulls one from its library when a client asks (engine table
    downloads ``unset`` at run time: Ollama's /api/pull and ``ollama pull`` fetch from registry.ollama.ai over HTTPS),
    isolated for Egress with no rule reaching an outside address on HTTPS: every pull fails, so it has nothing to
    serve. Advice: a volume may hold models pulled before the policy. Spent set 88 amey2025/ollama@26c52f4c
    network_policy_ollama.yaml (egress to the monitoring, Ollama and DNS pods only; labelled none, blocking)."""
    findings: list[tuple[str, str]] = []
    for workload in resources:
        if workload.type not in WORKLOAD_TYPES or not isinstance(workload.props, dict):
            continue
        pulling = runtime_pullers(workload)
        if not pulling:
            continue
        egress = applying(policies, namespace_of(workload, "default"), pod_labels(workload), "Egress")
        if not egress or any(outside_https(r) is not False for _, _, r in rules(egress, "egress")):
            continue
        blocker = _blocker(egress, reported)
        if blocker is None:
            continue
        label, display, source = pulling[0]
        findings.append(
            (
                blocker.name,
                unproven(
                    f"selects the pods of {get(workload.props, 'kind')}/{get(workload.props, 'metadata', 'name')} "
                    f"({label}: {display}, started with no model) for Egress, and no egress "
                    f"rule of a policy selecting them reaches an outside address on HTTPS, while the server gets its "
                    f"models from {source} when a client asks: every pull fails and it has no "
                    f"model to serve (unless its volume already holds them); allow egress on 443 to 0.0.0.0/0 (except "
                    f"the cluster's ranges) with an ipBlock, and DNS to kube-dns"
                ),
            )
        )
    return findings


def _check_download(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    found = _download_findings(resources)
    policies = network_policies(resources)
    if policies:
        found += _storage_findings(resources, policies, {n for n, _ in found})
        found += _pull_findings(resources, policies, {n for n, _ in found})
    return found + _generic_findings(resources, policies, {name for name, _ in found}) if policies else found


def _namespace_labels(resources: list[Resource]) -> dict[str, dict]:
    """The labels of each Namespace of the files, with the one the API server adds."""
    found = {}
    for r in resources:
        if split_type(r.type) == ("", "Namespace") and isinstance(r.props, dict):
            name = get(r.props, "metadata", "name")
            if isinstance(name, str):
                found[name] = {**as_dict(get(r.props, "metadata", "labels")), _METADATA_NAME: name}
    return found


def _check_namespace_labels(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    namespaces = _namespace_labels(resources)
    findings: list[tuple[str, str]] = []
    for policy in resources:
        if split_type(policy.type) != NETPOL or not isinstance(policy.props, dict) or policy.template or policy.patch:
            continue
        for direction, peers_key in (("ingress", "from"), ("egress", "to")):
            for i, rule in enumerate(as_list(get(policy.props, "spec", direction))):
                for peer in as_list(as_dict(rule).get(peers_key)):
                    wanted = as_dict(as_dict(as_dict(peer).get("namespaceSelector")).get("matchLabels"))
                    if not wanted or _METADATA_NAME in wanted or not all(isinstance(v, str) for v in wanted.values()):
                        continue
                    if any(all(labels.get(k) == v for k, v in wanted.items()) for labels in namespaces.values()):
                        continue
                    shown = ", ".join(f"{k}={v}" for k, v in wanted.items())
                    findings.append(
                        (
                            policy.name,
                            unproven(
                                f"spec.{direction}[{i}].{peers_key} admits namespaces labelled {shown}, which no Namespace "
                                f"of the files carries; the API server labels every namespace only with "
                                f"{_METADATA_NAME}=<name> (Kubernetes 1.21+), so unless someone labels it by hand the "
                                f"traffic is dropped; select {_METADATA_NAME}: <namespace> instead"
                            ),
                        )
                    )
                    break
    return findings


POLICY = Policy(
    name="egress-allows-model-download",
    description="A NetworkPolicy that isolates a model server's pods for Egress lets them reach the Hugging Face Hub "
    "(HTTPS to outside addresses, and DNS) when the server downloads its model at start; advice when a persistent cache, "
    "a proxy, a narrow ipBlock or another kind of network policy may make up for it.",
    catalog="G33",
    severity="high",
    enforcement="mandatory",
    remediation_steps="Add an egress rule to 0.0.0.0/0 (except the cluster's ranges) on TCP 443 and one to kube-dns on "
    "UDP/TCP 53 for the model pods, or pre-load the model on a volume and set HF_HUB_OFFLINE=1.",
    config_schema={},
    check_stack=_check_download,
    rationale=(
        "A pod selected by a NetworkPolicy with Egress in policyTypes may only open the connections some egress rule "
        "allows (https://kubernetes.io/docs/concepts/services-networking/network-policies/); vLLM, TGI and SGLang "
        "fetch a Hub model at start and exit when they cannot."
    ),
)

NAMESPACE_LABEL_POLICY = Policy(
    name="namespace-selector-label-exists",
    description="A NetworkPolicy's namespaceSelector matches a label a Namespace carries: one of the files, or the "
    "kubernetes.io/metadata.name label the API server sets on every namespace (advice).",
    catalog="G33",
    severity="medium",
    enforcement="advisory",
    remediation_steps="Select the source namespace by kubernetes.io/metadata.name: <namespace>.",
    config_schema={},
    check_stack=_check_namespace_labels,
    rationale=(
        "The API server sets kubernetes.io/metadata.name on every namespace from Kubernetes 1.21 "
        "(https://kubernetes.io/docs/reference/labels-annotations-taints/#kubernetes-io-metadata-name); other labels "
        "exist only where someone sets them, so a selector on one the files do not show may match no namespace."
    ),
)
