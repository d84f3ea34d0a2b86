"""G96 (quota-requests-set): a pod of a namespace whose ResourceQuota limits cpu or memory states them.

A ResourceQuota whose ``spec.hard`` names ``cpu``, ``memory``, ``requests.cpu``, ``requests.memory``, ``limits.cpu`` or
``limits.memory`` makes every new pod of its namespace state that value on each container, init containers included:
the ResourceQuota admission plugin asks the pod evaluator's ``Constraints`` for each matching quota and refuses the
pod with "failed quota: NAME: must specify limits.cpu for: main; ..." (kubernetes/apiserver v0.33.0
pkg/admission/plugin/resourcequota/controller.go:468-472; kubernetes/kubernetes pkg/quota/v1/evaluator/core/pods.go
``validationSet`` (those six names only, not ephemeral-storage or GPUs), ``Constraints``,
``enforcePodContainerConstraints``, ``podComputeUsageHelper``: a request counts for ``cpu``/``requests.cpu``, a limit
for ``limits.cpu``; code index stored version 05e7cb29). A limit with no request is copied into the request before
admission (https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#requests-and-limits, "If you
specify a limit for a resource, but do not specify any request ... Kubernetes copies the limit"), and a Container
LimitRange of the namespace fills what a container lacks first (LimitRanger; its ``max`` becomes its ``default``
when none is given, https://kubernetes.io/docs/concepts/policy/limit-range/). A workload's controller then never gets
a pod (FailedCreate on the ReplicaSet/Job), and a bare Pod is refused at apply.

Mandatory where the files prove it: the quota and a Kubernetes workload (Pod, Deployment, StatefulSet, DaemonSet,
ReplicaSet, Job, CronJob, LeaderWorkerSet) in the same named namespace, and no LimitRange of that namespace among the
files that defaults (or caps) the resource. Advice for an operator's custom resource (the operator may fill resources
into the pods it renders) and for a quota and workload that both state no namespace (the client's namespace holds
both only when they are applied together). Silent: a scoped quota (``scopes``/``scopeSelector``: which pods it
matches depends on their QoS, priority or deadline), a quota of other resources only, pod-level ``spec.resources``,
a container whose ``resources`` (or its requests/limits) is not a mapping the files state (an unrendered
``${RESOURCES}``), and a namespace a LimitRange stating no namespace may land in.
Spent set 78 paravatha/k8s-llmops-iac@955ec205 4-gpu/pytorch.yaml (a Pod with only nvidia.com/gpu) and
4-gpu/limits.yaml (quota compute-resources in namespace test), labelled NONE blocking.
"""

from __future__ import annotations

from typing import Any

from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, as_list, containers, get, is_custom_type, metadata_name, pod_specs, split_type

# The quota names the pod evaluator makes every container state (pods.go validationSet), and what satisfies each:
# (section of the container's resources, resource name); a request is also satisfied by a limit (defaulting).
_VALIDATED = {
    "cpu": ("requests", "cpu"),
    "requests.cpu": ("requests", "cpu"),
    "limits.cpu": ("limits", "cpu"),
    "memory": ("requests", "memory"),
    "requests.memory": ("requests", "memory"),
    "limits.memory": ("limits", "memory"),
}
# Kinds whose controller copies the pod template as written (no operator fills resources in).
_PLAIN_KINDS = frozenset(
    {
        ("", "Pod"),
        ("apps", "Deployment"),
        ("apps", "StatefulSet"),
        ("apps", "DaemonSet"),
        ("apps", "ReplicaSet"),
        ("batch", "Job"),
        ("batch", "CronJob"),
        ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"),
    }
)


def _namespace(resource: Resource) -> Any:
    return get(resource.props, "metadata", "namespace")


def _required(quota: Resource) -> list[str]:
    """The validated names an unscoped quota's spec.hard lists, in the order _VALIDATED gives."""
    spec = as_dict(get(quota.props, "spec"))
    if spec.get("scopes") or spec.get("scopeSelector"):
        return []
    hard = as_dict(spec.get("hard"))
    return [name for name in _VALIDATED if name in hard]


def _defaulted(resources: list[Resource], namespace: Any) -> tuple[set[tuple[str, str]], bool]:
    """What the namespace's Container LimitRanges among the files fill into a container lacking it, as (section,
    name), and whether the namespace has any LimitRange."""
    filled: set[tuple[str, str]] = set()
    seen = False
    for r in resources:
        # A LimitRange stating no namespace lands in the namespace it is applied to, which may be this one.
        if split_type(r.type) != ("", "LimitRange") or _namespace(r) not in (namespace, None):
            continue
        seen = True
        for item in (as_dict(i) for i in as_list(get(r.props, "spec", "limits"))):
            if item.get("type") != "Container":
                continue
            for field in ("default", "max"):  # a max with no default becomes the default (LimitRange defaulting)
                for name in as_dict(item.get(field)):
                    filled.update({("limits", str(name)), ("requests", str(name))})
            for name in as_dict(item.get("defaultRequest")):
                filled.add(("requests", str(name)))
    return filled, seen


