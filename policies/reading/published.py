"""Which Services of a run take requests from outside the cluster, and what publishes each: a Service an edge routes to
(an Ingress of any class, a Gateway API route, an Istio VirtualService, an OpenShift Route, a Traefik or Contour route:
policies/reading/exposure.py ``publications``; ALB and gce-class Ingresses, which publications() leaves to their own
G32 policies, through their backends), and every LoadBalancer or NodePort Service. Read by G27
serving-privilege-escalation and G87 chat-ui-auth-kept (which name the publisher) and G4 router-readiness-probe (an
app in front of model servers that is itself published)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from policies.kube import get, split_type
from policies.reading.edge import INGRESS_TYPES, ingress_backend_ports
from policies.reading.exposure import publications
from policies.reading.serving import namespace_of, selector_matches, template_labels

_SERVICE = ("", "Service")


def same_namespace(a: Any, b: Any) -> bool:
    """Two objects of one namespace, an omitted namespace meeting any (the client's default, unknown here)."""
    first, second = namespace_of(a), namespace_of(b)
    return first is None or second is None or first == second


def published_services(resources: list[Any]) -> list[tuple[Any, str]]:
    """(Service, what publishes it) for the Services an edge of the run routes to, and LoadBalancer/NodePort ones."""
    services = [r for r in resources if split_type(r.type) == _SERVICE and isinstance(r.props, dict)]
    if not services:
        return []
    found: list[tuple[Any, str]] = []
    edges = [(pub.resource, pub.what, set(pub.services)) for pub in publications(resources)]
    edges += [
        (r, f"Ingress {get(r.props, 'metadata', 'name')}", {n for n, _ in ingress_backend_ports(r) if isinstance(n, str)})
        for r in resources
        if r.type in INGRESS_TYPES and isinstance(r.props, dict)
    ]
    for owner, what, names in edges:
        for service in services:
            # A mistyped name (a list, a mapping) names no Service: only a string is looked up.
            name = get(service.props, "metadata", "name")
            if isinstance(name, str) and name in names and same_namespace(service, owner):
                found.append((service, what))
    for service in services:
        kind = get(service.props, "spec", "type")
        if kind in ("LoadBalancer", "NodePort"):
            found.append((service, f"its {kind} type"))
    return found


def publisher(resource: Any, path: str, published: list[tuple[Any, str]]) -> Optional[tuple[Any, str]]:
    """The first published Service (and what publishes it) that selects the pods of the template at ``path``."""
    labels = template_labels(resource, path)
    return next(
        (
            (service, how)
            for service, how in published
            if same_namespace(service, resource)
            and isinstance(selector := get(service.props, "spec", "selector"), Mapping)
            and selector
            and any(selector_matches(selector, lab, plain=True) for lab in labels)
        ),
        None,
    )
