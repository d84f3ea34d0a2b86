"""Session 52 (brief expose52): G4 and G32 widened to the forms spent sets 91-98 missed.

G4 serving-readiness-probe: a LiteLLM proxy whose readinessProbe is a tcpSocket check while its database is configured
(components/serving_apps.toml ``readiness``/``readiness_env``; litellm 1.77.7 wheel
proxy/health_endpoints/_health_endpoints.py:772-787 health_readiness answers 503 when the database fails).
"""

from __future__ import annotations

from typing import Any

from policy_fixtures import found_by, manifest

from policies.registry import evaluate

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
    service: dict[str, Any] = {
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


def test_an_auth_filter_keeps_the_route_silent():
    auth = [{"type": "ExtensionRef", "extensionRef": {"group": "traefik.io", "kind": "Middleware", "name": "authelia"}}]
    assert not found_by(_ollama_route(auth), PUBLIC)


# Session 53 (brief expose53): a Gateway named internal, with no auth policy on it, still serves its whole network
# (spent set 107 hydazz/home-ops: Ollama's route on Gateway internal, labelled G32); with one it is silent
# (tests/policies/test_policy_expose53.py).
def test_an_internal_gateway_without_auth_is_advice():
    found = found_by(_ollama_route(gateway="internal-gateway"), PUBLIC)
    assert [level for level, m in found if "its name says internal" in m] == ["advisory"], found


# G32 on a chart release's Ingress or Service (policies/reading/release_edges.py, components/helm_charts.toml edge) -----
def _release(chart: str, version: str, values: dict) -> dict:
    return {
        "apiVersion": "helm.toolkit.fluxcd.io/v2",
        "kind": "HelmRelease",
        "metadata": {"name": chart, "namespace": "ai"},
        "spec": {
            "interval": "30m",
            "chart": {"spec": {"chart": chart, "version": version, "sourceRef": {"kind": "HelmRepository", "name": chart}}},
            "values": values,
        },
    }


# devantler/oci-artifacts k8s/open-webui/release.yaml (spent set 91, labelled G32): ingress.enabled by a Flux
# substitution default, host set, the chart's ingress.tls false (values.yaml:48-56@open-webui-3.1.6).
_WEBUI_INGRESS: dict[str, Any] = {
    "ollama": {"enabled": False},
    "ollamaUrls": ["http://ollama.ollama:11434"],
    "ingress": {"enabled": "${ollama_open_web_ui_ingress_enabled:=true}", "host": "open-webui.${cluster_domain}"},
}


def test_an_open_webui_release_with_a_plain_http_ingress_is_advice():
    found = found_by([_release("open-webui", "3.1.6", _WEBUI_INGRESS)], PUBLIC)
    assert [level for level, m in found if "spec.values.ingress.enabled" in m and "no TLS" in m] == ["advisory"], found


def test_an_open_webui_release_with_ingress_tls_is_silent():
    values = {**_WEBUI_INGRESS, "ingress": {**_WEBUI_INGRESS["ingress"], "tls": True}}
    assert not found_by([_release("open-webui", "3.1.6", values)], PUBLIC)
    assert not found_by([_release("open-webui", "3.1.6", {"ollama": {"enabled": False}})], PUBLIC)


# nachtschatt3n/cberg-home-nextgen kubernetes/apps/ai/open-webui/app/helmrelease.yaml (spent set 91, labelled G32):
# service.type LoadBalancer on a Cilium LB-IPAM address, port 80, beside a TLS ingress (open-webui 16.0.0).
def test_an_open_webui_release_on_a_load_balancer_is_advice():
    values: dict[str, Any] = {
        "ollama": {"enabled": False},
        "service": {"type": "LoadBalancer", "annotations": {"lbipam.cilium.io/ips": "192.168.55.28"}, "port": 80},
        "ingress": {"enabled": True, "class": "external", "host": "open-webui.example.com", "tls": True},
    }
    found = found_by([_release("open-webui", "16.0.0", values)], PUBLIC)
    assert [level for level, m in found if "spec.values.service.type" in m and "plain HTTP" in m] == ["advisory"], found
    values["service"]["type"] = "ClusterIP"
    assert not found_by([_release("open-webui", "16.0.0", values)], PUBLIC)


# gelato/homecluster kubernetes/apps/ai/ollama/backend/helmrelease.yaml (spent set 98, labelled G32): the otwld ollama
# chart 1.4.0 with ingress.enabled, class internal, no tls, no auth annotation (values.yaml:153-174@ollama-1.4.0).
_OLLAMA_INGRESS: dict[str, Any] = {
    "ollama": {"gpu": {"enabled": True, "number": 1, "type": "nvidia"}},
    "ingress": {
        "enabled": True,
        "className": "internal",
        "hosts": [{"host": "ollama.example.com", "paths": [{"path": "/", "pathType": "Prefix"}]}],
    },
}


def test_an_ollama_release_with_an_open_ingress_is_advice():
    found = found_by([_release("ollama", "1.4.0", _OLLAMA_INGRESS)], PUBLIC)
    assert [level for level, m in found if "asks callers for no key" in m and "no TLS" in m] == ["advisory"], found


def test_an_ollama_release_with_tls_and_auth_is_silent():
    ingress = {
        **_OLLAMA_INGRESS["ingress"],
        "tls": [{"hosts": ["ollama.example.com"], "secretName": "ollama-tls"}],
        "annotations": {"nginx.ingress.kubernetes.io/auth-url": "https://auth.example.com/oauth2/auth"},
    }
    assert not found_by([_release("ollama", "1.4.0", {**_OLLAMA_INGRESS, "ingress": ingress})], PUBLIC)


def test_the_chart_table_cites_the_edge_keys():
    from components.helm_charts import chart_named

    webui, ollama = chart_named("open-webui"), chart_named("ollama")
    assert webui is not None and ollama is not None
    assert webui.edge["ingress_tls"] == "ingress.tls" and ollama.edge["ingress_class"] == "ingress.className"
    assert any("values.yaml:48-56,82-89@open-webui-3.1.6" in s for s in webui.sources)
    assert any("values.yaml:135-174@ollama-1.4.0" in s for s in ollama.sources)


# G4 workload-readiness-probe on an app-template release --------------------------------------------------------------
WORKLOAD = "workload-readiness-probe"


def _app_template(probes: dict | None = None) -> dict:
    """gelato/homecluster kubernetes/apps/ai/ollama/ui/helmrelease.yaml (spent set 98, labelled G4): app-template 3.6.1,
    one controller running ghcr.io/ollama-webui/ollama-webui:main, service.main on 8080 and an ingress, no probe
    enabled (the chart renders a probe only when enabled: bjw-s-labs/helm-charts common-4.1.1
    templates/lib/container/fields/_probes.tpl:14-20)."""
    container: dict = {
        "image": {"repository": "ghcr.io/ollama-webui/ollama-webui", "tag": "main"},
        "env": {"OLLAMA_API_BASE_URL": "http://ollama.ai.svc:11434/api"},
    }
    if probes:
        container["probes"] = probes
    release = _release(
        "app-template",
        "3.6.1",
        {
            "controllers": {"main": {"type": "statefulset", "containers": {"main": container}}},
            "service": {"main": {"controller": "main", "ports": {"http": {"port": 8080}}}},
            "ingress": {"main": {"enabled": True, "className": "internal", "hosts": [{"host": "chat.example.com"}]}},
        },
    )
    release["metadata"]["name"] = "ollama-ui"
    return release


def test_an_app_template_controller_behind_its_service_with_no_probe_is_advice():
    found = found_by([_app_template()], WORKLOAD)
    assert [level for level, m in found if "the chart's service.main selects it" in m] == ["advisory"], found


def test_an_app_template_controller_with_its_readiness_probe_enabled_is_silent():
    probes = {"readiness": {"enabled": True, "custom": True, "spec": {"httpGet": {"path": "/", "port": 8080}}}}
    assert not found_by([_app_template(probes)], WORKLOAD)


# simardeep1792/Knative-DAPR-GPU-K8s istio/mesh-gateway.yaml + ollama/ollama-virtual-service.yaml (spent set 96,
# labelled G32 on Gateway/mesh-gateway): an Istio Gateway on plain HTTP 80 and a VirtualService routing to Services
# in other files. The Gateway of the set owns the finding, as a Gateway API Gateway does.
def _istio(protocol: str = "HTTP") -> list[dict]:
    server: dict[str, Any] = {"port": {"number": 80, "name": "http", "protocol": protocol}, "hosts": ["ollama.example.com"]}
    if protocol == "HTTPS":
        server["port"]["number"] = 443
        server["tls"] = {"mode": "SIMPLE", "credentialName": "ollama-tls"}
    return [
        {
            "apiVersion": "networking.istio.io/v1beta1",
            "kind": "Gateway",
            "metadata": {"name": "mesh-gateway", "namespace": "istio-ingress"},
            "spec": {"selector": {"istio": "ingressgateway"}, "servers": [server]},
        },
        {
            "apiVersion": "networking.istio.io/v1beta1",
            "kind": "VirtualService",
            "metadata": {"name": "ollama", "namespace": "ollama"},
            "spec": {
                "gateways": ["istio-ingress/mesh-gateway"],
                "hosts": ["ollama.example.com"],
                "http": [
                    {
                        "match": [{"uri": {"prefix": "/inference"}}],
                        "route": [{"destination": {"host": "inference-service.ollama.svc.cluster.local"}}],
                    }
                ],
            },
        },
    ]


def _owners(objs: list[dict]) -> list[str]:
    return [v.resource for v in evaluate([manifest(o) for o in objs], None) if v.policy == PUBLIC]


def test_the_istio_gateway_owns_the_plain_http_finding():
    found = found_by(_istio(), PUBLIC)
    assert [level for level, m in found if "on Gateway istio-ingress/mesh-gateway" in m] == ["advisory"], found
    assert _owners(_istio()) == ["Gateway/mesh-gateway"]


def test_an_istio_gateway_elsewhere_leaves_the_finding_on_the_virtual_service():
    route = _istio()[1]
    route["spec"]["gateways"] = ["istio-ingress/public-gateway"]
    assert _owners([route]) == ["VirtualService/ollama"]
