"""S50: GPU model servers on spot capacity (advice).

A spot node is reclaimed with a 2-minute notice (karpenter-provider-aws v1.14.1 website/content/en/docs/concepts/
disruption.md:207; GKE Spot VMs and AKS spot node pools likewise give short notice), far shorter than a model server's
cold start, so each reclaim takes a replica down, and a multi-node engine's whole group with it. Where a NodePool admits
both, Karpenter prefers spot over on-demand (nodepools.md:276). The readings:

- a GPU Karpenter NodePool whose ``karpenter.sh/capacity-type`` (or EKS Auto Mode's ``eks.amazonaws.com/
  capacity-type``) requirement admits ``spot``, and which a GPU model server of the files lands on: it names the pool
  (``karpenter.sh/nodepool``) or names no pool while this is the only GPU NodePool of the files (spent set 11
  walidshaari/sample-aws-eks-auto-mode nodepools/gpu-nodepool.yaml, set 9 hustshawn/deepseek-on-eks-demo nodepool.yaml);
- a GPU model server that selects or prefers spot nodes by a label of the table ``SPOT_LABELS`` (every cloud's, each
  cited: ``cloud.google.com/gke-spot: "true"``, ``cloud.google.com/gke-preemptible: "true"``,
  ``cloud.google.com/gke-provisioning: spot``, ``kubernetes.azure.com/scalesetpriority: spot``, EKS managed node
  groups' ``eks.amazonaws.com/capacityType: SPOT``, or a capacity-type key above with ``spot``; set 11
  jkwong888/gke-llm-serve deployment.yaml: preferred gke-spot); a GPU count left to envsubst (``${GPU_COUNT}``) still
  makes a GPU server (fresh set 53 felipemoz/vllm-on-azure);
- a GPU model server that tolerates a spot taint by its key: GKE's ``cloud.google.com/gke-spot=true:NoSchedule``
  (https://cloud.google.com/kubernetes-engine/docs/concepts/spot-vms "Use node taints and tolerations") or AKS's
  ``kubernetes.azure.com/scalesetpriority=spot:NoSchedule``, which AKS puts on every spot pool
  (https://learn.microsoft.com/azure/aks/spot-node-pool): the toleration is there to let it onto spot nodes (set 19
  mramirm/ai-summit26 vllm-deployment.yaml), unless its nodeSelector or required node affinity keeps it off them;
- a GPU model server that selects (``cloud.google.com/compute-class``) a GKE ComputeClass of the files whose first
  priority is ``spot: true`` (https://cloud.google.com/kubernetes-engine/docs/concepts/about-custom-compute-classes):
  GKE tries spot capacity first; and such a ComputeClass with GPU capacity that nothing of the files selects (its users
  are in a Kustomize patch or chart values not read), unless its name says batch or training;
- a model server (GPU or TPU) that selects GKE flex-start nodes (``cloud.google.com/gke-flex-start: "true"``): granted
  only when capacity frees, and run for at most seven days (https://cloud.google.com/kubernetes-engine/docs/concepts/dws).

Advice only: spot may be a deliberate cost choice with enough replicas elsewhere; a spot pool no model server of the
files lands on (batch, training) is not read, nor is a pool that admits on-demand only. A GPU pool read with no GPU
workload at all (its file alone) is advised on too, unless its name or labels say batch or training.
"""

from __future__ import annotations

from typing import Optional

from policies.framework import Policy, Resource
from policies.karpenter.multi_node_expiry import NODEPOOL_LABEL, _targets
from policies.kube import (
    GPU_RESOURCE,
    as_dict,
    as_list,
    containers,
    get,
    name_of,
    pod_specs,
    requests_gpu,
    resource_value,
    split_type,
)
from policies.reading.gpu_pools import label_pools
from policies.reading.nodepools import NODEPOOL_TYPES, is_gpu_nodepool
from policies.reading.run_objects import unrendered
from policies.reading.serving import model_servers

