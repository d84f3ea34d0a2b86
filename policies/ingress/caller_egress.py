"""G62 caller-egress-reaches-service: a pod isolated for Egress reaches the Services it calls.

The rule's reading, sources and advice conditions are told in policies/ingress/callers_admitted.py (the caller's end,
session 49, and its session-50 widening); the calls (env URLs and host:port values, a script's nc/curl, of app and init
containers) come from its ``_callers``. A pod isolated for Egress opens only what an egress rule of a policy selecting it
allows (kubernetes/api networking/v1/types.go:82-87@v0.34.0), matched on the destination pod and its port after the
Service's translation (:160-161).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from policies.framework import Policy, Resource, Unproven, unproven
from policies.ingress.callers_admitted import (
    Call,
    _backends,
    _callers,
    _name,
    _namespace_admits,
    _rule_admits,
    _service_port,
    _services,
    _target,
)
from policies.kube import as_list, get, memoized
from policies.reading.network_policies import applying, isolates, network_policies, other_engine, ports_admit, rules, unplaced
from policies.reading.serving import namespace_of


def _reaches_address(rule: Mapping, number: int) -> bool:
    """An egress rule that lets the caller open the Service's own address on its port (no ``to``, or an ipBlock): a
    plugin that judges the connection before the Service's translation lets it through."""
    if ports_admit(rule, number, (), "TCP") is False:
        return False
    peers = as_list(rule.get("to"))
    return not peers or any(not isinstance(p, Mapping) or "ipBlock" in p for p in peers)


def _reaches_namespace(policy: Any, rule: Mapping, namespace: str) -> bool:
    """Whether an egress rule's peers may hold any pod (or address) of ``namespace`` (careful: True where unknown)."""
    peers = as_list(rule.get("to"))
    if not peers:
        return True
    for peer in peers:
        if not isinstance(peer, Mapping) or "ipBlock" in peer:
            return True
        if "namespaceSelector" in peer:
            if _namespace_admits(peer.get("namespaceSelector"), namespace) is not False:
                return True
        elif namespace_of(policy, "default") == namespace:
            return True
    return False


def _why_advice(call: Call, isolating: list[Any], policies: list[Any], others: bool) -> str:
    """Why a dropped call is advice, not blocking ("" when the files prove it)."""
    if not call.literal:
        return "the URL comes from a ConfigMap, which may be replaced outside the files"
    if call.proxied:
        return "the container sets a proxy variable, so the call may leave through the proxy"
    if any(p.base or p.patch for p in isolating):
        # A Kustomize base policy a patch of the run targets is not what is applied: the overlay's patch may add
        # the egress rule (its build, checked whole, judges the result).
        return "a Kustomize patch of the files changes one of these policies, and may add the egress rule"
    if unplaced(policies, call.namespace, call.labels, "Egress"):
        return "a policy that leaves its namespace out (applied with kubectl apply -n) may apply to these pods"
    if others:
        return "another kind of network policy in the files may allow it"
    return ""


def _consequence(call: Call) -> str:
    if call.init:
        return "every connection is dropped, so this init container never gets its answer and the pod never starts"
    return "every request is dropped and times out"


def _unheld(call: Call, policies: list[Any], others: bool, held: set[str]) -> Optional[tuple[bool, str]]:
    """(blocking, message) for a call to NAME.NS.svc, a Service the files do not hold, when no egress rule of the
    caller's policies may reach any pod of namespace NS; None otherwise."""
    if call.key in held or call.port is None:
        return None
    egress = [p for p in applying(policies, call.namespace, call.labels, "Egress") if not p.patch]
    sname, sns = call.key.split(".", 1)
    if not egress or any(_reaches_namespace(p, rule, sns) for p, _, rule in rules(egress, "egress")):
        return None
    caller = _name(call.caller)
    why = _why_advice(call, applying(policies, call.namespace, call.labels, "Egress"), policies, others)
    names = ", ".join(str(get(p.props, "metadata", "name")) for p in egress)
    message = (
        f"{caller} calls Service {sname} of namespace {sns} ({call.said or f'{call.variable}={call.url}'}), but its pods are "
        f"isolated for Egress by NetworkPolicy {names} and no egress rule of those policies reaches any pod of "
        f"namespace {sns} (every rule names other namespaces or pods, or only DNS): {_consequence(call)}; add an egress "
        f"rule `to: [{{namespaceSelector: {{matchLabels: {{kubernetes.io/metadata.name: {sns}}}}}}}]` on port "
        f"{call.port} (the Service's target port)"
    )
    return (not why, message if not why else unproven(f"{message} ({why})"))


