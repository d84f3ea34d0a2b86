"""S9: the request timeouts of one model's path shrink going inward: ALB idle > route > per-try > KServe.

Each layer that answers first must be the inner one, with its own status; when an outer layer's
timeout is shorter, it cuts a request the model is still serving and the client sees a 504 from
the ALB or Envoy. The stack check relates, per vLLM workload, the ALB Ingress in front of it
(directly, or in front of the Istio gateway its routes hang off), its VirtualService / HTTPRoute
routes, KServe's spec.predictor.timeout and the longest request vLLM drains (--shutdown-timeout),
and the ALB target group's deregistration delay that must let that request finish. A GKE Ingress backend's
BackendConfig timeoutSec and an ingress-nginx proxy-read-timeout, when set, must not be below that request either.
Sources: kubernetes-sigs/aws-load-balancer-controller v3.5.0 docs/guide/ingress/annotations.md and the ELBv2
API (ALB annotations and ranges); Envoy's RouteAction docs and istio/istio 1.30.3 (defaults); vllm-project/vllm v0.33.0.
"""

from __future__ import annotations

import re

from policies.framework import Policy, Resource, unproven
from policies.kube import as_float, as_list, get, name_of, split_type
from policies.llmisvc_presets import own_shutdown_timeout
from policies.reading import edge, litellm
from policies.reading import route_path as path
from policies.reading.gateway_apps import app_containers
from policies.reading.serving import ModelServer, container_argv, model_servers
from policies.reading.vllm_args import vllm_servers

# GKE's backend service timeout when no BackendConfig sets timeoutSec (policies/reading/edge.py cites it).
GKE_DEFAULT_SECONDS = float(edge.GCE_BACKEND_TIMEOUT_DEFAULT)
# Engines of components/serving_engines.toml that generate text ("GPU model" is a GPU pod of an image the table does
# not know; Triton serves any model, an embedding one included).
GENERATION_ENGINES = frozenset(
    {"vllm", "sglang", "tgi", "tensorrt-llm", "nim", "llama-cpp", "ollama", "lmdeploy", "localai", "ray"}
)
# vLLM's pooling forms: --task embed/embedding/score/classify/reward (vllm v0.10.1 vllm/config.py TaskOption) and, from
# v0.10.2, --runner pooling / --convert embed|classify|reward (vllm/config/model.py RunnerOption, ConvertOption);
# SGLang's --is-embedding (sglang 0.5.20 server_args.py).


_POOLING = re.compile(
    r"(^|\s)(--task[= ]+[\"']?(embed|embedding|score|classify|reward)|--runner[= ]+[\"']?pooling|"
    r"--convert[= ]+[\"']?(embed|classify|reward)|--is-embedding)([\"']|\s|$)"
)


def _pooling(server: ModelServer) -> bool:
    """Whether a model server only embeds or scores (answers in one forward pass, not a generation); the flags may sit
    in a shell script."""
    return bool(_POOLING.search(" ".join(container_argv(server.container))))


def _longest_request(resource: Resource) -> float | None:
    """The longest request the workload says it serves: KServe's timeout, else vLLM's --shutdown-timeout where the
    manifest writes it (not the one an LLMInferenceService preset derives from the grace period: own_shutdown_timeout)."""
    timeout = as_float(get(resource.props, "spec", "predictor", "timeout"))
    if timeout:
        return timeout
    if not own_shutdown_timeout(resource):
        return None
    drains = [d for s in vllm_servers(resource) if (d := as_float(s.args.get("shutdown-timeout")))]
    return max(drains) if drains else None


def _same_namespace(a: Resource, b: Resource) -> bool:
    ns_a, ns_b = get(a.props, "metadata", "namespace"), get(b.props, "metadata", "namespace")
    return ns_a is None or ns_b is None or ns_a == ns_b


