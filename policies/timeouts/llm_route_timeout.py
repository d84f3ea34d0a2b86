"""S9 (defaults): a route to an LLM left at Envoy's 15 s or a gateway's 60 s cuts generations.

Envoy's route timeout defaults to 15 s, which Envoy Gateway keeps; KServe's HTTPRoute defaults
to 60 s; an ALB's idle timeout defaults to 60 s (Envoy RouteAction docs; kserve/kserve v0.20.0; ELBv2 API). A
streamed generation runs minutes. Istio is the exception: an unset VirtualService timeout
disables Envoy's (no timeout), which timeout-chain-ordered then relates to the ALB.

Envoy AI Gateway's AIGatewayRoute rules default to 60 s (envoyproxy/ai-gateway v1.1.0); a Contour HTTPProxy route's
timeoutPolicy.response to Envoy's 15 s (projectcontour/contour v1.33.6, policies/reading/edge_proxies.py). GKE's load balancers (a GCE Ingress's BackendConfig timeoutSec, a Gateway's GCPBackendPolicy timeoutSec) default
to 30 s for the whole response, and ingress-nginx's proxy-read-timeout and NGINX Inc.'s nginx.org/proxy-read-timeout to 60 s (policies/reading/edge.py
has the sources; both controllers may take class "nginx", and their annotations or IngressClass tell them apart). A model server is any engine the table knows or a GPU container of a serving app (not only vLLM). An
OpenShift Route's router timeout defaults to 30 s (openshift/router, see OPENSHIFT_ROUTER_DEFAULT). An
Ingress none of whose backends is in the set is still reported, advisory like the rest of this policy: the edge's
timeout is proven by the Ingress alone, whether a model sits behind it is not.
A LiteLLM proxy's configuration in a ConfigMap (policies/reading/litellm.py) is a router in front of LLMs: its
router_settings.timeout, litellm_settings.request_timeout or a model's litellm_params.timeout at or below the minimum
is reported the same way.
The edges' defaults are rows of components/edge_timeouts.toml, each with its source. A Service of a proxy in front of a
model (an LLM gateway app of components/serving_apps.toml; an nginx whose mounted configuration sends to a model's
Service, policies/reading/nginx_conf.py) is a route to an LLM like the model's own; and an OpenShift Route or an
Ingress whose timeout is below the proxy_read_timeout of the nginx proxy behind it is reported whatever its value: the
outer layer cuts what the inner one was set to allow (advisory: streams may be short).
A Traefik IngressRoute or Traefik Ingress is judged by its entry points' respondingTimeouts.readTimeout (60 s unless
the files' Traefik arguments or chart values set it), an Azure Application Gateway Ingress by its request timeout (30 s
unless annotated): policies/reading/edge_entrypoints.py has the sources. An app that calls a model by the URL its
environment gives (policies/reading/model_callers.py; chat UIs left out) is in front of the model too.
An app's own call timeout beside a model's address (a ConfigMap's data or a container's literal env) at or below the
minimum is reported where it is written (policies/reading/call_timeouts.py).
"""

from __future__ import annotations

import re

from components.edge_timeouts import default_seconds
from policies.framework import Policy, Resource
from policies.kube import as_dict, as_list, get, metadata_name, split_type
from policies.reading import edge, litellm
from policies.reading import edge_entrypoints as entry
from policies.reading import edge_proxies as proxies
from policies.reading import route_path as path
from policies.reading.call_timeouts import short_call_timeouts
from policies.reading.model_proxies import ModelProxy, holding_config, inner_wait, model_proxies
from policies.reading.nginx_conf import nginx_proxies
from policies.reading.serving import model_servers
from policies.reading.vllm_args import vllm_servers


