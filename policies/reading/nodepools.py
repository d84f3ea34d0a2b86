"""Reading Karpenter NodePools (karpenter.sh/v1, v1beta1) as the engine or a manifest gives them.

A NodePool is a GPU pool when its requirements or limits can only mean GPUs: a GPU count above
zero, a GPU name or maker, the g/p instance categories or families, GPU instance types, or a
``nvidia.com/gpu`` limit (catalogue row S11, docs/policies.md).
"""

from __future__ import annotations

import re
from typing import Any

from policies.kube import GPU_RESOURCE, as_dict, as_float, as_list, as_quantity, get, memoized, split_type, viewed_resources

NODEPOOL_TYPES = ("kubernetes:karpenter.sh/v1:NodePool", "kubernetes:karpenter.sh/v1beta1:NodePool")
_GPU_FAMILY = re.compile(r"^(g|p)[0-9]")
_AUTO_MODE_PREFIX = "eks.amazonaws.com/instance-"
_DURATION_PART = re.compile(r"([0-9]+)(s|m|h)")


def _values(req: dict) -> list[str]:
    return [str(v) for v in as_list(req.get("values"))]


# GPU instance types of every provider's Karpenter, by name: AWS g*/p* (g5.xlarge, p5.48xlarge), Azure's N series
# (Standard_NC24ads_A100_v4, Standard_ND96asr_v4, Standard_NV36ads_A10_v5), GCP's accelerator-optimised a2/a3/a4/g2/g4
# machines, OCI's BM.GPU.* / VM.GPU.* shapes, Alibaba's ecs.gn*/ebmgn*, and Lambda Cloud's gpu_1x_gh200-style types.
_GPU_INSTANCE_TYPE = re.compile(
    r"^((g|p)[0-9][a-z0-9-]*\.|standard_n[cdvg]|(a2|a3|a4|g2|g4)-|(bm|vm)\.gpu|ecs\.(gn|ebmgn|sgn|vgn)|gpu_)",
    re.IGNORECASE,
)
_INSTANCE_TYPE_KEYS = ("node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type", "karpenter.azure.com/sku-name")
# A requirement key whose name part (after the provider's prefix) states GPUs: AWS instance-gpu-*, Azure sku-gpu-*,
# and the same shape in other providers (karpenter.k8s.aws/instance-gpu-count, karpenter.azure.com/sku-gpu-name).
_GPU_KEY = re.compile(r"/(instance-|sku-)?gpu-(count|name|manufacturer|memory)$")
_GPU_LABEL_PREFIXES = ("nvidia.com/gpu", "amd.com/gpu", "cloud.google.com/gke-accelerator")


def gpu_instance_type(value: Any) -> bool:
    """True for the name of a GPU instance type of any provider (_GPU_INSTANCE_TYPE: g5.xlarge, Standard_NC12s_v3)."""
    return isinstance(value, str) and bool(_GPU_INSTANCE_TYPE.match(value))


def _gpu_requirement(key: str, op: Any, values: list[str]) -> bool:
    """Whether one requirement selects GPU instances only."""
    if key.startswith(_AUTO_MODE_PREFIX):
        # EKS Auto Mode names Karpenter's instance labels under its own prefix (eks.amazonaws.com/instance-family,
        # -category, -gpu-name, -gpu-count, ...: the EKS user guide's "Auto Mode supported labels").
        key = "karpenter.k8s.aws/instance-" + key[len(_AUTO_MODE_PREFIX) :]
    found = _GPU_KEY.search(key)
    if found and found.group(2) == "count":
        return (
            (op == "Gt" and bool(values) and (as_float(values[0]) or 0) >= 0)
            or (op == "In" and any((as_float(v) or 0) > 0 for v in values))
            or op == "Exists"
        )
    if found:
        return op in ("In", "Exists")
    if op != "In" or not values:
        return False
    if key == "karpenter.k8s.aws/instance-category":
        return bool({"g", "p"} & set(values))
    if key == "karpenter.k8s.aws/instance-family":
        return any(_GPU_FAMILY.match(v) for v in values)
    if key == "karpenter.azure.com/sku-family":
        # Azure's N family is its GPU family (NC, ND, NV: "N (GPU)" in the AKS node auto-provisioning selectors).
        return any(v.upper().startswith("N") for v in values)
    return key in _INSTANCE_TYPE_KEYS and any(_GPU_INSTANCE_TYPE.match(v) for v in values)


