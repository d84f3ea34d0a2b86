"""G32: no Service of type LoadBalancer, nor a KubeRay head made one (and a NodePort one is advice).

Each LoadBalancer Service gets its own cloud load balancer, usually internet-facing, with its
own idle timeout that the serving timeout chain does not know about: streamed generations are cut
at its default (60 s on AWS), and the model is exposed past the gateway's auth and rate limits.

A NodePort Service opens its port on every node's address (https://kubernetes.io/docs/concepts/services-networking/
service/#type-nodeport). In front of a model server that asks for no API key (policies/reading/model_backends.py
key_states: no ``--api-key``/``VLLM_API_KEY``; Ollama has none at all) it publishes the whole unauthenticated API,
Ollama's pull, delete and generate included, on each of them (set 20: alaasalmo/ollama-kubernetes
ollama/ollama-deployment.yaml, NodePort 30134): the message says so. Advice, as for any NodePort: whether node addresses
are reachable from outside is the node network's, which the manifest does not show.
"""

from __future__ import annotations

import re

from policies.app_template import app_template_services
from policies.framework import Policy, Resource, unproven
from policies.helm_charts import chart_workloads
from policies.kube import annotations_of, as_dict, as_list, container_label, containers, get, pod_specs, split_type
from policies.reading import gateway_service, model_backends
from policies.reading.chat_ui_backends import ui_app
from policies.reading.engines import env_values
from policies.reading.exposure import internal_annotations
from policies.reading.gateway_apps import app_containers
from policies.reading.published import node_address, node_phrase
from policies.reading.serving import model_servers

SERVICE_TYPE = "kubernetes:core/v1:Service"


def _service_finding(resource: Resource, selects: dict[str, list[str]], llm: set[str], keys: dict[str, bool | None]) -> list[str]:
    kind = get(resource.props, "spec", "type")
    if kind not in ("NodePort", "LoadBalancer"):
        return []
    name = str(get(resource.props, "metadata", "name") or "")
    if kind == "NodePort":
        # A NodePort opens the port on every node's address (https://kubernetes.io/docs/concepts/services-networking/
        # service/#type-nodeport), past the gateway's auth; whether those addresses are reachable from outside depends
        # on the node network, which the manifest does not show: advice.
        if name in llm and keys.get(name) is False:
            port = next(
                (
                    str(p.get("nodePort"))
                    for p in as_list(get(resource.props, "spec", "ports"))
                    if isinstance(p, dict) and p.get("nodePort")
                ),
                "",
            )
            return [
                unproven(
                    f"spec.type: NodePort{f' {port}' if port else ''} publishes the model server's API, which asks "
                    "for no API key (no --api-key or key variable; Ollama has none), on every node's address: anyone "
                    "who reaches a node can call it (Ollama's API also pulls and deletes models); use ClusterIP behind an "
                    "authenticating gateway, or set the server's API key"
                )
            ]
        return [
            unproven(
                "spec.type: NodePort opens the model's port on every node's address, past the ingress gateway's auth, "
                "timeouts and rate limits; use ClusterIP behind the gateway path"
            )
        ]
    message = (
        "spec.type: LoadBalancer provisions a separate cloud load balancer that bypasses the ingress gateway's "
        "timeouts, auth and rate limits; use ClusterIP behind the ALB/gateway path"
    )
    # An internal load balancer is not exposed past anything; that it sits beside the gateway path is advice. So is a
    # Service the set shows in front of workloads none of which serves a model (a UI, Grafana), or one named as such.
    not_a_model = name not in llm and (bool(selects.get(name)) or model_backends.not_a_model_name(name))
    if not_a_model:
        return [unproven(message + f" (it selects no model server: {', '.join(selects.get(name, [])) or name})")]
    # A source allow-list on the load balancer itself (spec.loadBalancerSourceRanges, kubernetes/api core/v1
    # ServiceSpec) no wider than the ALB rule's bound (components/aws_ids.py sources_too_wide, the bound G32 applies to
    # an ingress-nginx allow-list) admits only those callers: advice, as for an internal one.
    ranges = gateway_service.narrow_source_ranges(resource.props)
    if ranges:
        return [unproven(message + f" (its loadBalancerSourceRanges {', '.join(ranges)} admit only those sources)")]
    return [unproven(message) if internal_annotations(annotations_of(resource.props)) else message]


def _ray_finding(resource: Resource) -> list[str]:
    """KubeRay makes the head Service (and a RayService's Serve Service) of headGroupSpec.serviceType (kuberay v1.7.0
    ray-operator/controllers/ray/common/service.go:69 head, :209-212 serve; raycluster_types.go:400-402), with
    spec.headServiceAnnotations on the head Service (raycluster_types.go:39). The head Service carries the dashboard
    (8265), whose Jobs API runs any code it is sent, the client port (10001) and the GCS (6379)."""
    spec = as_dict(get(resource.props, "spec"))
    cluster = as_dict(spec.get("rayClusterConfig") or spec.get("rayClusterSpec") or spec)
    found = _embedded_services(spec, cluster)
    kind = get(cluster, "headGroupSpec", "serviceType")
    if kind not in ("LoadBalancer", "NodePort"):
        return found
    message = (
        f"headGroupSpec.serviceType: {kind} makes KubeRay's head Service (dashboard 8265, whose Jobs API runs any code "
        f"it is sent; client 10001; GCS 6379) and the Serve Service reachable past the ingress gateway's auth, "
        f"timeouts and rate limits; leave it ClusterIP and route the serve port through the gateway"
    )
    internal = internal_annotations(as_dict(cluster.get("headServiceAnnotations")))
    return found + [message if kind == "LoadBalancer" and not internal else unproven(message)]


