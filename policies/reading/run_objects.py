"""What the objects of one run define, for the rules that resolve a reference against them.

A pod names other objects by name: a Service it selects or calls (G56 service-selects-pods, G63 in-cluster-url-resolves),
a Secret it reads (G60 secret-ref-resolves), a claim it mounts (G51 claim-in-run). Each such rule judges a name only
where the run clearly holds the namespace's objects of that kind, and keeps quiet where something the files do not show
may make or complete them: an operator's custom resource in the namespace, a Helm template, a Kustomize patch or base,
an unrendered value. The readings they share live here, so the rules agree on what "the run holds" means.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from policies.framework import UNKNOWN, Resource
from policies.kube import as_dict, get, metadata_name, split_type
from policies.reading.serving import namespace_of

# Marks of a name left for a renderer (Helm, envsubst, Kustomize vars, a README's <placeholder>).
TEMPLATED = ("{", "$", "<", "%")

# Kinds whose pod labels the files show (spec.template, a CronJob's job template, a Pod's own labels).
_TEMPLATE_KINDS = {
    ("apps", "Deployment"),
    ("apps", "StatefulSet"),
    ("apps", "DaemonSet"),
    ("apps", "ReplicaSet"),
    ("batch", "Job"),
    ("argoproj.io", "Rollout"),
}
_OWN_LABELS = {("", "Pod")}
_CRON = ("batch", "CronJob")
# Kinds that make no pods and add no labels to any: they never stand for an operator that could.
_INERT_GROUPS = {
    "",
    "apps",
    "batch",
    "autoscaling",
    "policy",
    "networking.k8s.io",
    "rbac.authorization.k8s.io",
    "storage.k8s.io",
    "scheduling.k8s.io",
    "monitoring.coreos.com",
    "gateway.networking.k8s.io",
    "cert-manager.io",
    "keda.sh",
    "cloud.google.com",
    "networking.gke.io",
    "elbv2.k8s.aws",
    "traefik.io",
    "traefik.containo.us",
    "networking.istio.io",
    "security.istio.io",
}


def templated(name: str) -> bool:
    """True for a name that holds a renderer's mark (``{{ .Values.x }}``, ``$NAME``, ``<name>``)."""
    return any(mark in name for mark in TEMPLATED)


def pod_label_sets(resource: Resource) -> Iterator[Mapping]:
    """The label sets of the pods a workload makes (none for other kinds)."""
    kind = split_type(resource.type)
    spec = as_dict(get(resource.props, "spec"))
    if kind in _TEMPLATE_KINDS:
        yield as_dict(get(spec, "template", "metadata", "labels"))
    elif kind == _CRON:
        yield as_dict(get(spec, "jobTemplate", "spec", "template", "metadata", "labels"))
    elif kind in _OWN_LABELS:
        yield as_dict(get(resource.props, "metadata", "labels"))


def unrendered(value: Any) -> bool:
    """True for a value the engine did not know or a template left unrendered."""
    return value is UNKNOWN or (isinstance(value, str) and ("{{" in value or "${" in value))


def hides_pods(resource: Resource) -> bool:
    """True for an object that may make or label pods (and the Services, Secrets and claims beside them) the files do
    not show: an operator's custom resource, a Helm template, a Kustomize patch or base, or a workload whose pod labels
    are not all literal."""
    group, _ = split_type(resource.type)
    if resource.template or resource.patch or resource.base:
        return True
    if group not in _INERT_GROUPS:
        return True
    return any(unrendered(k) or unrendered(v) for labels in pod_label_sets(resource) for k, v in labels.items())


def hidden_namespaces(resources: list[Resource], spared: tuple[tuple[str, str], ...] = ()) -> set[str]:
    """The namespaces holding an object that hides_pods (a Namespace object itself never does), except the kinds
    ``spared`` (API group, kind) whose controller's objects the caller derives itself."""
    return {
        namespace_of(r, "default")
        for r in resources
        if get(r.props, "kind") != "Namespace" and split_type(r.type) not in spared and hides_pods(r)
    }


def by_namespace(resources: list[Resource], group: str, kind: str) -> dict[str, dict[str, list[Resource]]]:
    """namespace -> name -> the objects of one kind the run defines under that name (literal names only)."""
    found: dict[str, dict[str, list[Resource]]] = {}
    for r in resources:
        if split_type(r.type) != (group, kind) or not isinstance(r.props, dict):
            continue
        name = metadata_name(r.props)
        if isinstance(name, str) and name and not templated(name):
            found.setdefault(namespace_of(r, "default"), {}).setdefault(name, []).append(r)
    return found


def binds(pv: Mapping, claim: Mapping) -> bool:
    """True when the files bind the claim to this PersistentVolume: the claim's spec.volumeName names it, or (with no
    volumeName) the PV's spec.claimRef names the claim, in its namespace or none
    (https://kubernetes.io/docs/concepts/storage/persistent-volumes/#reserving-a-persistentvolume)."""
    if get(claim, "spec", "volumeName") is not None:
        return get(claim, "spec", "volumeName") == metadata_name(pv)
    ref = as_dict(get(pv, "spec", "claimRef"))
    ref_ns = ref.get("namespace")
    return ref.get("name") == metadata_name(claim) and ref_ns in (None, get(claim, "metadata", "namespace"))