CAPACITY_KEYS = ("karpenter.sh/capacity-type", "eks.amazonaws.com/capacity-type")
# Spot capacity on every cloud, as data: the node label each provider puts on its spot (or preemptible) nodes, and the
# value (compared in lower case) that means spot.
SPOT_LABELS = {
    # GKE Spot VMs (https://cloud.google.com/kubernetes-engine/docs/how-to/spot-vms: cloud.google.com/gke-spot=true) and
    # the older preemptible VMs (https://cloud.google.com/kubernetes-engine/docs/how-to/preemptible-vms:
    # cloud.google.com/gke-preemptible=true, reclaimed 30 s after notice, at most 24 h), GKE's provisioning label
    "cloud.google.com/gke-spot": "true",
    "cloud.google.com/gke-preemptible": "true",
    "cloud.google.com/gke-provisioning": "spot",
    # AKS spot node pools (https://learn.microsoft.com/azure/aks/spot-node-pool: kubernetes.azure.com/scalesetpriority=spot)
    "kubernetes.azure.com/scalesetpriority": "spot",
    # EKS managed node groups of capacity type SPOT (https://docs.aws.amazon.com/eks/latest/userguide/
    # managed-node-groups.html: "Amazon EKS adds the following Kubernetes label to all nodes in your managed node group
    # that specifies the capacity type: eks.amazonaws.com/capacityType: SPOT", read in the code index's stored copy)
    "eks.amazonaws.com/capacityType": "spot",
    # Karpenter (https://karpenter.sh/docs/concepts/scheduling/#well-known-labels: karpenter.sh/capacity-type=spot) and
    # EKS Auto Mode (eks.amazonaws.com/capacity-type)
    **{key: "spot" for key in CAPACITY_KEYS},
}
_WHY = (
    "a spot node is reclaimed with a 2-minute notice, far less than a model server's cold start (node, image pull, "
    "weight load), so each reclaim takes a replica down, and a multi-node group with it; serve from on-demand or "
    "reserved capacity, or keep enough on-demand replicas to carry the load"
)


def _pool_admits_spot(props: dict) -> Optional[str]:
    """The requirement through which a NodePool admits spot, or None (no requirement: Karpenter's on-demand default)."""
    for i, req in enumerate(as_list(get(props, "spec", "template", "spec", "requirements"))):
        req = as_dict(req)
        if req.get("key") not in CAPACITY_KEYS:
            continue
        op, values = req.get("operator"), [str(v) for v in as_list(req.get("values"))]
        where = f"spec.template.spec.requirements[{i}] {req.get('key')} {op} {values}"
        if (op == "In" and "spot" in values) or (op == "NotIn" and "spot" not in values) or op == "Exists":
            return where
    return None


def _selects_spot(podspec: dict) -> Optional[str]:
    """How a pod spec selects or prefers spot nodes, or None."""
    for key, value in as_dict(podspec.get("nodeSelector")).items():
        if SPOT_LABELS.get(key) == str(value).lower():
            return f"nodeSelector {key}: {value}"
    affinity = as_dict(get(podspec, "affinity", "nodeAffinity"))
    terms = [
        ("required", t) for t in as_list(get(affinity, "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"))
    ]
    terms += [
        ("preferred", get(p, "preference")) for p in as_list(affinity.get("preferredDuringSchedulingIgnoredDuringExecution"))
    ]
    for how, term in terms:
        for expr in as_list(as_dict(term).get("matchExpressions")):
            expr = as_dict(expr)
            wanted = SPOT_LABELS.get(str(expr.get("key")))
            if wanted and expr.get("operator") == "In" and wanted in [str(v).lower() for v in as_list(expr.get("values"))]:
                return f"a {how} node affinity on {expr.get('key')} In {as_list(expr.get('values'))}"
    return None


# Taints spot nodes carry, by key, and the value that means spot.
SPOT_TAINTS = {
    "cloud.google.com/gke-spot": "true",
    "cloud.google.com/gke-preemptible": "true",  # the taint GKE's preemptible-vms page has pools carry
    "kubernetes.azure.com/scalesetpriority": "spot",
}
COMPUTE_CLASS_LABEL = "cloud.google.com/compute-class"


