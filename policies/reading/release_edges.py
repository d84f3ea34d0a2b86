"""G32 on a chart release: the Ingress or LoadBalancer/NodePort Service a release of a known chart renders in front of
its own pod (policies/helm_charts.py chart_edges, the values keys in components/helm_charts.toml ``edge``), judged by
what runs in the pod:

- a model server that asks callers for no key (policies/reading/model_backends.py server_has_key: Ollama has none)
  published with no TLS or with nothing authenticating callers (an auth annotation of the Ingress, read as
  policies/reading/exposure.py reads an Ingress's): anyone who reaches it runs, pulls and deletes models (spent set 98
  gelato/homecluster kubernetes/apps/ai/ollama/backend/helmrelease.yaml, otwld ollama chart 1.4.0 with ingress.enabled
  and no tls, labelled G32); a keyed one with no TLS: its key crosses in clear text;
- a chat UI run from its publisher's image (components/chat_uis.toml) whose login is on: an Ingress with no TLS, or a
  LoadBalancer/NodePort Service (plain HTTP on the chart's port), carries its passwords, session tokens and chats in
  clear text (spent set 91 devantler/oci-artifacts k8s/open-webui/release.yaml, ingress.enabled by a Flux substitution
  default and the chart's ingress.tls false; nachtschatt3n/cberg-home-nextgen kubernetes/apps/ai/open-webui/app/
  helmrelease.yaml, service.type LoadBalancer beside a TLS Ingress; both labelled G32); with its login turned off,
  with nothing authenticating.

Advice only: the values are not the rendered objects, and how far an ingress class or load-balancer address reaches is
not in the files. An Ingress of a class whose name says internal or private in front of a chat UI with its login on is
left alone.
"""

from __future__ import annotations

from typing import Any

from policies.framework import unproven
from policies.helm_charts import RELEASE_GROUP_KINDS, ChartEdge, chart_edges
from policies.kube import as_dict, as_list, split_type
from policies.reading import exposure
from policies.reading.chat_ui_backends import ui_app
from policies.reading.model_backends import server_has_key
from policies.reading.serving import model_servers


def _login_off(container: dict, app: Any) -> str | None:
    """The value that turns the app's login off, where the container's env sets one literally (else None)."""
    switch = str(app.auth_fact("switch") or "")
    for item in as_list(container.get("env")):
        if as_dict(item).get("name") == switch and isinstance(as_dict(item).get("value"), (str, bool)):
            value = str(as_dict(item)["value"])
            return value if value.strip().lower() != str(app.auth_fact("switch_on", "true")) else None
    return None


def _where(edge: ChartEdge) -> str:
    if edge.kind == "Ingress":
        klass = f" of class {edge.ingress_class}" if edge.ingress_class else ""
        return f"the chart renders an Ingress{klass}"
    reach = "through its own load balancer" if edge.kind == "LoadBalancer" else "on every node address"
    return f"the chart's Service is {edge.kind}, published {reach}"


def _server_finding(edge: ChartEdge, engine: str, keyed: bool, guard: str | None) -> str | None:
    missing = []
    if not edge.tls:
        missing.append("no TLS")
    if guard is None and not keyed:
        missing.append("nothing authenticating callers")
    if not missing or (keyed and edge.kind != "Ingress"):
        return None
    what = "asks for an API key that then crosses the network in clear text" if keyed else "asks callers for no key"
    ollama = " (Ollama's API also pulls and deletes models)" if engine == "ollama" and not keyed else ""
    return unproven(
        f"{edge.path}: {_where(edge)} in front of the {engine} server, which {what}{ollama}, with "
        f"{' and '.join(missing)}: whoever reaches it uses the model; set the chart's ingress TLS and an auth "
        f"annotation (auth-url, a forwardAuth middleware, an oauth2-proxy), or keep it ClusterIP behind an "
        f"authenticating gateway (advice: the release's values, not the rendered objects)"
    )


def _ui_finding(edge: ChartEdge, app: Any, off: str | None, guard: str | None) -> str | None:
    if edge.kind == "Ingress" and edge.tls and (off is None or guard is not None):
        return None
    if edge.kind == "Ingress" and off is None and exposure.internal_class_name(edge.ingress_class):
        return None
    if off is not None and guard is None:
        return unproven(
            f"{edge.path}: {_where(edge)} in front of {app.display}, whose login is off "
            f"({app.auth_fact('switch')}={off!r}), with nothing authenticating callers"
            f"{' and no TLS' if not edge.tls else ''}: whoever reaches it uses every model behind it; turn the login on "
            f"or add auth at the edge (advice: the release's values, not the rendered objects)"
        )
    plain = "serves it on plain HTTP" if edge.kind != "Ingress" else "has no TLS (ingress tls not set)"
    return unproven(
        f"{edge.path}: {_where(edge)} in front of {app.display} and {plain}: its login passwords, session tokens and "
        f"chats cross the network in clear text; set the chart's ingress TLS"
        f"{' and keep the Service ClusterIP behind it' if edge.kind != 'Ingress' else ''} (advice: the release's "
        f"values, not the rendered objects)"
    )


def release_edge_findings(resources: list) -> list[tuple[str, str]]:
    """(resource name, advice) for each chart release publishing its pod as the module docstring says."""
    found: list[tuple[str, str]] = []
    for r in resources:
        if split_type(r.type) not in RELEASE_GROUP_KINDS or not isinstance(r.props, dict):
            continue
        edges = chart_edges(r.props)
        if not edges:
            continue
        servers = model_servers(r)
        for edge in edges:
            guard = exposure.annotation_guard(edge.annotations, resources) if edge.kind == "Ingress" else None
            served = [s for s in servers if s.path == edge.pod_path]
            message = None
            if served:
                message = _server_finding(edge, served[0].engine, server_has_key(served[0].container), guard)
            else:
                container = next(iter(as_list(edge.pod.get("containers"))), None)
                app = ui_app(container) if isinstance(container, dict) else None
                if app is not None and isinstance(container, dict):
                    message = _ui_finding(edge, app, _login_off(container, app), guard)
            if message:
                found.append((r.name, message))
    return found