def is_gpu_nodepool(props: dict) -> bool:
    """True when the NodePool can only mean GPUs: its requirements select GPU instances (a GPU count, name, maker or
    memory under any provider's prefix; GPU instance categories, families or types of any provider), its limits count
    nvidia.com/gpu, its template labels or taints say nvidia.com/gpu (or AMD's, GKE's accelerator), or the node class
    of the files it names selects GPU instance types only."""
    if (as_quantity(get(props, "spec", "limits", GPU_RESOURCE)) or 0) > 0:
        return True
    for req in as_list(get(props, "spec", "template", "spec", "requirements")):
        req = as_dict(req)
        key = req.get("key")
        if isinstance(key, str) and _gpu_requirement(key, req.get("operator"), _values(req)):
            return True
    labels = as_dict(get(props, "spec", "template", "metadata", "labels"))
    keys = [str(k) for k in labels] + [str(t.get("key")) for t in taints(props)]
    if any(k.startswith(_GPU_LABEL_PREFIXES) for k in keys):
        return True
    types = _node_class_instance_types(props)
    return bool(types) and all(_GPU_INSTANCE_TYPE.match(t) for t in types)


_GPU_NAME = re.compile(
    r"(^|[-_.])(gpu|gpus|gh200|gb200|h100|h200|h20|a100|a10g?|l40s?|l4|t4|v100|b200|b300|mi2[0-9]{2}x?|mi3[0-9]{2}x?)([-_.0-9]|$)",
    re.IGNORECASE,
)
_TYPE_KEYS = _INSTANCE_TYPE_KEYS + (
    "karpenter.k8s.aws/instance-family",
    "karpenter.k8s.aws/instance-category",
    "karpenter.azure.com/sku-family",
    "eks.amazonaws.com/instance-family",
    "eks.amazonaws.com/instance-category",
)


def gpu_pool_hint(props: dict) -> str | None:
    """Why a NodePool that is not provably a GPU pool (is_gpu_nodepool) reads as one: its nodeClassRef's or its own
    name names a GPU (lambda-gh200, gpu-pool) while its requirements pin no instance type, family or category; None
    otherwise. A finding built on this hint alone is advice: the instance types come from outside the files."""
    if is_gpu_nodepool(props):
        return None
    for req in as_list(get(props, "spec", "template", "spec", "requirements")):
        if as_dict(req).get("key") in _TYPE_KEYS:
            return None
    ref = as_dict(get(props, "spec", "template", "spec", "nodeClassRef"))
    ref_name, own = ref.get("name"), get(props, "metadata", "name")
    if isinstance(ref_name, str) and _GPU_NAME.search(ref_name):
        return f"its nodeClassRef {ref.get('kind') or 'node class'} {ref_name} names a GPU"
    if isinstance(own, str) and _GPU_NAME.search(own):
        return f"its name {own} names a GPU"
    return None


def _node_class_instance_types(props: dict) -> list[str]:
    """The instance types the node class of the files that the NodePool names pins (a LambdaNodeClass's
    spec.instanceType / instanceTypeSelector: Apsu/lambda-karpenter api/v1alpha1/lambdanodeclass_types.go); [] else."""
    ref = as_dict(get(props, "spec", "template", "spec", "nodeClassRef"))
    name, kind = ref.get("name"), ref.get("kind")
    view = viewed_resources()
    if not isinstance(name, str) or not isinstance(kind, str) or not view:
        return []
    for r in view:
        if split_type(getattr(r, "type", ""))[1] == kind and get(r.props, "metadata", "name") == name:
            spec = as_dict(get(r.props, "spec"))
            one = spec.get("instanceType")
            return [str(v) for v in ([one] if isinstance(one, str) else []) + as_list(spec.get("instanceTypeSelector"))]
    return []


def is_static(props: dict) -> bool:
    """True for a static NodePool (``spec.replicas`` set): Karpenter keeps that many nodes, whatever pods ask.

    Karpenter v1.14.1 (kubernetes-sigs/karpenter pkg/apis/crds/karpenter.sh_nodepools.yaml, the copy in
    reference folder, crds/karpenter.sh/NodePool.yaml): with replicas set, disruption.consolidationPolicy and
    consolidateAfter "are ignored", "only limits.nodes is supported", and the CEL rule "only 'limits.nodes' is
    supported on static NodePools" (``!has(self.replicas) || ... (size(self.limits) == 1 && 'nodes' in
    self.limits)``) makes the API server refuse a ``nvidia.com/gpu`` limit. The node count bounds the GPUs.
    """
    return get(props, "spec", "replicas") is not None


