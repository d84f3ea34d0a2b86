"""G32: a model published outside the cluster must speak TLS and authenticate its callers, whatever the edge.

policies/reading/exposure.py reads the edges other people write (an Ingress of any class but ALB and GKE's gce,
which have their own G32 policies; Gateway API Gateways and routes; Istio Gateway + VirtualService; OpenShift Route),
how far each reaches, its TLS and what authenticates callers; each fact is cited there.

The finding blocks only when the files prove all of it: the edge is public (an external GKE class, Envoy Gateway's or
Istio's default LoadBalancer), a model is behind it in the set (a model server's Service, an InferencePool, an AI
Gateway backend, or an LLM router in front of models: vLLM's production-stack router, LiteLLM's proxy, vLLM's
semantic-router, AIBrix's gateway plugins, components/serving_apps.toml), and neither TLS nor any
authentication is there (a router's own keys are in its configuration, so an edge to a router alone is advice). Everything else that may be a public model
without TLS or without auth is advice: a controller's Service outside the files (nginx, Traefik, no class), a backend
in another file, or one of the two guards present. An edge whose backends are all known non-models (a UI, Grafana)
or whose reach is internal is not reported.

OpenDataHub / OpenShift AI publish an InferenceService themselves when it carries the label
``networking.kserve.io/visibility: exposed`` (opendatahub-io/kserve at 3cf0a0416 pkg/constants/constants_odh.go:35
ODHRouteEnabled, constants.go:187; reconcilers/ingress/kube_ingress_reconciler.go:183 takes its URL from the OpenShift
Route made for it), and put a token-checking proxy in front of the model only when the annotation
``security.opendatahub.io/enable-auth`` is "true" (constants_odh.go:33; kube_ingress_reconciler.go:134-137,
deployment_reconciler.go:167, case-insensitive). An exposed InferenceService without it, and without the server's own
API key, is advice: whether the Route's apps domain is public is not in the files.
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.kube import annotations_of, as_dict, as_list, get, split_type
from policies.reading import exposure, model_backends
from policies.reading.model_callers import model_callers
from policies.reading.outside_servers import outside_servers
from policies.reading.release_edges import release_edge_findings
from policies.reading.serving import model_servers

ODH_VISIBILITY = "networking.kserve.io/visibility"
ODH_AUTH = "security.opendatahub.io/enable-auth"


def _odh_exposed(resources: list[Resource]) -> list[tuple[str, str]]:
    """Advice for each InferenceService OpenDataHub exposes through a Route with no token check (module docstring)."""
    found: list[tuple[str, str]] = []
    for r in resources:
        if split_type(r.type) == ("serving.kserve.io", "LLMInferenceService"):
            found += _llmisvc_unauthenticated(r)
            continue
        if split_type(r.type) != ("serving.kserve.io", "InferenceService"):
            continue
        label = get(r.props, "metadata", "labels", ODH_VISIBILITY)
        auth = str(annotations_of(r.props).get(ODH_AUTH, "")).strip().lower()
        if label != "exposed" or auth == "true":
            continue
        if any(model_backends.server_has_key(s.container) for s in model_servers(r)):
            continue  # the server's own API key guards it
        found.append(
            (
                r.name,
                unproven(
                    f"metadata.labels {ODH_VISIBILITY}: exposed makes OpenDataHub / OpenShift AI publish this model through "
                    f"an OpenShift Route on the cluster's apps domain (possibly public: the router's reach is not in these "
                    f'files), and {ODH_AUTH} is not "true", so no token check stands in front of it and nothing in these '
                    f'files authenticates callers; set {ODH_AUTH}: "true" or drop the label'
                ),
            )
        )
    return found


def _llmisvc_unauthenticated(r: Resource) -> list[tuple[str, str]]:
    """Advice for an LLMInferenceService routed through a gateway with OpenDataHub's token check turned off: the check
    is on unless ``security.opendatahub.io/enable-auth`` is "false" (opendatahub-io/kserve 3cf0a0416
    pkg/apis/serving/v1alpha2/llm_inference_service_types_func_odh.go:27-29 IsAuthEnabled, case-insensitive), and
    ``spec.router.route`` / ``spec.router.gateway`` make KServe publish the model on the gateway named there."""
    auth = annotations_of(r.props).get(ODH_AUTH)
    router = get(r.props, "spec", "router")
    if not (isinstance(auth, str) and auth.strip().lower() == "false") or not isinstance(router, dict):
        return []
    if "route" not in router and "gateway" not in router:
        return []
    if any(model_backends.server_has_key(s.container) for s in model_servers(r)):
        return []  # the server's own API key guards it
    return [
        (
            r.name,
            unproven(
                f'metadata.annotations {ODH_AUTH}: "false" turns off OpenDataHub\'s token check, and spec.router '
                f"publishes this model through the gateway it names (possibly public: the gateway's reach is not in "
                f"these files), so nothing in these files authenticates callers; drop the annotation or set an API key "
                f"on the server"
            ),
        )
    ]


# Request headers that carry a caller's credential (an API key, a bearer token).
_CREDENTIAL_HEADERS = ("request.headers[authorization]", "request.headers[x-api-key]", "request.headers[api-key]")


def _key_in_clear(pub: exposure.Publication, resources: list[Resource]) -> bool:
    """True when the guard requires of callers a credential they send with each request (an Istio AuthorizationPolicy
    ALLOW rule matching an Authorization or API-key header, the model server's API key): over a listener without TLS
    that key crosses the network in clear text, a leaked secret (spent set 17: akamai-developers/kuberay-gpu-llm-
    quickstart manifests/gateway.yaml@2622d85, a Bearer key on plain HTTP 80, labelled blocking). A RequestAuthentication
    alone requires no token (requests without one pass), so it is not read as one."""
    guard = pub.guard or ""
    if "asks for an API key" in guard:
        return True
    if not guard.startswith("Istio AuthorizationPolicy"):
        return False
    for r in resources:
        if split_type(r.type) != ("security.istio.io", "AuthorizationPolicy"):
            continue
        for rule in as_list(get(r.props, "spec", "rules")):
            for cond in as_list(as_dict(rule).get("when")):
                if isinstance(cond, dict) and str(cond.get("key", "")).lower() in _CREDENTIAL_HEADERS:
                    return True
    return False


def _missing(pub: exposure.Publication) -> list[str]:
    out = []
    if pub.tls is False:
        out.append("no TLS (prompts, answers and any key cross the network in clear text)")
    elif pub.tls is None:
        out.append("TLS decided by a Gateway not in these files")
    if pub.guard is None:
        out.append("nothing in these files authenticates callers")
    return out


def _behind(pub: exposure.Publication, state: str) -> str:
    named = list(pub.pools) + [f"Service {s}" for s in pub.services]
    shown = ", ".join(named) if named else "backends in other files"
    if state == "model":
        return f"publishes a model ({shown})"
    return f"publishes {shown}, which these files do not show (if it serves a model)"


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    routers = model_backends.router_services(resources)
    outside = outside_servers(resources)  # a selector-less Service to a LAN box on an engine's own port
    llm = model_backends.model_services(resources) | set(routers) | set(outside)
    known = set(model_backends.selected_services(resources)) | llm
    keys = model_backends.key_states(resources)
    findings: list[tuple[str, str]] = []
    callers: dict[str, str] | None = None
    for pub in exposure.publications(resources):
        if pub.reach.level == "internal":
            continue
        state = exposure.model_behind(pub, llm, known)
        if state == "none" and pub.guard is None:
            callers = _callers(resources) if callers is None else callers
            findings += _caller_published(pub, callers)
        if state == "none" or (pub.tls is not False and pub.guard is not None):
            continue
        missing = _missing(pub)
        reach = "public" if pub.reach.level == "public" else "possibly public"
        # A model server taking an envFrom Secret may read its key variable from it: the key is unknown.
        secrets = sorted({n for n in pub.services if keys.get(n, False) is None})
        maybe = f" (unless the envFrom Secret of the server behind {', '.join(secrets)} sets its API key)" if secrets else ""
        # An LLM router's own keys: LiteLLM's LITELLM_MASTER_KEY guards it; otherwise they may live in its configuration
        # (LiteLLM's master_key in a ConfigMap or Secret), which these files may not show.
        routed = sorted(n for n in pub.services if n in routers and not set(pub.services) & (llm - set(routers)))
        router_key = bool(routed) and all(routers[n][1] for n in routed)
        if router_key:
            if pub.tls is not False:
                continue  # TLS, and the router asks for its key: guarded as a keyed model server is
            missing = [m for m in missing if not m.startswith("nothing in these files")]
        elif routed and pub.guard is None:
            maybe += f" (the {routers[routed[0]][0]} behind {', '.join(routed)} may check keys from its own configuration)"
        leak = pub.tls is False and pub.guard is not None and _key_in_clear(pub, resources)
        far = sorted(n for n in pub.services if n in outside)
        maybe += "".join(f" (Service {n} has {outside[n]})" for n in far[:1])
        message = f"{pub.what} ({reach}: {pub.reach.why}) {_behind(pub, state)} with {' and '.join(missing)}{maybe}"
        proven = pub.reach.level == "public" and state == "model" and pub.tls is False and (pub.guard is None or leak)
        proven = proven and not secrets and not routed and not far
        findings.append((pub.resource.name, message if proven else unproven(message)))
    return findings + _odh_exposed(resources) + release_edge_findings(resources)


def _callers(resources: list[Resource]) -> dict[str, str]:
    """Service name -> what stands behind it, for the Services of apps that call a model by the URL their environment
    gives (policies/reading/model_callers.py: an agent, a RAG backend, a custom API; chat UIs left out), and of apps
    whose image is named as an LLM router or gateway (model_backends.named_routers: a custom router holding provider
    keys, session 55, spent set 118 bartek-boniecki/llm-router k8s/ingress.yaml)."""
    found = {name: what for name, (what, _, caller) in model_callers(resources).items() if caller}
    for name, what in model_backends.named_routers(resources).items():
        found.setdefault(name, what)
    return found


def _caller_published(pub: exposure.Publication, callers: dict[str, str]) -> list[tuple[str, str]]:
    """Advice for an edge with no guard in front of an app that calls a model: every request it takes drives the model
    (spent set 74 majonation/k8-ollama-deployment k8s/api/ingress.yaml: an nginx Ingress, TLS commented out, to llm-api,
    which calls Ollama at OLLAMA_URL). Whether the app authenticates its callers itself is in its code, not in these
    files: advisory."""
    hit = next((n for n in pub.services if n in callers), None)
    if hit is None:
        return []
    reach = "public" if pub.reach.level == "public" else "possibly public"
    tls = "" if pub.tls is not False else " and no TLS (prompts and answers cross the network in clear text)"
    return [
        (
            pub.resource.name,
            unproven(
                f"{pub.what} ({reach}: {pub.reach.why}) publishes Service {hit} ({callers[hit]}), an app that calls a "
                f"model, with nothing in these files authenticating callers{tls}: whoever reaches it drives the model "
                f"through it, unless the app checks its callers itself; add auth at the edge (auth-url, a forwardAuth "
                f"middleware, an oauth2-proxy) or keep the edge internal"
            ),
        )
    ]


POLICY = Policy(
    name="public-model-endpoint-guarded",
    description="A model published outside the cluster through any edge (an Ingress of any class such as nginx, Traefik, "
    "Kong, HAProxy or none; a Gateway API Gateway/HTTPRoute/GRPCRoute of any class such as GKE external, Envoy "
    "Gateway or Istio; an Envoy AI Gateway route; an Istio Gateway/VirtualService; an OpenShift Route; a Traefik IngressRoute; a Contour "
    "HTTPProxy; the route or Ingress a bjw-s app-template release renders from its values) must terminate TLS and "
    "authenticate callers (auth annotations or middleware, SecurityPolicy/AuthPolicy, Istio RequestAuthentication, IAP, "
    "or the model server's API key); blocking when the files prove a public edge, a model behind it and neither guard.",
    catalog="G32",
    severity="critical",
    enforcement="mandatory",
    remediation_steps=(
        "Terminate TLS at the edge (Ingress spec.tls, a Gateway listener of protocol HTTPS with certificateRefs, an "
        "Istio Gateway server of protocol HTTPS, a Route's spec.tls) and authenticate callers in front of the model: "
        "ingress-nginx auth-url/auth-type, an oauth2-proxy, a Traefik forwardAuth/basicAuth middleware, a Kong auth "
        "plugin, a Contour virtualhost authorization server or jwtProviders, an Envoy Gateway SecurityPolicy (apiKeyAuth, jwt, oidc, basicAuth, extAuth), Istio "
        "RequestAuthentication with an AuthorizationPolicy, GKE IAP, or the server's own key (vLLM --api-key / "
        "VLLM_API_KEY from a Secret). Or keep the edge internal (an internal class or load-balancer annotation, an "
        'EnvoyProxy Service of type ClusterIP). Annotate llm-serving.io/exempt-public-model-endpoint-guarded: "<reason>" '
        "where a guard lives outside these files."
    ),
    check_stack=_check,
    rationale=(
        "An inference endpoint reachable from the internet without TLS leaks prompts, answers and API keys; without "
        "authentication it serves strangers on GPUs that cost dollars an hour (OWASP LLM10 unbounded consumption). "
        "Envoy Gateway exposes a Gateway through a LoadBalancer Service by default (envoyproxy/gateway v1.9.0 "
        "api/v1alpha1/envoyproxy_helpers.go:115-121), Istio its class istio likewise (istio 1.30.3 "
        "pilot/pkg/config/kube/gatewaycommon/classinfo.go:111), and GKE's external Gateway classes are internet-facing "
        "Application Load Balancers (https://cloud.google.com/kubernetes-engine/docs/concepts/gateway-api)."
    ),
)
