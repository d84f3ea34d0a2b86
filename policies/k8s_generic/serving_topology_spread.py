"""G23 (adapted): replicas of a serving app should spread over nodes, softly.

Several replicas on one GPU node fail together when it is reclaimed or drained. GPUs are
scarce, so the spread must be ScheduleAnyway: a hard DoNotSchedule constraint leaves replicas
Pending when the only free GPU is on a node that already has one.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, as_dict, as_int, as_list, get, pod_specs, split_type
from policies.reading.serving import is_serving_app


def _replicas(resource: Resource) -> int | None:
    kind = split_type(resource.type)[1]
    if kind == "InferenceService":
        return as_int(get(resource.props, "spec", "predictor", "minReplicas"))
    return as_int(get(resource.props, "spec", "replicas"))


def _check(resource: Resource, config: dict) -> list[str]:
    if not is_serving_app(resource):
        return []
    replicas = _replicas(resource)
    messages = []
    for path, podspec in pod_specs(resource)[:1]:
        constraints = [as_dict(c) for c in as_list(podspec.get("topologySpreadConstraints"))]
        anti = get(podspec, "affinity", "podAntiAffinity")
        hard = [c for c in constraints if c.get("whenUnsatisfiable", "DoNotSchedule") == "DoNotSchedule"]
        if hard:
            keys = ", ".join(str(c.get("topologyKey")) for c in hard)
            messages.append(
                f"{path}.topologySpreadConstraints: whenUnsatisfiable DoNotSchedule on {keys} leaves "
                f"replicas Pending when free GPUs are only where a replica already runs; use ScheduleAnyway"
            )
        elif replicas is not None and replicas > 1 and not constraints and not anti:
            messages.append(
                f"{path}: {replicas} replicas with no topologySpreadConstraints or podAntiAffinity can all "
                f"land on one GPU node and fail together; spread them over hostnames with "
                f"whenUnsatisfiable: ScheduleAnyway"
            )
    return messages


POLICY = Policy(
    name="serving-topology-spread",
    description="A serving app with several replicas should spread them over nodes with a ScheduleAnyway constraint.",
    catalog="G23",
    severity="low",
    enforcement="advisory",
    remediation_steps=(
        "Add `topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: "
        "ScheduleAnyway, labelSelector: {matchLabels: <pod labels>}}]` (and a second one on topology.kubernetes.io/zone)."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "Topology spread constraints place replicas across failure domains "
        "(https://kubernetes.io/docs/concepts/scheduling-eviction/topology-spread-constraints/); with scarce GPUs a "
        "hard constraint turns a spread preference into Pending pods. Catalogue row 23 marks it ADAPT for this reason."
    ),
)
