"""Session 55 (brief exposure55): who can reach the model, read from more of the forms that publish it or open it.

- G101 app-setting-exposure: vLLM's logging switches (components/app_exposure.toml rows vllm-log-outputs and
  vllm-log-request-prompts): ``--enable-log-outputs`` logs every completion at INFO; ``--enable-log-requests`` logs
  prompts at INFO up to vLLM 0.11.0, and only at DEBUG from 0.11.1.
- G87 chat-ui-auth-kept: an Open WebUI rebuilt under another publisher's name (policies/reading/chat_ui_backends.py
  rebuilt_ui_app) with its login switched off.
"""

from __future__ import annotations

import copy

import pytest
from policy_fixtures import found_by

from components.app_exposure import AppExposureError, settings_of

SETTING = "app-setting-exposure"
AUTH = "chat-ui-auth-kept"


def _deployment(name: str, containers: list[dict], labels: dict | None = None) -> dict:
    labels = labels or {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "vllm-inference"},
        "spec": {
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": containers}},
        },
    }


# ---------------------------------------------------------------------------------------------------------------------
# G101: vLLM's request and output logging.

# Spent set 116 murubhas/eks-llm-inference-optimization-lab@daa246c3f2d6ea3ed76e4ba196e4595237d298f7
# experiments/03-full-gpu-vs-mig/manifests/mig-2g-48gb.yaml (cut to the serve line): labelled G101 advisory.
_MIG_SCRIPT = (
    "set -eu\n"
    "exec vllm serve /models/qwen3.6-27b-fp8 \\\n"
    "  --max-model-len 8192 \\\n"
    "  --tensor-parallel-size 1 \\\n"
    "  --enable-log-requests \\\n"
    "  --enable-log-outputs \\\n"
    "  --served-model-name qwen36-27b-all1000-fp8-g7e-benchmark \\\n"
    "  --gpu-memory-utilization 0.90 \\\n"
    "  --port 8000\n"
)


def _vllm(image: str, script: str, env: dict[str, str] | None = None) -> dict:
    container = {
        "name": "vllm",
        "image": image,
        "command": ["/bin/sh", "-lc"],
        "args": [script],
        "ports": [{"containerPort": 8000}],
        "resources": {"limits": {"nvidia.com/gpu": "1"}},
    }
    if env:
        container["env"] = [{"name": k, "value": v} for k, v in env.items()]
    return container


def test_vllm_output_logging_is_advice():
    server = _vllm("YOUR_REGISTRY.example.com/vllm-openai:vllm-0.24.0-lmcache", _MIG_SCRIPT)
    ((level, message),) = found_by([_deployment("qwen36-g7e-mig", [server])], SETTING)
    assert level == "advisory"
    assert message.startswith(
        "container vllm: --enable-log-outputs writes every generated response (its text and token ids) to the "
        "server's log at INFO"
    )


def test_vllm_prompt_logging_follows_the_release():
    script = _MIG_SCRIPT.replace("  --enable-log-outputs \\\n", "")
    # Up to 0.11.0 a logged request shows its prompt at INFO.
    ((level, message),) = found_by([_deployment("v", [_vllm("vllm/vllm-openai:v0.10.2", script)])], SETTING)
    assert level == "advisory"
    assert message.startswith("container vllm: --enable-log-requests (vLLM 0.10.2) writes every request's prompt text")
    # From 0.11.1 only at DEBUG: silent at the default level, advice with VLLM_LOGGING_LEVEL=DEBUG.
    assert found_by([_deployment("v", [_vllm("vllm/vllm-openai:v0.11.1", script)])], SETTING) == []
    assert found_by([_deployment("v", [_vllm("vllm/vllm-openai:latest", script)])], SETTING) == []
    debug = _vllm("vllm/vllm-openai:v0.24.0", script, {"VLLM_LOGGING_LEVEL": "DEBUG"})
    ((_, message),) = found_by([_deployment("v", [debug])], SETTING)
    assert "--enable-log-requests (VLLM_LOGGING_LEVEL=DEBUG) writes every request's prompt" in message
    # A rebuild's tag names its owner's version, not vLLM's: read as a release the image does not name.
    assert found_by([_deployment("v", [_vllm("acme/vllm-server:v0.10.2", script)])], SETTING) == []


def test_careful_vllm_logging_stays_silent():
    # substratusai/kubeai@2f32ef498da629f96fd417ddfaaf22c28d40787e manifests/models/llama-3.1-70b-instruct-fp8-h100.yaml
    # (corpus v2): the KubeAI Model turns request logging off.
    careful = _MIG_SCRIPT.replace("--enable-log-requests", "--disable-log-requests").replace("  --enable-log-outputs \\\n", "")
    assert found_by([_deployment("v", [_vllm("vllm/vllm-openai:v0.10.2", careful)])], SETTING) == []
    turned_off = _MIG_SCRIPT.replace("--enable-log-outputs", "--no-enable-log-outputs")
    assert found_by([_deployment("v", [_vllm("vllm/vllm-openai:v0.24.0", turned_off)])], SETTING) == []