def _proxy_chains(resources: list[Resource], albs: list[Resource], selectors: dict) -> list[tuple[str, str]]:
    """An ALB Ingress whose written idle timeout is below the longest non-streamed call the LiteLLM proxy behind it
    allows (its mounted configuration: policies/reading/litellm.py longest_call; BerriAI/litellm litellm/router.py
    Router._get_non_stream_timeout). A non-streamed reply sends no byte until it is done, so the ALB answers 504 at its
    idle timeout while LiteLLM still waits for the model: the outer layer cuts what the inner one allows. Reported on
    the Ingress, the layer that cuts. The proxy's Service is one of the files selecting its pods, or, where the files
    define no Service of the Ingress's backend name, the name the workload's own Service conventionally takes
    (route_path.named_services). Advisory: the calls may all be streamed, or shorter than the configuration allows."""
    found: list[tuple[str, str]] = []
    defined = set(edge.services_by_name(resources))
    for w in resources:
        calls = [
            c
            for a in app_containers(w)
            if a.app.name == "litellm" and (c := litellm.longest_call(a.podspec, a.container, stream=False))
        ]
        if not calls:
            continue
        longest, where = max(calls)
        services = path.workload_services(w, selectors)
        named = path.named_services(w, defined)
        for alb in albs:
            idle, explicit = path.alb_idle_seconds(alb)
            backends = set(path.ingress_backends(alb))
            if not (backends & services or (backends & named and _same_namespace(alb, w))):
                continue
            if explicit and longest > idle:
                found.append(
                    (
                        alb.name,
                        unproven(
                            f"ALB idle_timeout.timeout_seconds={path.fmt(idle)[:-1]} cuts a reply that sends no byte for "
                            f"{path.fmt(idle)} (a non-streamed generation) with 504, while the LiteLLM proxy "
                            f"{get(w.props, 'metadata', 'name')} behind it lets a model call run {path.fmt(longest)} "
                            f"({where}) and still waits; raise the idle timeout above the proxy's timeout, or lower the "
                            f"proxy's to it"
                        ),
                    )
                )
    return found


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    selectors = path.service_selectors(resources)
    albs = [r for r in resources if path.is_alb_ingress(r)]
    routes = [(r, route) for r in resources if r.type in path.VS_TYPES for route in path.vs_routes(r)]
    routes += [(r, route) for r in resources if r.type in path.HTTPROUTE_TYPES for route in path.httproute_routes(r)]
    workloads = [r for r in resources if vllm_servers(r)]
    llm_services = set().union(*(path.workload_services(w, selectors) for w in workloads)) if workloads else set()
    # An ALB whose backends are no model's Service fronts a gateway, and so every routed model.
    gateway_albs = [a for a in albs if not set(path.ingress_backends(a)) & llm_services]
    findings: list[tuple[str, str]] = []
    for w in workloads:
        services = path.workload_services(w, selectors)
        mine = [(r, route) for r, route in routes if set(route.services) & services]
        direct = [a for a in albs if set(path.ingress_backends(a)) & services]
        fronts = direct + (gateway_albs if mine else [])
        kserve = as_float(get(w.props, "spec", "predictor", "timeout"))
        longest = _longest_request(w)
        for alb in fronts:
            idle, explicit = path.alb_idle_seconds(alb)
            for r, route in mine:
                if route.timeout is not None and route.timeout > idle:
                    findings.append(
                        (
                            r.name,
                            f"{route.label}: route timeout {path.fmt(route.timeout)} is above the idle timeout "
                            f"{path.fmt(idle)} of ALB Ingress {alb.name}, which cuts the request first (504)",
                        )
                    )
            if kserve is not None and kserve > idle:
                findings.append(
                    (
                        w.name,
                        f"spec.predictor.timeout {path.fmt(kserve)} is above the idle timeout {path.fmt(idle)} of "
                        f"ALB Ingress {alb.name}",
                    )
                )
            if explicit and longest is not None and longest > idle:
                findings.append(
                    (
                        w.name,
                        f"serves requests up to {path.fmt(longest)} but ALB Ingress {alb.name} "
                        f"(idle_timeout.timeout_seconds={path.fmt(idle)[:-1]}) cuts them at {path.fmt(idle)}",
                    )
                )
        for alb in direct:
            delay, _ = path.alb_deregistration_seconds(alb)
            if longest is not None and delay < longest:
                findings.append(
                    (
                        w.name,
                        f"ALB Ingress {alb.name} deregistration_delay.timeout_seconds={path.fmt(delay)[:-1]} is below the "
                        f"longest request {path.fmt(longest)}: a draining pod's streams are cut",
                    )
                )
        for r, route in mine:
            if route.per_try is not None and route.timeout is not None and route.per_try > route.timeout:
                findings.append(
                    (
                        r.name,
                        f"{route.label}: perTryTimeout {path.fmt(route.per_try)} is above the route timeout "
                        f"{path.fmt(route.timeout)}",
                    )
                )
            inner = route.per_try if route.per_try is not None else route.timeout
            if kserve is not None and inner is not None and kserve > inner:
                findings.append(
                    (
                        r.name,
                        f"{route.label}: {'perTryTimeout' if route.per_try is not None else 'timeout'} "
                        f"{path.fmt(inner)} is below {w.name}'s spec.predictor.timeout {path.fmt(kserve)}",
                    )
                )
            if kserve is None and longest is not None and inner is not None and longest > inner:
                findings.append(
                    (r.name, f"{route.label}: {path.fmt(inner)} is below the longest request {path.fmt(longest)} {w.name} serves")
                )
    findings += _proxy_chains(resources, albs, selectors) + _gke_and_nginx(resources, workloads, selectors)
    findings += _gke_default(resources, selectors)
    findings += _gke_gateway_default(resources, selectors)
    return sorted(set(findings))