def taints(props: dict) -> list[dict]:
    """The taints the NodePool puts on its nodes."""
    return [as_dict(t) for t in as_list(get(props, "spec", "template", "spec", "taints"))]


def gpu_limit(props: dict) -> float | None:
    """``spec.limits["nvidia.com/gpu"]`` as a number, or None."""
    return as_quantity(get(props, "spec", "limits", GPU_RESOURCE))


def budgets(props: dict) -> list[dict] | None:
    """The explicit disruption budgets, or None when the NodePool sets none (Karpenter's default applies)."""
    raw = get(props, "spec", "disruption", "budgets")
    return [as_dict(b) for b in raw] if isinstance(raw, list) else None


def budget_blocks(budget: dict, reason: str) -> bool:
    """True when the budget allows zero nodes for ``reason`` (its reasons include it, or it names none)."""
    reasons = as_list(budget.get("reasons"))
    return str(budget.get("nodes")).strip() in ("0", "0%") and (not reasons or reason in reasons)


def covering_budgets(found: list[dict], reason: str) -> list[dict]:
    """The budgets that apply to ``reason``: those naming it, and those naming no reason at all.

    Karpenter takes, per reason, the minimum over the budgets whose reasons are unset or contain it, starting from
    MaxInt32 (kubernetes-sigs/karpenter v1.14.1 pkg/apis/v1/nodepool.go:363-377, GetAllowedDisruptionsByReason); the
    disruption controller asks it once per method with that method's reason (pkg/controllers/disruption/helpers.go:300,
    BuildDisruptionBudgetMapping; drift.go:110 Drifted). A reason no budget applies to is therefore unlimited.
    """
    return [b for b in found if not as_list(b.get("reasons")) or reason in as_list(b.get("reasons"))]


_NODE_CLASS_KINDS = {("karpenter.k8s.aws", "EC2NodeClass")}


def node_class(props: dict) -> tuple[str, dict] | None:
    """(name, props) of the EC2NodeClass the NodePool's nodeClassRef names, among the objects being checked
    (kube.viewed_resources); None when it names none or the class is not in the files read."""
    ref = as_dict(get(props, "spec", "template", "spec", "nodeClassRef"))
    name = ref.get("name")
    view = viewed_resources()
    if not isinstance(name, str) or not view:
        return None
    found = memoized(view, "ec2_node_classes", _node_classes).get(name)
    return (name, found) if found is not None else None


def _node_classes(view: Any) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for r in view:
        if split_type(getattr(r, "type", "")) in _NODE_CLASS_KINDS and isinstance(get(r.props, "metadata", "name"), str):
            out.setdefault(get(r.props, "metadata", "name"), r.props)
    return out


_MOVING_SSM = re.compile(r"(latest|recommended)", re.IGNORECASE)


def moving_ami(props: dict) -> str | None:
    """What makes an EC2NodeClass's AMI move on its own (a new AMI is a drift of every node), or None when pinned.

    - an alias ``family@latest``: "Setting the version to latest will result in drift when a new AMI is released"
      (aws/karpenter-provider-aws v1.14.1 pkg/apis/v1/ec2nodeclass.go:242);
    - an SSM parameter whose path says latest or recommended (the EKS-optimized AMI parameters AWS repoints on every
      release, e.g. /aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/nvidia/recommended/image_id);
    - a name with a wildcard: "If multiple AMIs are found that can be used, Karpenter will choose the latest one"
      (v1.14.1 website/content/en/docs/concepts/nodeclasses.md, amiSelectorTerms; pkg/providers/amifamily/types.go:46-58
      sorts by creation date, newest first), so each new AMI the pattern matches drifts every node;
    - a v1beta1 EC2NodeClass with an amiFamily and no amiSelectorTerms: Karpenter then resolves the family's default
      AMIs (aws/karpenter-provider-aws v0.37.0 pkg/providers/amifamily/ami.go:109-110) from the ".../recommended/
      image_id" SSM parameters (al2023.go:38), which move with every release.
    """
    terms = [as_dict(t) for t in as_list(get(props, "spec", "amiSelectorTerms"))]
    for term in terms:
        alias = term.get("alias")
        if isinstance(alias, str) and alias.strip().lower().endswith("@latest"):
            return f"amiSelectorTerms alias {alias.strip()}"
        ssm = term.get("ssmParameter")
        if isinstance(ssm, str) and _MOVING_SSM.search(ssm):
            return f"amiSelectorTerms ssmParameter {ssm}"
        name = term.get("name")
        if isinstance(name, str) and "*" in name:
            return f"amiSelectorTerms name {name} (the newest AMI it matches)"
    family = get(props, "spec", "amiFamily")
    if not terms and isinstance(family, str) and family != "Custom" and str(props.get("apiVersion", "")).endswith("v1beta1"):
        return f"amiFamily {family} with no amiSelectorTerms (the family's latest AMI)"
    return None


