"""G18 (companion): a serving app's pods must be reachable through a Service.

A Deployment, StatefulSet or LeaderWorkerSet that runs a model server and that no Service (or
Gateway API InferencePool) selects cannot be reached by a stable name, and its readiness never
takes a failing pod out of any rotation. KServe creates the Service of an InferenceService itself,
so those are not checked.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import get, split_type
from policies.reading.serving import selector_matches, unselected_serving_apps


def _selects(frontend: Resource, labels: dict) -> bool:
    kind = split_type(frontend.type)[1]
    if kind == "Service":
        return selector_matches(get(frontend.props, "spec", "selector"), labels, plain=True)
    # Gateway API inference extension: InferencePool.spec.selector is a plain map (v1alpha2) or
    # {matchLabels: ...} (v1).
    selector = get(frontend.props, "spec", "selector")
    if isinstance(selector, dict) and "matchLabels" in selector:
        return selector_matches(selector, labels)
    return selector_matches(selector, labels, plain=True)


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    findings = []
    for app in unselected_serving_apps(resources, ("Service", "InferencePool"), _selects, skip_kinds=("InferenceService",)):
        kind = split_type(app.type)[1]
        findings.append(
            (
                app.name,
                f"{kind} {get(app.props, 'metadata', 'name')}: no Service or InferencePool "
                f"selects its pods, so clients have no stable address and readiness takes "
                f"no failing replica out of rotation; add a ClusterIP Service",
            )
        )
    return findings


POLICY = Policy(
    name="serving-app-service",
    description="Every serving Deployment, StatefulSet or LeaderWorkerSet must be selected by a Service or InferencePool.",
    catalog="G18",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Add a ClusterIP Service in the same namespace whose spec.selector matches the model-server pods' labels "
        "(for a LeaderWorkerSet, the leader's: leaderworkerset.sigs.k8s.io/name and role: leader), or an "
        "InferencePool when the Gateway API inference extension routes to them."
    ),
    check_stack=_check,
    rationale=(
        "Pods are reached through a Service whose endpoints hold only Ready pods "
        "(https://kubernetes.io/docs/concepts/services-networking/service/); without one, nothing uses the "
        "readiness probe to route around a failed replica and clients must track pod IPs. The Gateway API "
        "inference extension's InferencePool plays that role for its gateways "
        "(https://gateway-api-inference-extension.sigs.k8s.io/api-types/inferencepool/)."
    ),
)
