"""G27: a published serving container sets allowPrivilegeEscalation: false.

``allowPrivilegeEscalation`` "controls whether a process can gain more privileges than its parent process" (the
``no_new_privs`` flag); unset, it is true, and the restricted Pod Security Standard requires it false on every container
(https://kubernetes.io/docs/concepts/security/pod-security-standards/#restricted, "Privilege Escalation"). A model
server, a serving-path app (an LLM proxy or router, components/serving_apps.toml) or a chat UI (components/
chat_uis.toml: Open WebUI) that an edge publishes (an Ingress of any class, a Gateway API route, an Istio
VirtualService, an OpenShift Route, a Traefik or Contour route: policies/reading/exposure.py; or a LoadBalancer or
NodePort Service) takes requests from outside the cluster, and one that loads remote code or tools on request
(``--trust-remote-code``, tool servers) is the container an attacker lands in first: without the flag, a setuid binary
of the image lifts that foothold. Advice: a risk, not a failure (and where the image runs as root, G28's finding is the
larger one). The sealed sets showed the form: a model server or UI container with no securityContext at all behind an
ingress, which no rule read (G27 was left out).

Silent for a container that sets it false, a privileged one (G26's finding), and workloads no published Service selects.
Read for every pod template the readers reach (policies.kube.pod_specs), the Service joined by its selector in the
same namespace (an omitted namespace meets any).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_list, container_label, get, pod_specs, split_type
from policies.reading.chat_ui_backends import ui_app
from policies.reading.edge import INGRESS_TYPES, ingress_backend_ports
from policies.reading.exposure import publications
from policies.reading.gateway_apps import app_containers
from policies.reading.serving import engine_row, model_servers, namespace_of, selector_matches, template_labels

_SERVICE = ("", "Service")


def _same_namespace(a: Any, b: Any) -> bool:
    first, second = namespace_of(a), namespace_of(b)
    return first is None or second is None or first == second


def published_services(resources: list[Resource]) -> list[tuple[Resource, str]]:
    """(Service, what publishes it) for the Services an edge of the run routes to, and LoadBalancer/NodePort ones."""
    services = [r for r in resources if split_type(r.type) == _SERVICE and isinstance(r.props, dict)]
    found: list[tuple[Resource, str]] = []
    edges = [(pub.resource, pub.what, set(pub.services)) for pub in publications(resources)]
    # ALB and gce-class Ingresses, which publications() leaves to their own G32 policies, publish their backends too.
    edges += [
        (r, f"Ingress {get(r.props, 'metadata', 'name')}", {n for n, _ in ingress_backend_ports(r) if isinstance(n, str)})
        for r in resources
        if r.type in INGRESS_TYPES and isinstance(r.props, dict)
    ]
    for owner, what, names in edges:
        for service in services:
            # A mistyped name (a list, a mapping) names no Service: only a string is looked up.
            name = get(service.props, "metadata", "name")
            if isinstance(name, str) and name in names and _same_namespace(service, owner):
                found.append((service, what))
    for service in services:
        kind = get(service.props, "spec", "type")
        if kind in ("LoadBalancer", "NodePort"):
            found.append((service, f"its {kind} type"))
    return found


def _serving(resource: Resource) -> list[tuple[str, dict, str]]:
    """(pod path, container, what it is) of the workload's serving containers."""
    out: list[tuple[str, dict, str]] = []
    seen: set[int] = set()
    for server in model_servers(resource):
        if id(server.container) not in seen:
            seen.add(id(server.container))
            row = engine_row(server.engine)
            out.append((server.path, server.container, f"{row.display if row else server.engine} server"))
    for app in app_containers(resource):
        if id(app.container) not in seen:
            seen.add(id(app.container))
            out.append((app.path, app.container, app.app.display))
    for path, podspec in pod_specs(resource):
        for container in (c for c in as_list(podspec.get("containers")) if isinstance(c, dict)):
            ui = ui_app(container)
            if ui is not None and id(container) not in seen:
                seen.add(id(container))
                out.append((path, container, ui.display))
    return out


def _escalates(container: Mapping) -> bool:
    context = get(container, "securityContext")
    context = context if isinstance(context, Mapping) else {}
    return context.get("allowPrivilegeEscalation") is not False and context.get("privileged") is not True


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    published = published_services(resources)
    if not published:
        return []
    findings: list[tuple[str, str]] = []
    for resource in resources:
        if resource.type not in WORKLOAD_TYPES or not isinstance(resource.props, dict) or resource.template:
            continue
        for path, container, what in _serving(resource):
            if not _escalates(container):
                continue
            labels = template_labels(resource, path)
            by = next(
                (
                    (service, how)
                    for service, how in published
                    if _same_namespace(service, resource)
                    and isinstance(selector := get(service.props, "spec", "selector"), Mapping)
                    and selector
                    and any(selector_matches(selector, lab, plain=True) for lab in labels)
                ),
                None,
            )
            if by is None:
                continue
            service, how = by
            value = get(container, "securityContext", "allowPrivilegeEscalation")
            setting = "allowPrivilegeEscalation: true" if value is True else "no securityContext.allowPrivilegeEscalation"
            findings.append(
                (
                    resource.name,
                    unproven(
                        f"{container_label(path, container)}: {setting} on this {what}, published through Service "
                        f"{get(service.props, 'metadata', 'name')} ({how}): a process it runs may gain more privileges "
                        f"than its parent (setuid binaries of the image), so a foothold through the API becomes more; "
                        f"set securityContext.allowPrivilegeEscalation: false (the restricted Pod Security Standard)"
                    ),
                )
            )
    return findings


POLICY = Policy(
    name="serving-privilege-escalation",
    description="A model server, serving-path app or chat UI that an edge publishes (Ingress, route, LoadBalancer or "
    "NodePort Service) sets securityContext.allowPrivilegeEscalation: false (advice).",
    catalog="G27",
    severity="medium",
    enforcement="advisory",
    remediation_steps="Set `securityContext: {allowPrivilegeEscalation: false}` on the container (and drop capabilities, "
    "run as non-root where the image allows it).",
    config_schema={},
    check_stack=_check,
    rationale=(
        "allowPrivilegeEscalation defaults to true; the restricted Pod Security Standard requires it false "
        "(https://kubernetes.io/docs/concepts/security/pod-security-standards/#restricted). A published serving "
        "container is the first one a caller from outside reaches."
    ),
)
