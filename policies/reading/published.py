"""Which pods of a run take requests from outside the cluster, and what publishes each (catalogue row G32's notion of
"published", shared by G32 and G101 app-setting-exposure).

- A Service an edge routes to (an Ingress of any class, a Gateway API route, an Istio VirtualService, an OpenShift
  Route, a Traefik or Contour route: policies/reading/exposure.py ``publications``; ALB and gce-class Ingresses,
  which publications() leaves to their own G32 policies, through their backends), and every LoadBalancer or NodePort
  Service (``published_services``, ``publisher``). Read by G27 serving-privilege-escalation and G87 chat-ui-auth-kept
  (which name the publisher) and G4 router-readiness-probe (an app in front of model servers that is itself
  published).
- A chart release's own Service an edge of the files routes to, or a route or Ingress an app-template release renders
  from its values (exposure.py reads both; policies/helm_charts.py release_services names the Services).
- A container port on the node's own address: a ``hostPort`` (the kubelet maps it on the node,
  https://kubernetes.io/docs/concepts/configuration/overview/#services) or a pod on ``hostNetwork`` (``node_address``).

``pod_publisher`` says, for one pod template, the first of these that publishes it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from policies.helm_charts import release_services
from policies.kube import as_list, get, pod_specs, split_type
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


def node_address(podspec: Mapping, container: Mapping) -> Optional[tuple[str, Any]]:
    """How a container's port is published on its node's own address: ("hostPort", the host port) or ("hostNetwork",
    its first container port), or None. A container that declares no port on hostNetwork (a multi-node engine's
    worker) serves no API there."""
    declared = [p for p in as_list(container.get("ports")) if isinstance(p, Mapping) and p.get("containerPort")]
    if podspec.get("hostNetwork") is True and declared:
        return "hostNetwork", declared[0].get("containerPort")
    mapped = [p for p in declared if p.get("hostPort")]
    return ("hostPort", mapped[0].get("hostPort")) if mapped else None


def node_phrase(found: tuple[str, Any]) -> str:
    """A node_address result as messages write it."""
    how, port = found
    return f"ports hostPort {port}" if how == "hostPort" else f"hostNetwork: true (port {port})"


def pod_publisher(resource: Any, path: str, resources: list[Any], cache: dict) -> Optional[str]:
    """What publishes the pods of the template at ``path`` of ``resource`` (module docstring), or None; ``cache`` keeps
    the run's publications between calls."""
    if "published" not in cache:
        cache["published"] = published_services(resources)
        cache["edges"] = [(pub.resource, pub.what, set(pub.services)) for pub in publications(resources)]
    by = publisher(resource, path, cache["published"])
    if by is not None:
        return f"Service {get(by[0].props, 'metadata', 'name')}, {by[1]}"
    rendered = (
        {name for name, pod in release_services(resource.props).items() if pod == path}
        if isinstance(resource.props, dict)
        else set()
    )
    for owner, what, names in cache["edges"]:
        if rendered & names and (owner is resource or same_namespace(owner, resource)):
            return what
    for podspec_path, podspec in pod_specs(resource):
        if podspec_path == path:
            for container in as_list(podspec.get("containers")):
                if isinstance(container, Mapping) and (where := node_address(podspec, container)):
                    return f"container {container.get('name')}: {node_phrase(where)} on its node's address"
    return None
