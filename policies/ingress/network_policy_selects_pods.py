"""G33: a NetworkPolicy of a serving namespace whose podSelector matches no pod of the run there.

A NetworkPolicy applies to the pods its ``spec.podSelector`` selects in its own namespace, and to no other ("podSelector
selects the grouping of pods to which the policy applies",
https://kubernetes.io/docs/concepts/services-networking/network-policies/#networkpolicy-resource). A selector written
for the model server on a label its pods do not carry (``app: vllm`` against pods labelled
``app.kubernetes.io/name: vllm``) allows nothing to the server: its ingress and egress rules are dead.

Advice in general: the policy may be meant for pods the files do not show. Mandatory when a default-deny policy of the
namespace (``podSelector: {}`` with Ingress in policyTypes and no ingress rule) isolates the model server for
Ingress, no policy that selects the server has an ingress rule, and the dead policy's selector shares a label value
with the server's pods (it was written for them): nothing admits any connection to the server, so the Service's
traffic, the ingress controller and Prometheus all time out (set 41 rajyadav9/mlops@37bc3e2
k8s/network-policies/01-vllm.yaml NetworkPolicy/vllm-allow, app=vllm; label G33 blocking with the repository's
default-deny-all, which the set does not hold, so it is advice there).

Judged only where the selector was written for a model server of the namespace: it names a label value the server's
pods carry (on another key) or the server's name; or, in a namespace where a model server runs, for any workload of the
run whose pods carry the selector's key with the same value but for case and separators (session 51: spent set 88
amey2025/ollama@26c52f4c network_policy_ollama_web.yaml, podSelector ``app: openwebui`` while the Open WebUI pods are
labelled ``app: open-webui``: the UI is left without the policy meant for it). Silent where the run may not show the namespace's pods
(run_objects.hidden_namespaces: an operator's resource, a template, a patch, unrendered labels), on ``podSelector: {}``
(every pod), on a selector for another app whose pods the files leave out (spent set 37 qais001-pr/Multi-Tenant-AI-
Inference-And-Traffic-Hub allow-frontend-to-backend.yaml@e3d9eb8: app=backend-deployment-label, the backend's
Deployment not in the set), and where another kind of network policy (Cilium, Calico) is in the files.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, as_list, get, metadata_name, split_type
from policies.reading.label_selectors import selector_equalities, selector_matches
from policies.reading.run_objects import hidden_namespaces, pod_label_sets, unrendered
from policies.reading.serving import is_serving_app, namespace_of

_NETPOL = ("networking.k8s.io", "NetworkPolicy")
_OTHER_POLICIES = ("CiliumNetworkPolicy", "CiliumClusterwideNetworkPolicy", "GlobalNetworkPolicy", "AdminNetworkPolicy")


def _selector(policy: Resource) -> Mapping[str, Any]:
    selector = get(policy.props, "spec", "podSelector")
    return selector if isinstance(selector, Mapping) else {}


def _every_pod(policy: Resource) -> bool:
    selector = _selector(policy)
    return not (selector.get("matchLabels") or selector.get("matchExpressions"))


def _ingress_type(policy: Resource) -> bool:
    types = as_list(get(policy.props, "spec", "policyTypes"))
    return not types or "Ingress" in types  # without policyTypes, Ingress is always implied


def _shown(selector: Mapping[str, Any]) -> str:
    parts = [f"{k}={v}" for k, v in sorted(as_dict(selector.get("matchLabels")).items())]
    parts += [
        f"{get(e, 'key')} {get(e, 'operator')} {as_list(get(e, 'values'))}" for e in as_list(selector.get("matchExpressions"))
    ]
    return ", ".join(parts)


def _default_deny(policies: list[Resource]) -> str | None:
    """The name of a policy of the namespace that isolates every pod for Ingress and admits nothing."""
    for p in policies:
        if _every_pod(p) and _ingress_type(p) and not as_list(get(p.props, "spec", "ingress")):
            return metadata_name(p.props) or "?"
    return None


def _admitted(policies: list[Resource], labels: Mapping[str, Any]) -> bool:
    """True when some policy that selects these pods has an ingress rule."""
    return any(
        _ingress_type(p)
        and as_list(get(p.props, "spec", "ingress"))
        and (_every_pod(p) or selector_matches(_selector(p), labels))
        for p in policies
    )


def _meant_for(selector: Mapping[str, Any], workload: Resource, labels: Mapping[str, Any]) -> bool:
    """True when the selector names a label value the server's pods carry, or the server's name (written for them, on
    another key); a selector for another app of the namespace whose pods the files leave out is not judged."""
    wanted = set(selector_equalities(selector).values())  # matchLabels, and single-value In expressions
    return bool(wanted & {str(v) for v in labels.values()} | wanted & {str(metadata_name(workload.props))})


def _squash(value: str) -> str:
    """A label value with case and separators dropped (open-webui, Open_WebUI and openwebui are one)."""
    return "".join(ch for ch in value.lower() if ch not in "-_.")


def _misspelt(selector: Mapping[str, Any], labels: Mapping[str, Any]) -> bool:
    """True when a pair the selector requires is carried by these pods under its key with another spelling of the
    value (case and separators only): the selector was written for them."""
    wanted = selector_equalities(selector)
    return any(
        k in labels and str(labels[k]) != v and _squash(str(labels[k])) == _squash(v) and _squash(v) for k, v in wanted.items()
    )


def _namespaces(resources: list[Resource]) -> tuple[dict[str, list], dict[str, list], dict[str, list[Resource]]]:
    """Per namespace: the (workload, labels) of every pod template of the run, the (workload, labels) of model servers,
    the NetworkPolicies."""
    pods: dict[str, list] = {}
    servers: dict[str, list] = {}
    policies: dict[str, list[Resource]] = {}
    for r in resources:
        ns = namespace_of(r, "default")
        if split_type(r.type) == _NETPOL and isinstance(r.props, dict) and not (r.template or r.patch):
            policies.setdefault(ns, []).append(r)
            continue
        labels = list(pod_label_sets(r))
        pods.setdefault(ns, []).extend((r, lab) for lab in labels)
        if labels and is_serving_app(r):
            servers.setdefault(ns, []).extend((r, lab) for lab in labels)
    return pods, servers, policies


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    if any(split_type(r.type)[1] in _OTHER_POLICIES for r in resources):
        return []
    hidden = hidden_namespaces(resources)
    pods, servers, policies = _namespaces(resources)
    findings = []
    for ns, in_ns in sorted(policies.items()):
        if ns in hidden or not servers.get(ns):
            continue
        deny = _default_deny(in_ns)
        for policy in in_ns:
            selector = _selector(policy)
            if _every_pod(policy) or unrendered(str(selector)):
                continue
            if any(selector_matches(selector, labels) for _, labels in pods.get(ns, [])):
                continue
            meant = [(w, labels) for w, labels in servers[ns] if _meant_for(selector, w, labels)]
            if meant:
                findings.append((policy.name, _message(policy, ns, meant, in_ns, deny)))
            elif misspelt := [(w, labels) for w, labels in pods.get(ns, []) if _misspelt(selector, labels)]:
                findings.append((policy.name, _misspelt_message(policy, ns, misspelt)))
    return findings


def _message(policy: Resource, ns: str, servers: list, in_ns: list[Resource], deny: str | None) -> str:
    selector = _selector(policy)
    workload, labels = servers[0]
    kind, name = split_type(workload.type)[1], metadata_name(workload.props)
    carried = ", ".join(f"{k}={v}" for k, v in sorted(labels.items())) or "no labels"
    head = (
        f"spec.podSelector {_shown(selector)} matches no pod of namespace {ns} in the files, where the model server "
        f"{kind} {name} runs with pod labels {carried}: the policy's rules apply to nothing"
    )
    cut = [(split_type(w.type)[1], metadata_name(w.props)) for w, lab in servers if not _admitted(in_ns, lab)]
    if deny is not None and as_list(get(policy.props, "spec", "ingress")) and cut:
        k, n = cut[0]
        return (
            f"{head}, and NetworkPolicy {deny} isolates every pod of {ns} for Ingress while no policy that selects "
            f"{k} {n} admits any connection: the Service, the ingress controller and Prometheus reach it no more; "
            f"select the labels the server's pods carry"
        )
    return unproven(
        f"{head} (unless pods outside the files carry them); with a default-deny policy in the namespace the server "
        f"is cut off; select the labels the server's pods carry"
    )


def _misspelt_message(policy: Resource, ns: str, pods: list) -> str:
    workload, labels = pods[0]
    kind, name = split_type(workload.type)[1], metadata_name(workload.props)
    carried = ", ".join(f"{k}={v}" for k, v in sorted(labels.items())) or "no labels"
    return unproven(
        f"spec.podSelector {_shown(_selector(policy))} matches no pod of namespace {ns} in the files, while {kind} "
        f"{name} there runs pods labelled {carried}, the same value spelt otherwise: the policy meant for them applies "
        f"to nothing, so its rules (and the isolation it was written to give) never reach them; select the labels the "
        f"pods carry"
    )


POLICY = Policy(
    name="network-policy-selects-pods",
    description="A NetworkPolicy of a namespace where a model server runs selects pods of the run; mandatory where a "
    "default-deny then leaves the server with nothing admitting it.",
    catalog="G33",
    severity="high",
    enforcement="mandatory",
    remediation_steps="Make spec.podSelector name labels the model server's pod template carries (compare "
    "spec.template.metadata.labels), e.g. app.kubernetes.io/name: vllm rather than app: vllm.",
    config_schema={},
    check_stack=_check,
    rationale=(
        "A NetworkPolicy applies only to the pods its podSelector selects in its namespace "
        "(https://kubernetes.io/docs/concepts/services-networking/network-policies/#networkpolicy-resource); under a "
        "default-deny, a pod no allowing policy selects receives no connection. Catalogue row 33."
    ),
)
