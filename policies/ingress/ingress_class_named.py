"""G85 ingress-class-named: an Ingress names the class its annotations are written for.

An Ingress whose annotations are one controller's (``nginx.ingress.kubernetes.io/*`` for ingress-nginx,
``alb.ingress.kubernetes.io/*`` for the AWS Load Balancer Controller) but that sets neither ``spec.ingressClassName``
nor the ``kubernetes.io/ingress.class`` annotation is served by that controller only by a setting outside the object:

- ingress-nginx v1.x takes an Ingress by its ingressClassName, then by the class annotation, then only when
  ``--watch-ingress-without-class`` is set (off by default); otherwise "ingress does not contain a valid IngressClass"
  (kubernetes/ingress-nginx controller-v1.15.1 internal/ingress/controller/store/store.go:1066-1089 GetIngressClass;
  pkg/flags/flags.go:77 the flag, default false; chart value controller.watchIngressWithoutClass, default false,
  charts/ingress-nginx/values.yaml:89).
- The AWS Load Balancer Controller matches an Ingress with neither by ``manageIngressesWithoutIngressClass`` alone
  (kubernetes-sigs/aws-load-balancer-controller pkg/ingress/group_loader.go@b4b9da68ff92d834f8027880b5b5e643c4ecd56d,
  matchesIngressClass).

The API server's DefaultIngressClass admission fills ingressClassName in at creation when an IngressClass is marked
``ingressclass.kubernetes.io/is-default-class: "true"``
(https://kubernetes.io/docs/concepts/services-networking/ingress/#default-ingress-class), so the rule is silent when the
run defines a default IngressClass for that controller (or one whose controller it cannot read), when a container of
the run starts ingress-nginx with ``--watch-ingress-without-class`` (not ``=false``), and when a chart release of the
run sets ``watchIngressWithoutClass``. Advice: the cluster may have such a default class or flag outside the files, and
then the route works; without, the controller never serves it and requests to the host get the cluster's default
backend or no answer (spent set 63: a Streamlit Ingress with ingress-nginx annotations and no class).

Traefik is not judged: its Kubernetes Ingress provider takes Ingresses with no class by default.
"""

from __future__ import annotations

from collections.abc import Mapping

from policies.framework import Policy, Resource
from policies.kube import as_dict, as_list, containers, get, pod_specs, split_type

_INGRESS_GROUPS = ("networking.k8s.io", "extensions")
_CLASS_ANNOTATION = "kubernetes.io/ingress.class"
_DEFAULT_CLASS = "ingressclass.kubernetes.io/is-default-class"
# Annotation prefix -> (controller display name, IngressClass spec.controller values of that controller).
_CONTROLLERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "nginx.ingress.kubernetes.io/": ("ingress-nginx", ("k8s.io/ingress-nginx",)),
    "alb.ingress.kubernetes.io/": ("the AWS Load Balancer Controller", ("ingress.k8s.aws/alb", "eks.amazonaws.com/alb")),
}
_WATCH_FLAG = "--watch-ingress-without-class"
_RELEASE_KINDS = frozenset({"HelmRelease", "HelmChart", "Application", "HelmChartConfig"})


def _default_controllers(resources: list[Resource]) -> set[str]:
    """spec.controller of every IngressClass of the run marked default ("?" where the controller is unreadable)."""
    found: set[str] = set()
    for r in resources:
        if split_type(r.type)[1] != "IngressClass" or not isinstance(r.props, dict):
            continue
        mark = as_dict(get(r.props, "metadata", "annotations")).get(_DEFAULT_CLASS)
        if str(mark).strip().lower() != "true":
            continue
        controller = get(r.props, "spec", "controller")
        found.add(controller if isinstance(controller, str) and controller else "?")
    return found


def _watches_without_class(resources: list[Resource]) -> bool:
    """True when a container of the run passes --watch-ingress-without-class (not =false), or a chart release of the run
    sets watchIngressWithoutClass."""
    for r in resources:
        if not isinstance(r.props, dict):
            continue
        kind = split_type(r.type)[1]
        if kind in _RELEASE_KINDS and "watchIngressWithoutClass" in str(r.props.get("spec")):
            return True
        for _, spec in pod_specs(r):
            for container in containers(spec):
                for token in as_list(container.get("args")) + as_list(container.get("command")):
                    text = str(token)
                    if text.startswith(_WATCH_FLAG) and text.split("=", 1)[-1].strip().lower() not in ("false", "0"):
                        return True
    return False


def _controller(annotations: Mapping) -> tuple[str, tuple[str, ...], str] | None:
    """The controller whose annotations the Ingress carries: (display, IngressClass controllers, one annotation)."""
    for key in annotations:
        for prefix, (display, names) in _CONTROLLERS.items():
            if isinstance(key, str) and key.startswith(prefix):
                return display, names, key
    return None


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    candidates: list[tuple[Resource, tuple[str, tuple[str, ...], str]]] = []
    for r in resources:
        group, kind = split_type(r.type)
        if kind != "Ingress" or group not in _INGRESS_GROUPS or not isinstance(r.props, dict) or r.patch:
            continue
        annotations = as_dict(get(r.props, "metadata", "annotations"))
        if _CLASS_ANNOTATION in annotations or get(r.props, "spec", "ingressClassName") not in (None, ""):
            continue
        found = _controller(annotations)
        if found is not None:
            candidates.append((r, found))
    if not candidates:
        return []
    defaults = _default_controllers(resources)
    watching = _watches_without_class(resources)
    findings: list[tuple[str, str]] = []
    for ingress, (display, names, key) in candidates:
        if "?" in defaults or defaults & set(names) or (watching and display == "ingress-nginx"):
            continue
        flag = (
            " or start the controller with --watch-ingress-without-class (chart value controller.watchIngressWithoutClass)"
            if display == "ingress-nginx"
            else ""
        )
        findings.append(
            (
                ingress.name,
                f"carries {display} annotations ({key}) but sets no spec.ingressClassName nor kubernetes.io/ingress.class "
                f"annotation, and the files define no default IngressClass for {display}: {display} serves an Ingress "
                f"without a class only when its IngressClass is the cluster default or it is told to watch classless "
                f"Ingresses, so the route may never be served (requests to it get the default backend or no answer); "
                f"set spec.ingressClassName to {display}'s IngressClass (ingress-nginx: nginx; ALB: alb){flag}",
            )
        )
    return findings


POLICY = Policy(
    name="ingress-class-named",
    description=(
        "An Ingress with one controller's annotations (ingress-nginx, AWS Load Balancer Controller) names its class "
        "(spec.ingressClassName or kubernetes.io/ingress.class) unless the run makes that controller's class the "
        "default (advice)."
    ),
    rationale=(
        "ingress-nginx v1.x serves an Ingress with no class only with --watch-ingress-without-class or a default "
        "IngressClass (kubernetes/ingress-nginx controller-v1.15.1 internal/ingress/controller/store/store.go:1066-1089); "
        "the AWS Load Balancer Controller likewise (pkg/ingress/group_loader.go matchesIngressClass)."
    ),
    catalog="G85",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Set `spec.ingressClassName: nginx` (or the controller's IngressClass name) on the Ingress, or mark the "
        'controller\'s IngressClass `ingressclass.kubernetes.io/is-default-class: "true"`.'
    ),
    config_schema={},
    check_stack=_check,
)