def _cut_at_gke_default(w: Resource) -> tuple[float | None, bool] | None:
    """For a workload whose model servers generate (not all pooling) and that states no longest request within GKE's
    30 s: (its longest request, whether no engine of it is a known generation engine); None for any other workload.
    An engine the table does not know (a GPU pod of another image) may be an embedding server answering in well under
    30 s: the callers make that advice."""
    servers = model_servers(w)
    if not servers or all(_pooling(s) for s in servers):
        return None
    longest = _longest_request(w)
    if longest is not None and longest <= GKE_DEFAULT_SECONDS:
        return None
    return longest, all(s.engine not in GENERATION_ENGINES for s in servers)


def _gke_default(resources: list[Resource], selectors: dict) -> list[tuple[str, str]]:
    """A GKE Ingress in front of a model server whose Service, in the set, names no BackendConfig (or one of the set
    without timeoutSec): the backend service keeps GKE's 30 s, which bounds the whole response of an external or
    internal Application Load Balancer, so every generation that takes longer is cut; the set proves it (session 24
    review R4). A Service or BackendConfig outside the set leaves it to llm-route-timeout-not-default's advice."""
    services, configs = edge.services_by_name(resources), edge.backend_configs(resources)
    ingresses = [r for r in resources if r.type in path.INGRESS_TYPES and edge.is_gce_ingress(r)]
    found = []
    for w in resources if ingresses else []:
        cut = _cut_at_gke_default(w)
        if cut is None:
            continue
        longest, unknown_engine = cut
        mine = path.workload_services(w, selectors)
        for ing in ingresses:
            for service, port in edge.ingress_backend_ports(ing):
                timeout = edge.gce_backend_timeout(services[service], port, configs) if service in services else None
                if service not in mine or timeout is None or timeout.explicit:
                    continue
                stated = f" (it states {path.fmt(longest)} as its longest request)" if longest is not None else ""
                message = (
                    f"Ingress {get(ing.props, 'metadata', 'name')} (GKE) sends to {service}, in front of {get(w.props, 'metadata', 'name')}'s "
                    f"model server, with the backend service timeout at {path.fmt(timeout.seconds)} ({timeout.how}): "
                    f"it bounds the whole response, so every generation that takes longer is cut (502/504){stated}; set "
                    f"timeoutSec in a BackendConfig above the longest request"
                )
                if unknown_engine:
                    message = unproven(message + " (if this server generates; an embedding server answers sooner)")
                found.append((ing.name, message))
    return found


def _gke_gateway_default(resources: list[Resource], selectors: dict) -> list[tuple[str, str]]:
    """An HTTPRoute on a GKE Gateway (class gke-l7-*) of the set to a generation server's Service that a GCPBackendPolicy
    of the set targets without timeoutSec: the backend service keeps GKE's 30 s, as for a gce Ingress above (review 32
    R13). With no GCPBackendPolicy of the set on the Service, one in another file may set it: left to
    llm-route-timeout-not-default's advice."""
    gateways = {
        name_of(get(g.props, "metadata"))
        for g in resources
        if split_type(g.type) == ("gateway.networking.k8s.io", "Gateway")
        and str(get(g.props, "spec", "gatewayClassName") or "").startswith("gke-l7")
    }
    policies: dict[str, list] = {}
    for policy, kind, name, seconds in edge.gcp_backend_policies(resources):
        if kind == "Service":
            policies.setdefault(name, []).append((policy, seconds))
    routes = [
        (r, route)
        for r in resources
        if r.type in path.HTTPROUTE_TYPES
        and any(isinstance(n := get(ref, "name"), str) and n in gateways for ref in as_list(get(r.props, "spec", "parentRefs")))
        for route in path.httproute_routes(r)
    ]
    found = []
    for w in resources if routes else []:
        cut = _cut_at_gke_default(w)
        if cut is None:
            continue
        longest, unknown_engine = cut
        mine = path.workload_services(w, selectors)
        for r, route in routes:
            for service in sorted(set(route.services) & mine):
                on = policies.get(service, [])
                if not on or any(seconds is not None for _, seconds in on) or route.timeout is not None:
                    continue
                stated = f" (it states {path.fmt(longest)} as its longest request)" if longest is not None else ""
                message = (
                    f"{route.label}: HTTPRoute {get(r.props, 'metadata', 'name')} on a GKE Gateway sends to {service}, in "
                    f"front of {get(w.props, 'metadata', 'name')}'s model server, whose GCPBackendPolicy "
                    f"{get(on[0][0].props, 'metadata', 'name')} leaves timeoutSec at GKE's {path.fmt(GKE_DEFAULT_SECONDS)}: "
                    f"it bounds the whole response, so every generation that takes longer is cut (502/504){stated}; set "
                    f"spec.default.timeoutSec above the longest request"
                )
                found.append((r.name, unproven(message + " (if this server generates)") if unknown_engine else message))
    return found


