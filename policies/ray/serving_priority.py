"""G22: a KubeRay cluster serving a model runs at no lower priority than the stack's other GPU serving pods.

KubeRay v1.7.0 sets no priority on the pods it creates (ray-operator/controllers/ray/common/pod.go
copies the group's template), so a RayCluster without ``priorityClassName`` runs at 0 (or the
cluster's globalDefault class). Beside serving pods at a higher class with PreemptLowerPriority, a
scale-out of another model preempts a Ray GPU worker; the whole engine stops, and a multi-node
engine takes tens of minutes to come back (placement group, weights over several nodes).

Neighbours are the stack's other serving apps whose pods request GPUs; priorities are resolved through
the stack's PriorityClasses. A class the stack does not define counts as above 0 but unknown: whether it outranks
the Ray pods (and whether it may preempt at all: a class's ``preemptionPolicy: Never`` never does) is in an object
outside the files read, so that finding is advice (a platform's shared class, a chart's own).
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.kube import get, is_ray, name_of, pod_specs, requests_gpu, split_type
from policies.reading.ray_cluster import groups
from policies.reading.serving import is_serving_app

UNKNOWN = float("inf")  # a class not defined in the stack: assumed higher than any number we know


def _classes(resources: list[Resource]) -> tuple[dict[str, float], float, set[str]]:
    """The run's PriorityClasses: name -> value, the globalDefault's value (0 without one), and the classes that never
    preempt (``preemptionPolicy: Never``: "pods ... will not preempt other pods", scheduling.k8s.io/v1 PriorityClass)."""
    values: dict[str, float] = {}
    default = 0.0
    never: set[str] = set()
    for r in resources:
        if split_type(r.type) == ("scheduling.k8s.io", "PriorityClass"):
            name, value = get(r.props, "metadata", "name"), get(r.props, "value")
            if isinstance(name, str) and isinstance(value, (int, float)):
                values[name] = float(value)
                if get(r.props, "globalDefault") is True:
                    default = float(value)
                if get(r.props, "preemptionPolicy") == "Never":
                    never.add(name)
    return values, default, never


def _priority(podspec: dict, values: dict[str, float], default: float) -> float:
    name = podspec.get("priorityClassName")
    if not isinstance(name, str) or not name:
        return default
    return values.get(name, UNKNOWN)


def _label(podspec: dict, value: float) -> str:
    name = podspec.get("priorityClassName")
    shown = "unknown" if value == UNKNOWN else f"{value:g}"
    return f"{name} ({shown})" if isinstance(name, str) and name else f"none ({shown})"


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    values, default, never = _classes(resources)
    neighbours: list[tuple[float, str, dict]] = []
    for r in resources:
        if is_ray(r.type) or not is_serving_app(r):
            continue
        for _, podspec in pod_specs(r):
            if requests_gpu(podspec) and name_of(podspec, "priorityClassName") not in never:
                neighbours.append(
                    (_priority(podspec, values, default), f"{split_type(r.type)[1]} {get(r.props, 'metadata', 'name')}", podspec)
                )
    if not neighbours:
        return []
    top, top_name, top_spec = max(neighbours, key=lambda n: n[0])
    findings: list[tuple[str, str]] = []
    for r in resources:
        if split_type(r.type)[0] != "ray.io":
            continue
        for group in groups(r):
            mine = _priority(group.podspec, values, default)
            if mine == UNKNOWN or mine >= top:
                continue
            message = (
                f"{group.path}.template.spec.priorityClassName: {_label(group.podspec, mine)} is below "
                f"{top_name}'s {_label(top_spec, top)}; with PreemptLowerPriority a scale-out of that "
                f"model can preempt this Ray pod and stop the whole engine"
            )
            findings.append((r.name, unproven(message) if top == UNKNOWN else message))
    return findings


POLICY = Policy(
    name="kuberay-serving-priority",
    description="Every pod group of a KubeRay cluster runs at a priority no lower than the stack's other GPU serving pods.",
    rationale="KubeRay sets no priority class on the pods it creates (KubeRay v1.7.0 ray-operator/controllers/ray/common/pod.go), so Ray pods default to 0 while serving pods usually run at a higher class that may preempt lower ones (https://kubernetes.io/docs/concepts/scheduling-eviction/pod-priority-preemption/). A preempted Ray worker takes down a multi-node engine for its whole cold start.",
    catalog="G22",
    severity="high",
    # Advisory: a risk, not a failure the files prove (docs/policies.md "Enforcement levels"); --config raises it.
    enforcement="advisory",
    remediation_steps="Set priorityClassName on the head and every worker group's template to the class the other "
    "serving pods use (e.g. llm-serving-inference).",
    check_stack=_check,
)
