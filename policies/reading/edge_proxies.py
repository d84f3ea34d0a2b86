"""Two edge CRDs that publish Services without an Ingress: Traefik's IngressRoute and Contour's HTTPProxy.

Read by G32 (policies/reading/exposure.py: what each publishes, its TLS and what guards it) and S9
(policies/timeouts/llm_route_timeout.py: Contour's route response timeout). Neither CRD is among the upstream CRDs the project
validates against; the fields are read at the projects' tags:

- **Traefik IngressRoute** (``traefik.io/v1alpha1``, formerly ``traefik.containo.us/v1alpha1``; traefik/traefik
  v3.7.9 ``pkg/provider/kubernetes/crd/traefikio/v1alpha1/ingressroute.go``): ``spec.entryPoints`` (:19),
  ``spec.routes[]`` (:21) with ``match`` (:35), ``services[]`` (:52; a ``LoadBalancerSpec``: ``name`` :123, ``kind``
  :126, Service unless ``TraefikService``) and ``middlewares[]`` (:55, ``MiddlewareRef`` name/namespace :232-236);
  ``spec.tls`` (:24; ``secretName`` :80, ``certResolver`` :91). A Middleware (``middleware.go``) authenticates with
  ``basicAuth`` (:44), ``digestAuth`` (:45) or ``forwardAuth`` (:46), or admits only ``ipAllowList`` /
  ``ipWhiteList`` sources (:35-37). Traefik's own Service (its entry points' load balancer) is installed by its chart,
  not by the model's files: how far a route reaches is unknown from them. Traefik's forwarding timeouts default to
  none (ServersTransport ``responseHeaderTimeout`` 0); its entry points' read timeout (60 s) is read by
  policies/reading/edge_entrypoints.py.
- **Contour HTTPProxy** (``projectcontour.io/v1``; projectcontour/contour v1.33.6
  ``apis/projectcontour/v1/httpproxy.go``): a root proxy has ``spec.virtualhost`` (``VirtualHost`` :316-360:
  ``fqdn`` :321, ``tls`` :329 with ``secretName`` :450 or ``passthrough`` :465, ``authorization`` :339 an external
  auth server, ``jwtProviders`` :348, ``ipAllowPolicy`` :354); a proxy without it is included by a root and
  publishes nothing on its own. ``spec.routes[]`` (``Route`` :533) send to ``services[]`` (:543; ``name`` :1010,
  ``port`` :1018) with a ``timeoutPolicy`` (:558): ``response`` "If not supplied, Envoy's default value of 15s
  applies" (:1125-1130; "infinity" means none), which Contour's own configuration file may change
  (``timeouts.request-timeout``), so the default is advice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Optional

from components.aws_ids import sources_too_wide
from components.edge_timeouts import default_seconds
from policies.kube import as_dict, as_list, get, split_type
from policies.reading.route_path import duration_seconds

TRAEFIK_GROUPS = ("traefik.io", "traefik.containo.us")
CONTOUR_PROXY = ("projectcontour.io", "HTTPProxy")
TRAEFIK_AUTH = ("forwardAuth", "basicAuth", "digestAuth")
CONTOUR_RESPONSE_DEFAULT = float(default_seconds("contour"))
_INFINITY = re.compile(r"^infinit[ye]$")


def is_traefik_route(r: Any) -> bool:
    """A Traefik IngressRoute (either API group)."""
    group, kind = split_type(r.type)
    return kind == "IngressRoute" and group in TRAEFIK_GROUPS


def is_contour_proxy(r: Any) -> bool:
    """A Contour HTTPProxy."""
    return split_type(r.type) == CONTOUR_PROXY


@dataclass(frozen=True)
class ProxyEdge:
    """What one IngressRoute or root HTTPProxy publishes: its label, TLS, guard and Service backends."""

    what: str
    reach_why: str
    tls: bool
    guard: Optional[str]
    services: tuple[str, ...]


def _name(r: Any) -> str:
    return str(get(r.props, "metadata", "name"))


def _namespace(r: Any) -> str:
    ns = get(r.props, "metadata", "namespace")
    return ns if isinstance(ns, str) else "<default>"


# A Traefik Middleware not in the set is read as a possible guard, unless its name says it is one of the middleware
# kinds that authenticate no one (traefik/traefik v3.7.9 pkg/provider/kubernetes/crd/traefikio/v1alpha1/middleware.go
# :30 stripPrefix, :38 headers, :41 rateLimit, :42 redirectRegex, :43 redirectScheme, :50 compress, :52 retry) and
# nothing of a guard: `infra-redirect-to-https@kubernetescrd` (spent set 92 progist1/home-k3s
# infra/proxy/ollama.home/ingress-internal.yaml, labelled G32) only sends HTTP to HTTPS.
_NOT_A_GUARD = re.compile(r"redirect|https|compress|gzip|secure-?headers|^headers|strip|ratelimit|rate-limit|retry|cors")
_MAYBE_GUARD = re.compile(r"auth|oauth|oidc|sso|jwt|login|allow|white|lan|internal|private|chain|keycloak|authelia|pomerium")


def unread_middleware_guards(name: str) -> bool:
    """True when a Middleware of this name, not in the set, may authenticate callers (its name does not say it only
    redirects, compresses, sets headers, strips a prefix, limits rates or retries)."""
    low = name.lower()
    return bool(_MAYBE_GUARD.search(low)) or not _NOT_A_GUARD.search(low)


def _traefik_guard(ir: Any, middlewares: list) -> Optional[str]:
    """A middleware on any route that authenticates (or one not in the set, which may), or a narrow source list."""
    for route in as_list(get(ir.props, "spec", "routes")):
        for ref in as_list(get(route, "middlewares")):
            name = get(ref, "name")
            found = [m for m in middlewares if _name(m) == name]
            if not found:
                if isinstance(name, str) and not unread_middleware_guards(name):
                    continue
                return f"Traefik middleware {name} (not in these files)"
            for m in found:
                spec = as_dict(get(m.props, "spec"))
                if any(k in spec for k in TRAEFIK_AUTH):
                    return f"Traefik middleware {name}"
                for key in ("ipAllowList", "ipWhiteList"):
                    ranges = [str(c) for c in as_list(get(spec, key, "sourceRange"))]
                    if ranges and sources_too_wide(ranges) is None:
                        return f"Traefik middleware {name} ({key} {', '.join(ranges)})"
    return None


def traefik_edge(ir: Any, middlewares: list) -> ProxyEdge:
    """The publication of a Traefik IngressRoute (middlewares: the set's Traefik Middlewares)."""
    services = tuple(
        dict.fromkeys(
            str(get(svc, "name"))
            for route in as_list(get(ir.props, "spec", "routes"))
            for svc in as_list(get(route, "services"))
            if get(svc, "kind") in (None, "Service") and isinstance(get(svc, "name"), str)
        )
    )
    points = [str(p) for p in as_list(get(ir.props, "spec", "entryPoints"))]
    shown = f" on entry points {', '.join(points)}" if points else " on every entry point"
    return ProxyEdge(
        what=f"IngressRoute {_namespace(ir)}/{_name(ir)} (Traefik{shown})",
        reach_why="Traefik's entry-point Service is installed with Traefik, not in these files: whether it is public is unknown",
        tls=isinstance(get(ir.props, "spec", "tls"), dict),  # tls: {} serves Traefik's default certificate
        guard=_traefik_guard(ir, middlewares),
        services=services,
    )


def _contour_guard(proxy: Any) -> Optional[str]:
    vhost = as_dict(get(proxy.props, "spec", "virtualhost"))
    if vhost.get("authorization"):
        return "Contour virtualhost.authorization (an external auth server)"
    if as_list(vhost.get("jwtProviders")):
        return "Contour virtualhost.jwtProviders"
    ranges = [str(get(p, "cidr")) for p in as_list(vhost.get("ipAllowPolicy"))]
    if ranges and sources_too_wide(ranges) is None:
        return f"Contour virtualhost.ipAllowPolicy {', '.join(ranges)}"
    return None


def contour_edge(proxy: Any) -> Optional[ProxyEdge]:
    """The publication of a root HTTPProxy (one with a virtualhost); None for a proxy a root includes."""
    vhost = get(proxy.props, "spec", "virtualhost")
    if not isinstance(vhost, dict):
        return None
    services = tuple(dict.fromkeys(name for route in contour_routes(proxy) for name in route.services))
    tls = as_dict(vhost.get("tls"))
    return ProxyEdge(
        what=f"HTTPProxy {_namespace(proxy)}/{_name(proxy)} (Contour, virtualhost {vhost.get('fqdn')})",
        reach_why="Contour's Envoy Service is installed with Contour, not in these files: whether it is public is unknown",
        tls=bool(tls.get("secretName") or tls.get("passthrough")),
        guard=_contour_guard(proxy),
        services=services,
    )


@dataclass(frozen=True)
class ProxyRoute:
    """One HTTPProxy route: where it is, its Service backends and its response timeout (None unset, inf for none)."""

    label: str
    services: tuple[str, ...]
    timeout: Optional[float]


def contour_routes(proxy: Any) -> list[ProxyRoute]:
    """The routes of an HTTPProxy with their response timeouts."""
    found = []
    for i, route in enumerate(as_list(get(proxy.props, "spec", "routes"))):
        services = tuple(str(get(s, "name")) for s in as_list(get(route, "services")) if isinstance(get(s, "name"), str))
        raw = get(route, "timeoutPolicy", "response")
        if isinstance(raw, str) and _INFINITY.match(raw.strip()):
            timeout: Optional[float] = float("inf")
        else:
            timeout = duration_seconds(raw) if raw is not None else None
            # "0s" is read as unset (Envoy's default), as the field's documentation says.
            timeout = None if timeout == 0 else timeout
        found.append(ProxyRoute(f"spec.routes[{i}]", services, timeout))
    return found


__all__ = [
    "CONTOUR_RESPONSE_DEFAULT",
    "ProxyEdge",
    "ProxyRoute",
    "contour_edge",
    "contour_routes",
    "is_contour_proxy",
    "is_traefik_route",
    "traefik_edge",
]