def _named(seconds: float) -> str:
    if seconds == path.ENVOY_ROUTE_DEFAULT:
        return " (Envoy's default)"
    if seconds == path.KSERVE_HTTPROUTE_DEFAULT:
        return " (a gateway's / the ALB's default)"
    return ""


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    minimum = float(config["minimumSeconds"])
    selectors = path.service_selectors(resources)
    llm: set[str] = set()
    for w in resources:
        if vllm_servers(w) or model_servers(w):
            llm |= path.workload_services(w, selectors)
    fronts = model_proxies(resources, selectors, llm)
    llm |= {service for service, proxy in fronts.items() if proxy.model}
    findings = _nginx_in_front(resources, selectors, fronts) + short_call_timeouts(resources, minimum)
    # Every Service name the set defines (or a controller derives from a workload): a backend outside it is unknown.
    known = set(edge.services_by_name(resources)) | llm
    context = (
        edge.services_by_name(resources),
        edge.backend_configs(resources),
        edge.ingress_class_controllers(resources),
        entry.traefik_entry_timeouts(resources)
        if any(proxies.is_traefik_route(r) or r.type in path.INGRESS_TYPES for r in resources)
        else {},
    )
    pools = {
        p
        for r in resources
        if r.type in path.HTTPROUTE_TYPES
        for route in path.httproute_routes(r)
        for p in route.inference_pools
    }
    gke = _gke_route_context(resources)
    for r in resources:
        if r.type in path.VS_TYPES:
            for route in path.vs_routes(r):
                if set(route.services) & llm and route.timeout is not None and route.timeout <= minimum:
                    findings.append(
                        (
                            r.name,
                            f"{route.label}: timeout {path.fmt(route.timeout)}{_named(route.timeout)} on a route to "
                            f"an LLM ({', '.join(sorted(set(route.services) & llm))}) cuts generations; set it "
                            f"above the longest request",
                        )
                    )
        elif r.type in path.HTTPROUTE_TYPES:
            findings += _httproute(r, minimum, llm, known, gke)
        elif r.type in path.INGRESS_TYPES:
            findings += _ingress(r, minimum, llm, known, context, fronts)
        elif split_type(r.type) == ("aigateway.envoyproxy.io", "AIGatewayRoute"):
            findings += _ai_gateway_route(r, minimum)
        elif split_type(r.type) == ("http.keda.sh", "HTTPScaledObject"):
            findings += _http_scaled_object(r, minimum, llm, known)
        elif split_type(r.type) == ("networking.gke.io", "GCPBackendPolicy"):
            findings += _gcp_backend_policy(r, minimum, llm, pools)
        elif proxies.is_contour_proxy(r):
            findings += _contour(r, minimum, llm, known)
        elif proxies.is_traefik_route(r):
            findings += _traefik_route(r, minimum, llm, known, fronts, context[3])
        elif split_type(r.type) == ("route.openshift.io", "Route"):
            findings += _openshift_route(r, minimum, llm, known, fronts)
        elif r.type == litellm.CONFIG_MAP_TYPE:
            findings += _litellm(r, minimum)
    return findings


def _nginx_in_front(resources: list[Resource], selectors: dict, fronts: dict[str, ModelProxy]) -> list[tuple[str, str]]:
    """An nginx proxy in front of another proxy in front of a model (an nginx whose configuration sends to a model's
    Service) that waits less for its backend (proxy_read_timeout, nginx's 60 s where unset: nginx/nginx release-1.31.4
    src/http/modules/ngx_http_proxy_module.c:3734-3735) than the proxy behind it is set to wait: the outer proxy
    answers 504 to a request the inner one still waits on (spent set 62 Pritiks23/Kubernetes-Request-Serving-2
    k8s/api-gateway.yaml: gateway nginx with no proxy_read_timeout in front of the router nginx's 300 s in front of
    vLLM). Reported on the ConfigMap holding the outer configuration (advisory: streams may be short)."""
    found = []
    for w in resources:
        if w.type == litellm.CONFIG_MAP_TYPE or split_type(w.type) == ("", "Service"):
            continue
        proxies_ = nginx_proxies(w)
        own = path.workload_services(w, selectors) if proxies_ else set()
        for proxy in proxies_:
            for service in proxy.services:
                inner = inner_wait(service, fronts)
                if service in own or inner is None or inner <= proxy.read_timeout:
                    continue
                unset = "" if proxy.explicit else " (proxy_read_timeout unset: nginx's default)"
                holder = holding_config(w, resources)
                whose = f"{split_type(w.type)[1]} {metadata_name(w.props)} " if holder is not w else ""
                found.append(
                    (
                        holder.name,
                        f"{whose}{proxy.label}: nginx waits {path.fmt(proxy.read_timeout)} for its backend{unset} in front of "
                        f"Service {service} ({fronts[service].what}), which waits {path.fmt(inner)} "
                        f"(proxy_read_timeout): a request that sends no byte for {path.fmt(proxy.read_timeout)} (a long "
                        f"prefill, a non-streamed reply) gets a 504 from this proxy while the one behind it still "
                        f"waits; set proxy_read_timeout here to at least {path.fmt(inner)}",
                    )
                )
    return found