def _keeps_off_spot(podspec: dict) -> bool:
    """True when the pod's nodeSelector or required node affinity excludes spot nodes (a spot key set to another value,
    NotIn spot, DoesNotExist)."""
    for key, value in as_dict(podspec.get("nodeSelector")).items():
        if key in SPOT_LABELS and SPOT_LABELS[key] != str(value).lower():
            return True
    terms = as_list(
        get(podspec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
    )
    for term in terms:
        for expr in as_list(as_dict(term).get("matchExpressions")):
            expr = as_dict(expr)
            wanted, op = SPOT_LABELS.get(str(expr.get("key"))), expr.get("operator")
            values = [str(v).lower() for v in as_list(expr.get("values"))]
            if wanted and (op == "DoesNotExist" or (op == "NotIn" and wanted in values) or (op == "In" and wanted not in values)):
                return True
    return False


def _tolerates_spot(podspec: dict) -> Optional[str]:
    """The toleration by which a pod spec lets itself onto spot nodes, or None (see the module docstring)."""
    if _keeps_off_spot(podspec):
        return None
    for i, toleration in enumerate(as_list(podspec.get("tolerations"))):
        toleration = as_dict(toleration)
        key = name_of(toleration, "key")
        if key not in SPOT_TAINTS or toleration.get("effect") not in (None, "", "NoSchedule"):
            continue
        if toleration.get("operator") == "Exists" or str(toleration.get("value", "")).lower() == SPOT_TAINTS[key]:
            return f"tolerations[{i}] {key} (the taint on spot nodes)"
    return None


def _spot_compute_class(podspec: dict, resources: list[Resource]) -> Optional[str]:
    """The GKE ComputeClass of the files the pod selects whose first priority is spot, as messages name it, or None."""
    name = as_dict(podspec.get("nodeSelector")).get(COMPUTE_CLASS_LABEL)
    for r in resources:
        if split_type(r.type) != ("cloud.google.com", "ComputeClass") or get(r.props, "metadata", "name") != name:
            continue
        first = as_dict(next(iter(as_list(get(r.props, "spec", "priorities"))), None))
        if first.get("spot") is True:
            return f"nodeSelector {COMPUTE_CLASS_LABEL}: {name}, a ComputeClass whose first priority is spot"
    return None


def _class_alone(resources: list[Resource]) -> list[tuple[str, str]]:
    """Advice on each GKE ComputeClass of the files whose first priority is spot GPU capacity and that no workload of the
    files selects (its users are elsewhere, a Kustomize patch or a chart's values: set 39, siyuanfoundation/vllm-on-tpu
    llm-d/gpu/compute-class.yaml@b1fe13f, whose llm-d Deployments select it through a kustomization not read), unless its name
    says batch or training."""
    selected = {
        c
        for r in resources
        for _, p in pod_specs(r)
        if isinstance(p, dict) and isinstance(c := as_dict(p.get("nodeSelector")).get(COMPUTE_CLASS_LABEL), str)
    }
    findings = []
    for r in resources:
        name = get(r.props, "metadata", "name")
        if split_type(r.type) != ("cloud.google.com", "ComputeClass") or not isinstance(name, str) or name in selected:
            continue
        priorities = [as_dict(p) for p in as_list(get(r.props, "spec", "priorities"))]
        if not priorities or priorities[0].get("spot") is not True or not priorities[0].get("gpu"):
            continue
        if any(word in str(name).lower() for word in _OTHER_WORK):
            continue
        fallback = any(p.get("spot") is not True for p in priorities[1:])
        tail = "" if fallback else " and no later priority falls back to on-demand"
        findings.append(
            (
                r.name,
                f"spec.priorities[0] asks for spot GPU capacity first{tail}; for a model server that selects this class "
                f"({COMPUTE_CLASS_LABEL}: {name}), {_WHY}",
            )
        )
    return findings


# GKE's flex-start provisioning (Dynamic Workload Scheduler): a node is granted when capacity frees and runs at most
# seven days (https://cloud.google.com/kubernetes-engine/docs/concepts/dws "Flex-start ... up to seven days").
FLEX_START = {"cloud.google.com/gke-flex-start": "true"}
_FLEX_WHY = (
    "flex-start capacity is granted only when it frees up (the pod may wait long for a node) and a flex-start node "
    "runs at most seven days, so an always-on model server is reloaded on a new node at least weekly and may wait for "
    "capacity each time; serve from on-demand or reserved capacity"
)


def _selects_flex_start(podspec: dict) -> Optional[str]:
    for key, value in as_dict(podspec.get("nodeSelector")).items():
        if FLEX_START.get(key) == str(value).lower():
            return f"nodeSelector {key}: {value}"
    return None


def _flex_start(resources: list[Resource]) -> list[tuple[str, str]]:
    """Advice on each model server (GPU or TPU: set 39 siyuanfoundation/vllm-on-tpu deployments/vllm-deployment.yaml@b1fe13f
    selects a TPU slice on flex-start) that selects GKE flex-start nodes."""
    return [
        (r.name, f"{path}: {flex} puts this model server on GKE flex-start capacity: {_FLEX_WHY}")
        for r in resources
        if model_servers(r)
        for path, podspec in pod_specs(r)
        if (flex := _selects_flex_start(podspec)) is not None
    ]


def _asks_gpu(podspec: dict) -> bool:
    """True when a container asks for a GPU, also by an unrendered count (``nvidia.com/gpu: "${GPU_COUNT}"``, fresh
    set 53 felipemoz/vllm-on-azure k8s/vllm-deployment.yaml: envsubst fills it in)."""
    if requests_gpu(podspec):
        return True
    return any(
        unrendered(v)
        for c in containers(podspec)
        for section in ("limits", "requests")
        if (v := resource_value(c, section, GPU_RESOURCE)) is not None
    )


def _gpu_servers(resources: list[Resource]) -> list[tuple[Resource, str, dict]]:
    """(resource, path, podspec) of every GPU pod spec of a workload with a model server."""
    return [(r, path, p) for r in resources if model_servers(r) for path, p in pod_specs(r) if _asks_gpu(p)]


def _lands_on(podspec: dict, pool: Resource, only_gpu_pool: bool) -> bool:
    name = get(pool.props, "metadata", "name")
    labels = as_dict(get(pool.props, "spec", "template", "metadata", "labels"))
    if _targets(podspec, name, labels) or label_pools(podspec, {str(name): pool}):
        # label_pools: a required node affinity the pool's template labels satisfy (spent set 18: taixingbi/eks-vllm
        # kubernetes/vllm/deployment.yaml@0130657 requires workload In [gpu]; NodePool g5-spot@36b46dd labels workload: gpu).
        return True
    selector = as_dict(podspec.get("nodeSelector"))
    on_demand = any(str(selector.get(k)) == "on-demand" for k in CAPACITY_KEYS)
    return only_gpu_pool and NODEPOOL_LABEL not in selector and not on_demand


_OTHER_WORK = ("batch", "train", "finetun", "fine-tun", "job", "notebook")


def _pool_alone(resources: list[Resource]) -> list[tuple[str, str]]:
    """Advice on each GPU NodePool admitting spot in a set with no GPU workload at all (the pool's file read alone, as
    spent sets 13 and 15 labelled it: sesac-4thprj-jungchat/src_aws_eks_iac_cicd karpenter/nodepool-gpu.yaml,
    souhailsegni/Deepseek_R1_VLLM-EKS gpu-nodepool.yaml); not on a pool whose name or labels say batch or training."""
    if any(requests_gpu(p) for r in resources for _, p in pod_specs(r)):
        return []
    findings = []
    for pool in resources:
        if pool.type not in NODEPOOL_TYPES or not is_gpu_nodepool(pool.props):
            continue
        labels = as_dict(get(pool.props, "spec", "template", "metadata", "labels"))
        named = " ".join([str(get(pool.props, "metadata", "name")), *map(str, labels), *map(str, labels.values())]).lower()
        where = _pool_admits_spot(pool.props)
        if where is None or any(word in named for word in _OTHER_WORK):
            continue
        findings.append(
            (
                pool.name,
                f"{where} admits spot on this GPU pool (Karpenter prefers it over on-demand), and no workload in the "
                f"files says what runs on it; for a model server landing there, {_WHY}",
            )
        )
    return findings


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    findings = _class_alone(resources) + _flex_start(resources)
    servers = _gpu_servers(resources)
    if not servers:
        return _pool_alone(resources) + findings
    for resource, path, podspec in servers:
        how, verb = _selects_spot(podspec) or _spot_compute_class(podspec, resources), "puts"
        if how is None:
            how, verb = _tolerates_spot(podspec), "lets the scheduler put"
        if how is not None:
            findings.append((resource.name, f"{path}: {how} {verb} this GPU model server on spot capacity: {_WHY}"))
    pools = [r for r in resources if r.type in NODEPOOL_TYPES and is_gpu_nodepool(r.props)]
    for pool in pools:
        where = _pool_admits_spot(pool.props)
        hosted = [r for r, _, p in servers if where and _lands_on(p, pool, len(pools) == 1)]
        if hosted:
            first = hosted[0]
            who = f"{split_type(first.type)[1]} {get(first.props, 'metadata', 'name')}"
            findings.append(
                (
                    pool.name,
                    f"{where} admits spot (Karpenter prefers it over on-demand), and the GPU model server {who} lands on this pool: {_WHY}",
                )
            )
    return findings


POLICY = Policy(
    name="gpu-serving-on-spot",
    description=(
        "Advice where GPU model servers run on spot capacity: a GPU Karpenter NodePool admitting spot "
        "(karpenter.sh/capacity-type or eks.amazonaws.com/capacity-type) that a model server of the files lands on, or a "
        "model server selecting or preferring GKE or AKS spot nodes, tolerating their spot taint, or selecting a GKE "
        "ComputeClass that tries spot first."
    ),
    rationale=(
        "Spot capacity is reclaimed with a 2-minute notice (https://karpenter.sh/docs/concepts/disruption/#interruption), "
        "and Karpenter prefers spot over on-demand when a NodePool admits both "
        "(https://karpenter.sh/docs/concepts/nodepools/#capacity-type); a model server's cold start takes minutes, so "
        "each reclaim takes a replica (or a multi-node group) down."
    ),
    catalog="S50",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Restrict the serving NodePool's capacity-type requirement to on-demand (or reserved), keep spot for batch "
        "pools, or drop the spot node selector/affinity from the model server."
    ),
    check_stack=_check,
)
