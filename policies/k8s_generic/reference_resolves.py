"""G69 reference-resolves: an object's reference by name to another object resolves among the objects of its run.

An autoscaler's ``scaleTargetRef``, a KServe predictor's ``runtime``, a Karpenter NodePool's ``nodeClassRef``, a
route's ``parentRefs``, a KEDA trigger's ``authenticationRef``, an Istio policy's ``targetRefs``, a pod's ServiceAccount, PriorityClass, RuntimeClass and
ConfigMap (volume, projected source, ``configMapKeyRef``, ``envFrom``) each name an object the controller, admission
or the kubelet looks up; without it the autoscaler never scales (FailedGetScale), the InferenceService never becomes
ready, the NodePool launches no node, the route is served by no Gateway, the pod is refused or never starts. One table of references
(policies/reading/references.py, the rows of family G69) read by one checker.

Advice: judged only where the run proves the name absent, i.e. it defines objects of the target kind in that
namespace (for a cluster-scoped kind, anywhere) and nothing there may create others the files do not show (an
operator's custom resource, a Helm template, a Kustomize patch or base); the object may still come from elsewhere
(``kubectl create configmap`` from a README, another chart), so a finding never blocks. KServe's built-in runtimes
(components/kserve_runtimes.toml) count as defined. Silent for an optional reference and a name left unrendered.
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.input.unreadable import kustomization_read
from policies.reading.references import unresolved


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    return [(name, unproven(message)) for name, message, _ in unresolved(resources, "G69", kustomization_read(resources))]


POLICY = Policy(
    name="reference-resolves",
    description=(
        "An autoscaler's scaleTargetRef, a KServe runtime, a NodePool's nodeClassRef, a route's parentRefs, a KEDA "
        "authenticationRef, an Istio policy's targetRefs and a pod's ServiceAccount, PriorityClass, RuntimeClass and ConfigMaps name an object the "
        "run defines, where the run defines objects of that kind there (advice: it may come from elsewhere)."
    ),
    catalog="G69",
    severity="medium",
    enforcement="advisory",
    remediation_steps="Name the object the files define (the message gives the closest name), or add the object.",
    config_schema={},
    check_stack=_check,
    rationale=(
        "A controller or the kubelet looks the named object up in the referring object's namespace (or the cluster, "
        "for a cluster-scoped kind) and does nothing useful without it."
    ),
)
