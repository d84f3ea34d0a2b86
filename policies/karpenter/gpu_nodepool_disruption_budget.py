"""S12: a GPU NodePool sets explicit disruption budgets, and never consolidates serving nodes outside a window.

Karpenter's default budget is ``nodes: 10%`` for every reason (Karpenter v1.14.1 docs, NodePool disruption):
consolidation and drift then evict serving pods at any hour, and each reload takes minutes. The opposite is advice: a
budget of nodes "0" with no reasons and no schedule stops every voluntary disruption for good, so empty GPU nodes stay
billed and drift never rolls (spent set 14, WebRTCventures/colocating-voiceai-models-eks k8s/gpu-nodepool.yaml).
"""

from __future__ import annotations

import re

from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, as_list, get, memoized, pod_specs, requests_gpu, viewed_resources
from policies.reading.nodepools import (
    NODEPOOL_TYPES,
    budget_blocks,
    budgets,
    consolidation_policy,
    covering_budgets,
    expire_after,
    gpu_pool_hint,
    is_gpu_nodepool,
    is_static,
    moving_ami,
    node_class,
)


def _is_default(found: list[dict]) -> bool:
    """True when the budgets written are Karpenter's default itself: one budget of nodes 10% with no reasons and no
    schedule (kubernetes-sigs/karpenter v1.14.1 pkg/apis/v1/nodepool.go:107-109, +kubebuilder:default:={{nodes:
    "10%"}}), which confines nothing more than no budget would."""
    return len(found) == 1 and set(found[0]) == {"nodes"} and str(found[0]["nodes"]).strip() == "10%"


def _drift_source(props: dict) -> tuple[str, bool]:
    """What drifts the pool's nodes, and whether the files prove it happens on its own: the EC2NodeClass of the set
    selects a moving AMI (every release drifts every node), else only a change to the NodePool or its class does."""
    found = node_class(props)
    why = moving_ami(found[1]) if found is not None else None
    if found is not None and why is not None:
        return f"on every AMI release (its EC2NodeClass {found[0]} selects {why})", True
    return "whenever the NodePool or its EC2NodeClass changes (or the class's AMI moves)", False


def _unbudgeted_drift(props: dict, found: list[dict]) -> list[str]:
    """Budgets are written but none applies to Drifted: drift of this GPU pool is unlimited."""
    if covering_budgets(found, "Drifted"):
        return []
    named = sorted({str(r) for b in found for r in as_list(b.get("reasons"))})
    when, proven = _drift_source(props)
    message = (
        f"spec.disruption.budgets: every budget is limited to reasons {', '.join(named)}, so none applies to Drifted "
        f"and Karpenter allows unlimited drift disruptions of this GPU pool (a reason no budget names gets MaxInt32: "
        f"kubernetes-sigs/karpenter v1.14.1 pkg/apis/v1/nodepool.go:363-377); its serving nodes are replaced {when}, "
        f'at any hour and with only pod PDBs in the way; add a budget for Drifted (nodes "0" outside the maintenance '
        f'window, nodes "1" at most)'
    )
    return [message if proven else unproven(message)]


DO_NOT_DISRUPT = "karpenter.sh/do-not-disrupt"
_PLAIN_PATH = re.compile(r"^[A-Za-z]+(?:\.[A-Za-z]+)*\.spec$")


def _annotated_gpu_pods(view: tuple) -> bool:
    """True when a GPU pod template of the run carries karpenter.sh/do-not-disrupt: "true" (its metadata beside the
    pod spec: spec.template.metadata, leaderWorkerTemplate.workerTemplate.metadata, ...)."""
    for other in view:
        for path, podspec in pod_specs(other):
            if not _PLAIN_PATH.match(path) or not requests_gpu(podspec):
                continue
            meta = get(other.props, *path.split(".")[:-1], "metadata", "annotations")
            if str(as_dict(meta).get(DO_NOT_DISRUPT)).lower() == "true":
                return True
    return False


def _check(resource: Resource, config: dict) -> list[str]:
    hint = None if is_gpu_nodepool(resource.props) else gpu_pool_hint(resource.props)
    if hint is None and not is_gpu_nodepool(resource.props):
        return []
    found = _gpu_pool_findings(resource)
    # Read as a GPU pool from a name only (the instance types come from a node class or provider outside the files).
    return found if hint is None else [unproven(f"{m} (read as a GPU pool because {hint})") for m in found]