def _embedded_services(spec: dict, cluster: dict) -> list[str]:
    """Findings on the Services a KubeRay resource writes out in full: a RayService's spec.serveService and a head group's
    headService (kuberay v1.7.0 ray-operator/apis/ray/v1 rayservice_types.go RayServiceSpec.ServeService, raycluster_types.go
    HeadGroupSpec.HeadService: *corev1.Service, which KubeRay creates with its own type and annotations)."""
    found: list[str] = []
    for field, service in (
        ("spec.serveService", as_dict(spec.get("serveService"))),
        ("headGroupSpec.headService", as_dict(get(cluster, "headGroupSpec", "headService"))),
    ):
        kind = get(service, "spec", "type")
        if kind not in ("LoadBalancer", "NodePort"):
            continue
        message = (
            f"{field}.spec.type: {kind} makes KubeRay create that Service {'as a separate cloud load balancer' if kind == 'LoadBalancer' else 'on every node address'}, "
            f"reachable past the ingress gateway's auth, timeouts and rate limits; make it ClusterIP and route the serve "
            f"port through the gateway"
        )
        internal = internal_annotations(annotations_of(service))
        found.append(message if kind == "LoadBalancer" and not internal else unproven(message))
    return found


def _unkeyed(container: dict) -> bool:
    """True when the model server proves it asks for no API key: no key flag or variable (a ConfigMap's included),
    and no envFrom Secret that might hold one."""
    if model_backends.server_has_key(container) or model_backends.env_from_secrets(container):
        return False
    env = env_values(container)
    return not any(env.get(name, "").strip() for name in model_backends.SERVER_KEY_ENV)


def _node_published(resource: Resource) -> list[str]:
    """Advice on a model server that asks for no API key and is published on its node's own address: a container port
    with hostPort (the kubelet maps it on the node, https://kubernetes.io/docs/concepts/configuration/overview/#services)
    or a pod on hostNetwork (its ports are the node's). Fresh set 47: zeldafan3421/romm-assist
    k8s/llamacpp-deployment.yaml (llama.cpp server, hostPort 8080, LLAMA_API_KEY left commented out; G32 advisory)."""
    found: list[str] = []
    for server in model_servers(resource):
        if not _unkeyed(server.container):
            continue
        found_at = node_address(server.podspec, server.container)
        if found_at is None:
            continue
        if found_at[0] == "hostNetwork":
            where = f"hostNetwork: true puts its port {found_at[1]} on the node's own address"
        else:
            where = f"ports hostPort {found_at[1]} publishes it on the node's address"
        found.append(
            unproven(
                f"{server.label}: {where}, and this {server.engine} server asks for no API key (no key flag or "
                f"variable): anyone who reaches the node can call it, past any gateway's auth; set the server's API "
                f"key, or serve it through a ClusterIP Service behind an authenticating gateway"
            )
        )
    return found


def _router_on_node(resource: Resource) -> list[str]:
    """Advice on an LLM router or gateway app (components/serving_apps.toml: LiteLLM's proxy, vLLM's router...)
    published on its node's own address by hostPort or hostNetwork: it takes calls there past the edge's TLS and auth,
    so a key it asks for (LITELLM_MASTER_KEY) crosses the node network in clear text, and without one anyone who
    reaches the node drives every model behind it (spent set 110 pocharlies-org/k8s-litellm-pocharlies
    k8s/manifest.yaml: LiteLLM with hostPort 4000 beside TLS IngressRoutes, labelled G32). A router serving TLS itself
    (an ssl key or certificate flag) is left alone."""
    found: list[str] = []
    for app in app_containers(resource):
        found_at = node_address(app.podspec, app.container)
        argv = " ".join(str(a) for a in [*as_list(app.container.get("command")), *as_list(app.container.get("args"))])
        if found_at is None or _SERVES_TLS.search(argv):
            continue
        if model_backends.router_keyed(app.container):
            risk = "the key it asks callers for crosses the node network in clear text (plain HTTP)"
        else:
            risk = "it asks callers for no key, so anyone who reaches the node drives every model behind it"
        found.append(
            unproven(
                f"{container_label(app.path, app.container)}: {node_phrase(found_at)} publishes the {app.app.display} on the node's "
                f"own address, past the edge's TLS and auth: {risk}; drop the hostPort and reach it through its Service "
                f"and the authenticating edge"
            )
        )
    return found