# LiteLLM's proxy (policies/reading/litellm.py): router_settings.timeout is the Router's per-call timeout and
# litellm_settings.request_timeout the library's (default 6000 s), a model's litellm_params.timeout its own; a call
# that runs longer is cut and, with num_retries, sent again (BerriAI/litellm docs/my-website/docs/proxy/reliability.md
# "timeout", docs/my-website/docs/proxy/configs.md). Every route of a model_list is a route to an LLM.
_LITELLM_TIMEOUTS = (("router_settings", "timeout"), ("litellm_settings", "request_timeout"))


def _litellm(r: Resource, minimum: float) -> list[tuple[str, str]]:
    found = []
    for key, config in litellm.litellm_configs(r):
        places = [(f"{a}.{b}", as_dict(config.get(a)).get(b)) for a, b in _LITELLM_TIMEOUTS]
        for i, model in enumerate(config["model_list"]):
            places.append((f"model_list[{i}].litellm_params.timeout", get(as_dict(model), "litellm_params", "timeout")))
        for where, value in places:
            value_s = litellm.seconds(value)
            if value_s is not None and 0 < value_s <= minimum:
                found.append(
                    (
                        r.name,
                        f"ConfigMap data {key} (a LiteLLM proxy config): {where} {path.fmt(value_s)} cuts an LLM call "
                        f"that runs longer (a long generation, a non-streamed reply) and retries replay it; set it "
                        f"above the longest request",
                    )
                )
    return found


# The OpenShift router's HAProxy `timeout server` (how long it waits for the next byte from the backend): 30 s unless
# the IngressController sets ROUTER_DEFAULT_SERVER_TIMEOUT; a Route's haproxy.router.openshift.io/timeout overrides it
# for that backend (openshift/router 4b401a86dccc657a8a5254c2794a312241f40e87
# images/router/haproxy/conf/haproxy-config.template:167 and :688-689). HAProxy reads a bare number as milliseconds.
OPENSHIFT_ROUTER_DEFAULT = float(default_seconds("openshift-router"))
OPENSHIFT_TIMEOUT = "haproxy.router.openshift.io/timeout"
_HAPROXY_UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def _haproxy_seconds(value: object) -> float | None:
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(us|ms|s|m|h|d)?\s*", str(value))
    return float(match.group(1)) * _HAPROXY_UNITS[match.group(2) or "ms"] if match else None


def _openshift_route(
    r: Resource, minimum: float, llm: set[str], known: set[str], fronts: dict[str, ModelProxy]
) -> list[tuple[str, str]]:
    """An OpenShift Route to a model (or a Service the set does not hold, or a proxy in front of a model) whose router
    timeout, set by its annotation or left at the router's 30 s, is at or below `minimum`; or below the
    proxy_read_timeout of the nginx proxy it sends to (the outer layer cuts what the inner one allows)."""
    service = get(r.props, "spec", "to", "name")
    if not isinstance(service, str):
        return []
    inner = inner_wait(service, fronts)
    if service not in llm and service in known and inner is None:
        return []
    raw = get(r.props, "metadata", "annotations", OPENSHIFT_TIMEOUT)
    seconds = _haproxy_seconds(raw) if raw is not None else None
    if raw is not None and seconds is None:
        return []  # a value the manifest does not give (a template) or HAProxy would refuse: not judged here
    default_name = "the OpenShift router's 30s, unless its IngressController moves it"
    outer = OPENSHIFT_ROUTER_DEFAULT if seconds is None else seconds
    cut = _cut(seconds, OPENSHIFT_ROUTER_DEFAULT, minimum, default_name)
    if cut is None and (inner is None or inner <= outer):
        return []
    state = f" (unset: {default_name})" if seconds is None else ""
    return [
        (
            r.name,
            f"Route {metadata_name(r.props)}: router timeout {path.fmt(outer)}{state} {_where(service, llm, fronts)} cuts a "
            f"request that sends no byte for that long (a long prefill, a non-streamed reply) with 504"
            f"{_undercut(service, fronts, outer)}; set the annotation {OPENSHIFT_TIMEOUT} above the longest request",
        )
    ]