def test_flag_rows_are_checked():
    row = {
        "id": "x",
        "app": "litellm",
        "where": "flag",
        "name": "enable-log-outputs",
        "risky": [True],
        "default": "d",
        "why": "w",
        "fix": "f",
        "source": "s",
    }
    with pytest.raises(AppExposureError, match="a flag row names an engine"):
        settings_of({"setting": [row]})
    with pytest.raises(AppExposureError, match="until: a release"):
        settings_of({"setting": [{**row, "app": "vllm", "until": "soon"}]})
    with pytest.raises(AppExposureError, match="until: a release"):
        settings_of({"setting": [{**row, "app": "vllm", "where": "env", "name": "X", "until": "0.11.0"}]})


# ---------------------------------------------------------------------------------------------------------------------
# G87: Open WebUI rebuilt under another name, login off, behind an internet-facing NLB.

# Spent set 116 walidshaari/sample-aws-eks-auto-mode@8ebbbeb3a721a0fe73e5ebf3032876a47c7361a3 examples/gpu/open-webui.yaml
# (cut) and examples/gpu/lb.yaml: labelled G87 advisory.
_WEBUI = {
    "name": "open-webui",
    "image": "kopi/openwebui@sha256:38a883697e6ee80a0cf2505e7a90c9f24d1ddf6dc8c6edc9bc58cbb729a64f2f",
    "env": [
        {"name": "WEBUI_AUTH", "value": "False"},
        {"name": "OPENAI_API_BASE_URLS", "value": "http://vllm-service/v1;http://vllm-service-karsh/v1"},
    ],
}
_NGINX = {"name": "nginx-proxy", "image": "nginx:alpine", "ports": [{"containerPort": 8000}]}
_NLB = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {
        "name": "open-webui-service",
        "namespace": "vllm-inference",
        "annotations": {"service.beta.kubernetes.io/aws-load-balancer-scheme": "internet-facing"},
    },
    "spec": {
        "selector": {"app": "open-webui-server"},
        "type": "LoadBalancer",
        "ports": [{"protocol": "TCP", "port": 80, "targetPort": 8080}],
    },
}


def _webui_deployment(webui: dict) -> dict:
    return _deployment("open-webui-deployment", [_NGINX, webui], {"app": "open-webui-server"})


def test_rebuilt_open_webui_with_login_off_is_advice():
    ((level, message),) = found_by([_webui_deployment(_WEBUI), _NLB], AUTH)
    assert level == "advisory"
    assert message.startswith(
        "container open-webui: WEBUI_AUTH='False' turns Open WebUI's login off (the image kopi/openwebui@sha256:"
    )
    assert "is a rebuild named as Open WebUI's, writing its switch)" in message
    assert "Service open-webui-service is published (its LoadBalancer type)" in message


def test_careful_rebuilds_stay_silent():
    login_on = copy.deepcopy(_WEBUI)
    login_on["env"][0]["value"] = "True"
    # Login on: nothing to say, and a rebuild's key file is not judged.
    assert found_by([_webui_deployment(login_on), _NLB], AUTH) == []
    # No switch written: the name alone does not make it Open WebUI.
    unswitched = {**_WEBUI, "env": _WEBUI["env"][1:]}
    assert found_by([_webui_deployment(unswitched), _NLB], AUTH) == []
    # A repository only containing the name (a pipelines image) is another program.
    other = {**_WEBUI, "image": "ghcr.io/acme/openwebui-pipelines:0.1"}
    assert found_by([_webui_deployment(other), _NLB], AUTH) == []


# ---------------------------------------------------------------------------------------------------------------------
# G32: an app-template release's LoadBalancer/NodePort Service in front of a chat UI or an LLM router.

NODE = "no-load-balancer-service"


def _app_template(name: str, image: dict, service: dict, **values: dict) -> dict:
    return {
        "apiVersion": "helm.toolkit.fluxcd.io/v2",
        "kind": "HelmRelease",
        "metadata": {"name": name},
        "spec": {
            "chartRef": {"kind": "OCIRepository", "name": "app-template"},
            "values": {
                "controllers": {name: {"containers": {"app": {"image": image, "env": {"TZ": "UTC"}}}}},
                "service": {"app": service},
                **values,
            },
        },
    }


# Spent set 117 chaijunkin/home-ops@857e5ef863457dcaba094b08976a5ea495cd9e9f
# kubernetes/apps/ai/open-webui/app/helmrelease.yaml (cut): labelled G32 advisory.
_OPEN_WEBUI_IMAGE = {
    "repository": "ghcr.io/open-webui/open-webui",
    "tag": "v0.11.0@sha256:72c0ba641ba75e7aa52655cb242570906ececd09b1140fb736483038a22b3228",
}
_LB = {
    "type": "LoadBalancer",
    "annotations": {"lbipam.cilium.io/ips": "10.10.30.45"},
    "ports": {"http": {"port": 8080}},
}


