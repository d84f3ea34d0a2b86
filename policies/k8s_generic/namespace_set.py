"""G38: a namespaced object of a manifest file states its namespace (or the run sets it another way).

An object that names no namespace is created in the client's current namespace, `default` unless the user chose
another, with no quota, limit range, network policy or RBAC of the model's own (Checkov CKV_K8S_21,
checkov 3.3.30 checkov/kubernetes/checks/resource/k8s/DefaultNamespace.py:36-50: a missing `metadata.namespace` fails
like an explicit `default`, except the `default` ServiceAccount and the `kubernetes` Service).

Advice only, and only where the run cannot show the namespace is set another way: a kustomization of the run that
includes the file (directly or through folders) and sets `namespace:` (Resource.kustomize_namespace), a Helm
template's object (its namespace is the release's), a Pulumi resource (the provider's namespace), an object a
controller derives (origin). Only kinds known to be namespaced are judged: Kubernetes' own (each registry strategy's
NamespaceScoped() is true) and the custom kinds whose pinned CRD says `scope: Namespaced` (the reference folder's
crds/, PROVENANCE.md: KServe v0.20.0, KubeRay v1.7.0, LWS v0.10.0, KEDA v2.20.2, prometheus-operator v0.93.0,
Gateway API v1.6.1, Istio 1.30.3, Karpenter v1.14.1 CapacityBuffer) and the operator kinds the pack reads whose CRD
says so at the cited release (KubeAI Model, NIMService/NIMCache, production-stack VLLMRuntime & co: ``_OPERATORS``);
an unknown custom kind may be cluster-scoped.

One finding per object that lacks it, as Checkov reports CKV_K8S_21 per resource: a finding is read on the object it
names (a report's row, a pull-request annotation, a label of a review), so a file-wide finding on its first object
would leave the file's other objects unreported.
"""

from __future__ import annotations

from collections.abc import Sequence

from policies.framework import Policy, Resource
from policies.kube import annotations_of, get, metadata_name, split_type
from policies.values_files import READ_FROM

# Kubernetes' own namespaced kinds (group, kind).
_OWN = {
    ("", kind)
    for kind in (
        "Pod",
        "Service",
        "ConfigMap",
        "Secret",
        "PersistentVolumeClaim",
        "ServiceAccount",
        "ReplicationController",
        "LimitRange",
        "ResourceQuota",
        "PodTemplate",
        "Endpoints",
    )
} | {
    ("apps", "Deployment"),
    ("apps", "StatefulSet"),
    ("apps", "DaemonSet"),
    ("apps", "ReplicaSet"),
    ("batch", "Job"),
    ("batch", "CronJob"),
    ("autoscaling", "HorizontalPodAutoscaler"),
    ("policy", "PodDisruptionBudget"),
    ("networking.k8s.io", "Ingress"),
    ("networking.k8s.io", "NetworkPolicy"),
    ("rbac.authorization.k8s.io", "Role"),
    ("rbac.authorization.k8s.io", "RoleBinding"),
    ("discovery.k8s.io", "EndpointSlice"),
}
# Custom kinds whose pinned CRD has `scope: Namespaced` (module docstring).
_PINNED = {
    ("serving.kserve.io", "InferenceService"),
    ("serving.kserve.io", "ServingRuntime"),
    ("serving.kserve.io", "LLMInferenceService"),
    ("serving.kserve.io", "LLMInferenceServiceConfig"),
    ("ray.io", "RayCluster"),
    ("ray.io", "RayService"),
    ("ray.io", "RayJob"),
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"),
    ("keda.sh", "ScaledObject"),
    ("monitoring.coreos.com", "ServiceMonitor"),
    ("monitoring.coreos.com", "PodMonitor"),
    ("monitoring.coreos.com", "PrometheusRule"),
    ("gateway.networking.k8s.io", "HTTPRoute"),
    ("networking.istio.io", "VirtualService"),
    ("networking.istio.io", "DestinationRule"),
    ("networking.istio.io", "Gateway"),
    ("autoscaling.x-k8s.io", "CapacityBuffer"),
}
# Operators' custom kinds the pack reads whose CRD is not in the reference folder, namespaced by that CRD at the release
# the readers cite (each `spec.scope: Namespaced`): KubeAI's Model (substratusai/kubeai v0.21.0
# charts/kubeai/templates/crds/kubeai.org_models.yaml:15), NVIDIA NIM operator v3.1.2 (config/crd/bases/
# apps.nvidia.com_nimservices.yaml:15, apps.nvidia.com_nimcaches.yaml:15), vLLM production-stack vllm-stack-0.1.12
# (operator/config/crd/bases/production-stack.vllm.ai_vllmruntimes.yaml:17, _vllmrouters.yaml:15,
# _cacheservers.yaml:15, _loraadapters.yaml:15). Spent set 67 wellflat/k8s-dev kubeai/llama-model.yaml (a Model with no
# namespace beside siblings in kubeai; labelled G38).
_OPERATORS = {
    ("kubeai.org", "Model"),
    ("apps.nvidia.com", "NIMService"),
    ("apps.nvidia.com", "NIMCache"),
    ("production-stack.vllm.ai", "VLLMRuntime"),
    ("production-stack.vllm.ai", "VLLMRouter"),
    ("production-stack.vllm.ai", "CacheServer"),
    ("production-stack.vllm.ai", "LoraAdapter"),
}
NAMESPACED = frozenset(_OWN | _PINNED | _OPERATORS)
# Objects every namespace has, which Checkov spares too (DefaultNamespace.py:44-48).
_SPARED = {(("", "ServiceAccount"), "default"), (("", "Service"), "kubernetes")}


