"""S50: GPU model servers on spot capacity (advice).

A spot node is reclaimed with a 2-minute notice (karpenter-provider-aws v1.14.1 website/content/en/docs/concepts/
disruption.md:207; GKE Spot VMs and AKS spot node pools likewise give short notice), far shorter than a model server's
cold start, so each reclaim takes a replica down, and a multi-node engine's whole group with it. Where a NodePool admits
both, Karpenter prefers spot over on-demand (nodepools.md:276). Two readings:

- a GPU Karpenter NodePool whose ``karpenter.sh/capacity-type`` (or EKS Auto Mode's ``eks.amazonaws.com/
  capacity-type``) requirement admits ``spot``, and which a GPU model server of the files lands on: it names the pool
  (``karpenter.sh/nodepool``) or names no pool while this is the only GPU NodePool of the files (spent set 11
  walidshaari/sample-aws-eks-auto-mode nodepools/gpu-nodepool.yaml, set 9 hustshawn/deepseek-on-eks-demo nodepool.yaml);
- a GPU model server that selects or prefers spot nodes: ``cloud.google.com/gke-spot: "true"``,
  ``cloud.google.com/gke-provisioning: spot``, ``kubernetes.azure.com/scalesetpriority: spot``, or a capacity-type
  key above with ``spot`` (set 11 jkwong888/gke-llm-serve deployment.yaml: preferred gke-spot).

Advice only: spot may be a deliberate cost choice with enough replicas elsewhere; a spot pool no model server of the
files lands on (batch, training) is not read, nor is a pool that admits on-demand only. A GPU pool read with no GPU
workload at all (its file alone) is advised on too, unless its name or labels say batch or training.
"""

from __future__ import annotations

from typing import Optional

from policies.framework import Policy, Resource
from policies.karpenter.multi_node_expiry import NODEPOOL_LABEL, _targets
from policies.kube import as_dict, as_list, get, pod_specs, requests_gpu, split_type
from policies.reading.nodepools import NODEPOOL_TYPES, is_gpu_nodepool
from policies.reading.serving import model_servers

CAPACITY_KEYS = ("karpenter.sh/capacity-type", "eks.amazonaws.com/capacity-type")
# Node labels whose value "spot" (or "true" for GKE's gke-spot) puts a pod on spot capacity.
SPOT_LABELS = {
    "cloud.google.com/gke-spot": "true",
    "cloud.google.com/gke-provisioning": "spot",
    "kubernetes.azure.com/scalesetpriority": "spot",
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


def _gpu_servers(resources: list[Resource]) -> list[tuple[Resource, str, dict]]:
    """(resource, path, podspec) of every GPU pod spec of a workload with a model server."""
    return [(r, path, p) for r in resources if model_servers(r) for path, p in pod_specs(r) if requests_gpu(p)]


def _lands_on(podspec: dict, pool: Resource, only_gpu_pool: bool) -> bool:
    name = get(pool.props, "metadata", "name")
    labels = as_dict(get(pool.props, "spec", "template", "metadata", "labels"))
    if _targets(podspec, name, labels):
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
    servers = _gpu_servers(resources)
    if not servers:
        return _pool_alone(resources)
    findings = []
    for resource, path, podspec in servers:
        if (how := _selects_spot(podspec)) is not None:
            findings.append((resource.name, f"{path}: {how} puts this GPU model server on spot capacity: {_WHY}"))
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
        "model server selecting or preferring GKE or AKS spot nodes."
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
