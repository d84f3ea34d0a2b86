"""G4: an app in front of model servers that is itself published has a readinessProbe (advice).

Every request on the serving path goes through a router, gateway or API app in front of the model servers: its Service
sends it requests as soon as its container runs, before it has read its configuration or reached its backends, and
keeps sending them after it fails, since with no readinessProbe a pod is Ready once its containers run
(https://kubernetes.io/docs/concepts/configuration/liveness-readiness-startup-probes/). The apps of the tables (LiteLLM's
proxy: components/serving_apps.toml; Open WebUI: components/chat_uis.toml) are serving-readiness-probe's; this rule
reaches the ones no table names, read from the files as data:

- it points at a model server: a URL in its environment (literal, or from a ConfigMap of the files through envFrom or
  configMapKeyRef: policies/reading/container_env.py) whose host is a Service of the files that selects a model server's
  pods (any engine of the engine table, in any pod template the readers reach; a KServe InferenceService's own host);
  a variable whose URLs are compared, not dialled (CORS origins, a public URL: policies/reading/urls.py COMPARED), is
  not read;
- and it is itself published: a Service that an Ingress, a Gateway API route, an Istio VirtualService, an OpenShift or
  Traefik/Contour route publishes, or a LoadBalancer or NodePort Service, selects its pods (policies/reading/published.py).

Spent set 64: Codewithaiyan/LLMesh@a2cfe6ec k8s/router-deployment.yaml, a router whose OLLAMA_PODS names the Ollama
Service and whose own Service is a NodePort, with no probe (label G4). Silent for a container with a readinessProbe
(or another container's on its port), a model server, an app of the tables (judged by serving-readiness-probe), a
workload no published Service selects, a run-to-completion Job, and a URL that reaches no model server of the files.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from policies.framework import Policy, Resource, unproven
from policies.kube import container_label, containers, get, pod_specs, split_type
from policies.reading import route_path as path
from policies.reading.chat_ui_backends import ui_app
from policies.reading.container_env import env_values
from policies.reading.gateway_apps import app_containers
from policies.reading.pod_probes import server_ports, sidecar_probe
from policies.reading.published import published_services, publisher
from policies.reading.serving import engine_row, model_servers, namespace_of
from policies.reading.urls import COMPARED, cluster_service, urls

# Long-running workloads whose pods a Service fronts (a Job runs to completion).
_KINDS = frozenset({"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Pod"})


def _server_services(resources: list[Resource]) -> dict[tuple[str, Optional[str]], str]:
    """(Service host name, namespace) -> what it selects ("the Ollama server of Deployment/ollama")."""
    selectors = path.service_selectors(resources)
    out: dict[tuple[str, Optional[str]], str] = {}
    for r in resources:
        if not isinstance(r.props, dict) or r.template:
            continue
        servers = model_servers(r)
        if not servers:
            continue
        row = engine_row(servers[0].engine)
        what = f"the {row.display if row else servers[0].engine} server of {split_type(r.type)[1]}/{get(r.props, 'metadata', 'name')}"
        for host in path.workload_services(r, selectors):
            out.setdefault((host.lower(), namespace_of(r)), what)
    return out


def _reaches(
    env: Mapping[str, str], namespace: Optional[str], servers: Mapping[tuple[str, Optional[str]], str]
) -> Optional[tuple[str, str, str]]:
    """(variable, Service, what it selects) of the first URL of the environment that reaches a model server's Service."""
    for name, value in env.items():
        if not isinstance(value, str) or "://" not in value or COMPARED.search(name):
            continue
        for _, _, host, _ in urls(value):
            service, url_ns = cluster_service(host)
            if not service:
                continue
            want = url_ns or namespace
            for (svc, ns), what in servers.items():
                if svc == service and (want is None or ns is None or ns == want):
                    return name, service, what
    return None


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    candidates = [
        r
        for r in resources
        if split_type(r.type)[1] in _KINDS and isinstance(r.props, dict) and not r.template and not model_servers(r)
    ]
    if not candidates:
        return []
    servers = _server_services(resources)
    if not servers:
        return []
    published: Optional[list[tuple[Any, str]]] = None
    findings: list[tuple[str, str]] = []
    for r in candidates:
        tabled = {id(app.container) for app in app_containers(r)}
        for cpath, podspec in pod_specs(r):
            for container in containers(podspec):
                if isinstance(container.get("readinessProbe"), dict) or id(container) in tabled or ui_app(container):
                    continue
                reach = _reaches(env_values(container), namespace_of(r), servers)
                if reach is None:
                    continue
                if published is None:
                    published = published_services(resources)
                by = publisher(r, cpath, published)
                if by is None or sidecar_probe(podspec, container, "readinessProbe", server_ports(container, None)):
                    continue
                variable, service, what = reach
                findings.append(
                    (
                        r.name,
                        unproven(
                            f"{container_label(cpath, container)}: no readinessProbe on this app in front of model servers "
                            f"({variable} reaches Service {service}, which selects {what}), published through Service "
                            f"{get(by[0].props, 'metadata', 'name')} ({by[1]}): its Service sends it every request as soon "
                            f"as the container runs, before it has read its configuration or reached its backends, and "
                            f"after it fails; probe its health endpoint"
                        ),
                    )
                )
    return findings


def fronting(resources: list[Resource]) -> set[str]:
    """The names of the workloads this policy reports (workload-readiness-probe leaves them to it)."""
    return {name for name, _ in _check(resources, {})}


POLICY = Policy(
    name="router-readiness-probe",
    description="An app in front of model servers (its environment reaches a model server's Service) that a published "
    "Service selects has a readinessProbe (advice).",
    catalog="G4",
    severity="medium",
    enforcement="advisory",
    remediation_steps="Add a readinessProbe on the app's health endpoint (an HTTP GET the app answers once it has "
    "read its configuration and can reach its backends).",
    config_schema={},
    check_stack=_check,
    rationale=(
        "With no readinessProbe a pod is Ready once its containers run "
        "(https://kubernetes.io/docs/concepts/configuration/liveness-readiness-startup-probes/): a router or gateway "
        "on the serving path then takes every request before it can forward them, and after it fails."
    ),
)
