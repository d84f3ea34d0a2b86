"""S20: a GPU Deployment's rollout fits its pool: a surge has GPU headroom, and the rollout can make progress.

``maxSurge > 0`` starts new GPU pods before old ones stop: on a pool whose gpuLimit its workloads
already fill, the surge pod stays Pending and the rollout stalls. ``maxSurge: 0`` with
``maxUnavailable: 0`` written as such (ints or ``0%``) is refused by the API server ("may not be 0 when
`maxSurge` is 0": kubernetes/kubernetes pkg/apis/apps/validation/validation.go ValidateRollingUpdateDeployment).
Percentages that only *round* to 0 and 0 (any percentage of ``replicas: 0``, or 1% of one replica) are not a stuck
rollout: the deployment controller then takes one pod unavailable (kubernetes/kubernetes 277391ee
pkg/controller/deployment/util/deployment_util.go ResolveFenceposts: "If both fenceposts resolve to zero, then we
should set maxUnavailable to 1").

When the Deployment's NodePool is not among the files read, its headroom is unknown; a rollout that can progress
only by surging (``maxUnavailable`` rounds to 0, as Kubernetes' 25% default does for one to three replicas) then
needs a spare GPU node of the pool's type at every rollout, which a pool at its limit or a fixed node group does not
have. That finding rests on the pool outside the set, so it is reported unproven (advisory).
"""

from __future__ import annotations

import math

from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, get, split_type
from policies.reading.gpu_pools import gpu_workloads, limit_of, nodepools


def _amount(value, replicas: int, default: str) -> int:
    value = default if value is None else value
    if isinstance(value, str) and value.endswith("%"):
        try:
            return math.ceil(replicas * float(value[:-1]) / 100)
        except (ValueError, OverflowError):  # replicas or a percentage of 1e308: inf
            return 0
    try:
        return int(float(value))
    except (TypeError, ValueError, OverflowError):
        return 0


def _floor_percent(value: str, replicas: int) -> int:
    """A percentage of the replicas, rounded down (0 where it is no number, or the replicas overflow a float)."""
    try:
        return math.floor(replicas * float(value[:-1]) / 100)
    except (ValueError, OverflowError):
        return 0


def _literal_zero(value) -> bool:
    """True for a fencepost written as zero (``0`` or ``0%``): the form the API server's validation refuses when both are."""
    if isinstance(value, str):
        value = value[:-1] if value.endswith("%") else value
    try:
        return value is not None and float(value) == 0
    except (TypeError, ValueError):
        return False


def _surge_only(surge: int, gpus: int, replicas: int) -> str:
    return (
        f"spec.strategy: maxUnavailable rounds to 0 for {replicas} replica(s), so every rollout must first start "
        f"{surge} new pod(s) of {gpus} GPU(s) beside the running ones; on a GPU pool at its limit, or a node group "
        f"with no spare GPU node, the new pod stays Pending and the rollout stalls (the pool is not in the files "
        f"read); use maxSurge 0 with maxUnavailable 1, or Recreate, where a spare GPU is not guaranteed"
    )


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    pools = nodepools(resources)
    workloads = gpu_workloads(resources)
    findings = []
    for w in workloads:
        if split_type(w.resource.type)[1] != "Deployment":
            continue
        strategy = as_dict(get(w.resource.props, "spec", "strategy"))
        if strategy.get("type", "RollingUpdate") != "RollingUpdate":
            continue
        rolling = as_dict(strategy.get("rollingUpdate"))
        # Kubernetes' defaults: 25% each; a surge rounds up, unavailability down.
        surge = _amount(rolling.get("maxSurge"), w.max_pods, "25%")
        raw_unavailable = rolling.get("maxUnavailable", "25%")
        unavailable = (
            _floor_percent(raw_unavailable, w.max_pods)
            if isinstance(raw_unavailable, str) and raw_unavailable.endswith("%")
            else _amount(raw_unavailable, w.max_pods, "0")
        )
        if surge == 0 and unavailable == 0:
            if _literal_zero(rolling.get("maxSurge")) and _literal_zero(raw_unavailable):
                findings.append(
                    (
                        w.resource.name,
                        "spec.strategy: maxSurge 0 and maxUnavailable 0 on a GPU Deployment; the API server refuses "
                        "it and no rollout could ever replace a pod",
                    )
                )
            # Both only rounded to zero: the controller takes one pod unavailable (ResolveFenceposts) and
            # never surges, so neither a stall nor a surge finding applies.
            continue
        pool = pools.get(w.pool) if w.pool else None
        limit = limit_of(pool) if pool else None
        if surge and not unavailable and pool is None:
            findings.append((w.resource.name, unproven(_surge_only(surge, w.gpus_per_pod, w.max_pods))))
            continue
        if surge and limit is not None:
            held = sum(o.gpus_per_pod * o.max_pods for o in workloads if o.pool == w.pool)
            headroom = limit - held
            if headroom < surge * w.gpus_per_pod:
                findings.append(
                    (
                        w.resource.name,
                        f"spec.strategy: maxSurge {surge} needs {surge * w.gpus_per_pod} more GPUs but "
                        f"NodePool {w.pool} has {max(0, int(headroom))} left under its limit of "
                        f"{int(limit)} ({int(held)} held by its workloads); use maxSurge 0 with "
                        f"maxUnavailable 1, or Recreate",
                    )
                )
    return findings


POLICY = Policy(
    name="gpu-rollout-surge",
    description="A GPU Deployment's rolling update must fit its NodePool's GPU headroom and be able to progress.",
    rationale="A rolling update creates maxSurge extra pods before removing old ones (https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#rolling-update-deployment); for GPU pods on a pool at its GPU limit the surge pod never schedules and the rollout stalls, and maxSurge 0 with maxUnavailable 0 can never progress.",
    catalog="S20",
    severity="medium",
    enforcement="mandatory",
    remediation_steps="Where the pool has no GPU headroom use maxSurge: 0 with maxUnavailable: 1 (or Recreate); never set "
    "both to 0.",
    config_schema={},
    check_stack=_check,
)
