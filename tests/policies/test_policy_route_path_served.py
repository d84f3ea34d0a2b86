"""S44 route-path-served: a route with no rewrite forwards a path prefix the model server behind it serves.

Fires (labels filed NONE, now described):
- Spent set 37: MissawB/Animetix deploy/k8s/ingress.yaml@b61f2b49, Prefix /api/vllm to Service vllm-inference (vLLM),
  no rewrite: vLLM receives /api/vllm/v1/... and answers 404.
- Spent set 33 (second repository, Gateway API form): shanaka-versent/Ollama-on-EKS k8s/httproutes.yaml@166e5dc1,
  Exact /healthz to Service ollama (not in the files; the Deployment ollama runs Ollama, which serves only /, /api/...
  and /v1/...: ollama/ollama v0.32.15 server/routes.go:1877-1926).
Careful forms stay silent: the same Ingress routing /v1; with an ingress-nginx rewrite-target (S44's other rule) or a
Traefik middleware annotation; an HTTPRoute with a URLRewrite filter; vLLM given --root-path; the Ollama route on
PathPrefix / (shanaka-versent's own ollama-route); a backend that runs no known engine.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

S44 = "route-path-served"


def _deployment(name: str, image: str, args: list[str], namespace: str = "default") -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": name, "image": image, "args": args, "ports": [{"containerPort": 8000}]}]},
            },
        },
    }


# MissawB/Animetix deploy/k8s/vllm-deployment.yaml + ingress.yaml@b61f2b49, cut.
VLLM = _deployment("vllm-inference", "vllm/vllm-openai:latest", ["--model", "Qwen/Qwen2.5-0.5B-Instruct"])
SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "vllm-inference", "namespace": "default"},
    "spec": {"selector": {"app": "vllm-inference"}, "ports": [{"port": 80, "targetPort": 8000}]},
}
INGRESS = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "Ingress",
    "metadata": {"name": "animetix-ingress", "namespace": "default"},
    "spec": {
        "rules": [
            {
                "host": "animetix.example.com",
                "http": {
                    "paths": [
                        {
                            "path": "/api/vllm",
                            "pathType": "Prefix",
                            "backend": {"service": {"name": "vllm-inference", "port": {"number": 80}}},
                        }
                    ]
                },
            }
        ]
    },
}

# shanaka-versent/Ollama-on-EKS k8s/ollama/deployment.yaml + k8s/httproutes.yaml@166e5dc1, cut.
OLLAMA = _deployment("ollama", "ollama/ollama:latest", [], namespace="ollama")


def _route(name: str, kind: str, value: str, filters: list[dict] | None = None) -> dict:
    rule: dict = {"matches": [{"path": {"type": kind, "value": value}}], "backendRefs": [{"name": "ollama", "port": 11434}]}
    if filters:
        rule["filters"] = filters
    return {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "HTTPRoute",
        "metadata": {"name": name, "namespace": "ollama"},
        "spec": {"parentRefs": [{"name": "ollama-gateway", "namespace": "istio-ingress"}], "rules": [rule]},
    }


def test_ingress_prefix_vllm_does_not_serve() -> None:
    found = found_by([VLLM, SERVICE, INGRESS], S44)
    assert found == [
        (
            "advisory",
            "spec.rules[0].http.paths[0]: requests under /api/vllm reach Service vllm-inference unchanged (no rewrite), "
            "and the vllm server behind it serves nothing there (its paths: /v1/..., /health, /metrics, /tokenize, "
            "/version, ...), so it answers 404; route the server's own paths (/v1) or rewrite the prefix away",
        )
    ]


def test_httproute_exact_path_ollama_does_not_serve() -> None:
    found = found_by([OLLAMA, _route("health-route", "Exact", "/healthz")], S44)
    assert len(found) == 1
    assert found[0][1].startswith(
        "spec.rules[0].matches[0]: requests for /healthz reach Service ollama unchanged (no rewrite), and the ollama "
        "server behind it serves nothing there (its paths: / exactly, /api/..., /v1/...)"
    )


def test_served_paths_and_rewrites_stay_silent() -> None:
    v1 = copy.deepcopy(INGRESS)
    v1["spec"]["rules"][0]["http"]["paths"][0]["path"] = "/v1"
    rewrite = copy.deepcopy(INGRESS)
    rewrite["metadata"]["annotations"] = {"nginx.ingress.kubernetes.io/rewrite-target": "/$2"}
    traefik = copy.deepcopy(INGRESS)
    traefik["metadata"]["annotations"] = {"traefik.ingress.kubernetes.io/router.middlewares": "default-strip@kubernetescrd"}
    root_path = copy.deepcopy(VLLM)
    root_path["spec"]["template"]["spec"]["containers"][0]["args"] += ["--root-path", "/api/vllm"]
    kong = copy.deepcopy(INGRESS)
    kong["metadata"]["annotations"] = {"konghq.com/plugins": "strip-vllm-prefix"}
    snippet = copy.deepcopy(INGRESS)
    snippet["metadata"]["annotations"] = {
        "nginx.ingress.kubernetes.io/configuration-snippet": "rewrite ^/api/vllm/(.*) /$1 break;"
    }
    for objs in (
        [VLLM, SERVICE, v1],
        [VLLM, SERVICE, rewrite],
        [VLLM, SERVICE, traefik],
        [VLLM, SERVICE, kong],
        [VLLM, SERVICE, snippet],
        [root_path, SERVICE, INGRESS],
    ):
        assert found_by(objs, S44) == []


def test_gateway_forms_that_stay_silent() -> None:
    strip = [{"type": "URLRewrite", "urlRewrite": {"path": {"type": "ReplacePrefixMatch", "replacePrefixMatch": "/"}}}]
    assert found_by([OLLAMA, _route("ollama-route", "PathPrefix", "/")], S44) == []
    assert found_by([OLLAMA, _route("health-route", "Exact", "/healthz", strip)], S44) == []
    assert found_by([OLLAMA, _route("tags", "Exact", "/api/tags")], S44) == []


def test_backend_of_no_known_engine_stays_silent() -> None:
    web = _deployment("vllm-inference", "nginx:1.27", [])
    assert found_by([web, SERVICE, INGRESS], S44) == []


# fhswf/soccer-agent k8s/ingress.yaml and k8s/litellm-deployment.yaml@bac5e294fb65105a17b339ea834dadc807d9716b (spent
# set 81, labelled S44): Prefix /llm (no rewrite annotation) to Service litellm:4000, a LiteLLM proxy with no
# SERVER_ROOT_PATH; the proxy's routes sit at its root (components/serving_apps.toml [apps.litellm] root_segments, read
# from the litellm 1.77.7 wheel), so /llm/v1/chat/completions answers 404.
def _litellm(env=None) -> dict:
    deployment = _deployment("litellm", "ghcr.io/berriai/litellm:main-v1.77.7-stable", ["--config", "/app/config.yaml"])
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    container["ports"] = [{"containerPort": 4000}]
    if env:
        container["env"] = env
    return deployment


def _llm_ingress(path: str = "/llm", annotations=None) -> dict:
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": "wm2026-ingress", "annotations": annotations or {"nginx.ingress.kubernetes.io/use-regex": "true"}},
        "spec": {
            "rules": [
                {
                    "http": {
                        "paths": [
                            {
                                "path": path,
                                "pathType": "Prefix",
                                "backend": {"service": {"name": "litellm", "port": {"number": 4000}}},
                            }
                        ]
                    }
                }
            ]
        },
    }


def test_a_prefix_forwarded_to_litellm_at_its_root_is_advised():
    ((level, message),) = found_by([_litellm(), _llm_ingress()], S44)
    assert level == "advisory"
    assert message.startswith(
        "spec.rules[0].http.paths[0]: requests under /llm reach Service litellm unchanged (no rewrite), and the LiteLLM "
        "proxy server behind it serves nothing there"
    )
    assert message.endswith("(or set SERVER_ROOT_PATH to the prefix)")


def test_litellm_careful_forms_stay_silent():
    # Its own root paths; SERVER_ROOT_PATH set to the prefix; a rewrite annotation.
    assert found_by([_litellm(), _llm_ingress("/v1")], S44) == []
    assert found_by([_litellm(), _llm_ingress("/")], S44) == []
    assert found_by([_litellm([{"name": "SERVER_ROOT_PATH", "value": "/llm"}]), _llm_ingress()], S44) == []
    rewrite = {"nginx.ingress.kubernetes.io/rewrite-target": "/$2"}
    assert found_by([_litellm(), _llm_ingress("/llm(/|$)(.*)", rewrite)], S44) == []