_SERVES_TLS = re.compile(r"--ssl[-_](keyfile|certfile)|--tls[-_](cert|key)")


def _front_app(resource: Resource, pod: str) -> str | None:
    """What stands in front of the models in a release's pod at ``pod``, for a Service the release publishes: an LLM
    router or gateway app (components/serving_apps.toml: LiteLLM, which holds the providers' keys) or a chat UI
    (components/chat_uis.toml: Open WebUI) run from its publisher's image; None for anything else (session 55, spent
    set 117 chaijunkin/home-ops kubernetes/apps/ai/open-webui/app/helmrelease.yaml: app-template ``service.app.type
    LoadBalancer`` in front of Open WebUI, labelled G32 advisory)."""
    app = next((a for a in app_containers(resource) if a.path == pod), None)
    if app is not None:
        return f"the {app.app.display} (an LLM router in front of the models, holding their keys)"
    for path, podspec in pod_specs(resource):
        if path == pod:
            ui = next((u for c in containers(podspec) if (u := ui_app(c)) is not None), None)
            if ui is not None:
                return f"{ui.display} (a chat UI in front of the models, holding its users' logins and chats)"
    return None


def _release_services(resource: Resource) -> list[str]:
    """Advice on a LoadBalancer or NodePort Service a chart release renders in front of a model server of its own values
    (policies/app_template.py, policies/chart_workloads.py; spent set 85 rafaribe/home-ops kubernetes/apps/ai/ollama/app/
    helmrelease.yaml, Ollama behind service.app.type LoadBalancer; spent set 98 amasolov/home-ops local-ai), or in front
    of the router a chart puts before its servers (vllm-stack ``routerSpec.serviceType``)."""
    found: list[str] = []
    servers = model_servers(resource)
    rendered = [
        (f"{where}.{'serviceType' if w.fronts else 'service.type'}", where, w.service, w.fronts)
        for where, w in chart_workloads(resource.props)
        if w.service
    ]
    templated = [(f"{path}.type", pod, kind, "") for path, pod, kind in app_template_services(resource.props)]
    for path, pod, kind, fronts in [*templated, *rendered]:
        if kind not in ("LoadBalancer", "NodePort"):
            continue
        served = [s for s in servers if s.path == pod]
        if fronts:
            what = f"the router in front of {fronts}"
        elif served:
            unkeyed = (
                " that asks for no API key (no key flag or variable; Ollama has none)" if _unkeyed(served[0].container) else ""
            )
            what = f"the {served[0].engine} server{unkeyed}"
        elif (front := _front_app(resource, pod)) is not None:
            what = front
        else:
            continue
        found.append(
            unproven(
                f"{path}: {kind} makes the chart publish {what} "
                f"{'through its own cloud load balancer' if kind == 'LoadBalancer' else 'on every node address'}, past "
                f"the ingress gateway's auth, timeouts and rate limits; make it ClusterIP and route it through the gateway "
                f"(advice: the release's values, not the rendered Service)"
            )
        )
    return found


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    llm = model_backends.model_services(resources)
    selects = model_backends.selected_services(resources)
    keys = model_backends.key_states(resources)
    findings = []
    for r in resources:
        if r.type == SERVICE_TYPE:
            findings += [(r.name, m) for m in _service_finding(r, selects, llm, keys)]
        elif split_type(r.type) in _RAY:
            findings += [(r.name, m) for m in _ray_finding(r)]
        if r.type != SERVICE_TYPE:
            findings += [(r.name, m) for m in _node_published(r) + _router_on_node(r)]
            if isinstance(r.props, dict) and split_type(r.type)[1] in ("HelmRelease", "Application", "HelmChart"):
                findings += [(r.name, m) for m in _release_services(r)]
    return findings


_RAY = {("ray.io", "RayCluster"), ("ray.io", "RayService")}


POLICY = Policy(
    name="no-load-balancer-service",
    description="Services (and KubeRay head services, headGroupSpec.serviceType) must not be of type LoadBalancer; "
    "expose models through the ingress gateway (NodePort, an internal load balancer or one selecting no model: advice; "
    "so is a model server without an API key, or an LLM router (LiteLLM) with or without one, published on its node by "
    "hostPort or hostNetwork).",
    catalog="G32",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Make the Service ClusterIP and route to it from the shared ALB Ingress / gateway; annotate "
        'llm-serving.io/exempt-no-load-balancer-service: "<reason>" for a deliberate, internal-only NLB.'
    ),
    check_stack=_check,
    rationale=(
        "Every LoadBalancer Service creates its own cloud load balancer (https://kubernetes.io/docs/concepts/services-networking/service/#loadbalancer); "
        "on AWS its idle timeout defaults to 60 s (https://docs.aws.amazon.com/elasticloadbalancing/latest/application/application-load-balancers.html#connection-idle-timeout), "
        "outside the timeout chain this project computes. Catalogue row 32 (compliance-policies disallowLoadBalancer, "
        "Kyverno restrict-loadbalancer)."
    ),
)
