"""G18 pdb-selects-pods: a PodDisruptionBudget whose selector selects no pod of its run, where the run holds the pods it
was written for.

The disruption controller counts the pods of the PDB's namespace its selector selects (kubernetes v1.31.0
pkg/controller/disruption/disruption.go getPodsForPdb); one that selects none protects nothing, so a drain or
Karpenter's consolidation evicts the serving pods it was meant to keep. The pods' labels are read as their controllers
write them (policies/reading/controller_pod_labels.py): KubeRay's ``ray.io/group`` (not ``ray.io/group-name``) and
the generated ``ray.io/cluster`` of a RayService's cluster, LeaderWorkerSet's and KServe's keys, a workload template's
labels.

Judged only where the run holds the pods it was meant for: a selector on keys of a controller's own domain
(``ray.io/``, ``leaderworkerset.sigs.k8s.io/``) beside that controller's objects, or a workload of the PDB's folder
whose pods carry every key the selector names (with other values). Silent where anything of the namespace may make pods
the files do not show (another operator's resource, a Helm template, a Kustomize patch or base, an unrendered label).
Advice: the pods may still come from elsewhere (spent set 112 askulkarni2/ray-serve-with-eks-auto@534ddcc0
app/ray-serve-vllm-ha.yaml: ``ray.io/group-name: gpu-workers`` and ``ray.io/cluster: vllm-serve`` on a RayService's
pods).
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

from policies.framework import Policy, Resource
from policies.kube import as_dict, as_list, get, split_type
from policies.reading.controller_pod_labels import Generated, PodGroup, makes_known_pods, may_have, may_select, pod_groups
from policies.reading.label_selectors import namespaces_meet
from policies.reading.run_objects import folder_of, hides_pods, unrendered

PDB_TYPES = ("kubernetes:policy/v1:PodDisruptionBudget", "kubernetes:policy/v1beta1:PodDisruptionBudget")
_NAMES = {"ray.io/": "KubeRay", "leaderworkerset.sigs.k8s.io/": "LeaderWorkerSet"}
# Cluster-scoped kinds' API groups that make no pods (node provisioning, CRDs, webhooks, runtime classes): they land in
# no namespace, so they would otherwise stand beside every PDB as an unknown pod maker.
_NO_PODS = frozenset(
    {
        "karpenter.sh",
        "karpenter.k8s.aws",
        "karpenter.azure.com",
        "eks.amazonaws.com",
        "apiextensions.k8s.io",
        "admissionregistration.k8s.io",
        "node.k8s.io",
        "resource.k8s.io",
    }
)


def selector_keys(selector: Mapping) -> list[str]:
    """The keys a LabelSelector names (matchLabels, then matchExpressions)."""
    keys = [str(k) for k in as_dict(selector.get("matchLabels"))]
    return keys + [str(as_dict(e).get("key")) for e in as_list(selector.get("matchExpressions")) if as_dict(e).get("key")]


def judged_selector(selector: Any) -> Optional[dict]:
    """A literal, non-empty LabelSelector (an empty one selects every pod of the namespace), or None."""
    if not isinstance(selector, dict) or not (selector.get("matchLabels") or selector.get("matchExpressions")):
        return None
    pairs = as_dict(selector.get("matchLabels"))
    exprs = [str(as_dict(e).get("key")) for e in as_list(selector.get("matchExpressions"))]
    if any(unrendered(k) or unrendered(v) for k, v in pairs.items()) or any(unrendered(k) for k in exprs):
        return None
    return selector


def opaque(resource: Resource) -> bool:
    """An object that may make pods whose labels the files do not show (run_objects.hides_pods), read here unless
    controller_pod_labels knows its pods and their labels are literal."""
    if get(resource.props, "kind") == "Namespace" or split_type(resource.type)[0] in _NO_PODS:
        return False
    if resource.template or resource.patch or resource.base:
        return True
    if makes_known_pods(resource):
        return any(unrendered(k) or unrendered(v) for g in pod_groups(resource) for k, v in g.labels.items())
    return hides_pods(resource)


def why_not(selector: Mapping, groups: list[PodGroup], *, plain: bool = False) -> str:
    """Why a selector misses the controller's pods: keys it never writes, the generated cluster name, or the values."""
    pairs = selector if plain else as_dict(selector.get("matchLabels"))
    reasons = []
    for key in selector_keys(selector) if not plain else [str(k) for k in selector]:
        owner = next((n for p, n in _NAMES.items() if key.startswith(p)), "")
        if owner and not any(may_have(g, key) for g in groups):
            reasons.append(f"{owner} never sets {key} on its pods and no template does")
        elif key in pairs:
            values = {str(g.labels[key]) for g in groups if key in g.labels}
            generated = [g.labels[key] for g in groups if isinstance(g.labels.get(key), Generated)]
            if generated:
                reasons.append(
                    f"{key} is the generated name of the RayCluster KubeRay makes ({generated[0]}: utils."
                    f"GenerateRayClusterName), never {pairs[key]}"
                )
            elif values and str(pairs[key]) not in values:
                reasons.append(f"the pods carry {key}={'/'.join(sorted(values))}, not {pairs[key]}")
    return "; ".join(reasons)


