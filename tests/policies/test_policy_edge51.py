"""Edges of session 51 (brief edge51): S9 llm-route-timeout-not-default reaches two more edges and the apps that call a
model, each a generic third-party form that fires and a careful form that stays silent.

- Traefik's entry point read timeout: 60 s by default (traefik/traefik v3.7.9 pkg/config/static/static_config.go:51,
  :207-210), set as the connection's read deadline and the HTTP server's ReadTimeout (pkg/server/
  server_entrypoint_tcp.go:270-274, :732), so a request still answering after 60 s is cut. Fires on the form of spent
  set 80 TheBranchDriftCatalyst/talos-homelab@b57b645c6887a1d39186ce5b2a2fa92c1f9e340b
  infrastructure/base/gpu-inference/ingressroute.yaml (an IngressRoute on entry point web to the KEDA interceptor);
  careful: the Traefik container's --entrypoints.web.transport.respondingTimeouts.readTimeout=600s, a k3s
  HelmChartConfig's valuesContent setting ports.web.transport.respondingTimeouts.readTimeout.
- Azure Application Gateway: backend request timeout 30 s unless appgw.ingress.kubernetes.io/request-timeout
  (Azure/application-gateway-kubernetes-ingress 1.9.8 pkg/appgw/backendhttpsettings.go:239,
  pkg/annotations/ingress_annotations.go:57-58). Fires on spent set 88 biswa123642/local-k8s-ai-agent@
  aa428151292868cc78e646c5006e46c558764298 k8s/ingress.yaml (an AGIC Ingress to ai-api, which calls Ollama at
  OLLAMA_URL); careful: the annotation at 600, an Ingress to an app that calls no model.
- A caller of a model behind an ALB: spent set 86 Trin9/llm-serving-control-plane@
  45ac2db1c16f6ae99bb380844949bb90144fe3a9 deploy/k8s/aws/ingress.yaml (no idle timeout, the gate calls vLLM at
  VLLM_URL, whose Service the files leave out); careful: idle_timeout.timeout_seconds=600.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

from components import edge_timeouts

S9 = "llm-route-timeout-not-default"


def _deployment(name: str, containers: list[dict], namespace: str = "ai") -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": containers}},
        },
    }


def _service(name: str, port: int, target: int, namespace: str = "ai", app: str | None = None) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"selector": {"app": app or name}, "ports": [{"port": port, "targetPort": target}]},
    }


OLLAMA = _deployment("ollama", [{"name": "ollama", "image": "ollama/ollama:0.6.5", "ports": [{"containerPort": 11434}]}])
AGENT = _deployment(
    "ai-api",
    [
        {
            "name": "ai-agent",
            "image": "ai-agent:1.0",
            "ports": [{"containerPort": 8000}],
            "env": [{"name": "OLLAMA_URL", "value": "http://ollama:11434"}, {"name": "MODEL", "value": "mistral"}],
        }
    ],
)
AGIC = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "Ingress",
    "metadata": {"name": "ai-agent", "namespace": "ai", "annotations": {"appgw.ingress.kubernetes.io/ssl-redirect": "true"}},
    "spec": {
        "ingressClassName": "azure-application-gateway",
        "rules": [
            {
                "host": "ai-agent.example.net",
                "http": {
                    "paths": [
                        {
                            "path": "/",
                            "pathType": "Prefix",
                            "backend": {"service": {"name": "ai-api", "port": {"number": 8000}}},
                        }
                    ]
                },
            }
        ],
    },
}
AGIC_RUN = [OLLAMA, _service("ollama", 11434, 11434), AGENT, _service("ai-api", 80, 8000), AGIC]


def test_edge_rows_hold_the_new_defaults() -> None:
    assert edge_timeouts.EDGES["azure-appgw"].seconds == 30
    assert edge_timeouts.EDGES["traefik-entrypoint"].seconds == 60
    assert "static_config.go:51" in edge_timeouts.EDGES["traefik-entrypoint"].source


def test_agic_ingress_to_a_model_caller_fires() -> None:
    found = found_by(AGIC_RUN, S9)
    assert len(found) == 1 and found[0][0] == "advisory", found
    message = found[0][1]
    assert "appgw.ingress.kubernetes.io/request-timeout 30s (unset" in message
    assert "ai-api, which calls Service ollama" in message


def test_agic_ingress_careful_forms_stay_silent() -> None:
    raised = copy.deepcopy(AGIC)
    raised["metadata"]["annotations"]["appgw.ingress.kubernetes.io/request-timeout"] = "600"
    assert found_by([*AGIC_RUN[:-1], raised], S9) == []
    # an app that calls no model: not this LLM rule's concern
    plain = copy.deepcopy(AGENT)
    plain["spec"]["template"]["spec"]["containers"][0]["env"] = [{"name": "DB_URL", "value": "http://postgres:5432"}]
    assert found_by([OLLAMA, _service("ollama", 11434, 11434), plain, _service("ai-api", 80, 8000), AGIC], S9) == []


ROUTE = {
    "apiVersion": "traefik.io/v1alpha1",
    "kind": "IngressRoute",
    "metadata": {"name": "ollama", "namespace": "gpu-inference"},
    "spec": {
        "entryPoints": ["web"],
        "routes": [
            {
                "kind": "Rule",
                "match": "Host(`ollama.talos00`)",
                "services": [{"name": "keda-add-ons-http-interceptor-proxy", "namespace": "keda", "port": 8080}],
            }
        ],
    },
}


def test_traefik_ingress_route_on_the_default_read_timeout_fires() -> None:
    found = found_by([ROUTE], S9)
    assert len(found) == 1 and found[0][0] == "advisory", found
    assert "respondingTimeouts.readTimeout 60s (unset in these files" in found[0][1]
    assert "entry points web" in found[0][1]


def test_traefik_route_names_the_model_route_not_an_auth_callback_beside_it() -> None:
    # Spent set 95 aymenmastouri/k8s-manifests@83fa65a7 apps/litellm/ingressroute.yaml: a route to authentik-server
    # (the outpost callback, a Service the files do not hold) before the route to the model caller of the files. The
    # finding names the caller; an unheld Service beside a held one is no model (review51b).
    route = copy.deepcopy(ROUTE)
    route["metadata"]["namespace"] = "ai"
    route["spec"]["routes"] = [
        {
            "kind": "Rule",
            "match": "PathPrefix(`/outpost.goauthentik.io/`)",
            "services": [{"name": "authentik-server", "port": 9000}],
        },
        {"kind": "Rule", "match": "Host(`llm.example.net`)", "services": [{"name": "ai-api", "port": 80}]},
    ]
    ((level, message),) = found_by([*AGIC_RUN[:-1], route], S9)
    assert level == "advisory" and "ai-api" in message and "authentik-server" not in message
    # the callback beside an app that calls no model: silent
    plain = copy.deepcopy(AGENT)
    plain["spec"]["template"]["spec"]["containers"][0]["env"] = [{"name": "DB_URL", "value": "http://postgres:5432"}]
    assert found_by([plain, _service("ai-api", 80, 8000), route], S9) == []


def _traefik(args: list[str]) -> dict:
    return _deployment("traefik", [{"name": "traefik", "image": "traefik:v3.3.4", "args": args}], namespace="traefik")


def test_traefik_read_timeout_set_in_the_files_stays_silent() -> None:
    raised = _traefik(["--entryPoints.web.address=:8000", "--entryPoints.web.transport.respondingTimeouts.readTimeout=600s"])
    assert found_by([ROUTE, raised], S9) == []
    chart = {
        "apiVersion": "helm.cattle.io/v1",
        "kind": "HelmChartConfig",
        "metadata": {"name": "traefik", "namespace": "kube-system"},
        "spec": {"valuesContent": "ports:\n  web:\n    transport:\n      respondingTimeouts:\n        readTimeout: 900s\n"},
    }
    assert found_by([ROUTE, chart], S9) == []
    # another entry point's setting does not cover web
    other = _traefik(["--entrypoints.websecure.transport.respondingtimeouts.readtimeout=600s"])
    assert len(found_by([ROUTE, other], S9)) == 1


def test_traefik_ingress_class_is_read_too() -> None:
    ingress = copy.deepcopy(AGIC)
    ingress["spec"]["ingressClassName"] = "traefik"
    ingress["metadata"]["annotations"] = {"traefik.ingress.kubernetes.io/router.entrypoints": "websecure"}
    found = found_by([*AGIC_RUN[:-1], ingress], S9)
    assert len(found) == 1 and "Traefik entry point readTimeout 60s" in found[0][1], found


GATE = _deployment(
    "gate-service",
    [
        {
            "name": "gate",
            "image": "trin9/gate-service:1.0",
            "ports": [{"containerPort": 8080}],
            "env": [{"name": "VLLM_URL", "value": "http://vllm-qwen-service.default.svc.cluster.local:8000/v1/chat/completions"}],
        }
    ],
    namespace="default",
)
VLLM = _deployment(
    "vllm-qwen",
    [
        {
            "name": "vllm-qwen",
            "image": "vllm/vllm-openai:v0.8.5",
            "args": ["--model", "Qwen/Qwen2.5-1.5B-Instruct"],
            "resources": {"limits": {"nvidia.com/gpu": 1}},
        }
    ],
    namespace="default",
)
ALB = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "Ingress",
    "metadata": {
        "name": "gate-ingress",
        "annotations": {"alb.ingress.kubernetes.io/scheme": "internet-facing", "alb.ingress.kubernetes.io/target-type": "ip"},
    },
    "spec": {
        "ingressClassName": "alb",
        "rules": [
            {
                "http": {
                    "paths": [
                        {
                            "path": "/",
                            "pathType": "Prefix",
                            "backend": {"service": {"name": "gate-service-entry", "port": {"number": 80}}},
                        }
                    ]
                }
            }
        ],
    },
}


def test_alb_in_front_of_a_model_caller_fires_and_a_raised_idle_timeout_is_silent() -> None:
    run = [VLLM, GATE, _service("gate-service-entry", 80, 8080, namespace="default", app="gate-service"), ALB]
    found = [m for _, m in found_by(run, S9) if "gate-ingress" in m or "gate-service-entry" in m]
    assert any("which calls Service vllm-qwen-service" in m for m in found), found
    raised = copy.deepcopy(ALB)
    raised["metadata"]["annotations"]["alb.ingress.kubernetes.io/load-balancer-attributes"] = "idle_timeout.timeout_seconds=600"
    assert [m for _, m in found_by([*run[:-1], raised], S9) if "gate-service-entry" in m] == []


# --- G94: an nginx sidecar proxying to the model server of its own pod ----------------------------------------------------

G94 = "proxy-streams-model-replies"
SIDECAR_CONF = """server {
    listen 80;
    location / {
        if ($http_authorization != "Bearer ${OLLAMA_API_KEY}") { return 401; }
        proxy_pass http://127.0.0.1:11434;
        proxy_read_timeout 600s;
    }
}
"""


def _sidecar_run(conf: str, ollama_port: int = 11434) -> list[dict]:
    config = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "ollama-nginx-template"},
        "data": {"default.conf.template": conf},
    }
    pod = _deployment(
        "ollama",
        [
            {"name": "ollama", "image": "ollama/ollama:0.6.5", "ports": [{"containerPort": ollama_port}]},
            {
                "name": "nginx-proxy",
                "image": "nginx:1.27-alpine",
                "ports": [{"containerPort": 80}],
                "volumeMounts": [{"name": "nginx-template", "mountPath": "/etc/nginx/templates"}],
            },
        ],
        namespace="default",
    )
    pod["spec"]["template"]["spec"]["volumes"] = [{"name": "nginx-template", "configMap": {"name": "ollama-nginx-template"}}]
    return [config, pod, _service("ollama-service", 80, 80, namespace="default", app="ollama")]


def test_nginx_sidecar_to_the_pods_ollama_fires_on_the_config_map() -> None:
    found = found_by(_sidecar_run(SIDECAR_CONF), G94)
    assert len(found) == 1 and found[0][0] == "advisory", found
    assert "the ollama server container ollama of the same pod (127.0.0.1:11434)" in found[0][1]


def test_nginx_sidecar_careful_forms_stay_silent() -> None:
    unbuffered = SIDECAR_CONF.replace("proxy_read_timeout 600s;", "proxy_read_timeout 600s;\n        proxy_buffering off;")
    assert found_by(_sidecar_run(unbuffered), G94) == []
    # the loopback port is not the model server's: another sidecar (an exporter, an auth service) answers there
    assert found_by(_sidecar_run(SIDECAR_CONF.replace("11434", "9090")), G94) == []


# --- S10: a caller of a model that takes requests itself ---------------------------------------------------------------

S10_CALLER = "model-caller-drains-calls"


def test_model_caller_without_a_drain_fires() -> None:
    run = [VLLM, GATE, _service("gate-service-entry", 80, 8080, namespace="default", app="gate-service")]
    found = found_by(run, S10_CALLER)
    assert len(found) == 1 and found[0][0] == "advisory", found
    assert "calls Service vllm-qwen-service" in found[0][1] and "no preStop hook" in found[0][1]
    assert (
        "terminationGracePeriodSeconds 30 (unset: Kubernetes' default) < preStop 0s + the longest model call 300s" in found[0][1]
    )


def test_model_caller_careful_forms_stay_silent() -> None:
    drained = copy.deepcopy(GATE)
    drained["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] = 360
    drained["spec"]["template"]["spec"]["containers"][0]["lifecycle"] = {"preStop": {"sleep": {"seconds": 15}}}
    service = _service("gate-service-entry", 80, 8080, namespace="default", app="gate-service")
    assert found_by([VLLM, drained, service], S10_CALLER) == []
    # no Service of its own (a batch client, a worker): it takes no requests to cut
    assert found_by([VLLM, GATE], S10_CALLER) == []
    # a chat UI is not followed
    ui = copy.deepcopy(GATE)
    ui["spec"]["template"]["spec"]["containers"][0]["image"] = "ghcr.io/open-webui/open-webui:v0.6.5"
    assert found_by([VLLM, ui, service], S10_CALLER) == []


def test_a_projects_own_litellm_build_is_the_litellm_proxy() -> None:
    # spent set 84 rjmad1/AegisOS k8s/litellm-deployment.yaml: image aegisos-litellm:latest
    from policies.reading.gateway_apps import app_of

    app = app_of({"name": "litellm", "image": "aegisos-litellm:latest"})
    assert app is not None and app.name == "litellm"
    assert app_of({"name": "x", "image": "acme/litellmish:1"}) is None


# --- G32: an unguarded edge in front of an app that calls a model; the route behind a Gateway ---------------------------

G32 = "public-model-endpoint-guarded"


def _nginx_ingress(backend: str, annotations: dict | None = None) -> dict:
    ingress = copy.deepcopy(AGIC)
    ingress["metadata"]["name"] = "llm-api-ingress"
    ingress["metadata"]["annotations"] = {"kubernetes.io/ingress.class": "nginx", **(annotations or {})}
    del ingress["spec"]["ingressClassName"]
    ingress["spec"]["rules"][0]["http"]["paths"][0]["backend"] = {"service": {"name": backend, "port": {"number": 80}}}
    return ingress


def test_unguarded_ingress_to_a_model_caller_is_advice() -> None:
    # spent set 74 majonation/k8-ollama-deployment k8s/api/ingress.yaml: nginx Ingress, no TLS, to llm-api calling Ollama
    found = found_by([*AGIC_RUN[:-1], _nginx_ingress("ai-api")], G32)
    mine = [m for level, m in found if "an app that calls a model" in m and level == "advisory"]
    assert len(mine) == 1 and "publishes Service ai-api (ai-api, which calls Service ollama" in mine[0], found


def test_guarded_ingress_or_plain_app_stays_silent() -> None:
    guarded = _nginx_ingress("ai-api", {"nginx.ingress.kubernetes.io/auth-url": "https://auth.example.net/oauth2/auth"})
    assert [m for _, m in found_by([*AGIC_RUN[:-1], guarded], G32) if "an app that calls a model" in m] == []
    plain = copy.deepcopy(AGENT)
    plain["spec"]["template"]["spec"]["containers"][0]["env"] = [{"name": "DB_URL", "value": "http://postgres:5432"}]
    run = [OLLAMA, _service("ollama", 11434, 11434), plain, _service("ai-api", 80, 8000), _nginx_ingress("ai-api")]
    assert found_by(run, G32) == []


# --- S9: an app's own call timeout beside a model's address -------------------------------------------------------------


def _gateway_config(data: dict) -> dict:
    # spent set 68 jakepage91/operating-llms-on-kubernetes llm-gateway/k8s/configmap.yaml
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "llm-gateway-config", "namespace": "llm-gateway"},
        "data": data,
    }


def test_short_call_timeout_beside_a_model_url_fires_on_the_config_map() -> None:
    config = _gateway_config({"OLLAMA_BASE_URL": "http://ollama.ai.svc.cluster.local:11434", "REQUEST_TIMEOUT_SECONDS": "30"})
    found = [m for _, m in found_by([OLLAMA, config], S9) if "REQUEST_TIMEOUT_SECONDS" in m]
    assert len(found) == 1 and "REQUEST_TIMEOUT_SECONDS 30s beside the address of Service ollama" in found[0], found
    # literal env of a workload too, milliseconds read as such
    agent = copy.deepcopy(AGENT)
    agent["spec"]["template"]["spec"]["containers"][0]["env"].append({"name": "LLM_TIMEOUT_MS", "value": "45000"})
    assert any("LLM_TIMEOUT_MS 45s" in m for _, m in found_by([OLLAMA, _service("ollama", 11434, 11434), agent], S9))


def test_long_or_unrelated_timeouts_stay_silent() -> None:
    base = {"OLLAMA_BASE_URL": "http://ollama:11434"}
    assert [
        m for _, m in found_by([OLLAMA, _gateway_config({**base, "REQUEST_TIMEOUT_SECONDS": "600"})], S9) if "beside" in m
    ] == []
    assert [
        m
        for _, m in found_by([OLLAMA, _gateway_config({**base, "CONNECT_TIMEOUT": "5", "REDIS_TIMEOUT": "2"})], S9)
        if "beside" in m
    ] == []
    # a bare number above 600 may be milliseconds: not judged
    assert [m for _, m in found_by([OLLAMA, _gateway_config({**base, "REQUEST_TIMEOUT": "30000"})], S9) if "beside" in m] == []
    # no model's address beside it
    other = {"API_URL": "http://billing:8080", "REQUEST_TIMEOUT_SECONDS": "30"}
    assert [m for _, m in found_by([OLLAMA, _gateway_config(other)], S9) if "beside" in m] == []


def test_an_app_servers_own_read_and_write_timeouts_are_not_call_timeouts() -> None:
    base = {"LLM_BASE_URL": "http://ollama:11434/v1", "GATEWAY_READ_TIMEOUT": "10s", "GATEWAY_WRITE_TIMEOUT": "30s"}
    assert [m for _, m in found_by([OLLAMA, _gateway_config(base)], S9) if "beside" in m] == []
    assert any(
        "LLM_READ_TIMEOUT 20s" in m for _, m in found_by([OLLAMA, _gateway_config({**base, "LLM_READ_TIMEOUT": "20"})], S9)
    )
