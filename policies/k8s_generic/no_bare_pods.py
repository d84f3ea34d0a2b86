"""G39: no bare Pods.

A Pod without a controller is not recreated when its node goes away; for a GPU node that Karpenter
reclaims or consolidates, the model simply disappears.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import as_list, get

POD_TYPE = "kubernetes:core/v1:Pod"


def _check(resource: Resource, config: dict) -> list[str]:
    if as_list(get(resource.props, "metadata", "ownerReferences")):
        return []
    return [
        "a bare Pod is not recreated when its node is drained or reclaimed; run it under a Deployment, "
        "StatefulSet, Job or InferenceService"
    ]


POLICY = Policy(
    name="no-bare-pods",
    description="Pods must be managed by a controller.",
    catalog="G39",
    severity="medium",
    enforcement="mandatory",
    remediation_steps="Wrap the pod spec in a Deployment (serving), a Job (one-off work) or a KServe InferenceService.",
    resource_types=(POD_TYPE,),
    check_resource=_check,
    rationale=(
        "Bare pods are not rescheduled after node failure or drain "
        "(https://kubernetes.io/docs/concepts/configuration/overview/#naked-pods-vs-replicasets-deployments-and-jobs). "
        "Catalogue row 39 (compliance-policies disallowPod, Kyverno prevent-bare-pods)."
    ),
)
