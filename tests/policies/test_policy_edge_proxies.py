"""Edges read since review 32's last stop: Traefik IngressRoute, Contour HTTPProxy (G32 and S9), and LLM routers
behind an edge (G32).

Forms: Traefik's IngressRoute reference (traefik/traefik v3.7.9 docs/content/reference/dynamic-configuration/
kubernetes-crd-resource.yml:78-108, entry points web and websecure, a route to Service s1, a route with a middleware),
Contour's examples (projectcontour/contour v1.33.6 examples/example-workload/httpproxy/01-ingress-to-httpproxy/
basic-httpproxy.yaml and httpproxy-tls.yaml), LiteLLM's Kubernetes deployment (BerriAI/litellm deploy/kubernetes/
kub.yaml at 57a634d57ea409eb506c8bdba1d1393a64d1a143 and service.yaml at dac9e41e97b7b7402fa7ada39383338e986a3907),
each with a model server (or the router) as the backend, reduced by hand.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

from policies.reading.edge_proxies import contour_routes
from policies.reading.model_backends import router_kind
from tests.policies.policy_fixtures import manifest

VLLM = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "s1", "namespace": "default"},
    "spec": {
        "selector": {"matchLabels": {"app": "s1"}},
        "template": {
            "metadata": {"labels": {"app": "s1"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.10.1",
                        "args": ["--model", "/models/qwen"],
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                    }
                ]
            },
        },
    },
}
SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "s1", "namespace": "default"},
    "spec": {"selector": {"app": "s1"}, "ports": [{"port": 80, "targetPort": 8000}]},
}
INGRESS_ROUTE = {
    "apiVersion": "traefik.io/v1alpha1",
    "kind": "IngressRoute",
    "metadata": {"name": "ingressroute", "namespace": "default"},
    "spec": {
        "entryPoints": ["web", "websecure"],
        "routes": [
            {"match": "Host(`example.net`) && PathPrefix(`/bar`)", "kind": "Rule", "services": [{"name": "s1", "port": 80}]}
        ],
    },
}
HTTP_PROXY = {
    "apiVersion": "projectcontour.io/v1",
    "kind": "HTTPProxy",
    "metadata": {"name": "basic", "namespace": "default"},
    "spec": {
        "virtualhost": {"fqdn": "foo-basic.bar.com"},
        "routes": [{"conditions": [{"prefix": "/"}], "services": [{"name": "s1", "port": 80}]}],
    },
}
G32 = "public-model-endpoint-guarded"


def test_traefik_ingress_route_publishes_a_model_as_advice():
    ((level, message),) = found_by([VLLM, SERVICE, INGRESS_ROUTE], G32)
    assert level == "advisory"  # Traefik's own Service is not in the files: never proven public
    assert message.startswith("IngressRoute default/ingressroute (Traefik on entry points web, websecure) (possibly public")
    assert "no TLS" in message and "nothing in these files authenticates callers" in message
    # TLS and an authenticating middleware (the reference's second route names one): nothing to report.
    guarded = copy.deepcopy(INGRESS_ROUTE)
    guarded["spec"]["tls"] = {"secretName": "supersecret"}
    guarded["spec"]["routes"][0]["middlewares"] = [{"name": "auth"}]
    auth = {
        "apiVersion": "traefik.io/v1alpha1",
        "kind": "Middleware",
        "metadata": {"name": "auth"},
        "spec": {"basicAuth": {"secret": "users"}},
    }
    assert found_by([VLLM, SERVICE, guarded, auth], G32) == []
    # A middleware that only strips a prefix guards nothing.
    strip = {
        "apiVersion": "traefik.io/v1alpha1",
        "kind": "Middleware",
        "metadata": {"name": "auth"},
        "spec": {"stripPrefix": {"prefixes": ["/bar"]}},
    }
    ((_, message),) = found_by([VLLM, SERVICE, guarded, strip], G32)
    assert "nothing in these files authenticates callers" in message and "no TLS" not in message


def test_contour_http_proxy_publishes_a_model_and_its_route_timeout_defaults_to_15s():
    ((level, message),) = found_by([VLLM, SERVICE, HTTP_PROXY], G32)
    assert level == "advisory" and message.startswith("HTTPProxy default/basic (Contour, virtualhost foo-basic.bar.com)")
    ((level, message),) = found_by([VLLM, SERVICE, HTTP_PROXY], "llm-route-timeout-not-default")
    assert level == "advisory"
    assert message.startswith("spec.routes[0]: timeoutPolicy.response 15s (unset: Envoy's 15s")
    tls = copy.deepcopy(HTTP_PROXY)
    tls["spec"]["virtualhost"]["tls"] = {"secretName": "testsecret"}
    tls["spec"]["virtualhost"]["authorization"] = {"extensionRef": {"name": "htpasswd", "namespace": "auth"}}
    tls["spec"]["routes"][0]["timeoutPolicy"] = {"response": "infinity"}
    assert found_by([VLLM, SERVICE, tls], G32) == []
    assert found_by([VLLM, SERVICE, tls], "llm-route-timeout-not-default") == []
    # A proxy without a virtualhost is included by a root one and publishes nothing itself.
    included = copy.deepcopy(HTTP_PROXY)
    del included["spec"]["virtualhost"]
    assert found_by([VLLM, SERVICE, included], G32) == []
    routes = contour_routes(
        manifest(
            {**HTTP_PROXY, "spec": {"routes": [{"timeoutPolicy": {"response": "0s"}}, {"timeoutPolicy": {"response": "5m"}}]}}
        )
    )
    assert [r.timeout for r in routes] == [None, 300.0]  # "0s" is Envoy's default, as the field documents


LITELLM = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "litellm-deployment"},
    "spec": {
        "selector": {"matchLabels": {"app": "litellm"}},
        "template": {
            "metadata": {"labels": {"app": "litellm"}},
            "spec": {
                "containers": [
                    {
                        "name": "litellm-container",
                        "image": "ghcr.io/berriai/litellm:main-latest",
                        "args": ["--config", "/app/proxy_config.yaml"],
                    }
                ]
            },
        },
    },
}
LITELLM_SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "litellm-service"},
    "spec": {"selector": {"app": "litellm"}, "ports": [{"port": 4000, "targetPort": 4000}]},
}


def _ingress(klass_annotation: str | None, backend: str, port: int) -> dict:
    meta: dict = {"name": "llm"}
    if klass_annotation:
        meta["annotations"] = {"kubernetes.io/ingress.class": klass_annotation}
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": meta,
        "spec": {"defaultBackend": {"service": {"name": backend, "port": {"number": port}}}},
    }


def test_llm_router_behind_an_edge_is_a_model_backend():
    # Before: the router's Service was a known non-model backend and no edge in front of it was reported.
    ((level, message),) = found_by([LITELLM, LITELLM_SERVICE, _ingress("nginx", "litellm-service", 4000)], G32)
    assert level == "advisory"
    assert "publishes a model (Service litellm-service)" in message
    assert "the LiteLLM proxy behind litellm-service may check keys from its own configuration" in message
    # An external GKE Ingress without TLS in front of the router sends prompts in clear text: proven.
    ((level, _),) = found_by([LITELLM, LITELLM_SERVICE, _ingress("gce", "litellm-service", 4000)], "external-gce-ingress-guarded")
    assert level == "mandatory"
    # kub.yaml's own form sets LITELLM_MASTER_KEY: the router asks for a key, so only the missing TLS is advised.
    keyed = copy.deepcopy(LITELLM)
    keyed["spec"]["template"]["spec"]["containers"][0]["env"] = [
        {"name": "LITELLM_MASTER_KEY", "valueFrom": {"secretKeyRef": {"name": "k", "key": "k"}}}
    ]
    ((level, message),) = found_by([keyed, LITELLM_SERVICE, _ingress("nginx", "litellm-service", 4000)], G32)
    assert level == "advisory" and "no TLS" in message and "authenticates" not in message


def test_router_recognition():
    assert router_kind({"image": "ghcr.io/berriai/litellm:main-latest"}) == "LiteLLM proxy"
    assert router_kind({"image": "ghcr.io/berriai/litellm-database:main-v1.55.0"}) == "LiteLLM proxy"
    assert router_kind({"image": "lmcache/lmstack-router:latest"}) == "vLLM production-stack router"
    assert (
        router_kind({"image": "python:3.12", "command": ["python3", "-m", "vllm_router.app"]}) == "vLLM production-stack router"
    )
    assert router_kind({"image": "ghcr.io/vllm-project/semantic-router/extproc:v0.1.0"}) == "vLLM semantic-router"
    assert router_kind({"image": "aibrix/gateway-plugins:v0.4.0"}) == "AIBrix gateway plugins"
    assert router_kind({"image": "vllm/vllm-openai:v0.10.1", "args": ["--model", "x"]}) is None
    assert router_kind({"image": "grafana/grafana:11.0.0"}) is None
