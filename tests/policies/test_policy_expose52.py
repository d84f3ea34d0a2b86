"""Session 52 (brief expose52): G4 and G32 widened to the forms spent sets 91-98 missed.

G4 serving-readiness-probe: a LiteLLM proxy whose readinessProbe is a tcpSocket check while its database is configured
(components/serving_apps.toml ``readiness``/``readiness_env``; litellm 1.77.7 wheel
proxy/health_endpoints/_health_endpoints.py:772-787 health_readiness answers 503 when the database fails).
"""

from __future__ import annotations

from policy_fixtures import found_by

READY = "serving-readiness-probe"


def _litellm(readiness: dict | None, env: list | None = None) -> dict:
    container: dict = {
        "name": "litellm",
        "image": "ghcr.io/berriai/litellm:main-v1.84.0",
        "args": ["--config", "/app/config/config.yaml", "--port", "4000"],
        "ports": [{"containerPort": 4000, "name": "http"}],
        "env": env or [],
    }
    if readiness:
        container["readinessProbe"] = readiness
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "litellm", "namespace": "litellm-demo"},
        "spec": {
            "selector": {"matchLabels": {"app": "litellm"}},
            "template": {"metadata": {"labels": {"app": "litellm"}}, "spec": {"containers": [container]}},
        },
    }


_DB = [{"name": "DATABASE_URL", "valueFrom": {"secretKeyRef": {"name": "litellm-secrets", "key": "database-url"}}}]


# lancerzhang/Open-LiteVertex k8s/litellm.yaml (spent set 93, labelled G4): readinessProbe tcpSocket 4000, DATABASE_URL
# from a Secret.
def test_tcp_readiness_on_a_proxy_with_a_database_is_advice():
    found = found_by([_litellm({"tcpSocket": {"port": 4000}}, _DB)], READY)
    assert [level for level, m in found if "tcpSocket check" in m] == ["advisory"], found
    assert "/health/readiness" in found[0][1]


def test_http_readiness_on_the_readiness_path_is_silent():
    found = found_by([_litellm({"httpGet": {"path": "/health/readiness", "port": 4000}}, _DB)], READY)
    assert not [m for _, m in found if "readinessProbe" in m], found


def test_tcp_readiness_with_no_database_is_silent():
    # With no database /health/readiness answers as soon as the process runs: a TCP check proves as much.
    found = found_by([_litellm({"tcpSocket": {"port": 4000}})], READY)
    assert not [m for _, m in found if "tcpSocket" in m], found


# G32 public-model-endpoint-guarded ---------------------------------------------------------------------------------
PUBLIC = "public-model-endpoint-guarded"


def _lan_ollama(middlewares: str, *, tls: bool = True, slice_form: bool = False) -> list[dict]:
    """progist1/home-k3s infra/proxy/ollama.home/ (spent set 92, labelled G32): a Traefik Ingress with TLS and only an
    HTTPS-redirect middleware, to a selector-less Service whose Endpoints are the LAN box 10.0.0.105:11434."""
    ingress: dict = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {
            "name": "ollama-home-internal",
            "namespace": "infra",
            "annotations": {"traefik.ingress.kubernetes.io/router.middlewares": middlewares},
        },
        "spec": {
            "rules": [
                {
                    "host": "ollama.home",
                    "http": {
                        "paths": [
                            {
                                "path": "/",
                                "pathType": "Prefix",
                                "backend": {"service": {"name": "ollama-home-proxy", "port": {"number": 11434}}},
                            }
                        ]
                    },
                }
            ]
        },
    }
    if tls:
        ingress["spec"]["tls"] = [{"hosts": ["ollama.home"], "secretName": "ollama-home-internal-tls"}]
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "ollama-home-proxy", "namespace": "infra"},
        "spec": {"ports": [{"port": 11434, "targetPort": 11434}], "clusterIP": "None"},
    }
    endpoints: dict = {
        "apiVersion": "v1",
        "kind": "Endpoints",
        "metadata": {"name": "ollama-home-proxy", "namespace": "infra"},
        "subsets": [{"addresses": [{"ip": "10.0.0.105"}], "ports": [{"port": 11434}]}],
    }
    if slice_form:
        service["spec"]["ports"] = [{"port": 80, "targetPort": 11434}]
        endpoints = {
            "apiVersion": "discovery.k8s.io/v1",
            "kind": "EndpointSlice",
            "metadata": {
                "name": "ollama-home-proxy-1",
                "namespace": "infra",
                "labels": {"kubernetes.io/service-name": "ollama-home-proxy"},
            },
            "addressType": "IPv4",
            "ports": [{"port": 11434}],
            "endpoints": [{"addresses": ["10.0.0.105"]}],
        }
    return [ingress, service, endpoints]


