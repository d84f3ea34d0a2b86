"""Which objects publish a model server outside the cluster, how far, and what guards them (catalogue row G32).

One notion over the forms other people write: an Ingress of any class, a Gateway API route (HTTPRoute, GRPCRoute,
Envoy AI Gateway's AIGatewayRoute) with its Gateway, an Istio VirtualService bound to an Istio Gateway, and an
OpenShift Route. Each is a *publication*: its backends, how far it reaches, whether it terminates TLS and what
authenticates callers in front of the model. ALB Ingresses and GKE's gce-class Ingresses have their own G32
policies (internet_facing_alb_guarded, external_gce_ingress_guarded) and are left to them.

How far (``Reach``):

* ``public``: the files prove an internet-facing load balancer. A Gateway of an external GKE class
  (``gke-l7-global-external-managed``, ``gke-l7-regional-external-managed``, ``gke-l7-gxlb`` and the ``-mc`` forms:
  https://cloud.google.com/kubernetes-engine/docs/concepts/gateway-api "GatewayClass capabilities"). A Gateway whose
  GatewayClass in the set is Envoy Gateway's (``gateway.envoyproxy.io/gatewayclass-controller``, envoyproxy/gateway
  v1.9.0 ``api/v1alpha1/envoygateway_types.go:19``) with no EnvoyProxy changing its Service: Envoy Gateway then makes a
  Service of type LoadBalancer (``api/v1alpha1/envoyproxy_helpers.go:115-121``, ``kubernetes_helpers.go:89-90``); an
  installation may change that default in its EnvoyGateway configuration (``envoygateway_types.go:132-148``), which no
  model's files hold, so the out-of-the-box default is what the files show (the message says so). A
  Gateway of Istio's built-in class ``istio``: Istio deploys it behind a LoadBalancer Service
  (istio/istio 1.30.3 ``pilot/pkg/config/kube/gatewaycommon/classinfo.go:111`` DefaultServiceType) unless the
  ``networking.istio.io/service-type`` annotation says otherwise (``gatewaycommon/deploymentcontroller.go:398-401``:
  the Service type is DefaultServiceType unless the Gateway carries the annotation)
  or an ``infrastructure.parametersRef`` ConfigMap overlays the Service (``deploymentcontroller.go:765-766``; its
  ``service`` key read when the ConfigMap is in the set, unknown otherwise).
  A LoadBalancer Service counts as public unless an internal-load-balancer annotation says otherwise (the cloud
  providers' default; ``INTERNAL_LB`` below lists the annotations).
* ``internal``: an internal class (GKE's ``gke-l7-rilb``, ``gke-l7-cross-regional-internal-managed``, any class whose
  name says internal or private), an internal-load-balancer annotation, or an EnvoyProxy whose Service is ClusterIP.
* ``unknown``: everything else; a Traefik IngressRoute and a Contour HTTPProxy too (their controllers' Services are
  installed with the controllers; policies/reading/edge_proxies.py reads their TLS, guards and backends).
* ``unknown`` also covers an ingress-nginx, Traefik, HAProxy or Kong Ingress, or one with no class (the
  cluster's default class serves it; on GKE, GKE's controller takes an unclassed Ingress as an external load balancer,
  kubernetes/ingress-gce v1.41.1 ``pkg/utils/utils.go:339-343``): whether the controller's own Service is public is
  not in the model's files. A route whose Gateway is not in the set is read only when the Gateway's name says it is
  external or public (``external-http``), and stays unknown.

What guards a publication (any one, in the set):

* ingress-nginx ``auth-url``, ``auth-type``, ``auth-signin``, ``auth-tls-verify-client: on`` (client certificates)
  (https://kubernetes.github.io/ingress-nginx/user-guide/nginx-configuration/annotations/#authentication), or a
  ``whitelist-source-range`` / ``allowlist-source-range`` no wider than the ALB rule's bound (annotations.md
  "Whitelist source range"); NGINX Inc's
  ``nginx.org/basic-auth-secret`` and ``nginx.com/jwt-key``; HAProxy's ``haproxy.org/auth-type``; Traefik
  ``router.middlewares`` naming a Middleware with forwardAuth/basicAuth/digestAuth (or one not in the set); Kong
  ``konghq.com/plugins`` naming an auth plugin (key-auth, jwt, oauth2, basic-auth, openid-connect, hmac-auth,
  ldap-auth) or one not in the set; an OpenShift Route's ``haproxy.router.openshift.io/ip_whitelist``;
* an oauth2-proxy as the backend;
* Envoy Gateway ``SecurityPolicy`` with apiKeyAuth, basicAuth, jwt, oidc, extAuth or authorization on the Gateway or
  the route (envoyproxy/gateway v1.9.0 ``api/v1alpha1/securitypolicy_types.go:66-110``); Kuadrant ``AuthPolicy``;
  kgateway ``TrafficPolicy`` with extAuth/jwt/basicAuth/apiKeyAuthentication; a route filter of type ExtensionRef;
  Istio ``RequestAuthentication`` / ``AuthorizationPolicy``; GKE IAP (``GCPBackendPolicy`` ``spec.default.iap``, a
  BackendConfig's ``iap.enabled``); an AIGatewayRoute whose every rule matches an ``Authorization`` header;
* the model server's own API key (policies/reading/model_backends.py cites the flags and variables per engine).

A ``loadBalancerSourceRanges`` on the Gateway's load-balancer Service (EnvoyProxy ``envoyService``, an Istio
overlay) no wider than that bound is a guard too; a model server taking an ``envFrom`` Secret may read its key from it
(the policy reports that as advice).

TLS: TLS at the AWS NLB in front of a Gateway (``aws-load-balancer-ssl-cert`` on its infrastructure annotations or
EnvoyProxy Service, on the listener's port), an Ingress's ``spec.tls`` (or GKE's pre-shared / managed certificate annotations), a Gateway listener of protocol
HTTPS or TLS, an Istio Gateway server of protocol HTTPS/TLS or with ``tls``, an OpenShift Route's ``spec.tls``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import SimpleNamespace
from typing import Any, Optional

from components.aws_ids import sources_too_wide
from policies.app_template import app_template_edges
from policies.helm_charts import release_name
from policies.kube import annotations_of, as_dict, as_list, get, name_of, split_type
from policies.reading import edge, edge_guards, gateway_service
from policies.reading import edge_proxies as proxies
from policies.reading import model_backends as backends
from policies.reading import route_path as path
from policies.reading.external_hosts import external_hosts_phrase
from policies.reading.model_backends import key_states
from policies.reading.serving import namespace_of

GATEWAY_API = "gateway.networking.k8s.io"
ENVOY_GATEWAY_CONTROLLER = "gateway.envoyproxy.io/gatewayclass-controller"
ISTIO_CONTROLLER = "istio.io/gateway-controller"
GKE_EXTERNAL = (
    "gke-l7-global-external-managed",
    "gke-l7-regional-external-managed",
    "gke-l7-gxlb",
    "gke-l7-global-external-managed-mc",
    "gke-l7-regional-external-managed-mc",
    "gke-l7-gxlb-mc",
)
GKE_INTERNAL = (
    "gke-l7-rilb",
    "gke-l7-rilb-mc",
    "gke-l7-cross-regional-internal-managed",
    "gke-l7-cross-regional-internal-managed-mc",
)
ALB_CONTROLLER = "ingress.k8s.aws/alb"

# Annotations by which a LoadBalancer Service asks its cloud for an internal (VPC-only) load balancer (read here and by
# policies/k8s_generic/no_load_balancer_service.py): AWS Load Balancer Controller
# (https://kubernetes-sigs.github.io/aws-load-balancer-controller/latest/guide/service/annotations/#lb-scheme) and the
# in-tree AWS provider, GKE (https://cloud.google.com/kubernetes-engine/docs/how-to/internal-load-balancing), Azure
# (https://learn.microsoft.com/azure/aks/internal-lb).
INTERNAL_LB = {
    "service.beta.kubernetes.io/aws-load-balancer-scheme": "internal",
    "service.beta.kubernetes.io/aws-load-balancer-internal": "true",
    "networking.gke.io/load-balancer-type": "internal",
    "cloud.google.com/load-balancer-type": "internal",
    "service.beta.kubernetes.io/azure-load-balancer-internal": "true",
}
_INTERNAL_NAME = re.compile(r"internal|private", re.IGNORECASE)
_PUBLIC_NAME = re.compile(r"extern|public|internet", re.IGNORECASE)
NGINX_AUTH = ("auth-url", "auth-type", "auth-signin", "auth-secret")
KONG_AUTH_PLUGINS = {"key-auth", "jwt", "oauth2", "basic-auth", "openid-connect", "hmac-auth", "ldap-auth", "ldap-auth-advanced"}
TRAEFIK_AUTH = ("forwardAuth", "basicAuth", "digestAuth")


@dataclass(frozen=True)
class Reach:
    """How far a publication reaches: "public" (proven internet-facing), "unknown", "internal"; and why."""

    level: str
    why: str


@dataclass(frozen=True)
class Publication:
    """One object that publishes backends through an edge."""

    resource: Any
    what: str
    reach: Reach
    tls: Optional[bool]  # None: an object outside the set decides
    guard: Optional[str]  # what authenticates callers, None when nothing in the set does
    services: tuple[str, ...]  # Service backends
    pools: tuple[str, ...]  # backends that are models by their kind (InferencePool, an AI Gateway backend)


def _name(r: Any) -> Any:
    name = get(r.props, "metadata", "name")
    return name if isinstance(name, (str, type(None))) else repr(name)  # (hashable: a mutated name may be a map)


def _label(kind: str, r: Any) -> str:
    return f"{kind} {namespace_of(r) or '<default>'}/{_name(r)}"


def internal_annotations(annotations: Mapping) -> bool:
    """True when load-balancer annotations ask for an internal (VPC-only) load balancer."""
    return any(str(annotations.get(k, "")).strip().lower() == v for k, v in INTERNAL_LB.items())


class _Set:
    """The objects of one evaluation, indexed for the readers below."""

    def __init__(self, resources: list) -> None:
        self.by_kind: dict[tuple[str, str], list] = {}
        for r in resources:
            self.by_kind.setdefault(split_type(r.type), []).append(r)
        self.services = edge.services_by_name(resources)
        self.backend_configs = edge.backend_configs(resources)
        self.keyed = key_states(resources)

    def kind(self, group: str, kind: str) -> list:
        return self.by_kind.get((group, kind), [])

    def named(self, group: str, kind: str, name: Any) -> Any:
        return next((r for r in self.kind(group, kind) if _name(r) == name), None)

    def any_kind(self, kind: str) -> list:
        return [r for (_, k), rs in self.by_kind.items() if k == kind for r in rs]


def _server_key_guard(services: tuple[str, ...], s: _Set) -> Optional[str]:
    if services and all(s.keyed.get(name) is True for name in services):
        return f"the model server behind {', '.join(services)} asks for an API key"
    return None


# ---- Ingress -------------------------------------------------------------------------------------------------


def _ingress_tls(ing: Any) -> bool:
    ann = annotations_of(ing.props)
    return bool(as_list(get(ing.props, "spec", "tls"))) or any(
        ann.get(k) for k in ("ingress.gcp.kubernetes.io/pre-shared-cert", "networking.gke.io/managed-certificates")
    )


def _named_refs(text: Any) -> list[str]:
    """Names in a comma-separated annotation ("ns-name@kubernetescrd, other"), without namespace or provider."""
    return [t.strip().split("@")[0] for t in str(text or "").split(",") if t.strip()]


def _ingress_guard(ing: Any, s: _Set) -> Optional[str]:
    ann = annotations_of(ing.props)
    for key in NGINX_AUTH:
        if ann.get(f"{edge.NGINX}/{key}"):
            return f"{edge.NGINX}/{key}"
    if str(ann.get(f"{edge.NGINX}/auth-tls-verify-client", "")).lower() == "on":
        return f"{edge.NGINX}/auth-tls-verify-client: on"
    for key in ("whitelist-source-range", "allowlist-source-range"):
        # A source allow-list keeps strangers out when, merged, it covers no more than the ALB rule allows
        # (components/aws_ids.py sources_too_wide: at most a /8 of IPv4 and a /32 of IPv6).
        ranges = [c.strip() for c in str(ann.get(f"{edge.NGINX}/{key}", "")).split(",") if c.strip()]
        if ranges and sources_too_wide(ranges) is None:
            return f"{edge.NGINX}/{key} {', '.join(ranges)}"
    for key in ("nginx.org/basic-auth-secret", "nginx.com/jwt-key", "haproxy.org/auth-type", "ingress.kubernetes.io/auth-type"):
        if ann.get(key):
            return key
    middlewares = _named_refs(ann.get("traefik.ingress.kubernetes.io/router.middlewares"))
    for ref in middlewares:
        found = [m for m in s.any_kind("Middleware") if str(_name(m)) in (ref, ref.split("-", 1)[-1])]
        if not found and not proxies.unread_middleware_guards(ref):
            continue  # a redirect to HTTPS, headers, compression: no guard (edge_proxies.py)
        if not found or any(k in as_dict(get(m.props, "spec")) for m in found for k in TRAEFIK_AUTH):
            return f"Traefik middleware {ref}"
    for ref in _named_refs(ann.get("konghq.com/plugins")):
        plugins = [p for k in ("KongPlugin", "KongClusterPlugin") for p in s.any_kind(k) if _name(p) == ref]
        if not plugins or any(str(get(p.props, "plugin")) in KONG_AUTH_PLUGINS for p in plugins):
            return f"Kong plugin {ref}"
    return None


def annotation_guard(annotations: Mapping, resources: list) -> Optional[str]:
    """What guards an Ingress carrying these annotations (a chart's: policies/reading/release_edges.py), or None."""
    shaped = SimpleNamespace(props={"metadata": {"annotations": dict(annotations)}})
    return _ingress_guard(shaped, _Set(resources)) if annotations else None


def internal_class_name(klass: str) -> bool:
    """True when an ingress class's name says it is internal or private."""
    return bool(klass) and bool(_INTERNAL_NAME.search(klass))


def _ingress_class(ing: Any, s: _Set) -> tuple[Optional[str], Optional[str]]:
    """(class name, controller of its IngressClass in the set or None)."""
    klass = edge.ingress_class(ing)
    found = s.named("networking.k8s.io", "IngressClass", klass) if klass else None
    if klass is None:
        found = next(
            (
                c
                for c in s.kind("networking.k8s.io", "IngressClass")
                if annotations_of(c.props).get("ingressclass.kubernetes.io/is-default-class") == "true"
            ),
            None,
        )
    controller = get(found.props, "spec", "controller") if found is not None else None
    return klass, controller if isinstance(controller, str) else None


def _ingress(ing: Any, s: _Set) -> Optional[Publication]:
    klass, controller = _ingress_class(ing, s)
    if klass == "alb" or controller == ALB_CONTROLLER or path.is_alb_ingress(ing) or edge.is_gce_ingress(ing):
        return None  # internet_facing_alb_guarded and external_gce_ingress_guarded read these
    if klass in edge.GCE_CLASSES and controller is None:
        return None  # a GKE class in spec.ingressClassName: GKE's controller ignores it (edge.gce_ingress_class)
    if klass and _INTERNAL_NAME.search(klass):
        reach = Reach("internal", f"class {klass}")
    elif klass is None and controller is None:
        reach = Reach(
            "unknown",
            "no class: the cluster's default IngressClass serves it (on GKE an unclassed Ingress becomes an external "
            "load balancer); whether it is public is not in these files",
        )
    else:
        named = f"class {klass or '<default>'}" + (f" ({controller})" if controller else "")
        reach = Reach("unknown", f"{named}: whether the controller's Service is public is not in these files")
    services = tuple(dict.fromkeys(n for n, _ in edge.ingress_backend_ports(ing)))
    guard = _ingress_guard(ing, s) or _iap_guard(services, s) or _server_key_guard(services, s)
    what = _label("Ingress", ing) + (f" (class {klass})" if klass else " (no class)")
    return Publication(ing, what, reach, _ingress_tls(ing), guard, services, ())


def _iap_guard(services: tuple[str, ...], s: _Set) -> Optional[str]:
    """IAP on a backend Service's BackendConfig (GKE), for Ingresses GKE may serve."""
    for name in services:
        svc = s.services.get(name)
        config_name = edge.backend_config_name(svc, None) if svc is not None else None
        config = s.backend_configs.get(config_name) if config_name else None
        if config is not None and get(config, "spec", "iap", "enabled") is True:
            return f"IAP on BackendConfig {config_name}"
    return None


# ---- Gateway API ---------------------------------------------------------------------------------------------

ROUTE_KINDS = {(GATEWAY_API, "HTTPRoute"), (GATEWAY_API, "GRPCRoute"), ("aigateway.envoyproxy.io", "AIGatewayRoute")}


def gateway_reach(gw: Any, s: _Set) -> Reach:
    """How far a Gateway API Gateway reaches, from its class (and the GatewayClass / EnvoyProxy in the set)."""
    klass = get(gw.props, "spec", "gatewayClassName")
    klass = klass if isinstance(klass, str) else ""
    infra = as_dict(get(gw.props, "spec", "infrastructure"))
    if klass in GKE_EXTERNAL:
        return Reach("public", f"class {klass} is an external GKE Application Load Balancer")
    if klass in GKE_INTERNAL or _INTERNAL_NAME.search(klass):
        return Reach("internal", f"class {klass}")
    if internal_annotations(as_dict(infra.get("annotations"))) or internal_annotations(annotations_of(gw.props)):
        return Reach("internal", "an internal load-balancer annotation")
    gc = s.named(GATEWAY_API, "GatewayClass", klass)
    controller = get(gc.props, "spec", "controllerName") if gc is not None else None
    if controller == ENVOY_GATEWAY_CONTROLLER:
        return _envoy_reach(gw, gc, klass, s)
    if klass == "istio" or controller == ISTIO_CONTROLLER:
        kind = annotations_of(gw.props).get("networking.istio.io/service-type")
        if kind and kind != "LoadBalancer":
            return Reach("internal" if kind == "ClusterIP" else "unknown", f"networking.istio.io/service-type: {kind}")
        if as_list(get(gw.props, "spec", "addresses")):
            return Reach("unknown", "spec.addresses names an existing address, so Istio deploys no Service of its own")
        overlay = gateway_service.istio_overlay(gw, gc, s.named)
        if overlay is not None:
            ref, service = overlay
            if service is None:
                return Reach("unknown", f"{ref}, not in these files, may change its Service")
            kind = get(service, "spec", "type") or "LoadBalancer"
            if kind == "ClusterIP" or internal_annotations(annotations_of(service)):
                return Reach("internal", f"{ref} makes its Service internal")
            if kind != "LoadBalancer":
                return Reach("unknown", f"{ref} makes its Service {kind}")
        return Reach("public", "Istio deploys a Gateway of class istio behind a Service of type LoadBalancer, its default")
    return Reach("unknown", f"class {klass or '<none>'}: whether its load balancer is public is decided outside these files")


def _envoy_reach(gw: Any, gc: Any, klass: str, s: _Set) -> Reach:
    ref = gateway_service.parameters_ref(gw, gc)
    if not ref:
        return Reach(
            "public",
            f"Envoy Gateway (GatewayClass {klass}) exposes it through a Service of type LoadBalancer, its default with "
            "no EnvoyProxy",
        )
    proxy = s.named("gateway.envoyproxy.io", "EnvoyProxy", ref.get("name")) if ref.get("kind") == "EnvoyProxy" else None
    if proxy is None:
        return Reach("unknown", f"{ref.get('kind')} {ref.get('name')}, not in these files, sets its Service")
    service = as_dict(get(proxy.props, "spec", "provider", "kubernetes", "envoyService"))
    kind = service.get("type") or "LoadBalancer"
    if kind == "ClusterIP" or internal_annotations(as_dict(service.get("annotations"))):
        return Reach("internal", f"EnvoyProxy {ref.get('name')} makes its Service internal")
    if kind != "LoadBalancer":
        return Reach("unknown", f"EnvoyProxy {ref.get('name')} makes its Service {kind}")
    return Reach("public", f"EnvoyProxy {ref.get('name')} keeps its Service a LoadBalancer")


def listeners_tls(gw: Any, sections: list[str], s: Optional[_Set] = None) -> Optional[bool]:
    """Whether the listeners a route attaches to (all when no sectionName) include one of protocol HTTPS or TLS, or
    the load balancer in front of them terminates TLS (``lb_tls``)."""
    listeners = [as_dict(x) for x in as_list(get(gw.props, "spec", "listeners"))]
    chosen = [x for x in listeners if name_of(x) in sections] or listeners
    if not chosen:
        return None
    if s is not None and gateway_service.lb_tls(gw, s.named, [x.get("port") for x in chosen]):
        return True
    return any(str(x.get("protocol", "")).upper() in ("HTTPS", "TLS") for x in chosen)


def _route_backends(route: Any, kind: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(Service names, model backends by kind) of a route's rules."""
    services: list[str] = []
    pools: list[str] = []
    for rule in as_list(get(route.props, "spec", "rules")):
        for ref in as_list(get(rule, "backendRefs")):
            name, ref_kind = get(ref, "name"), get(ref, "kind")
            if not isinstance(name, str):
                continue
            if ref_kind == "InferencePool":
                pools.append(f"InferencePool {name}")
            elif kind == "AIGatewayRoute":  # every backend of an AI Gateway route serves a model (AIServiceBackend)
                pools.append(f"{ref_kind or 'AIServiceBackend'} {name}")
            elif ref_kind in (None, "Service"):
                services.append(name)
    return tuple(dict.fromkeys(services)), tuple(dict.fromkeys(pools))


def _route_guard(route: Any, gateway: str, services: tuple[str, ...], pools: tuple[str, ...], s: _Set) -> Optional[str]:
    group, kind = split_type(route.type)
    targets = {(kind, _name(route)), ("Gateway", gateway)}  # a policy on a Gateway outside the files counts too
    guard = edge_guards.attached_guard(targets, s.kind)
    if guard:
        return guard
    rules = [as_dict(r) for r in as_list(get(route.props, "spec", "rules"))]
    for rule in rules:
        for f in as_list(rule.get("filters")):
            if get(f, "type") == "ExtensionRef":
                return f"filter ExtensionRef {get(f, 'extensionRef', 'name')}"
    if kind == "AIGatewayRoute" and rules and all(_matches_authorization(r) for r in rules):
        return "every rule matches an Authorization header"
    names = set(services) | {p.split(" ", 1)[1] for p in pools}
    for policy in s.kind("networking.gke.io", "GCPBackendPolicy"):
        if name_of(get(policy.props, "spec", "targetRef")) in names and get(policy.props, "spec", "default", "iap", "enabled"):
            return f"IAP on GCPBackendPolicy {_name(policy)}"
    return _server_key_guard(services, s)


def _matches_authorization(rule: Mapping) -> bool:
    matches = as_list(rule.get("matches"))
    return bool(matches) and all(
        any(str(get(h, "name")).lower() == "authorization" for h in as_list(get(m, "headers"))) for m in matches
    )


def _routes(route: Any, s: _Set) -> list[Publication]:
    group, kind = split_type(route.type)
    services, pools = _route_backends(route, kind)
    out = []
    for ref in _parent_refs(route, kind):
        name = get(ref, "name")
        if get(ref, "kind") not in (None, "Gateway") or not isinstance(name, str):
            continue
        gw = s.named(GATEWAY_API, "Gateway", name)
        if gw is None:
            if _PUBLIC_NAME.search(name):
                reach = Reach("unknown", f"its Gateway {name} is not in these files (its name says it is external)")
            elif any(s.keyed.get(n) is False for n in services):
                # A model server that asks no key (Ollama has none) behind a Gateway of any name: possibly public (spent
                # set 95 Logik-Dev/k8s-homelab apps/ollama/httproute.yaml on traefik-gateway); one named internal still
                # serves everyone on its network (spent set 107 hydazz/home-ops ollama and local-ai routes on Gateway
                # internal, zebernst/homelab on tailscale: labelled G32), unless an auth policy stands on it.
                inside = " (its name says internal: everyone on that network reaches it)" if _INTERNAL_NAME.search(name) else ""
                reach = Reach("unknown", f"its Gateway {name} is not in these files{inside}")
            else:
                continue
            tls = None
        else:
            section = get(ref, "sectionName")
            reach, tls = gateway_reach(gw, s), listeners_tls(gw, [section] if isinstance(section, str) else [], s)
        guard = _route_guard(route, name, services, pools, s) or (
            gateway_service.lb_source_guard(gw, s.named) if gw is not None else None
        )
        # The Gateway in the set owns the finding: its listener decides TLS and its Service the reach; the route only
        # says what is behind (spent sets 17 and 18 label Gateway/llm-gateway and Gateway/ai-gateway).
        owner = gw if gw is not None else route
        out.append(Publication(owner, f"{_label(kind, route)} on Gateway {name}", reach, tls, guard, services, pools))
    return out


def _parent_refs(route: Any, kind: str) -> list:
    """A route's parentRefs; an AIGatewayRoute written before Envoy AI Gateway 0.4 attaches by ``spec.targetRefs``
    (envoyproxy/ai-gateway v0.2.0 api/v1alpha1/api.go:64-68, the only field; v0.3.0 ai_gateway_route.go:65,75 both;
    v0.4.0 parentRefs only)."""
    refs = as_list(get(route.props, "spec", "parentRefs"))
    return refs or (as_list(get(route.props, "spec", "targetRefs")) if kind == "AIGatewayRoute" else [])


def _bare_gateways(s: _Set, routed: set[Any]) -> list[Publication]:
    """Public Gateways no route of the set attaches to: what they publish is in other files."""
    out = []
    for gw in s.kind(GATEWAY_API, "Gateway"):
        reach = gateway_reach(gw, s)
        if _name(gw) in routed or reach.level != "public":
            continue
        out.append(
            Publication(
                gw,
                _label("Gateway", gw),
                reach,
                listeners_tls(gw, [], s),
                edge_guards.attached_guard({("Gateway", _name(gw))}, s.kind) or gateway_service.lb_source_guard(gw, s.named),
                (),
                (),
            )
        )
    return out


# ---- Istio Gateway + VirtualService, OpenShift Route -----------------------------------------------------------


def _istio_gateway_reach(gw: Any, s: _Set) -> Reach:
    selector = as_dict(get(gw.props, "spec", "selector"))
    # An Ingress of the set in front of the ingress gateway (this stack's ALB -> Istio path): that Ingress is the edge,
    # and its own rule judges it; the gateway's Service is named after its selector (istio: ingressgateway ->
    # istio-ingressgateway, Istio's chart convention).
    values = [str(v) for v in selector.values() if str(v)]
    for ing in (r for kind in edge.INGRESS_TYPES for r in s.by_kind.get(split_type(kind), [])):
        if namespace_of(ing) == namespace_of(gw) and any(
            v in name for name, _ in edge.ingress_backend_ports(ing) for v in values
        ):
            return Reach("internal", f"behind Ingress {_name(ing)}, which is the edge")
    for svc in s.services.values():
        chosen = as_dict(get(svc, "spec", "selector"))
        if chosen and selector and all(selector.get(k) == v for k, v in chosen.items()):
            kind = get(svc, "spec", "type") or "ClusterIP"
            if kind == "LoadBalancer" and not internal_annotations(annotations_of(svc)):
                return Reach("public", f"its ingress gateway's Service {get(svc, 'metadata', 'name')} is a LoadBalancer")
            return Reach("internal" if kind == "ClusterIP" else "unknown", f"its ingress gateway's Service is {kind}")
    return Reach("unknown", f"the Service of its ingress gateway (selector {selector}) is not in these files")


def _virtual_services(vs: Any, s: _Set) -> list[Publication]:
    services = tuple(
        dict.fromkeys(
            name
            for http in as_list(get(vs.props, "spec", "http"))
            for dest in as_list(get(http, "route"))
            if (name := path.service_of_host(get(dest, "destination", "host")))
        )
    )
    out = []
    for ref in as_list(get(vs.props, "spec", "gateways")):
        if not isinstance(ref, str) or ref == "mesh":
            continue
        name = ref.split("/")[-1]
        gw = s.named("networking.istio.io", "Gateway", name)
        if gw is None:
            said = "its name says it is external" if _PUBLIC_NAME.search(name) else external_hosts_phrase(vs.props)
            if not said and not any(s.keyed.get(n) is False for n in services):  # a keyless server: as _routes reads it
                continue
            reach, tls = Reach("unknown", f"its Gateway {ref} is not in these files" + (f" ({said})" if said else "")), None
        else:
            servers = [as_dict(x) for x in as_list(get(gw.props, "spec", "servers"))]
            reach = _istio_gateway_reach(gw, s)
            tls = any(str(get(x, "port", "protocol")).upper() in ("HTTPS", "TLS") for x in servers) if servers else None
        guard = edge_guards.istio_guard(s.kind) or _server_key_guard(services, s)
        owner = gw if gw is not None else vs  # the Istio Gateway of the set owns it, as a Gateway API one does (set 96)
        out.append(Publication(owner, f"{_label('VirtualService', vs)} on Gateway {ref}", reach, tls, guard, services, ()))
    return out


def _openshift_route(route: Any, s: _Set) -> Publication:
    spec = as_dict(get(route.props, "spec"))
    services = tuple(
        dict.fromkeys(
            n for b in [spec.get("to")] + as_list(spec.get("alternateBackends")) if isinstance(n := get(b, "name"), str)
        )
    )
    ann = annotations_of(route.props)
    allow = next((k for k in ann if k.startswith("haproxy.router.openshift.io/ip_") and str(ann[k]).strip()), None)
    reach = Reach(
        "unknown", "the OpenShift router publishes it on the cluster's apps domain; whether that is public is not in these files"
    )
    guard = (allow and f"{allow}") or _server_key_guard(services, s)
    return Publication(route, _label("Route", route), reach, bool(spec.get("tls")), guard, services, ())


def publications(resources: list) -> list[Publication]:
    """Every object of the set that publishes backends through an edge (ALB and gce-class Ingresses excepted)."""
    s = _Set(resources)
    out: list[Publication] = []
    routed: set[Any] = set()
    for r in resources:
        group, kind = split_type(r.type)
        if r.type in edge.INGRESS_TYPES:
            found = _ingress(r, s)
            out += [found] if found else []
        elif (group, kind) in ROUTE_KINDS:
            routed |= {n for ref in _parent_refs(r, kind) if isinstance(n := get(ref, "name"), str)}
            out += _routes(r, s)
        elif kind in ("HelmRelease", "Application") and isinstance(r.props, dict):
            out += _release_edges(r, s)
        elif (group, kind) == ("networking.istio.io", "VirtualService"):
            out += _virtual_services(r, s)
        elif (group, kind) == ("route.openshift.io", "Route"):
            out.append(_openshift_route(r, s))
        elif proxies.is_traefik_route(r) or proxies.is_contour_proxy(r):
            out += _proxy(r, s)
    return out + _bare_gateways(s, routed)


def _release_edges(release: Any, s: _Set) -> list[Publication]:
    """The HTTPRoutes and Ingresses a bjw-s app-template release renders from its values (policies/app_template.py
    app_template_edges), read as the rendered objects are, owned by the release (spent set 107 hydazz/home-ops and
    cyberglitchlabs/clouddrop ``route.app`` of Ollama and LocalAI releases, labelled G32)."""
    out = []
    for where, rendered in app_template_edges(release.props, release_name(release.props), namespace_of(release)):
        shaped = SimpleNamespace(
            type=f"kubernetes:{rendered['apiVersion']}:{rendered['kind']}", props=rendered, name=release.name
        )
        found = _ingress(shaped, s) if rendered["kind"] == "Ingress" else None
        pubs = [found] if found else [] if rendered["kind"] == "Ingress" else _routes(shaped, s)
        for pub in pubs:
            owner = release if pub.resource is shaped else pub.resource
            out.append(replace(pub, resource=owner, what=f"{where} (renders {pub.what})"))
    return out


def _proxy(r: Any, s: _Set) -> list[Publication]:
    """A Traefik IngressRoute or a root Contour HTTPProxy (policies/reading/edge_proxies.py)."""
    found = proxies.traefik_edge(r, s.any_kind("Middleware")) if proxies.is_traefik_route(r) else proxies.contour_edge(r)
    if found is None:
        return []
    guard = found.guard or _server_key_guard(found.services, s)
    return [Publication(r, found.what, Reach("unknown", found.reach_why), found.tls, guard, found.services, ())]


def model_behind(pub: Publication, resources_llm: set[str], known: set[str]) -> str:
    """Whether a model is behind: "model" (a model server of the set, or a backend that is a model by its kind), "none" (every backend is a
    known non-model), or "unknown" (a backend the set does not hold)."""
    if pub.pools or set(pub.services) & resources_llm:
        return "model"
    unknown = [n for n in pub.services if n not in known]
    if pub.services and all(backends.not_a_model_name(n) or "oauth2-proxy" in n for n in unknown):
        return "none"
    return "unknown"
