"""Where GPU pods land, read from manifests: the NodePool a pod spec targets and the GPUs it holds at most.

Shared by S15, S20 and the pool-fit check. A workload targets a pool through the
``karpenter.sh/nodepool`` node selector (or a required node-affinity term on it).
"""

from __future__ import annotations

from dataclasses import dataclass

from policies.framework import Resource
from policies.kube import (
    GPU_RESOURCE,
    as_dict,
    as_int,
    as_list,
    as_quantity,
    containers,
    get,
    metadata_name,
    name_of,
    pod_specs,
    resource_value,
    split_type,
)
from policies.operators import operator_server
from policies.reading.nodepools import NODEPOOL_TYPES, gpu_limit, is_gpu_nodepool

NODEPOOL_LABEL = "karpenter.sh/nodepool"


def nodepools(resources: list[Resource]) -> dict[str, Resource]:
    """GPU NodePools of the stack by name."""
    return {
        name: r for r in resources if r.type in NODEPOOL_TYPES and is_gpu_nodepool(r.props) and (name := metadata_name(r.props))
    }


def pod_gpus(podspec: dict) -> int:
    """GPUs one pod of the spec holds (containers' limits, else requests)."""
    total = 0
    for c in containers(podspec, model=True):
        value = resource_value(c, "limits", GPU_RESOURCE) or resource_value(c, "requests", GPU_RESOURCE)
        total += int(as_quantity(value) or 0)
    return total