def test_chat_ui_release_on_a_load_balancer_is_advice():
    ((level, message),) = found_by([_app_template("open-webui", _OPEN_WEBUI_IMAGE, _LB)], NODE)
    assert level == "advisory"
    assert message.startswith(
        "spec.values.service.app.type: LoadBalancer makes the chart publish Open WebUI (a chat UI in front of the "
        "models, holding its users' logins and chats) through its own cloud load balancer"
    )


def test_router_release_on_a_node_port_is_advice():
    litellm = {"repository": "ghcr.io/berriai/litellm", "tag": "v1.95.0"}
    node_port = {"type": "NodePort", "ports": {"http": {"port": 4000}}}
    ((_, message),) = found_by([_app_template("litellm", litellm, node_port)], NODE)
    assert "publish the LiteLLM" in message and "on every node address" in message


def test_careful_releases_stay_silent():
    # The same release as Services are usually left: ClusterIP behind the route (the chart's default type).
    cluster_ip = {"ports": {"http": {"port": 8080}}}
    assert found_by([_app_template("open-webui", _OPEN_WEBUI_IMAGE, cluster_ip)], NODE) == []
    # An app-template release of an app that fronts no model (the home-ops repositories' usual Home Assistant) on a
    # LoadBalancer is not this row's.
    other = {"repository": "ghcr.io/home-operations/home-assistant", "tag": "2025.9.1"}
    assert found_by([_app_template("home-assistant", other, _LB)], NODE) == []


# ---------------------------------------------------------------------------------------------------------------------
# G32: an Ingress in front of an app named as an LLM router (policies/reading/model_backends.py named_routers).

PUBLIC = "public-model-endpoint-guarded"

# Spent set 118 bartek-boniecki/llm-router@8aa65e35ee6c6db40aed9ca3f539f400faae9121 k8s/router-deployment.yaml,
# k8s/service.yaml and k8s/ingress.yaml (cut): labelled G32 advisory on the Ingress.
_ROUTER = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "router", "namespace": "llm-router"},
    "spec": {
        "selector": {"matchLabels": {"app": "router"}},
        "template": {
            "metadata": {"labels": {"app": "router"}},
            "spec": {
                "containers": [
                    {
                        "name": "api",
                        "image": "your-registry/llm-router:latest",
                        "envFrom": [{"secretRef": {"name": "router-secrets"}}, {"configMapRef": {"name": "router-config"}}],
                        "ports": [{"containerPort": 8000}],
                    }
                ]
            },
        },
    },
}
_ROUTER_SVC = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "router-svc", "namespace": "llm-router"},
    "spec": {"selector": {"app": "router"}, "ports": [{"port": 80, "targetPort": 8000}], "type": "ClusterIP"},
}
_ROUTER_INGRESS = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "Ingress",
    "metadata": {
        "name": "router-ingress",
        "namespace": "llm-router",
        "annotations": {"kubernetes.io/ingress.class": "nginx"},
    },
    "spec": {
        "rules": [
            {
                "host": "router.example.com",
                "http": {
                    "paths": [
                        {
                            "path": "/",
                            "pathType": "Prefix",
                            "backend": {"service": {"name": "router-svc", "port": {"number": 80}}},
                        }
                    ]
                },
            }
        ]
    },
}


def test_ingress_to_a_named_router_is_advice():
    ((level, message),) = found_by([_ROUTER, _ROUTER_SVC, _ROUTER_INGRESS], PUBLIC)
    assert level == "advisory"
    assert message.startswith(
        "Ingress llm-router/router-ingress (class nginx) (possibly public: class nginx: whether the controller's Service "
        "is public is not in these files) publishes Service router-svc (Deployment router, image "
        "your-registry/llm-router, named as an LLM router), an app that calls a model, with nothing in these files "
        "authenticating callers and no TLS"
    )


def test_careful_router_edges_stay_silent():
    # TLS and an auth-url at the edge, as ingress-nginx users guard an app (the form the fix names).
    guarded = copy.deepcopy(_ROUTER_INGRESS)
    guarded["metadata"]["annotations"]["nginx.ingress.kubernetes.io/auth-url"] = "https://auth.example.org/oauth2/auth"
    guarded["spec"]["tls"] = [{"hosts": ["router.example.com"], "secretName": "router-tls"}]
    assert found_by([_ROUTER, _ROUTER_SVC, guarded], PUBLIC) == []
    # A repository that only contains the words (a UI for the router) is not named as one.
    ui = copy.deepcopy(_ROUTER)
    ui["spec"]["template"]["spec"]["containers"][0]["image"] = "ghcr.io/acme/llm-router-ui:1.2.0"
    assert found_by([ui, _ROUTER_SVC, _ROUTER_INGRESS], PUBLIC) == []
