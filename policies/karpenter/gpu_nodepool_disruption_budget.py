"""S12: a GPU NodePool sets explicit disruption budgets, and never consolidates serving nodes outside a window.

Karpenter's default budget is ``nodes: 10%`` for every reason (Karpenter v1.14.1 docs, NodePool disruption):
consolidation and drift then evict serving pods at any hour, and each reload takes minutes.
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.kube import get
from policies.reading.nodepools import NODEPOOL_TYPES, budget_blocks, budgets, is_gpu_nodepool, is_static


def _is_default(found: list[dict]) -> bool:
    """True when the budgets written are Karpenter's default itself: one budget of nodes 10% with no reasons and no
    schedule (kubernetes-sigs/karpenter v1.14.1 pkg/apis/v1/nodepool.go:107-109, +kubebuilder:default:={{nodes:
    "10%"}}), which confines nothing more than no budget would."""
    return len(found) == 1 and set(found[0]) == {"nodes"} and str(found[0]["nodes"]).strip() == "10%"


def _check(resource: Resource, config: dict) -> list[str]:
    if not is_gpu_nodepool(resource.props):
        return []
    found = budgets(resource.props)
    policy = get(resource.props, "spec", "disruption", "consolidationPolicy") or "WhenEmptyOrUnderutilized"
    if found and policy == "WhenEmpty" and _is_default(found):
        return [
            unproven(
                'spec.disruption.budgets: the only budget is Karpenter\'s default written out (nodes: "10%", no '
                "reasons, no schedule); with consolidationPolicy WhenEmpty drift still replaces busy GPU nodes at any "
                'hour (every new AMI of an @latest alias, every NodePool change); add a budget of nodes "0" for '
                "Drifted outside the maintenance window"
            )
        ]
    if not found and policy == "WhenEmpty":
        # Consolidation removes only empty nodes here (the remediation's own alternative to budgets); drift still
        # replaces busy nodes at any hour under the default 10%, which a budget would confine: advice, not a block.
        return [
            unproven(
                "spec.disruption.budgets: GPU NodePool without explicit budgets; with consolidationPolicy WhenEmpty "
                "only drift evicts serving pods, but at any hour under Karpenter's default (nodes: 10%); add a "
                'budget of nodes "0" for Drifted outside the maintenance window'
            )
        ]
    if not found:
        return [
            "spec.disruption.budgets: GPU NodePool without explicit budgets; Karpenter's default (nodes: 10%) lets "
            "consolidation and drift evict serving pods at any time"
        ]
    if is_static(resource.props):
        return []  # Karpenter ignores consolidationPolicy and consolidateAfter on a static NodePool
    if policy == "WhenEmptyOrUnderutilized" and not any(budget_blocks(b, "Underutilized") for b in found):
        return [
            'spec.disruption: consolidationPolicy WhenEmptyOrUnderutilized with no budget of nodes "0" for '
            "Underutilized; add one (scheduled outside the maintenance window) so busy serving nodes are not "
            "consolidated at any hour"
        ]
    return []


POLICY = Policy(
    name="karpenter-gpu-nodepool-disruption-budget",
    description="A GPU NodePool must set explicit disruption budgets that keep consolidation of serving nodes to a window.",
    rationale="Without budgets Karpenter applies nodes: 10% for every disruption reason (the NodePool CRD default, https://github.com/kubernetes-sigs/karpenter/blob/main/pkg/apis/crds/karpenter.sh_nodepools.yaml), so consolidation and drift evict serving pods at any hour and each replacement reloads a model for minutes. Budgets with reasons and schedules confine that to a window (https://karpenter.sh/docs/concepts/disruption/#disruption-budgets).",
    catalog="S12",
    severity="high",
    enforcement="mandatory",
    remediation_steps='Set spec.disruption.budgets, e.g. [{nodes: "0", reasons: [Drifted, Underutilized], schedule: '
    '"0 7 * * 0", duration: 164h}, {nodes: "1"}] for a Sunday 03:00-07:00 window, or use '
    "consolidationPolicy WhenEmpty.",
    config_schema={},
    resource_types=NODEPOOL_TYPES,
    check_resource=_check,
)
