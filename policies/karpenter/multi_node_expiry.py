"""G44 (Karpenter helpers; S14 is karpenter-gpu-expiry): a NodePool that hosts a multi-node engine must not expire its nodes (expireAfter: Never).

Expiration is forceful in Karpenter v1: a node past ``expireAfter`` is drained at once, whatever the
disruption budgets say (karpenter-provider-aws v1.14.1 website/content/en/docs/concepts/disruption.md,
"Automated Forceful Methods"), and ``expireAfter`` defaults to 720h. The nodes of one multi-node
engine start together, so they expire together, and the engine is down for its whole cold start
about every 30 days. With ``Never``, drift inside a disruption window is how those nodes get new AMIs
(karpenter-gpu-expiry checks that a budget lets drift through).

A multi-node engine: a RayCluster/RayService whose GPU worker groups hold 2 or more pods, a
LeaderWorkerSet of size 2 or more, or an InferenceService with ``spec.predictor.workerSpec``. It
lands on a NodePool through ``nodeSelector`` (``karpenter.sh/nodepool``, or labels of the NodePool's
template) or a required node affinity on ``karpenter.sh/nodepool``.
"""

from __future__ import annotations

from typing import Any

from policies.framework import Policy, Resource
from policies.kube import as_dict, as_int, as_list, get, pod_specs, requests_gpu, split_type
from policies.reading.nodepools import NODEPOOL_TYPES
from policies.reading.ray_cluster import groups

NODEPOOL_LABEL = "karpenter.sh/nodepool"


def _multi_node(r: Resource) -> bool:
    group, kind = split_type(r.type)
    if group == "ray.io":
        return sum((g.pods() or 0) for g in groups(r) if not g.is_head and requests_gpu(g.podspec)) >= 2
    if (group, kind) == ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"):
        return (as_int(get(r.props, "spec", "leaderWorkerTemplate", "size")) or 1) >= 2
    if (group, kind) == ("serving.kserve.io", "InferenceService"):
        return isinstance(get(r.props, "spec", "predictor", "workerSpec"), dict)
    return False


def _targets(podspec: dict, pool_name: Any, pool_labels: dict) -> bool:
    selector = as_dict(podspec.get("nodeSelector"))
    if selector.get(NODEPOOL_LABEL) == pool_name:
        return True
    if (
        selector
        and pool_labels
        and all(pool_labels.get(k) == v for k, v in selector.items() if k != NODEPOOL_LABEL)
        and NODEPOOL_LABEL not in selector
        and any(k in pool_labels for k in selector)
    ):
        return True
    terms = as_list(
        get(podspec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
    )
    for term in terms:
        for expr in as_list(as_dict(term).get("matchExpressions")):
            expr = as_dict(expr)
            if expr.get("key") == NODEPOOL_LABEL and expr.get("operator") == "In" and pool_name in as_list(expr.get("values")):
                return True
    return False


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    engines = [r for r in resources if _multi_node(r)]
    if not engines:
        return []
    findings = []
    for pool in (r for r in resources if r.type in NODEPOOL_TYPES):
        name = get(pool.props, "metadata", "name")
        labels = as_dict(get(pool.props, "spec", "template", "metadata", "labels"))
        expire = get(pool.props, "spec", "template", "spec", "expireAfter")
        if expire == "Never":
            continue
        hosted = [e for e in engines if any(requests_gpu(p) and _targets(p, name, labels) for _, p in pod_specs(e))]
        for e in hosted:
            findings.append(
                (
                    pool.name,
                    f"spec.template.spec.expireAfter: {expire if expire is not None else 'unset (720h)'} on "
                    f"NodePool {name}, which hosts the multi-node engine {split_type(e.type)[1]} "
                    f"{get(e.props, 'metadata', 'name')}; expiry is forceful (no budget or do-not-disrupt "
                    f"stops it), so its nodes are replaced together and the engine cold-starts; set "
                    f"Never and roll AMIs by drift in a window",
                )
            )
    return findings


POLICY = Policy(
    name="karpenter-multi-node-pool-never-expires",
    description="A NodePool that hosts a multi-node engine (Ray, LeaderWorkerSet, KServe workerSpec) must set expireAfter: Never.",
    rationale="Karpenter's expiration is forceful and ignores disruption budgets (https://karpenter.sh/docs/concepts/disruption/#automated-forceful-methods; default expireAfter 720h); the nodes of one multi-node engine start together and so expire together, stopping the engine for a multi-node cold start.",
    catalog="G44",
    severity="high",
    # Advisory: a risk, not a failure the files prove (docs/policies.md "Enforcement levels"); --config raises it.
    enforcement="advisory",
    remediation_steps="Set spec.template.spec.expireAfter: Never on the NodePool and allow Drifted in a scheduled "
    "disruption budget (a maintenance window), so nodes still get new AMIs.",
    check_stack=_check,
)