def meant_for(selector: Mapping, groups: list[PodGroup], folder: Optional[str], *, plain: bool = False) -> list[PodGroup]:
    """The pod groups a selector that selects none of them was written for (module docstring), or []."""
    keys = [str(k) for k in selector] if plain else selector_keys(selector)
    owned = [g for g in groups if g.domain and any(k.startswith(g.domain) for k in keys)]
    if owned:
        return owned
    return [
        g for g in groups if folder is not None and folder_of(g.owner) == folder and keys and all(k in g.labels for k in keys)
    ]


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    pdbs = [r for r in resources if r.type in PDB_TYPES and isinstance(r.props, dict) and not (r.template or r.patch)]
    if not pdbs:
        return []
    objects = [r for r in resources if isinstance(r.props, dict) and split_type(r.type)[1] != "PodDisruptionBudget"]
    findings = []
    for pdb in pdbs:
        selector = judged_selector(get(pdb.props, "spec", "selector"))
        if selector is None:
            continue
        beside = [r for r in objects if namespaces_meet(r.props, pdb.props)]
        if any(opaque(r) for r in beside):
            continue
        groups = [g for r in beside for g in pod_groups(r)]
        if any(may_select(selector, g) for g in groups):
            continue
        meant = meant_for(selector, groups, folder_of(pdb))
        if not meant:
            continue
        shown = ", ".join(dict.fromkeys(g.shown for g in meant))
        reason = why_not(selector, meant)
        findings.append(
            (
                pdb.name,
                f"PodDisruptionBudget {get(pdb.props, 'metadata', 'name')}: spec.selector selects no pod of the files "
                f"in its namespace, not those of {shown}" + (f" ({reason})" if reason else "") + ", so the budget "
                "protects nothing and a drain or consolidation may evict them all at once; select the labels the "
                "pods carry",
            )
        )
    return findings


POLICY = Policy(
    name="pdb-selects-pods",
    description="A PodDisruptionBudget's selector selects pods of the run, read as their controllers label them "
    "(KubeRay's ray.io/group and generated ray.io/cluster, LeaderWorkerSet, KServe, workload templates), where the run "
    "holds the pods it was written for (advice: they may come from elsewhere).",
    catalog="G18",
    severity="medium",
    enforcement="advisory",
    remediation_steps="Select labels the pods carry: for KubeRay ray.io/group: <groupName> or ray.io/node-type (a "
    "RayService's cluster is named <name>-<random>, so never select ray.io/cluster: <RayService name>).",
    config_schema={},
    check_stack=_check,
    rationale=(
        "The disruption controller counts only the pods the PDB's selector selects in its namespace (kubernetes "
        "pkg/controller/disruption/disruption.go getPodsForPdb); a selector on labels no controller writes protects "
        "nothing."
    ),
)