def _undercut(service: str, fronts: dict[str, ModelProxy], outer: float) -> str:
    """ ", before the proxy behind it, which waits N s (proxy_read_timeout)" when an nginx proxy behind the edge waits
    longer than the edge does; "" otherwise."""
    inner = inner_wait(service, fronts)
    if inner is None or inner <= outer:
        return ""
    return f", before the {fronts[service].what} behind it, which waits {path.fmt(inner)} (proxy_read_timeout)"


def _contour(r: Resource, minimum: float, llm: set[str], known: set[str]) -> list[tuple[str, str]]:
    """Contour HTTPProxy routes to a model (or to Services the set does not hold) whose response timeout, set or left
    at Envoy's 15 s (policies/reading/edge_proxies.py), is at or below `minimum`."""
    found = []
    for route in proxies.contour_routes(r):
        models = sorted(set(route.services) & llm)
        unknown = sorted(set(route.services) - known)
        if not models and not unknown:
            continue
        cut = _cut(
            route.timeout,
            proxies.CONTOUR_RESPONSE_DEFAULT,
            minimum,
            "Envoy's 15s, unless Contour's configuration file sets timeouts.request-timeout",
        )
        if cut is not None:
            where = _where((models or unknown)[0], llm)
            found.append(
                (
                    r.name,
                    f"{route.label}: timeoutPolicy.response {path.fmt(cut[0])}{cut[1]} on an HTTPProxy route {where} cuts "
                    f"generations that run longer; set it above the longest request (or infinity)",
                )
            )
    return found


def _gke_route_context(resources: list[Resource]) -> tuple[set[str], set[str]]:
    """(names of the set's Gateways of a GKE class, Service/InferencePool names a GCPBackendPolicy gives a timeout)."""
    gateways = {
        str(get(g.props, "metadata", "name"))
        for g in resources
        if split_type(g.type) == ("gateway.networking.k8s.io", "Gateway")
        and str(get(g.props, "spec", "gatewayClassName") or "").startswith("gke-l7")
    }
    covered = {name for _, _, name, seconds in edge.gcp_backend_policies(resources) if seconds is not None}
    return gateways, covered


def _on_gke(r: Resource, gke: tuple[set[str], set[str]]) -> bool:
    """Whether an HTTPRoute hangs off a Gateway of a GKE class in the set."""
    names = [get(ref, "name") for ref in as_list(get(r.props, "spec", "parentRefs"))]
    return any(isinstance(n, str) and n in gke[0] for n in names)


