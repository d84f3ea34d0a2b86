"""G39: no bare Pods.

A Pod without a controller is not recreated when its node goes away; for a GPU node that Karpenter
reclaims or consolidates, the model simply disappears.

The serving case is what the manifest proves: a bare Pod that runs a model server or asks for GPUs. Sample folders
hold other bare Pods on purpose (a curl or benchmark client, a one-shot download with restartPolicy Never), whose
loss costs no serving: advice. A Helm test hook (annotation ``helm.sh/hook``: the chart runs the Pod on ``helm
test`` and deletes it, https://helm.sh/docs/topics/chart_tests/) is not a workload at all.
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.kube import annotations_of, as_list, get, requests_gpu
from policies.reading.serving import model_servers

POD_TYPE = "kubernetes:core/v1:Pod"


def _check(resource: Resource, config: dict) -> list[str]:
    if as_list(get(resource.props, "metadata", "ownerReferences")) or annotations_of(resource.props).get("helm.sh/hook"):
        return []
    message = (
        "a bare Pod is not recreated when its node is drained or reclaimed; run it under a Deployment, "
        "StatefulSet, Job or InferenceService"
    )
    spec = get(resource.props, "spec")
    if model_servers(resource) or (isinstance(spec, dict) and requests_gpu(spec)):
        return [message]
    return [unproven(f"{message} (it runs no model server and asks for no GPU, so its loss costs no serving)")]


POLICY = Policy(
    name="no-bare-pods",
    description="Pods must be managed by a controller.",
    catalog="G39",
    severity="medium",
    # Advisory: a risk, not a failure the files prove (docs/policies.md "Enforcement levels"); --config raises it.
    enforcement="advisory",
    remediation_steps="Wrap the pod spec in a Deployment (serving), a Job (one-off work) or a KServe InferenceService.",
    resource_types=(POD_TYPE,),
    check_resource=_check,
    rationale=(
        "Bare pods are not rescheduled after node failure or drain "
        "(https://kubernetes.io/docs/concepts/configuration/overview/#naked-pods-vs-replicasets-deployments-and-jobs). "
        "Catalogue row 39 (compliance-policies disallowPod, Kyverno prevent-bare-pods)."
    ),
)
