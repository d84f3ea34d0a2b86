"""Reading Karpenter NodePools (karpenter.sh/v1, v1beta1) as the engine or a manifest gives them.

A NodePool is a GPU pool when its requirements or limits can only mean GPUs: a GPU count above
zero, a GPU name or maker, the g/p instance categories or families, GPU instance types, or a
``nvidia.com/gpu`` limit (catalogue row S11, docs/policies.md).
"""

from __future__ import annotations

import re
from typing import Any

from policies.kube import GPU_RESOURCE, as_dict, as_float, as_list, as_quantity, get

NODEPOOL_TYPES = ("kubernetes:karpenter.sh/v1:NodePool", "kubernetes:karpenter.sh/v1beta1:NodePool")
_GPU_FAMILY = re.compile(r"^(g|p)[0-9]")
_DURATION_PART = re.compile(r"([0-9]+)(s|m|h)")


def _values(req: dict) -> list[str]:
    return [str(v) for v in as_list(req.get("values"))]


def is_gpu_nodepool(props: dict) -> bool:
    """True when the NodePool's requirements (or its limits) select GPU instances."""
    if (as_quantity(get(props, "spec", "limits", GPU_RESOURCE)) or 0) > 0:
        return True
    for req in as_list(get(props, "spec", "template", "spec", "requirements")):
        req = as_dict(req)
        key, op, values = req.get("key"), req.get("operator"), _values(req)
        if key == "karpenter.k8s.aws/instance-gpu-count":
            if op == "Gt" and values and (as_float(values[0]) or 0) >= 0:
                return True
            if op == "In" and any((as_float(v) or 0) > 0 for v in values):
                return True
            if op == "Exists":
                return True
        if key in ("karpenter.k8s.aws/instance-gpu-name", "karpenter.k8s.aws/instance-gpu-manufacturer") and op in (
            "In",
            "Exists",
        ):
            return True
        if op == "In" and key == "karpenter.k8s.aws/instance-category" and {"g", "p"} & set(values):
            return True
        if (
            op == "In"
            and key in ("karpenter.k8s.aws/instance-family", "node.kubernetes.io/instance-type")
            and any(_GPU_FAMILY.match(v) for v in values)
        ):
            return True
    return False


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


def duration_seconds(text: Any) -> int | None:
    """Seconds of a Karpenter duration ("720h", "1h30m"); None for Never or anything unreadable."""
    if not isinstance(text, str) or not re.fullmatch(r"([0-9]+(s|m|h))+", text):
        return None
    return sum(int(n) * {"s": 1, "m": 60, "h": 3600}[u] for n, u in _DURATION_PART.findall(text))
