"""Session 53 (brief expose53): one reading of "published, and by what" (policies/reading/published.py,
policies/reading/exposure.py) shared by G32 and G101, over the forms people publish a model API in.

- a route or Ingress a bjw-s app-template release renders from ``route.<r>`` / ``ingress.<i>`` (policies/app_template.py
  app_template_edges; common-4.1.1 classes/_route.tpl, classes/_ingress.tpl);
- an HTTPRoute of the files to the Service a chart release renders (policies/helm_charts.py release_services);
- a Gateway named internal, not in the files, with no auth policy on it: still advice for a keyless engine;
- an AIGatewayRoute attached by the v0.2 ``spec.targetRefs``;
- an LLM router (LiteLLM) on a container hostPort;
- G101's published-only rows (OLLAMA_ORIGINS) read through the same publisher, and Open WebUI's sign-up switch written
  literally beside an envFrom Secret.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

PUBLIC = "public-model-endpoint-guarded"
NODE = "no-load-balancer-service"
SETTING = "app-setting-exposure"


def _app_template(name: str, image: dict, env: dict, port: int, **values: dict) -> dict:
    return {
        "apiVersion": "helm.toolkit.fluxcd.io/v2",
        "kind": "HelmRelease",
        "metadata": {"name": name},
        "spec": {
            "chartRef": {"kind": "OCIRepository", "name": "app-template"},
            "values": {
                "controllers": {name: {"containers": {"app": {"image": image, "env": env}}}},
                "service": {"app": {"ports": {"http": {"port": port}}}},
                **values,
            },
        },
    }


_INTERNAL_ROUTE = {
    "app": {
        "hostnames": ["{{ .Release.Name }}.${D_HS}"],
        "parentRefs": [{"name": "internal", "namespace": "kube-system", "sectionName": "https"}],
    }
}


def _ollama(route: dict | None = None, **values: dict) -> dict:
    """hydazz/home-ops kubernetes/apps/ai/ollama/app/helmrelease.yaml at 417daa1cfcefc5ce69f7c8f6493d5362a5c2b1c4 (spent
    set 107, labelled G32 and G101): app-template Ollama with OLLAMA_ORIGINS "*" and route.app on Gateway internal."""
    env = {"OLLAMA_HOST": "0.0.0.0", "OLLAMA_ORIGINS": "*", "OLLAMA_MODELS": "/models"}
    extra = {"route": route} if route is not None else {}
    return _app_template("ollama", {"repository": "ollama/ollama", "tag": "0.9.3"}, env, 11434, **extra, **values)


def _local_ai(env: dict) -> dict:
    """hydazz/home-ops kubernetes/apps/ai/local-ai/app/helmrelease.yaml at 426fa8a57b64e55191a1367a7cb2a560733e8199
    (spent set 107, labelled G32): LocalAI without LOCALAI_API_KEY/API_KEY, route.app on Gateway internal."""
    image = {"repository": "docker.io/localai/localai", "tag": "v3.3.0-gpu-nvidia-cuda-12"}
    return _app_template("local-ai", image, env, 8080, route=copy.deepcopy(_INTERNAL_ROUTE))


def _levels(found: list[tuple[str, str]], text: str) -> list[str]:
    return [level for level, m in found if text in m]


# app-template route.<r> -------------------------------------------------------------------------------------------
def test_an_app_template_route_to_ollama_is_advice():
    found = found_by([_ollama(copy.deepcopy(_INTERNAL_ROUTE))], PUBLIC)
    assert _levels(found, "spec.values.route.app (renders HTTPRoute") == ["advisory"], found
    assert "its name says internal" in found[0][1] and "publishes a model (Service ollama)" in found[0][1]


def test_an_app_template_route_to_keyless_local_ai_is_advice():
    found = found_by([_local_ai({"MODELS_PATH": "/models", "PORT": 8080})], PUBLIC)
    assert _levels(found, "Service local-ai") == ["advisory"], found


def test_local_ai_with_its_key_from_a_secret_is_silent():
    key = {"LOCALAI_API_KEY": {"valueFrom": {"secretKeyRef": {"name": "local-ai", "key": "api-key"}}}}
    assert not found_by([_local_ai({"MODELS_PATH": "/models", **key})], PUBLIC)


def test_an_internal_gateway_with_an_auth_policy_is_silent():
    # Kuadrant AuthPolicy on the Gateway the route attaches to (targetRef kind Gateway, name internal).
    policy = {
        "apiVersion": "kuadrant.io/v1",
        "kind": "AuthPolicy",
        "metadata": {"name": "internal-auth", "namespace": "kube-system"},
        "spec": {"targetRef": {"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "internal"}},
    }
    assert not found_by([_ollama(copy.deepcopy(_INTERNAL_ROUTE)), policy], PUBLIC)


def test_a_security_policy_on_the_rendered_route_is_silent():
    policy = {
        "apiVersion": "gateway.envoyproxy.io/v1alpha1",
        "kind": "SecurityPolicy",
        "metadata": {"name": "ollama-oidc"},
        "spec": {"targetRefs": [{"kind": "HTTPRoute", "name": "ollama"}], "oidc": {"clientID": "ollama"}},
    }
    assert not found_by([_ollama(copy.deepcopy(_INTERNAL_ROUTE)), policy], PUBLIC)


def test_a_route_to_open_webui_with_its_own_login_is_silent():
    """cyberglitchlabs/clouddrop kubernetes/apps/ai/open-webui/app/helmrelease.yaml at c1269f51dc635fd9c19d6d1795c0a9d4f19178df
    (spent set 107): route.app on Gateway external to Open WebUI, which has its own login: not a model API."""
    image = {"repository": "ghcr.io/open-webui/open-webui", "tag": "v0.6.18"}
    route = {"app": {"hostnames": ["openwebui.example.org"], "parentRefs": [{"name": "external", "namespace": "kube-system"}]}}
    release = _app_template("open-webui", image, {"OLLAMA_BASE_URL": "http://ollama:11434"}, 8080, route=route)
    assert not found_by([release], PUBLIC)


# app-template ingress.<i> -----------------------------------------------------------------------------------------
def _ingress(annotations: dict) -> dict:
    return {
        "app": {
            "className": "nginx",
            "annotations": annotations,
            "hosts": [{"host": "ollama.example.org", "paths": [{"path": "/", "service": {"identifier": "app", "port": "http"}}]}],
        }
    }


def test_an_app_template_ingress_to_ollama_without_auth_is_advice():
    found = found_by([_ollama(ingress=_ingress({}))], PUBLIC)
    assert _levels(found, "spec.values.ingress.app (renders Ingress") == ["advisory"], found
    assert "no TLS" in found[0][1]


def test_an_app_template_ingress_with_an_auth_url_is_silent():
    guarded = _ingress({"nginx.ingress.kubernetes.io/auth-url": "https://auth.example.org/oauth2/auth"})
    guarded["app"]["tls"] = [{"hosts": ["ollama.example.org"]}]
    assert not found_by([_ollama(ingress=guarded)], PUBLIC)


# An HTTPRoute of the files to a chart release's own Service --------------------------------------------------------
def _chart_ollama() -> dict:
    """zebernst/homelab kubernetes/apps/ai/ollama/app/ at 16495e0fd177d72e70d818ac655a3a3f270cace1 (spent set 107,
    labelled G32): the otwld ollama chart 1.67.0 (its Service is the release's fullname, ollama) and an HTTPRoute on
    Gateway tailscale to Service ollama."""
    return {
        "apiVersion": "helm.toolkit.fluxcd.io/v2",
        "kind": "HelmRelease",
        "metadata": {"name": "ollama"},
        "spec": {
            "chart": {
                "spec": {"chart": "ollama", "version": "1.67.0", "sourceRef": {"kind": "HelmRepository", "name": "ollama"}}
            },
            "values": {
                "ollama": {"gpu": {"enabled": True, "type": "nvidia", "number": 1}},
                "service": {"type": "ClusterIP", "port": 11434},
            },
        },
    }


def _route(backend: str) -> dict:
    return {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "HTTPRoute",
        "metadata": {"name": backend},
        "spec": {
            "hostnames": [f"{backend}.example.dev"],
            "parentRefs": [{"name": "tailscale", "namespace": "kube-system", "sectionName": "https-canon"}],
            "rules": [{"backendRefs": [{"name": backend, "port": 11434}]}],
        },
    }


def test_a_route_to_a_chart_releases_ollama_service_is_advice():
    found = found_by([_chart_ollama(), _route("ollama")], PUBLIC)
    assert _levels(found, "HTTPRoute <default>/ollama on Gateway tailscale") == ["advisory"], found


def test_a_route_to_another_service_than_the_releases_is_silent():
    assert not found_by([_chart_ollama(), _route("grafana")], PUBLIC)


# AIGatewayRoute attached by spec.targetRefs (Envoy AI Gateway v0.2) ---------------------------------------------------
def _token_labs(protocol: str) -> list[dict]:
    """elizabetht/token-labs deploy/platform/gateway/ at 629493b1ed30b76580758654ddfbbc532834ffc7 (spent set 110,
    labelled G32 on Gateway/token-labs-gateway): class eg, HTTP listeners, an AIGatewayRoute attached by targetRefs."""
    gateway = {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "Gateway",
        "metadata": {"name": "token-labs-gateway", "namespace": "token-labs"},
        "spec": {
            "gatewayClassName": "eg",
            "infrastructure": {
                "parametersRef": {"group": "gateway.envoyproxy.io", "kind": "EnvoyProxy", "name": "token-labs-proxy-config"}
            },
            "listeners": [{"name": "http", "protocol": protocol, "port": 80, "hostname": "api.tokenlabs.run"}],
        },
    }
    route = {
        "apiVersion": "aigateway.envoyproxy.io/v1alpha1",
        "kind": "AIGatewayRoute",
        "metadata": {"name": "llm-inference", "namespace": "token-labs"},
        "spec": {
            "schema": {"name": "OpenAI"},
            "targetRefs": [{"name": "token-labs-gateway", "kind": "Gateway", "group": "gateway.networking.k8s.io"}],
            "rules": [
                {
                    "matches": [{"headers": [{"type": "Exact", "name": "x-ai-eg-model", "value": "Qwen3-0.6B"}]}],
                    "backendRefs": [{"name": "qwen3-06b"}],
                }
            ],
        },
    }
    return [gateway, route]


def test_an_ai_gateway_route_by_target_refs_on_plain_http_is_advice():
    found = found_by(_token_labs("HTTP"), PUBLIC)
    assert _levels(found, "AIGatewayRoute token-labs/llm-inference on Gateway token-labs-gateway") == ["advisory"], found


def test_an_ai_gateway_route_with_an_api_key_policy_and_tls_is_silent():
    objs = _token_labs("HTTPS")
    objs.append(
        {
            "apiVersion": "gateway.envoyproxy.io/v1alpha1",
            "kind": "SecurityPolicy",
            "metadata": {"name": "api-keys", "namespace": "token-labs"},
            "spec": {
                "targetRefs": [{"kind": "Gateway", "name": "token-labs-gateway"}],
                "apiKeyAuth": {"credentialRefs": [{"name": "keys"}]},
            },
        }
    )
    assert not found_by(objs, PUBLIC)


# A router on a container hostPort -----------------------------------------------------------------------------------
def _litellm(args: list[str]) -> dict:
    """pocharlies-org/k8s-litellm-pocharlies k8s/manifest.yaml at a7bdc67bbb48cf571ad72e7519a394a7ec830183 (spent set
    110, labelled G32): LiteLLM with hostPort 4000 and LITELLM_MASTER_KEY from a Secret."""
    container = {
        "name": "litellm",
        "image": "ghcr.io/berriai/litellm:v1.85.1",
        "args": args,
        "ports": [{"name": "http", "containerPort": 4000, "hostPort": 4000}],
        "env": [
            {
                "name": "LITELLM_MASTER_KEY",
                "valueFrom": {"secretKeyRef": {"name": "litellm-secrets", "key": "LITELLM_MASTER_KEY"}},
            }
        ],
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "litellm", "namespace": "litellm"},
        "spec": {
            "selector": {"matchLabels": {"app": "litellm"}},
            "template": {"metadata": {"labels": {"app": "litellm"}}, "spec": {"containers": [container]}},
        },
    }


def test_a_router_on_a_host_port_is_advice():
    found = found_by([_litellm(["--config=/config/config.yaml", "--port=4000"])], NODE)
    assert _levels(found, "ports hostPort 4000 publishes the LiteLLM") == ["advisory"], found
    assert "clear text" in found[0][1]


def test_a_router_serving_tls_on_its_host_port_is_silent():
    args = ["--config=/config/config.yaml", "--ssl_keyfile_path=/tls/tls.key", "--ssl_certfile_path=/tls/tls.crt"]
    assert not found_by([_litellm(args)], NODE)


# G101 through the same publisher -------------------------------------------------------------------------------------
def test_ollama_any_origin_published_by_an_app_template_route_is_advice():
    found = found_by([_ollama(copy.deepcopy(_INTERNAL_ROUTE))], SETTING)
    assert _levels(found, "published through spec.values.route.app") == ["advisory"], found


def test_ollama_any_origin_with_no_route_is_silent():
    assert not found_by([_ollama()], SETTING)


def _open_webui(env: dict, env_from: list) -> dict:
    """cyberglitchlabs/clouddrop kubernetes/apps/ai/open-webui/app/helmrelease.yaml at
    c1269f51dc635fd9c19d6d1795c0a9d4f19178df (spent set 107, labelled G101): ENABLE_SIGNUP "true" and DEFAULT_USER_ROLE
    "user" beside envFrom a Secret."""
    release = _app_template("open-webui", {"repository": "ghcr.io/open-webui/open-webui", "tag": "v0.6.18"}, env, 8080)
    release["spec"]["values"]["controllers"]["open-webui"]["containers"]["app"]["envFrom"] = env_from
    return release


def test_open_signup_written_beside_an_env_from_secret_is_advice():
    env = {"ENABLE_SIGNUP": "true", "DEFAULT_USER_ROLE": "user"}
    found = found_by([_open_webui(env, [{"secretRef": {"name": "open-webui-secrets"}}])], SETTING)
    assert _levels(found, "env DEFAULT_USER_ROLE=user") == ["advisory"], found


def test_signup_left_to_an_env_from_secret_is_silent():
    # ENABLE_SIGNUP not written: the Secret may turn it off.
    found = found_by([_open_webui({"DEFAULT_USER_ROLE": "user"}, [{"secretRef": {"name": "open-webui-secrets"}}])], SETTING)
    assert not found, found


def test_a_route_to_a_vendored_local_ai_charts_service_is_advice():
    """BSFishy/k8s-homelab kubernetes/apps/ai/local-ai/app/ at fb0cbd2782a2c4543e9a846bfaf180f8d7934171 (spent set 107,
    labelled G32): the local-ai chart vendored in the repository (read as the published one: helm_charts.vendored_chart),
    no API key, and an HTTPRoute on traefik-gateway to its Service local-ai."""
    release = {
        "apiVersion": "helm.toolkit.fluxcd.io/v2",
        "kind": "HelmRelease",
        "metadata": {"name": "local-ai"},
        "spec": {
            "chart": {
                "spec": {
                    "chart": "kubernetes/apps/ai/local-ai/chart",
                    "sourceRef": {"kind": "GitRepository", "name": "flux-system"},
                }
            },
            "values": {
                "deployment": {
                    "image": {"repository": "quay.io/go-skynet/local-ai", "tag": "v3.3.0"},
                    "env": {"LOCALAI_EXTERNAL_BACKENDS": "llama-cpp"},
                }
            },
        },
    }
    route = _route("local-ai")
    route["spec"]["parentRefs"] = [{"name": "traefik-gateway", "namespace": "infra", "sectionName": "websecure"}]
    found = found_by([release, route], PUBLIC)
    assert _levels(found, "HTTPRoute <default>/local-ai on Gateway traefik-gateway") == ["advisory"], found