def _gke_and_nginx(resources: list[Resource], workloads: list[Resource], selectors: dict) -> list[tuple[str, str]]:
    """A GKE Ingress backend's BackendConfig timeoutSec, or an ingress-nginx or NGINX Inc. proxy-read-timeout, set
    explicitly below the longest request the workload behind it serves (policies/reading/edge.py cites them)."""
    services, configs = edge.services_by_name(resources), edge.backend_configs(resources)
    classes = edge.ingress_class_controllers(resources)
    found = []
    for w in workloads:
        longest = _longest_request(w)
        if longest is None:
            continue
        mine = path.workload_services(w, selectors)
        for ing in (r for r in resources if r.type in path.INGRESS_TYPES):
            for service, port in edge.ingress_backend_ports(ing):
                if service not in mine:
                    continue
                if edge.is_gce_ingress(ing):
                    timeout = edge.gce_backend_timeout(services.get(service), port, configs)
                    what = "BackendConfig timeoutSec"
                elif edge.is_nginx_inc_ingress(ing, classes):
                    timeout, what = edge.nginx_inc_read_timeout(ing), edge.NGINX_INC_READ
                elif edge.is_nginx_ingress(ing):
                    read, explicit = edge.nginx_read_seconds(ing)
                    timeout = edge.EdgeTimeout(read, "set" if explicit else "unset")
                    what = f"{edge.NGINX}/proxy-read-timeout"
                else:
                    continue
                if timeout is not None and timeout.explicit and timeout.seconds < longest:
                    message = (
                        f"serves requests up to {path.fmt(longest)} but Ingress {get(ing.props, 'metadata', 'name')} ({what}="
                        f"{path.fmt(timeout.seconds)[:-1]}) cuts them at {path.fmt(timeout.seconds)}"
                    )
                    # nginx's proxy_read_timeout runs between two reads, so a streamed reply is not cut; only a
                    # non-streamed one that sends nothing for that long is, and the manifests do not say which clients
                    # send (session 24 review F14): advice. GKE's timeoutSec bounds the whole response: it blocks.
                    nginx = what.endswith("proxy-read-timeout")
                    found.append((w.name, unproven(message + " (if replies are not streamed)") if nginx else message))
    return found


POLICY = Policy(
    name="timeout-chain-ordered",
    description="Request timeouts shrink going inward: ALB idle > route timeout > per-try timeout > the longest request (and a KServe spec.predictor.timeout, where one is set, in between).",
    catalog="S9",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Derive every layer from the model's longest request: Istio retries.perTryTimeout and http[].timeout a few "
        "seconds above it (KServe's spec.predictor.timeout, if set, no higher than the per-try timeout: KServe v0.20.0 "
        "enforces it only on a Gateway API HTTPRoute), the ALB's "
        "alb.ingress.kubernetes.io/load-balancer-attributes idle_timeout.timeout_seconds above the route timeout (1-4000 s), "
        "and target-group deregistration_delay.timeout_seconds at least the request. components/timeouts.py does this."
    ),
    check_stack=_check,
    rationale=(
        "The ALB's idle timeout defaults to 60 s (range 1-4000 s) and Envoy's route timeout to 15 s "
        "(ELBv2 API LoadBalancerAttribute; Envoy RouteAction.timeout); when an outer layer's timeout is shorter than an inner one the outer cuts the "
        "stream and the client gets a 504 for a healthy request."
    ),
)
