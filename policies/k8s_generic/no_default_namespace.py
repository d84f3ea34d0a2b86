"""G38: no objects in the `default` namespace.

`default` has no quota, no limit range, no network policy and every user's access; a model put
there shares all of that with whatever else landed there. Objects that name no namespace are left
alone here: `kubectl apply -n`, kustomize and Pulumi's provider set it.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.k8s_generic import ANY_KUBERNETES_TYPE
from policies.kube import get

_CLUSTER_SCOPED = {
    "Namespace",
    "Node",
    "PersistentVolume",
    "ClusterRole",
    "ClusterRoleBinding",
    "StorageClass",
    "PriorityClass",
    "CustomResourceDefinition",
    "NodePool",
    "EC2NodeClass",
    "ClusterServingRuntime",
    "ValidatingWebhookConfiguration",
    "MutatingWebhookConfiguration",
    "IngressClass",
}


def _check(resource: Resource, config: dict) -> list[str]:
    kind = resource.type.rsplit(":", 1)[-1]
    if kind in _CLUSTER_SCOPED or get(resource.props, "metadata", "namespace") != "default":
        return []
    return [
        "metadata.namespace: default shares the namespace with everything deployed without one (no quota, "
        "limits or network policy of its own); give the model a namespace"
    ]


POLICY = Policy(
    name="no-default-namespace",
    description="Kubernetes objects must not be placed in the default namespace.",
    catalog="G38",
    severity="low",
    enforcement="advisory",
    remediation_steps="Set metadata.namespace to the team's or model's own namespace (this project's stacks use `namespace`).",
    resource_types=ANY_KUBERNETES_TYPE,
    check_resource=_check,
    rationale=(
        "The default namespace is where everything without a namespace lands; quotas, LimitRanges, NetworkPolicies "
        "and RBAC are set per namespace (https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces/). "
        "Catalogue row 38 (Kyverno disallow-default-namespace, Checkov CKV_K8S_21). Only an explicit `default` is "
        "flagged: manifests meant for `kubectl apply -n` leave the namespace out on purpose."
    ),
)
