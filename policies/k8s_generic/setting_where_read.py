"""G107 setting-where-read: a well-known annotation or label key written on an object its controller never reads.

``prometheus.io/scrape`` on a Deployment's own metadata (Prometheus discovers pods and Services, never Deployments),
``networking.gke.io/app-protocols`` on an HTTPRoute (a map of a Service's port names), ``elbv2.k8s.aws/pod-readiness-gate-
inject`` as a Service annotation (the AWS Load Balancer Controller's webhook selects Namespaces by that label),
``karpenter.sh/do-not-disrupt`` on a Deployment instead of its pod template: the API server keeps the key and nothing
acts on it, so what the author meant (scraping, HTTP/2 to the backend, readiness gates, a pod Karpenter leaves alone)
silently does not happen. Where each key is read is data (components/setting_homes.toml, one row per key or prefix with
the controller's line at its pinned release); a key is reported only on the places its row judges, which no controller
of the key reads, and never where the same object also carries it where it is read (a kustomization's
commonAnnotations writes both). Spent sets 110 johnahull/llm-d-xks-gke (app-protocols on an HTTPRoute) and 112
askulkarni2/ray-serve-with-eks-auto (the readiness-gate label as a Service annotation).

Also an InferenceService whose own annotation puts it in KServe's Standard (RawDeployment) mode, with settings only the
Serverless (Knative) mode reads: ``containerConcurrency`` and ``canaryTrafficPercent`` of a component (read only by
kserve/kserve v0.20.0 pkg/controller/v1beta1/inferenceservice/reconcilers/knative/ksvc_reconciler.go:130-145,213) and
``autoscaling.knative.dev/*`` annotations (no reconciler of the Standard mode reads the group, pkg/constants/constants.go:35):
no concurrency limit, canary split or Knative autoscaling is applied (spent set 109 jingggg-wenn/llmops-demo). A mode
left to the cluster's default is not judged. Advisory: the object is accepted and the rest of it works.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from components.setting_homes import Home, home_of
from policies.framework import Policy, Resource
from policies.kube import KSERVE_DEPLOYMENT_MODE, as_dict, get, split_type

_WORKLOADS = {("apps", "Deployment"), ("apps", "StatefulSet"), ("apps", "DaemonSet"), ("apps", "ReplicaSet"), ("batch", "Job")}
_CRONJOB = ("batch", "CronJob")
_PLACES = {
    ("", "Pod"): "pod",
    ("", "Service"): "service",
    ("networking.k8s.io", "Ingress"): "ingress",
    ("extensions", "Ingress"): "ingress",
    ("gateway.networking.k8s.io", "HTTPRoute"): "route",
    ("gateway.networking.k8s.io", "GRPCRoute"): "route",
    ("", "Namespace"): "namespace",
}
_ISVC = ("serving.kserve.io", "InferenceService")
_STANDARD_MODES = ("Standard", "RawDeployment")
_COMPONENTS = ("predictor", "transformer", "explainer")
_KNATIVE_ONLY_FIELDS = ("containerConcurrency", "canaryTrafficPercent")
_KNATIVE_AUTOSCALING = "autoscaling.knative.dev/"
_PLACE_NAMES = {
    "pod": "a pod (a workload's spec.template.metadata)",
    "service": "a Service (the one in front of the pods)",
    "ingress": "the Ingress",
    "namespace": "the Namespace",
    "node": "a node (a NodePool's spec.template.metadata)",
    "workload": "a workload's own metadata",
    "route": "a Gateway API route",
}


class _Types(tuple):
    """The kinds this policy reads, whatever their API version (`in` tests the group and kind)."""

    def __contains__(self, item: object) -> bool:
        if not isinstance(item, str):
            return False
        kind = split_type(item)
        return kind in _PLACES or kind in _WORKLOADS or kind == _CRONJOB or kind == _ISVC

    def __bool__(self) -> bool:
        return True


def _maps(metadata: Any) -> Iterator[tuple[str, str, Mapping]]:
    """(form, metadata field path, map) of an object's annotations and labels."""
    for form, field in (("annotation", "annotations"), ("label", "labels")):
        found = get(metadata, field)
        if isinstance(found, Mapping) and found:
            yield form, f"metadata.{field}", found


def _keys(metadata: Any) -> set[str]:
    return {key for _, _, found in _maps(metadata) for key in found if isinstance(key, str)}


def _belongs(home: Home) -> str:
    if not home.read_on:
        return home.controller.partition(", on ")[2] or "where its controller reads it"
    return " or ".join(_PLACE_NAMES[place] for place in home.read_on)