def _httproute(r: Resource, minimum: float, llm: set[str], known: set[str], gke: tuple) -> list[tuple[str, str]]:
    """Gateway API routes to a model (a model's Service or an InferencePool), or to Services the set does not hold,
    left without timeouts.request (the gateway's default) or at/below `minimum`. On a GKE Gateway the load balancer's
    backend timeout (30 s unless a GCPBackendPolicy sets timeoutSec) is the default instead."""
    findings = []
    on_gke = _on_gke(r, gke)
    for route in path.httproute_routes(r):
        if on_gke and set(route.services) | set(route.inference_pools) <= gke[1]:
            continue  # a GCPBackendPolicy of the set gives every backend its timeout (_gcp_backend_policy judges it)
        models = set(route.services) & llm
        unknown = bool(route.services) and not set(route.services) & known and not route.inference_pools
        if not models and not route.inference_pools and not unknown:
            continue
        if route.inference_pools:
            to = f"to an LLM (InferencePool {', '.join(route.inference_pools)})"
        elif models:
            to = "to an LLM"
        else:
            to = f"to Service {', '.join(sorted(set(route.services)))}, which this set does not hold (if it serves a model)"
        if route.timeout is None:
            default = (
                f"GKE's backend service timeout applies ({edge.GCE_BACKEND_TIMEOUT_DEFAULT}s unless a GCPBackendPolicy "
                f"sets timeoutSec)"
                if on_gke
                else f"the gateway's default applies (Envoy Gateway {path.ENVOY_ROUTE_DEFAULT}s, KServe "
                f"{path.KSERVE_HTTPROUTE_DEFAULT}s)"
            )
            findings.append(
                (r.name, f"{route.label}: no timeouts.request on a route {to}: {default}; set it above the longest request")
            )
        elif route.timeout <= minimum:
            findings.append(
                (
                    r.name,
                    f"{route.label}: timeouts.request {path.fmt(route.timeout)}{_named(route.timeout)} on a route {to} "
                    f"cuts generations",
                )
            )
    return findings


def _cut(set_to: float | None, default: float, minimum: float, default_name: str) -> tuple[float, str] | None:
    """(seconds, " (unset: <default_name>)" or "") when a timeout, set or left at `default`, is at or below `minimum`."""
    seconds = default if set_to is None else set_to
    if seconds > minimum:
        return None
    return seconds, (f" (unset: {default_name})" if set_to is None else "")


def _where(service: str, llm: set[str], fronts: dict[str, ModelProxy] | None = None) -> str:
    """How a message names the backend: a model of the set, a proxy in front of one, or a Service the set does not
    hold."""
    proxy = (fronts or {}).get(service)
    if proxy is not None:
        return f"in front of Service {service} ({proxy.what})"
    if service in llm:
        return f"in front of an LLM ({service})"
    return f"in front of Service {service}, which this set does not hold (if it serves a model),"


def _edge_of(ingress: Resource, service: str, port: object, context: tuple) -> tuple[str, edge.EdgeTimeout] | None:
    """(what the edge is, its timeout for this backend) of an ALB, GKE, NGINX Inc., ingress-nginx, Kong, Application
    Gateway or Traefik Ingress;
    None otherwise."""
    if path.is_alb_ingress(ingress):
        idle, explicit = path.alb_idle_seconds(ingress)
        return "ALB idle_timeout.timeout_seconds", edge.EdgeTimeout(idle, "set" if explicit else "unset: the ALB's default")
    if edge.is_gce_ingress(ingress):
        services, configs = context[0], context[1]
        found = edge.gce_backend_timeout(services.get(service), port, configs)
        return ("GKE backend service timeout (BackendConfig timeoutSec)", found) if found is not None else None
    if edge.is_nginx_inc_ingress(ingress, context[2]):
        return edge.NGINX_INC_READ, edge.nginx_inc_read_timeout(ingress)
    if edge.is_nginx_ingress(ingress):
        read, explicit = edge.nginx_read_seconds(ingress)
        how = "set" if explicit else "unset: ingress-nginx's default unless its ConfigMap changes it"
        return f"{edge.NGINX}/proxy-read-timeout", edge.EdgeTimeout(read, how)
    if edge.is_kong_ingress(ingress):
        return f"Kong read timeout (Service annotation {edge.KONG_READ_TIMEOUT})", edge.kong_read_timeout(context[0].get(service))
    if entry.is_agic_ingress(ingress):
        seconds, explicit = entry.agic_request_timeout(ingress)
        how = "set" if explicit else "unset: Application Gateway's default"
        return f"Application Gateway {entry.AGIC_REQUEST_TIMEOUT}", edge.EdgeTimeout(seconds, how)
    if entry.is_traefik_ingress(ingress):
        seconds, explicit = entry.traefik_read_timeout(entry.ingress_entry_points(ingress), context[3])
        how = "set" if explicit else _TRAEFIK_UNSET
        return "Traefik entry point readTimeout", edge.EdgeTimeout(seconds, how)
    return None