def target_pool(podspec: dict) -> str | None:
    """The NodePool a pod spec selects, by node selector or a required affinity term."""
    name = get(podspec, "nodeSelector", NODEPOOL_LABEL)
    if isinstance(name, str):
        return name
    terms = get(podspec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
    for term in as_list(terms):
        for expr in as_list(as_dict(term).get("matchExpressions")):
            expr = as_dict(expr)
            if expr.get("key") == NODEPOOL_LABEL and expr.get("operator") == "In" and len(as_list(expr.get("values"))) == 1:
                return str(expr["values"][0])
    return None


def required_pools(podspec: dict) -> frozenset[str] | None:
    """The NodePool names a pod spec admits when it requires one by name: its ``karpenter.sh/nodepool`` node selector,
    or the ``In`` values of that key when every required node-affinity term has one (the terms are ORed); None when
    it leaves the pool open (no such selector, a term without the key, ``NotIn``, ``Exists``, ``DoesNotExist``)."""
    name = get(podspec, "nodeSelector", NODEPOOL_LABEL)
    if isinstance(name, str):
        return frozenset([name])
    terms = as_list(
        get(podspec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
    )
    names: set[str] = set()
    for term in terms:
        found = [as_dict(e) for e in as_list(as_dict(term).get("matchExpressions")) if as_dict(e).get("key") == NODEPOOL_LABEL]
        values = [v for e in found if e.get("operator") == "In" for v in as_list(e.get("values"))]
        if not values or not all(isinstance(v, str) for v in values):
            return None
        names.update(values)
    return frozenset(names) if names else None


@dataclass(frozen=True)
class GpuWorkload:
    """One GPU pod template of a resource and what it holds at most on its pool."""

    resource: Resource
    path: str
    podspec: dict
    pool: str | None
    gpus_per_pod: int
    max_pods: int
    buffer: bool  # a placeholder that serving pods preempt (priority below zero)


def _max_pods(resource: Resource) -> int:
    group, kind = split_type(resource.type)
    spec = as_dict(get(resource.props, "spec"))
    if group == "serving.kserve.io" and kind == "InferenceService":
        return as_int(get(spec, "predictor", "maxReplicas")) or as_int(get(spec, "predictor", "minReplicas")) or 1
    if kind in ("Deployment", "StatefulSet", "ReplicaSet"):
        # Unset (or unreadable) replicas: the controllers' default of one.
        replicas = as_int(spec.get("replicas"))
        return replicas if replicas is not None else 1
    return 1


def gpu_workloads(resources: list[Resource]) -> list[GpuWorkload]:
    """Every GPU pod template of the stack (Ray and DaemonSets aside), with its pool and size."""
    negative = {
        metadata_name(r.props)
        for r in resources
        if r.type == "kubernetes:scheduling.k8s.io/v1:PriorityClass" and (as_int(r.props.get("value")) or 0) < 0
    } - {None}  # a class named by no text: no pod's class
    out = []
    for r in resources:
        server = operator_server(r)
        if server is not None and server.gpus > 0:
            # No pod template: the part of the pod the operator copies from the resource.
            out.append(GpuWorkload(r, "spec", server.podspec, target_pool(server.podspec), server.gpus, 1, False))
            continue
        _, kind = split_type(r.type)
        if kind in ("DaemonSet", "RayCluster", "RayService", "RayJob", "Job", "CronJob", "PodTemplate"):
            continue
        for path, podspec in pod_specs(r):
            gpus = pod_gpus(podspec)
            if gpus:
                out.append(
                    GpuWorkload(
                        r,
                        path,
                        podspec,
                        target_pool(podspec),
                        gpus,
                        _max_pods(r),
                        name_of(podspec, "priorityClassName") in negative,
                    )
                )
    return out


def limit_of(pool: Resource) -> float | None:
    """A NodePool's GPU limit."""
    return gpu_limit(pool.props)


GKE_ACCELERATOR = "cloud.google.com/gke-accelerator"
GKE_COMPUTE_CLASS = "cloud.google.com/compute-class"
# Node labels only GKE sets: a pod that requires one runs on GKE.
_GKE_LABELS = (GKE_ACCELERATOR, GKE_COMPUTE_CLASS, "cloud.google.com/gke-nodepool", "cloud.google.com/gke-spot")


def node_label_keys(podspec: dict) -> set[str]:
    """The node labels a pod requires: its nodeSelector's keys and its required node affinity's keys (In, Exists)."""
    keys = {k for k in as_dict(podspec.get("nodeSelector")) if isinstance(k, str)}
    terms = get(podspec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
    for term in as_list(terms):
        for e in as_list(as_dict(term).get("matchExpressions")):
            if isinstance(key := as_dict(e).get("key"), str) and as_dict(e).get("operator") in ("In", "Exists"):
                keys.add(key)
    return keys


def platform_adds_toleration(podspec: dict) -> bool:
    """True for a pod that requires a GKE node label (an accelerator, a compute class, a GKE node pool).

    GKE taints its GPU nodes with nvidia.com/gpu (NoSchedule) itself and applies the matching toleration
    to every pod that requests nvidia.com/gpu through the ExtendedResourceToleration admission controller
    (https://cloud.google.com/kubernetes-engine/docs/how-to/gpus), and a pod that selects a compute class
    (``cloud.google.com/compute-class: NAME``) runs on nodes GKE makes from that class's priorities, GPU type
    and count included (https://cloud.google.com/kubernetes-engine/docs/concepts/about-custom-compute-classes).
    So such a manifest need not carry the toleration, and no other taint is assumed.
    """
    return bool(node_label_keys(podspec) & set(_GKE_LABELS))


def _term_accepts(term: dict, labels: dict) -> bool:
    """True when every expression of a required node-affinity term holds on a node carrying exactly these labels."""
    exprs = [as_dict(e) for e in as_list(term.get("matchExpressions"))]
    if not exprs:
        return False
    for e in exprs:
        key, op, values = e.get("key"), e.get("operator"), [str(v) for v in as_list(e.get("values"))]
        value = labels.get(key)
        held = {
            "In": value is not None and str(value) in values,
            "NotIn": value is None or str(value) not in values,
            "Exists": key in labels,
            "DoesNotExist": key not in labels,
        }.get(str(op))
        if not held:
            return False
    return True


def label_pools(podspec: dict, pools: dict[str, Resource]) -> list[str]:
    """The NodePools of ``pools`` whose template labels (spec.template.metadata.labels, on every node the pool makes)
    satisfy the pod's nodeSelector and one of its required node-affinity terms, where the pod requires at least one
    label and every label it requires is a template label of the pool (a requirement-made label is not read: the pool
    is then not counted). Empty when the pod requires no label."""
    selector = as_dict(podspec.get("nodeSelector"))
    terms = [
        as_dict(t)
        for t in as_list(
            get(podspec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
        )
    ]
    if not selector and not terms:
        return []
    found = []
    for name, pool in pools.items():
        labels = as_dict(get(pool.props, "spec", "template", "metadata", "labels"))
        if not labels or any(str(labels.get(k)) != str(v) for k, v in selector.items()):
            continue
        if not terms or any(_term_accepts(t, labels) for t in terms):
            found.append(name)
    return found