def _file(resource: Resource) -> str:
    """The manifest file an object was read from ("" for a Pulumi resource or a test's object)."""
    name = str(resource.name)
    return name.split("#", 1)[0] if "#" in name and not resource.urn else ""


def _judged(resource: Resource) -> bool:
    """True for a namespaced object a file states with no namespace, and nothing of the run sets one."""
    if resource.origin is not None or resource.template or resource.kustomize_namespace or not _file(resource):
        return False
    if not resource.type.startswith("kubernetes:") or not isinstance(resource.props, dict):
        return False
    if READ_FROM in annotations_of(resource.props):  # a file read as the object carrying it (no object is applied)
        return False
    kind = split_type(resource.type)
    if kind not in NAMESPACED or (kind, metadata_name(resource.props)) in _SPARED:
        return False
    namespace = get(resource.props, "metadata", "namespace")
    return namespace is None or namespace == ""


def _shown(resource: Resource) -> str:
    return f"{split_type(resource.type)[1]}/{metadata_name(resource.props) or '?'}"


def _check(resources: Sequence[Resource], config: dict) -> list[tuple[str, str]]:
    return [
        (
            r.name,
            f"{_shown(r)} states no metadata.namespace and no kustomization of the run sets one: applied without `-n` "
            "it lands in the client's namespace, `default` unless chosen (no quota, limits or network policy of the "
            "model's own); set the namespace",
        )
        for r in resources
        if _judged(r)
    ]


POLICY = Policy(
    name="namespace-set",
    description="A namespaced object of a manifest states its namespace, or the run sets it (kustomization, chart).",
    catalog="G38",
    severity="low",
    enforcement="advisory",
    remediation_steps="Set metadata.namespace on every namespaced object, or a kustomization's `namespace:` over the files.",
    check_stack=_check,
    rationale=(
        "An object with no namespace is created in the client's namespace, `default` unless chosen, where quotas, "
        "LimitRanges, NetworkPolicies and RBAC are not the model's "
        "(https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces/). Catalogue row 38; Checkov "
        "CKV_K8S_21 fails a missing namespace (checkov 3.3.30 kubernetes/checks/resource/k8s/DefaultNamespace.py:36-50). "
        "Silent where a kustomization of the run including the file sets `namespace:`, for Helm templates, Pulumi "
        "resources and derived objects, and for kinds not known to be namespaced."
    ),
)