def consolidation_policy(props: dict) -> str:
    """spec.disruption.consolidationPolicy in v1's names: Karpenter's default WhenEmptyOrUnderutilized when unset, and
    v1beta1's WhenUnderutilized (its default, kubernetes-sigs/karpenter v0.37.0 pkg/apis/v1beta1/nodepool.go:73-78)
    under the name v1 gave it."""
    policy = get(props, "spec", "disruption", "consolidationPolicy") or "WhenEmptyOrUnderutilized"
    return "WhenEmptyOrUnderutilized" if policy == "WhenUnderutilized" else str(policy)


def expire_after(props: dict) -> Any:
    """The NodePool's expireAfter as written: v1's spec.template.spec.expireAfter, or v1beta1's
    spec.disruption.expireAfter (v0.37.0 pkg/apis/v1beta1/nodepool.go:79-88); None when unset (720h either way)."""
    value = get(props, "spec", "template", "spec", "expireAfter")
    return value if value is not None else get(props, "spec", "disruption", "expireAfter")


def duration_seconds(text: Any) -> int | None:
    """Seconds of a Karpenter duration ("720h", "1h30m"); None for Never or anything unreadable."""
    if not isinstance(text, str) or not re.fullmatch(r"([0-9]+(s|m|h))+", text):
        return None
    return sum(int(n) * {"s": 1, "m": 60, "h": 3600}[u] for n, u in _DURATION_PART.findall(text))


# Karpenter's v1alpha5 Provisioner, which NodePool v1beta1 replaced field for field (Karpenter v0.32 upgrade guide,
# https://karpenter.sh/v0.32/upgrading/v1beta1-migration/: spec.requirements, spec.taints, spec.startupTaints and
# spec.labels moved under spec.template(.spec), spec.limits.resources became spec.limits, spec.providerRef became
# spec.template.spec.nodeClassRef). Karpenter 0.33 and later no longer serve it (api-version-served, G40 says so).
PROVISIONER_TYPE = "kubernetes:karpenter.sh/v1alpha5:Provisioner"
# Where each NodePool field a message names sits in a Provisioner.
PROVISIONER_FIELDS = {
    "spec.template.spec.taints": "spec.taints",
    "spec.template.spec.requirements": "spec.requirements",
    "spec.limits": "spec.limits.resources",
}


def nodepool_props(resource: Any) -> dict:
    """A NodePool's props, or a v1alpha5 Provisioner's read as the NodePool it migrates to (PROVISIONER_TYPE)."""
    props = as_dict(getattr(resource, "props", None))
    if getattr(resource, "type", None) != PROVISIONER_TYPE:
        return props
    spec = as_dict(props.get("spec"))
    template_spec = {k: spec[k] for k in ("requirements", "taints", "startupTaints") if k in spec}
    if isinstance(get(spec, "providerRef", "name"), str):
        template_spec["nodeClassRef"] = {"name": get(spec, "providerRef", "name"), "kind": "AWSNodeTemplate"}
    template: dict = {"spec": template_spec}
    if isinstance(spec.get("labels"), dict):
        template["metadata"] = {"labels": spec["labels"]}
    converted: dict = {"template": template}
    if isinstance(get(spec, "limits", "resources"), dict):
        converted["limits"] = get(spec, "limits", "resources")
    return {**props, "spec": converted}


def nodepool_field(resource: Any, path: str) -> str:
    """The field a NodePool path names in this resource (a Provisioner keeps some elsewhere: PROVISIONER_FIELDS)."""
    return PROVISIONER_FIELDS.get(path, path) if getattr(resource, "type", None) == PROVISIONER_TYPE else path