def test_a_lan_ollama_behind_a_redirect_middleware_is_advice():
    found = found_by(_lan_ollama("infra-redirect-to-https@kubernetescrd"), PUBLIC)
    assert [level for level, m in found if "10.0.0.105:11434" in m] == ["advisory"], found
    assert "nothing in these files authenticates callers" in found[0][1]


def test_an_endpoint_slice_is_read_too():
    found = found_by(_lan_ollama("infra-redirect-to-https@kubernetescrd", slice_form=True), PUBLIC)
    assert [level for level, m in found if "Ollama's default port" in m] == ["advisory"], found


def test_an_auth_middleware_keeps_the_lan_ollama_silent():
    assert not found_by(_lan_ollama("infra-authelia@kubernetescrd,infra-redirect-to-https@kubernetescrd"), PUBLIC)


def _ollama_route(filters: list | None = None, gateway: str = "traefik-gateway") -> list[dict]:
    """Logik-Dev/k8s-homelab apps/ollama/ (spent set 95, labelled G32): an HTTPRoute on traefik-gateway (not in the
    files) to the Service of an Ollama Deployment (the kustomization's commonLabels give both app: ollama-mistral)."""
    rule: dict = {
        "matches": [{"path": {"type": "PathPrefix", "value": "/"}}],
        "backendRefs": [{"name": "ollama-mistral", "port": 80}],
    }
    if filters:
        rule["filters"] = filters
    return [
        {
            "apiVersion": "gateway.networking.k8s.io/v1",
            "kind": "HTTPRoute",
            "metadata": {"name": "ollama-mistral", "namespace": "ollama"},
            "spec": {
                "hostnames": ["mistral.k8s.logikdev.fr"],
                "parentRefs": [{"name": gateway, "namespace": "traefik"}],
                "rules": [rule],
            },
        },
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "ollama-mistral", "namespace": "ollama"},
            "spec": {"selector": {"app": "ollama-mistral"}, "ports": [{"port": 80, "targetPort": 11434}]},
        },
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "ollama-mistral", "namespace": "ollama"},
            "spec": {
                "selector": {"matchLabels": {"app": "ollama-mistral"}},
                "template": {
                    "metadata": {"labels": {"app": "ollama-mistral"}},
                    "spec": {
                        "containers": [{"name": "ollama", "image": "ollama/ollama:0.9.0", "ports": [{"containerPort": 11434}]}]
                    },
                },
            },
        },
    ]


def test_an_ollama_route_on_a_gateway_elsewhere_is_advice():
    found = found_by(_ollama_route(), PUBLIC)
    assert [level for level, m in found if "traefik-gateway is not in these files" in m] == ["advisory"], found


def test_an_auth_filter_or_an_internal_gateway_keeps_the_route_silent():
    auth = [{"type": "ExtensionRef", "extensionRef": {"group": "traefik.io", "kind": "Middleware", "name": "authelia"}}]
    assert not found_by(_ollama_route(auth), PUBLIC)
    assert not found_by(_ollama_route(gateway="internal-gateway"), PUBLIC)