def _misplaced(metadata: Any, place: str, prefix: str, elsewhere: set[str]) -> Iterator[str]:
    """One finding per row whose keys ``metadata`` (at ``place``) holds where the row judges them, or where the row reads
    them in another form (the keys of one row, such as prometheus.io/scrape, port and path, named together)."""
    wrong_form: dict[tuple[Home, str, str], list[str]] = {}
    wrong_place: dict[tuple[Home, str], list[str]] = {}
    for form, field, found in _maps(metadata):
        for key in found:
            home = home_of(key) if isinstance(key, str) else None
            if home is None:
                continue
            if place in home.read_on:
                if home.form not in (form, "either"):
                    wrong_form.setdefault((home, form, field), []).append(key)
            elif place in home.judged_on and key not in elsewhere:
                wrong_place.setdefault((home, field), []).append(key)
    for (home, form, field), keys in wrong_form.items():
        yield (
            f"{prefix}{field}[{', '.join(keys)}]: {home.controller} reads {_them(keys)} as {_article(home.form)} "
            f"{home.form}, not as {_article(form)} {form}, so {_n(keys, 'this one configures', 'these configure')} nothing; "
            f"move {_n(keys, 'it', 'them')} to "
            f"{prefix}metadata.{home.form}s ({home.source})"
        )
    for (home, field), keys in wrong_place.items():
        how = "a label" if home.form == "label" else "an annotation"
        yield (
            f"{prefix}{field}[{', '.join(keys)}]: {home.controller} reads {_them(keys)} only as {how} of "
            f"{_belongs(home)}, never on {_PLACE_NAMES[place]}, so written here "
            f"{_n(keys, 'it configures nothing and what it asks', 'they configure nothing and what they ask')} for does not "
            f"happen; move {_n(keys, 'it', 'them')} there ({home.source})"
        )


def _them(keys: list[str]) -> str:
    return keys[0] if len(keys) == 1 else "these keys"


def _n(keys: list[str], one: str, many: str) -> str:
    return one if len(keys) == 1 else many


def _article(form: str) -> str:
    return "an" if form == "annotation" else "a"


def _template_metadata(props: Mapping, kind: tuple[str, str]) -> Any:
    if kind == _CRONJOB:
        return get(props, "spec", "jobTemplate", "spec", "template", "metadata")
    return get(props, "spec", "template", "metadata")


def _template_prefix(kind: tuple[str, str]) -> str:
    return "spec.jobTemplate.spec.template." if kind == _CRONJOB else "spec.template."


def _knative_only(props: Mapping) -> Iterator[str]:
    """Settings only KServe's Serverless mode reads, on an InferenceService its annotation puts in Standard mode."""
    mode = as_dict(get(props, "metadata", "annotations")).get(KSERVE_DEPLOYMENT_MODE)
    if mode not in _STANDARD_MODES:
        return
    why = (
        f"{KSERVE_DEPLOYMENT_MODE}: {mode} makes KServe render a Deployment (with an HPA or KEDA autoscaler), and only "
        "its Serverless (Knative) reconciler reads this (kserve/kserve v0.20.0 pkg/controller/v1beta1/inferenceservice/"
        "reconcilers/knative/ksvc_reconciler.go:130-145,213; pkg/constants/constants.go:35)"
    )
    annotated = [("metadata.annotations", get(props, "metadata", "annotations"))]
    for component in _COMPONENTS:
        spec = get(props, "spec", component)
        if not isinstance(spec, Mapping):
            continue
        for field in _KNATIVE_ONLY_FIELDS:
            if spec.get(field) is not None:
                yield f"spec.{component}.{field}: {spec.get(field)} is a Knative setting that has no effect here: {why}; remove it or use Serverless mode"
        annotated.append((f"spec.{component}.annotations", spec.get("annotations")))
    for path, found in annotated:
        for key in sorted(k for k in as_dict(found) if isinstance(k, str) and k.startswith(_KNATIVE_AUTOSCALING)):
            yield f"{path}[{key}]: no Knative autoscaler runs for this InferenceService, so it has no effect: {why}; use minReplicas, maxReplicas and scaleMetric/autoScaling instead"


def _check(resource: Resource, config: dict) -> list[str]:
    props = resource.props
    kind = split_type(resource.type)
    if kind == _ISVC:
        return list(_knative_only(props))
    metadata = props.get("metadata") if isinstance(props, Mapping) else None
    if kind in _WORKLOADS or kind == _CRONJOB:
        template = _template_metadata(props, kind)
        findings = list(_misplaced(metadata, "workload", "", _keys(template)))
        findings += _misplaced(template, "pod", _template_prefix(kind), set())
        return findings
    return list(_misplaced(metadata, _PLACES[kind], "", set()))


POLICY = Policy(
    name="setting-where-read",
    description=(
        "A well-known annotation or label key (AWS Load Balancer Controller, GKE, ingress-nginx, Karpenter, Knative, "
        "Prometheus, Istio: components/setting_homes.toml) sits on an object its controller reads, not on one it never "
        "reads (a Deployment's own metadata instead of its pod template, an HTTPRoute instead of a Service); and a "
        "Standard-mode InferenceService carries no setting only KServe's Serverless mode reads."
    ),
    catalog="G107",
    severity="low",
    enforcement="advisory",
    remediation_steps=(
        "Move the key to the object the finding names (the pod template, the Service, the Namespace's labels), or "
        "remove the Knative-only setting from a Standard-mode InferenceService."
    ),
    resource_types=_Types(("kubernetes:*",)),
    check_resource=_check,
    rationale=(
        "Annotations and labels are free-form: the API server keeps any key on any object, and each controller reads "
        "its keys from the objects it watches only (the rows of components/setting_homes.toml cite the line). KServe "
        "reads containerConcurrency, canaryTrafficPercent and the Knative autoscaling annotations only when it renders "
        "a Knative Service (kserve/kserve v0.20.0 pkg/controller/v1beta1/inferenceservice/reconcilers/knative/"
        "ksvc_reconciler.go)."
    ),
)