def _gpu_pool_findings(resource: Resource) -> list[str]:
    # Node-level control: the pool's nodes carry karpenter.sh/do-not-disrupt: "true" (the NodePool form
    # spec.template.metadata.annotations), so Karpenter never chooses them for consolidation or drift
    # (https://karpenter.sh/docs/concepts/disruption/#node-level-controls): budgets confine nothing more.
    annotations = as_dict(get(resource.props, "spec", "template", "metadata", "annotations"))
    if str(annotations.get(DO_NOT_DISRUPT)).lower() == "true":
        return []
    found = _findings(resource)
    view = viewed_resources()
    # Pod-level control: GPU serving pods annotated so keep Karpenter from disrupting the nodes they run on
    # (https://karpenter.sh/docs/concepts/disruption/#pod-level-controls); which pool they land on is not proven here.
    if found and view and memoized(view, "karpenter_do_not_disrupt_pods", _annotated_gpu_pods):
        return [unproven(f"{m} (unless the GPU pods annotated {DO_NOT_DISRUPT} in these files run on it)") for m in found]
    return found


def _frozen(props: dict, found: list[dict]) -> list[str]:
    """Advice where a budget of nodes "0" with no reasons and no schedule blocks every voluntary disruption at all
    hours: a budget without reasons applies to Underutilized, Empty and Drifted alike (kubernetes-sigs/karpenter v1.14.1
    pkg/apis/v1/nodepool.go:120-126, and :363-377 takes the minimum over them), so empty GPU nodes are never
    consolidated and drift never replaces a node; only expiry does, which no budget reason names (DisruptionReason is
    Underutilized, Empty or Drifted: v1.14.1 pkg/apis/crds/karpenter.sh_nodepools.yaml:113-123)."""
    frozen = [b for b in found if budget_blocks(b, "Empty") and not as_list(b.get("reasons")) and not b.get("schedule")]
    if not frozen:
        return []
    expiry = expire_after(props)
    until = "never (expireAfter Never)" if str(expiry) == "Never" else f"only at expireAfter ({expiry or '720h, the default'})"
    return [
        unproven(
            f'spec.disruption.budgets: a budget of nodes "{frozen[0].get("nodes")}" with no reasons and no schedule '
            f"applies to every disruption reason at all hours (a budget without reasons covers Empty, Underutilized and "
            f"Drifted: kubernetes-sigs/karpenter v1.14.1 pkg/apis/v1/nodepool.go:120-126, 363-377), so Karpenter never "
            f"removes an empty GPU node (consolidation is dead) nor replaces a drifted one (a new AMI or a NodePool "
            f"change never rolls out); idle GPU nodes stay billed and nodes are replaced {until}; give the zero budget "
            f"a schedule and duration (outside the maintenance window) or reasons [Underutilized, Drifted], leaving "
            f"Empty nodes to consolidate"
        )
    ]


def _findings(resource: Resource) -> list[str]:
    found = budgets(resource.props)
    if found and not is_static(resource.props) and (frozen := _frozen(resource.props, found)):
        return frozen
    if found and not is_static(resource.props):
        drift = _unbudgeted_drift(resource.props, found)
        if drift:
            return drift
    policy = consolidation_policy(resource.props)
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
        written = get(resource.props, "spec", "disruption", "consolidationPolicy") or policy
        return [
            f"spec.disruption: consolidationPolicy {written} with no budget of nodes "
            '"0" for Underutilized; add one (scheduled outside the maintenance window) so busy serving nodes are not '
            "consolidated at any hour"
        ]
    return []


POLICY = Policy(
    name="karpenter-gpu-nodepool-disruption-budget",
    description=(
        "A GPU NodePool must set explicit disruption budgets that keep consolidation of serving nodes to a window, and "
        "one of them must apply to drift (budgets limited to other reasons leave Drifted unlimited)."
    ),
    rationale="Without budgets Karpenter applies nodes: 10% for every disruption reason (the NodePool CRD default, https://github.com/kubernetes-sigs/karpenter/blob/main/pkg/apis/crds/karpenter.sh_nodepools.yaml), so consolidation and drift evict serving pods at any hour and each replacement reloads a model for minutes. Budgets with reasons and schedules confine that to a window (https://karpenter.sh/docs/concepts/disruption/#disruption-budgets). A budget with reasons applies to those reasons only: a reason no budget names is unlimited (kubernetes-sigs/karpenter v1.14.1 pkg/apis/v1/nodepool.go:363-377 starts from MaxInt32), so budgets for Underutilized and Empty alone let drift replace every GPU node at once, on every AMI release where the EC2NodeClass selects a moving AMI (an @latest alias: aws/karpenter-provider-aws v1.14.1 pkg/apis/v1/ec2nodeclass.go:242). Proven (blocking where a platform raises the policy with --config) when the EC2NodeClass in the files moves on its own; unproven where it is pinned or not in the files.",
    catalog="S12",
    severity="high",
    enforcement="advisory",  # a risk row: docs/policies.md "Enforcement levels"
    remediation_steps='Set spec.disruption.budgets, e.g. [{nodes: "0", reasons: [Drifted, Underutilized], schedule: '
    '"0 7 * * 0", duration: 164h}, {nodes: "1"}] for a Sunday 03:00-07:00 window, or use '
    "consolidationPolicy WhenEmpty.",
    config_schema={},
    resource_types=NODEPOOL_TYPES,
    check_resource=_check,
)
