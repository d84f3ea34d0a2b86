"""G69 affinity-selects-pods: a pod (anti-)affinity term whose labelSelector names a label its controller never sets.

The scheduler places a pod beside (podAffinity) or away from (podAntiAffinity) the pods a term's labelSelector selects
in the term's namespaces (https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#inter-pod-affinity-
and-anti-affinity). A selector on a key in a controller's own domain that neither the controller nor any template of
the run writes selects no pod: an anti-affinity term then spreads nothing (GPU workers may share one node and fail
together), a preferred affinity term is ignored, and a required affinity term leaves the pod Pending. The keys are read
as the controllers write them (policies/reading/controller_pod_labels.py): KubeRay writes ``ray.io/group``, never
``ray.io/group-name`` (ray-project/kuberay v1.7.0 ray-operator/controllers/ray/utils/constant.go:21); LeaderWorkerSet
writes the keys of kubernetes-sigs/lws v0.10.0 api/leaderworkerset/v1/leaderworkerset_types.go:37-63.

Catalogued with the references that must resolve (G69): the term names pods by a label as a reference names an object,
whatever the term was for (spreading replicas, keeping a head away from its workers). Judged only for a key of the
domain of a controller whose objects the run holds (a ``ray.io/`` key beside a KubeRay resource) and that no pod group
of the run may carry; terms reaching other namespaces (``namespaces``,
``namespaceSelector``) are not read. Advice: spent set 112 askulkarni2/ray-serve-with-eks-auto@534ddcc0
app/ray-serve-vllm-ha.yaml (the head's anti-affinity on ``ray.io/group-name In [gpu-workers]``; the workers' own term
on ``ray.io/group`` in the same file is the careful form).
"""

from __future__ import annotations

from collections.abc import Iterator

from policies.framework import Policy, Resource
from policies.kube import as_dict, as_list, get, pod_specs
from policies.reading.controller_pod_labels import may_have, pod_groups

_DOMAINS = {"ray.io/": "KubeRay", "leaderworkerset.sigs.k8s.io/": "LeaderWorkerSet"}
_KINDS = ("podAffinity", "podAntiAffinity")
_REQUIRED, _PREFERRED = "requiredDuringSchedulingIgnoredDuringExecution", "preferredDuringSchedulingIgnoredDuringExecution"


def _terms(podspec: dict) -> Iterator[tuple[str, str, dict, bool]]:
    """(kind, field path, term, required) of every pod (anti-)affinity term of a pod spec."""
    for kind in _KINDS:
        block = as_dict(get(podspec, "affinity", kind))
        for i, term in enumerate(as_list(block.get(_REQUIRED))):
            yield kind, f"affinity.{kind}.{_REQUIRED}[{i}]", as_dict(term), True
        for i, weighted in enumerate(as_list(block.get(_PREFERRED))):
            yield (
                kind,
                f"affinity.{kind}.{_PREFERRED}[{i}].podAffinityTerm",
                as_dict(as_dict(weighted).get("podAffinityTerm")),
                False,
            )


def _keys(selector: dict) -> list[str]:
    keys = [str(k) for k in as_dict(selector.get("matchLabels"))]
    return keys + [
        str(as_dict(e).get("key"))
        for e in as_list(selector.get("matchExpressions"))
        if isinstance(as_dict(e).get("key"), str) and as_dict(e).get("operator") in ("In", "Exists")
    ]


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    groups = [g for r in resources if isinstance(r.props, dict) for g in pod_groups(r)]
    owners = {prefix for g in groups for prefix in g.domain}
    if not owners:
        return []
    findings = []
    for resource in resources:
        if not isinstance(resource.props, dict) or resource.template or resource.patch:
            continue
        for path, podspec in pod_specs(resource):
            for kind, where, term, required in _terms(podspec):
                if term.get("namespaces") or term.get("namespaceSelector") is not None:
                    continue
                for key in _keys(as_dict(term.get("labelSelector"))):
                    prefix = next((p for p in owners if key.startswith(p)), None)
                    if prefix is None or any(may_have(g, key) for g in groups if prefix in g.domain):
                        continue
                    effect = "leaves the pod Pending" if kind == "podAffinity" and required else "has no effect"
                    apart = " (the pods it was to keep apart may share a node and fail together)"
                    findings.append(
                        (
                            resource.name,
                            f"{path}.{where}: labelSelector names {key}, which {_DOMAINS[prefix]} never sets on the pods "
                            f"it creates and no template of the files does, so the term selects no pod and {effect}"
                            f"{apart if kind == 'podAntiAffinity' else ''}"
                            f"; select a label the pods carry"
                            + (" (KubeRay: ray.io/group: <groupName>, ray.io/node-type)" if prefix == "ray.io/" else ""),
                        )
                    )
    return findings


POLICY = Policy(
    name="affinity-selects-pods",
    description="A pod (anti-)affinity term's labelSelector names labels the pods' controllers write (KubeRay's "
    "ray.io/group, not ray.io/group-name; LeaderWorkerSet's keys), where the run holds that controller's objects.",
    catalog="G69",
    severity="medium",
    enforcement="advisory",
    remediation_steps="Select a label the controller writes: for KubeRay ray.io/group: <groupName> or ray.io/node-type; "
    "for a LeaderWorkerSet leaderworkerset.sigs.k8s.io/name.",
    config_schema={},
    check_stack=_check,
    rationale=(
        "The scheduler matches an affinity term's labelSelector against the labels the pods carry; KubeRay labels its "
        "pods ray.io/group (kuberay v1.7.0 utils/constant.go:21), so a term on another ray.io/ key selects nothing."
    ),
)