_TRAEFIK_UNSET = "unset in these files: Traefik's default from v2.11.2 and v3.0 unless its static configuration sets it"


def _traefik_route(
    r: Resource, minimum: float, llm: set[str], known: set[str], fronts: dict[str, ModelProxy], configured: dict[str, float]
) -> list[tuple[str, str]]:
    """A Traefik IngressRoute to a model (a proxy in front of one, or a Service the set does not hold) on entry points
    whose readTimeout, set in the files' Traefik configuration or left at 60 s, is at or below `minimum` or below the
    proxy_read_timeout of the nginx proxy behind it."""
    points = entry.route_entry_points(r)
    seconds, explicit = entry.traefik_read_timeout(points, configured)
    services = proxies.traefik_edge(r, []).services  # unheld ones only where none is held, as for an Ingress (review51b)
    unknown = not set(services) & known
    for service in sorted(services, key=lambda s: s not in llm and s not in fronts):
        inner = inner_wait(service, fronts)
        if service not in llm and service not in fronts and (service in known or not unknown):
            continue
        if seconds > minimum and (inner is None or inner <= seconds):
            continue
        state = "" if explicit else f" ({_TRAEFIK_UNSET})"
        shown = f"entry points {', '.join(points)}" if points else "every entry point"
        return [
            (
                r.name,
                f"IngressRoute {metadata_name(r.props)} on {shown}: Traefik's respondingTimeouts.readTimeout "
                f"{path.fmt(seconds)}{state} {_where(service, llm, fronts)} ends every request still answering after "
                f"{path.fmt(seconds)} from its start (a streamed generation included, HTTP/1.1){_undercut(service, fronts, seconds)}; "
                f"set the entry point's transport.respondingTimeouts.readTimeout above the longest request",
            )
        ]
    return []


def _ingress(
    ing: Resource, minimum: float, llm: set[str], known: set[str], context: tuple, fronts: dict[str, ModelProxy]
) -> list[tuple[str, str]]:
    """Findings for one Ingress: an edge left at or below `minimum` in front of a model (or a proxy in front of one),
    or in front of a backend this set does not hold (said as such: whether it serves a model is not known here); or an
    edge that cuts sooner than the nginx proxy behind it waits (proxy_read_timeout)."""
    backends = edge.ingress_backend_ports(ing)
    names = {n for n, _ in backends}
    unknown = not names & known
    findings = []
    for service, port in backends:
        inner = inner_wait(service, fronts)
        if service not in llm and not unknown and inner is None:
            continue
        found = _edge_of(ing, service, port, context)
        if found is None or (found[1].seconds > minimum and (inner is None or inner <= found[1].seconds)):
            continue
        what, timeout = found
        state = "" if timeout.explicit else f" ({timeout.how})"
        # The ALB's message keeps its original form (no Service named) for a model's backend.
        if service in llm and what.startswith("ALB") and service not in fronts:
            where = "in front of an LLM"
        else:
            where = _where(service, llm, fronts)
        t = path.fmt(timeout.seconds)
        if what.startswith("GKE"):
            cut = f"cuts every response that takes longer than {t} in all (a streamed generation included)"
        elif what.startswith("Traefik"):
            cut = f"ends every request still answering {t} after its start (a streamed generation included, HTTP/1.1)"
        elif what.startswith("Application Gateway"):
            cut = f"fails a request whose backend has not answered within {t} (a long prefill, a non-streamed reply)"
        else:  # the ALB's idle timeout, nginx's proxy_read_timeout and Kong's read_timeout count the time between two bytes
            cut = f"cuts a request that sends no byte for {t} (a long prefill, a non-streamed reply)"
        value = t[:-1] if what.startswith("ALB") else t
        findings.append((ing.name, f"{what} {value}{state} {where} {cut}{_undercut(service, fronts, timeout.seconds)}"))
    return sorted(set(findings))


# Envoy AI Gateway's default request timeout of an AIGatewayRoute rule (envoyproxy/ai-gateway v1.1.0
# api/v1alpha1/ai_gateway_route_helper.go:15-17, GetTimeoutsOrDefault :36-50): 60 s instead of Envoy Gateway's 15 s.
AI_GATEWAY_DEFAULT = float(default_seconds("envoy-ai-gateway"))