def _unheld_egress(call: Call, policies: list[Any]) -> list[Any]:
    return [p for p in applying(policies, call.namespace, call.labels, "Egress") if not p.patch]


_Findings = dict[tuple[str, str, int], tuple[tuple[bool, bool], tuple[str, ...], str]]


def _keep(findings: _Findings, key: tuple[str, str, int], blocking: bool, call: Call, egress: list[Any], text: str) -> None:
    """One finding per caller, Service and port (a blocking one over advice, an init container's over an app's),
    reported on the NetworkPolicies that isolate the caller for Egress: their egress rules are what to change (the
    ingress side, callers_admitted, reports on the isolating policy too). Spent set 91 2coolkalamkaar/k8s-SRE-Agent
    k8s/network-policy.yaml was labelled G62 on NetworkPolicy isolate-ai-infra, set 85's form likewise."""
    if key not in findings or (blocking, call.init) > findings[key][0]:
        findings[key] = ((blocking, call.init), tuple(dict.fromkeys(str(p.name) for p in _blamed(egress))), text)


def _blamed(egress: list[Any]) -> list[Any]:
    """The policies to report on: those whose podSelector names the caller's pods (the natural place for its rule), else
    the namespace-wide ones (podSelector {}) that isolate it."""
    specific = [
        p
        for p in egress
        if get(p.props, "spec", "podSelector", "matchLabels") or get(p.props, "spec", "podSelector", "matchExpressions")
    ]
    return specific or egress


def egress_findings(resources: list[Resource]) -> list[tuple[str, str]]:
    """Findings (caller workload, message) for a pod isolated for Egress whose egress rules reach none of the pods of a
    Service of the run it calls (an env URL or host:port, a script's nc/curl), on the port the Service forwards to; and,
    for a Service the files do not hold named NAME.NS.svc, none of the pods of namespace NS on any port."""
    policies = memoized(resources, "network_policies", network_policies)
    if not any(isolates(p, "Egress") for p in policies):
        return []
    callers = _callers(resources)
    if not callers:
        return []
    services = {
        f"{get(s.props, 'metadata', 'name')}.{namespace_of(s, 'default')}": s for s in _services(resources) if not s.patch
    }
    all_services = {f"{get(s.props, 'metadata', 'name')}.{namespace_of(s, 'default')}" for s in _services(resources)}
    others = other_engine(resources)
    findings: _Findings = {}
    for call in callers:
        if call.caller.patch:
            continue
        service = services.get(call.key)
        if service is None:
            unheld = _unheld(call, policies, others, all_services) if call.svc else None
            if unheld is not None:
                _keep(
                    findings,
                    (str(call.caller.name), call.key, call.port or 0),
                    unheld[0],
                    call,
                    _unheld_egress(call, policies),
                    unheld[1],
                )
            continue
        if get(service.props, "spec", "type") == "ExternalName":
            continue
        isolating = applying(policies, call.namespace, call.labels, "Egress")
        egress = [p for p in isolating if not p.patch]
        if not egress:
            continue
        port = _service_port(service, call.port)
        if port is None or call.port is None:
            continue  # a port the Service does not offer is in-cluster-url-resolves' (G63)
        backends = [b for b in _backends(resources, service) if b[0] is not call.caller]
        targets = [(b, _target(port, b[2])) for b in backends]
        if not targets or any(t is None for _, t in targets):
            continue
        union = rules(egress, "egress")
        sns = namespace_of(service, "default")
        if any(_reaches_address(rule, call.port) for _, _, rule in union):
            continue
        if any(
            _rule_admits(p, rule, "to", sns, labels, t[0], t[1])
            for (_, labels, _), t in targets
            if t is not None
            for p, _, rule in union
        ):
            continue
        why = _why_advice(call, isolating, policies, others)
        tport = targets[0][1][0] if targets[0][1] else 0
        sname = str(get(service.props, "metadata", "name"))
        pods = ", ".join(_name(b[0]) for b, _ in targets)
        names = ", ".join(str(get(p.props, "metadata", "name")) for p in egress)
        message = (
            f"{_name(call.caller)} calls Service {sname} ({call.said or f'{call.variable}={call.url}'}), but its pods are isolated for Egress by NetworkPolicy "
            f"{names} and no egress rule of those policies reaches the pods of {pods} on port {tport} (the port the "
            f"Service forwards to; a DNS-only or HTTPS-only rule does not): {_consequence(call)}; "
            f"add an egress rule to those pods (podSelector of their labels, namespaceSelector "
            f"kubernetes.io/metadata.name for another namespace) on port {tport}"
        )
        _keep(
            findings,
            (str(call.caller.name), call.key, tport),
            not why,
            call,
            egress,
            message if not why else unproven(f"{message} ({why})"),
        )
    return [(name, _shared(text, names)) for _, names, text in findings.values() for name in names] + [
        (_CALLER_MARK + key[0], text) for key, (_, names, text) in findings.items() if key[0] not in names
    ]