def _missing(container: dict, required: list[str], filled: set[tuple[str, str]]) -> list[str]:
    stated = container.get("resources")
    if stated is not None and not isinstance(stated, dict):  # unrendered (${RESOURCES}, a template): cannot tell
        return []
    resources = as_dict(stated)
    if any(resources.get(s) is not None and not isinstance(resources.get(s), dict) for s in ("limits", "requests")):
        return []
    limits, requests = as_dict(resources.get("limits")), as_dict(resources.get("requests"))
    missing = []
    for quota_name in required:
        section, name = _VALIDATED[quota_name]
        stated = name in limits or (section == "requests" and name in requests)
        if not stated and (section, name) not in filled:
            missing.append(quota_name)
    return missing


def _gaps(resource: Resource, required: list[str], filled: set[tuple[str, str]]) -> dict[str, list[str]]:
    """quota name -> the containers of the resource's pods that do not state it."""
    gaps: dict[str, list[str]] = {}
    for _, podspec in pod_specs(resource):
        if podspec.get("resources"):  # pod-level resources (PodLevelResources): not judged
            continue
        for container in containers(podspec, init=True):
            for name in _missing(container, required, filled):
                gaps.setdefault(name, []).append(str(container.get("name", "?")))
    return gaps


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    quotas = [(q, required) for q in resources if split_type(q.type) == ("", "ResourceQuota") if (required := _required(q))]
    if not quotas:
        return []
    findings: list[tuple[str, str]] = []
    for r in resources:
        if split_type(r.type) in (("", "ResourceQuota"), ("", "LimitRange")) or not pod_specs(r):
            continue
        namespace = _namespace(r)
        if namespace is not None and not isinstance(namespace, str):
            continue
        for quota, required in quotas:
            if _namespace(quota) != namespace:
                continue
            filled, has_limit_range = _defaulted(resources, namespace)
            gaps = _gaps(r, required, filled)
            if not gaps:
                continue
            qname = metadata_name(quota.props) or "?"
            said = "; ".join(f"{name} for: {','.join(sorted(set(gaps[name])))}" for name in sorted(gaps))
            where = f"namespace {namespace}" if namespace else "the namespace both are applied to (neither states one)"
            kind = split_type(r.type)[1]
            refused = "this Pod is refused" if kind == "Pod" else f"this {kind}'s pods are refused"
            ranges = (
                "its LimitRange among the files defaults none of them"
                if has_limit_range
                else "no LimitRange among the files defaults them"
            )
            message = (
                f"ResourceQuota {qname} of {where} limits {', '.join(required)}, so the API server's ResourceQuota "
                f"admission makes every container of a new pod state them, and {ranges}: {refused} "
                f"('failed quota: {qname}: must specify {said}') and never run; set requests and limits for cpu and "
                f"memory on every container (init containers too), or add a LimitRange with defaults to the namespace"
            )
            operator = is_custom_type(r.type) and split_type(r.type) not in _PLAIN_KINDS
            if operator:
                message += " (the operator rendering this kind's pods may fill resources in)"
            if not namespace or operator or split_type(r.type) not in _PLAIN_KINDS:
                findings.append((r.name, unproven(message)))
            else:
                findings.append((r.name, message))
            break
    return findings


POLICY = Policy(
    name="quota-requests-set",
    description=(
        "A pod of a namespace whose ResourceQuota limits cpu or memory (requests.*, limits.*) states them on every "
        "container, or a LimitRange defaults them: otherwise the API server refuses the pod ('must specify ...')."
    ),
    catalog="G96",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Set resources.requests and resources.limits for cpu and memory on every container and init container of "
        "the namespace's pods, or add a LimitRange (type Container) with default and defaultRequest values."
    ),
    config_schema={},
    check_stack=_check,
    rationale=(
        "If a quota tracks cpu or memory, each container of a new pod must make an explicit request (or limit) for it: "
        "the ResourceQuota admission plugin refuses the pod otherwise (kubernetes/apiserver v0.33.0 "
        "pkg/admission/plugin/resourcequota/controller.go:468-472; kubernetes pkg/quota/v1/evaluator/core/pods.go "
        "validationSet, Constraints; https://kubernetes.io/docs/concepts/policy/resource-quotas/#compute-resource-quota: "
        "a quota on cpu or memory makes every new pod of the namespace state a request or limit for it)."
    ),
)
