"""What the objects of one run define, for the rules that resolve a reference against them.

A pod names other objects by name: a Service it selects or calls (G56 service-selects-pods, G63 in-cluster-url-resolves),
a Secret it reads (G60 secret-ref-resolves), a claim it mounts (G51 claim-in-run). Each such rule judges a name only
where the run clearly holds the namespace's objects of that kind, and keeps quiet where something the files do not show
may make or complete them: an operator's custom resource in the namespace, a Helm template, a Kustomize patch or base,
an unrendered value. The readings they share live here, so the rules agree on what "the run holds" means.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Optional

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


def stated_namespace(resource: Resource) -> bool:
    """True when an object's namespace is the one its file states: a literal metadata.namespace, with no kustomization of
    the run setting another (Resource.kustomize_namespace) and no renderer in between (a Helm template)."""
    namespace = get(resource.props, "metadata", "namespace")
    return (
        isinstance(namespace, str)
        and bool(namespace)
        and not templated(namespace)
        and not (resource.kustomize_namespace or resource.template)
    )


def folder_of(resource: Resource) -> Optional[str]:
    """The folder of the manifest file an object was read from (`policies check` names it "FILE#DOC... Kind/name",
    policies/manifests.py location; an object a kustomization builds, its kustomization's folder), or None for a
    stack's resource, which has no file."""
    name = resource.name if isinstance(resource.name, str) else ""
    if resource.urn or "#" not in name:
        return None
    return posixpath.dirname(name.split("#", 1)[0].replace("\\", "/"))


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


# KubeRay's Services, named from the custom resource (kuberay v1.7.0 ray-operator/controllers/ray/utils/util.go:316-351
# GenerateHeadServiceName, GenerateServeServiceName; a RayCluster gets its serve Service only with the annotation
# ray.io/enable-serve-service: "true", raycluster_controller.go:870-871): counted as defined, and these kinds are not
# read as hiding others (pass SERVICE_MAKERS as hidden_namespaces' ``spared``).
_SERVE_ANNOTATION = "ray.io/enable-serve-service"
# KServe names the Services of an InferenceService after it: ``<name>`` (the top-level host, PredictorServiceName in
# some releases), ``<name>-predictor`` / ``-transformer`` / ``-explainer``, their ``-default`` and ``-canary`` forms and
# ``-predictor-worker`` (kserve/kserve pkg/constants/constants.go, the code index's stored versions: PredictorServiceName,
# DefaultPredictorServiceName, CanaryPredictorServiceName, PredictorWorkerServiceName, and the transformer and explainer
# twins); Knative adds ``-private`` to the predictor's in Serverless mode.
_KSERVE_SERVICES = tuple(
    f"-{component}{form}"
    for component in ("predictor", "transformer", "explainer")
    for form in ("", "-default", "-canary", "-private")
)
SERVICE_MAKERS = {
    ("ray.io", "RayCluster"): ("-head-svc",),
    ("ray.io", "RayService"): ("-head-svc", "-serve-svc"),
    ("ray.io", "RayJob"): ("-head-svc",),
}
# Read only by G63 (in-cluster-url-resolves), which then judges a namespace holding InferenceServices but only advises
# there (Knative's revision Services, <name>-predictor-00001, are not named here); the route rules keep such a
# namespace hidden.
KSERVE_SERVICE_MAKERS = {("serving.kserve.io", "InferenceService"): ("", *_KSERVE_SERVICES, "-predictor-worker")}


def services_by_namespace(
    resources: list[Resource], makers: Optional[dict[tuple[str, str], tuple[str, ...]]] = None
) -> dict[str, dict[str, Optional[Resource]]]:
    """namespace -> Service name -> its one definition (None for a controller's Service, or one defined twice);
    ``makers``: the custom kinds whose Services are counted (default SERVICE_MAKERS)."""
    makers = SERVICE_MAKERS if makers is None else makers
    found: dict[str, dict[str, Optional[Resource]]] = {}
    for namespace, named in by_namespace(resources, "", "Service").items():
        for name, objects in named.items():
            found.setdefault(namespace, {})[name] = objects[0] if len(objects) == 1 else None
    for r in resources:
        suffixes = makers.get(split_type(r.type))
        owner = get(r.props, "metadata", "name") if suffixes and isinstance(r.props, dict) else None
        if isinstance(owner, str) and suffixes:
            made = [f"{owner}{suffix}" for suffix in suffixes]
            if str(get(r.props, "metadata", "annotations", _SERVE_ANNOTATION)).lower() == "true":
                made.append(f"{owner}-serve-svc")
            own = get(r.props, "spec", "headGroupSpec", "headService", "metadata", "name")
            for service in made + ([own] if isinstance(own, str) and own else []):
                found.setdefault(namespace_of(r, "default"), {}).setdefault(service, None)
    return found


def _plain(name: str) -> str:
    return re.sub(r"[-_]", "", name.lower())


def _one_edit(a: str, b: str) -> bool:
    """True when a and b differ by one inserted, removed or replaced character (and are long enough to mean it)."""
    if min(len(a), len(b)) < 5 or abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = next((k for k in range(len(a)) if a[k] != b[k]), len(a))
    return a[i + (len(a) == len(b)) :] == b[i + 1 :]


def _deleted(name: str) -> set[str]:
    """``name`` less each one of its characters."""
    return {name[:i] + name[i + 1 :] for i in range(len(name))}


def _size_rank(size: int, asked: int) -> int:
    return {asked - 1: 0, asked: 1}.get(size, 2)


_LISTED = 5  # names in one message (review 43 item 10: a namespace of thousands made each message ~44 KB)


class Names:
    """The names of one kind in one namespace, indexed once for the typo test (by plain spelling and by length) and
    for the message (sorted), so many references into a large namespace cost no more than one pass each."""

    def __init__(self, names: Iterable[str]) -> None:
        given = list(names)
        self.sorted = sorted(given)
        self.plain: dict[str, str] = {}
        # Symmetric-delete index (review 44 #6: a scan of every name of a near length made 3,000 references into a
        # namespace of 3,000 names take 42 s): each name, and each name less one character, keys the names; two names
        # one edit apart share a key, so a lookup reads len(name) + 1 keys.
        self.deletions: dict[str, list[tuple[int, str]]] = {}
        for position, n in enumerate(given):
            self.plain.setdefault(_plain(n), n)
            if len(n) >= 4:
                for key in {n, *_deleted(n)}:
                    self.deletions.setdefault(key, []).append((position, n))

    def typo_of(self, name: str) -> Optional[str]:
        """The defined name ``name`` misspells: equal but for '-', '_' and case, or one edit apart; None if none. Of
        several, the first defined among those one character shorter, then as long, then longer."""
        if _plain(name) in self.plain:
            return self.plain[_plain(name)]
        candidates = {c for key in {name, *_deleted(name)} for c in self.deletions.get(key, ())}
        near = [(_size_rank(len(n), len(name)), position, n) for position, n in candidates if _one_edit(n, name)]
        return min(near)[2] if near else None

    def listed(self) -> str:
        """The first names, sorted, and how many more."""
        more = len(self.sorted) - _LISTED
        return ", ".join(self.sorted[:_LISTED]) + (f" and {more} more" if more > 0 else "")