def _shared(text: str, names: tuple[str, ...]) -> str:
    """The finding as said on each of several isolating policies: advice (review51a). The calls fail either way, but the
    rule may go in any of them, and one blocking finding per policy would block the run several times for one fault
    (spent set 67 Envision-Construction/Open-OS: dlp-proxy is isolated by allow-dlp-proxy-egress-to-evolution-api and
    allow-external-https-egress; its labeller filed the fault on the Deployment). One blamed policy keeps it blocking
    (set 91 2coolkalamkaar/k8s-SRE-Agent isolate-ai-infra)."""
    if len(names) < 2 or isinstance(text, Unproven):
        return text
    return unproven(f"{text} (said on each of the {len(names)} policies that isolate it: the rule may go in any of them)")


# Findings said on the caller itself carry this mark until _check_callers strips it (one computation for both policies).
_CALLER_MARK = "\0caller:"


def _all(resources: list[Resource]) -> list[tuple[str, str]]:
    return memoized(resources, "caller_egress_findings", egress_findings)


def _check_egress(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    return [(name, text) for name, text in _all(resources) if not name.startswith(_CALLER_MARK)]


def _check_callers(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    """The same findings, said as advice on the caller whose calls fail (spent set 67 Envision-Construction/Open-OS:
    the dlp-proxy and open-webui Deployments were labelled, not the policies that isolate them)."""
    found = [(name[len(_CALLER_MARK) :], unproven(text)) for name, text in _all(resources) if name.startswith(_CALLER_MARK)]
    return list(dict.fromkeys(found))


EGRESS_POLICY = Policy(
    name="caller-egress-reaches-service",
    description=(
        "A pod isolated for Egress by NetworkPolicies that calls a Service of the run (an env URL, literal or from a "
        "ConfigMap, or host:port; an init container's script nc/curl) has an egress rule reaching that Service's pods on "
        "the port it forwards to, or for a NAME.NS.svc Service the files do not hold, some rule that may reach namespace "
        "NS; advice when the URL "
        "comes from a ConfigMap, a proxy variable is set, a Kustomize patch of the files targets one of its egress "
        "policies, or a namespace-less or other-engine policy may allow it."
    ),
    rationale=(
        "A pod isolated for egress may open only what some egress rule of a policy selecting it allows, and rules match "
        "the destination pod and its port after the Service's translation (kubernetes/api networking/v1/types.go:82-87 "
        "and :160-161@v0.34.0); a DNS-only or HTTPS-only policy drops the call. Blocking assumes the files hold every "
        "policy that applies to the caller."
    ),
    catalog="G62",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Add to the caller's egress policy a rule `to: [{podSelector: {matchLabels: <the Service's selector>}}]` on the "
        "Service's targetPort (and namespaceSelector kubernetes.io/metadata.name: <its namespace> across namespaces)."
    ),
    config_schema={},
    check_stack=_check_egress,
)


CALLER_POLICY = Policy(
    name="caller-egress-calls-fail",
    description=(
        "The caller of caller-egress-reaches-service hears it on its own workload (advice): its calls to a Service of "
        "the run are dropped by the NetworkPolicies that isolate it for Egress, whose rules are the field to change."
    ),
    rationale=EGRESS_POLICY.rationale,
    catalog="G62",
    severity="medium",
    enforcement="advisory",
    remediation_steps=EGRESS_POLICY.remediation_steps,
    config_schema={},
    check_stack=_check_callers,
)