def _ai_gateway_route(r: Resource, minimum: float) -> list[tuple[str, str]]:
    """An Envoy AI Gateway route (every rule sends to a model by design) left at or below `minimum`."""
    found = []
    for i, rule in enumerate(as_list(get(r.props, "spec", "rules"))):
        cut = _cut(
            path.duration_seconds(get(rule, "timeouts", "request")), AI_GATEWAY_DEFAULT, minimum, "Envoy AI Gateway's default"
        )
        if cut is not None:
            found.append(
                (
                    r.name,
                    f"spec.rules[{i}]: timeouts.request {path.fmt(cut[0])}{cut[1]} on an AI Gateway route cuts "
                    f"generations that run longer; set it above the longest request",
                )
            )
    return found


def _http_scaled_object(r: Resource, minimum: float, llm: set[str], known: set[str]) -> list[tuple[str, str]]:
    """The KEDA HTTP add-on interceptor in front of a model: its response-header timeout, set or the add-on's default."""
    service = get(r.props, "spec", "scaleTargetRef", "service")
    if not isinstance(service, str) or (service not in llm and service in known):
        return []
    seconds = edge.http_scaled_object_header_timeout(r)
    if seconds is not None and seconds > minimum:
        return []
    where = _where(service, llm)
    what = (
        f"spec.timeouts.responseHeader {path.fmt(seconds)}"
        if seconds is not None
        else "spec.timeouts.responseHeader unset (the interceptor's KEDA_HTTP_RESPONSE_HEADER_TIMEOUT: 500ms up to "
        "http-add-on v0.13.0, 300s from v0.14.0)"
    )
    return [
        (
            r.name,
            f"{what} {where}: the interceptor answers 504 when a reply's headers take longer (interceptor/handler/upstream.go:130-140), and a reply that is not "
            f"streamed sends them only when the generation ends; set it above the longest request",
        )
    ]


def _gcp_backend_policy(r: Resource, minimum: float, llm: set[str], pools: set[str]) -> list[tuple[str, str]]:
    """A GKE GCPBackendPolicy on a model's Service or InferencePool that leaves timeoutSec at or below `minimum`."""
    found = []
    for policy, kind, name, seconds in edge.gcp_backend_policies([r]):
        if not ((kind == "Service" and name in llm) or (kind == "InferencePool" and name in pools)):
            continue
        cut = _cut(seconds, float(edge.GCE_BACKEND_TIMEOUT_DEFAULT), minimum, "GKE's default")
        if cut is not None:
            found.append(
                (
                    policy.name,
                    f"spec.default.timeoutSec {path.fmt(cut[0])}{cut[1]} on {kind} {name} (a model) cuts a response "
                    f"that takes longer; set it above the longest request",
                )
            )
    return found


POLICY = Policy(
    name="llm-route-timeout-not-default",
    description="A route or ALB in front of an LLM must not be left at Envoy's 15 s or a gateway's / ALB's 60 s default timeout.",
    catalog="S9",
    severity="high",
    # A companion of S9's row (timeout-chain-ordered is the row's mandatory policy): the pack's rule
    # makes companions advisory; raise it with the pack config {"<name>": "mandatory"}.
    enforcement="advisory",
    remediation_steps=(
        "Set the VirtualService http[].timeout, the HTTPRoute rules[].timeouts.request and the ALB's "
        "idle_timeout.timeout_seconds from the model's longest request (components/timeouts.py)."
    ),
    config_schema={
        "minimumSeconds": {
            "type": "number",
            "minimum": 0,
            "default": 60,
            "description": "Route timeouts at or below this many seconds are refused on LLM routes; default 60 (a gateway's and the ALB's default).",
        },
    },
    check_stack=_check,
    rationale="Envoy route timeout default 15 s; KServe HTTPRoute and ALB idle default 60 s (Envoy RouteAction docs; kserve/kserve v0.20.0; ELBv2 API).",
)
