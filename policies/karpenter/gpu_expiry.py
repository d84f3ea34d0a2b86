"""S14: serving nodes live long enough (expireAfter above a floor), and Never comes with a drift window.

Expiration is not budgetable (Karpenter v1.14.1 docs): every expiry reloads the models on the node. With
``Never`` nodes are only replaced by drift, so some budget must let Drifted through.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import get
from policies.reading.nodepools import (
    NODEPOOL_TYPES,
    budget_blocks,
    budgets,
    duration_seconds,
    expire_after,
    is_gpu_nodepool,
)


def _where(props: dict) -> str:
    """Where the NodePool writes expireAfter (v1beta1 keeps it under spec.disruption)."""
    return (
        "spec.template.spec.expireAfter"
        if get(props, "spec", "template", "spec", "expireAfter") is not None
        else "spec.disruption.expireAfter"
    )


def _check(resource: Resource, config: dict) -> list[str]:
    if not is_gpu_nodepool(resource.props):
        return []
    floor = int(config["minHours"])
    value = expire_after(resource.props)
    if value is None:
        return []  # Karpenter's default, 720h
    if value == "Never":
        # The most restrictive active budget wins: an unscheduled nodes "0" for Drifted blocks drift for good.
        if any(budget_blocks(b, "Drifted") and not b.get("schedule") for b in budgets(resource.props) or []):
            return [
                f"{_where(resource.props)}: Never while a budget blocks Drifted at all times; the nodes then "
                "never get a new AMI (patching)"
            ]
        return []
    seconds = duration_seconds(value)
    if seconds is not None and seconds < floor * 3600:
        return [
            f"{_where(resource.props)}: {value} is below the {floor}h floor; every expiry reloads the models "
            f"on the node (minutes each) and expiry ignores disruption budgets"
        ]
    return []


POLICY = Policy(
    name="karpenter-gpu-expiry",
    description="A GPU NodePool's expireAfter must be at least a floor, and Never needs a budget that lets drift through.",
    rationale="Expiration is forceful and not governed by disruption budgets (https://karpenter.sh/docs/concepts/disruption/#expiration): a short expireAfter reloads every model on the pool often, while Never with drift blocked for good leaves nodes on an old AMI without patches.",
    catalog="S14",
    severity="medium",
    enforcement="advisory",  # a risk row: docs/policies.md "Enforcement levels"
    remediation_steps="Set spec.template.spec.expireAfter to at least minHours (e.g. 720h), or Never with a budget that "
    "allows Drifted in a maintenance window.",
    config_schema={
        "minHours": {"type": "integer", "minimum": 1, "default": 24, "description": "Shortest expireAfter in hours. Default 24."},
    },
    resource_types=NODEPOOL_TYPES,
    check_resource=_check,
)
