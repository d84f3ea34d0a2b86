"""LLM app settings that open access or leak data (brief appsettings52), and Open WebUI's debug logging (S36).

S36: Open WebUI's ``GLOBAL_LOG_LEVEL=DEBUG`` (open-webui/open-webui b8912aa67 (0.6.18) backend/open_webui/env.py:69-76,
components/debug_switches.toml); spent set 91 thaynes43/haynes-ops@55ae48c8
kubernetes/main/apps/ai/open-webui/app/helmrelease.yaml and nachtschatt3n/cberg-home-nextgen@b70c8e9b
kubernetes/apps/ai/open-webui/app/helmrelease.yaml (extraEnvVars of the open-webui chart). Silent: INFO, and the same
variable on a container that is not Open WebUI.
"""

from __future__ import annotations

import pytest
from policy_fixtures import found_by

from components.app_exposure import SETTINGS, AppExposureError, settings_of

S36 = "debug-switches-off"


def _deployment(container: dict, name: str = "s", labels: dict | None = None, pod: dict | None = None) -> dict:
    labels = labels or {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {**(pod or {}), "containers": [container]}},
        },
    }


def _webui(env: dict[str, str], image: str = "ghcr.io/open-webui/open-webui:0.6.18") -> dict:
    return {
        "name": "open-webui",
        "image": image,
        "ports": [{"containerPort": 8080}],
        "env": [{"name": k, "value": v} for k, v in env.items()],
    }


def test_open_webui_debug_logging_is_advice():
    ((level, message),) = found_by([_deployment(_webui({"GLOBAL_LOG_LEVEL": "DEBUG"}))], S36)
    assert level == "advisory"
    assert message.startswith("container open-webui: env GLOBAL_LOG_LEVEL=DEBUG sets Open WebUI's root logger to DEBUG")
    assert found_by([_deployment(_webui({"GLOBAL_LOG_LEVEL": "INFO"}))], S36) == []
    other = {"name": "api", "image": "ghcr.io/acme/api:1.0", "env": [{"name": "GLOBAL_LOG_LEVEL", "value": "DEBUG"}]}
    assert found_by([_deployment(other)], S36) == []


# ---------------------------------------------------------------------------------------------------------------------
# G26 widened: seccompProfile Unconfined on a serving container (policies/k8s_generic/no_privileged.py).

G26 = "no-privileged"


def _vllm_rocm(context: dict | None = None) -> dict:
    # Spent set 92 Nabelops/n8s@9ed59e7d apps/vllm/deployment.yaml: a ROCm vLLM container with seccompProfile Unconfined.
    container = {
        "name": "vllm",
        "image": "vllm/vllm-openai-rocm:gemma4",
        "args": ["--model=google/gemma-4-31B-it", "--host=0.0.0.0", "--port=8000"],
        "ports": [{"containerPort": 8000, "name": "http"}],
        "resources": {"requests": {"amd.com/gpu": "1"}, "limits": {"amd.com/gpu": "1"}},
    }
    if context is not None:
        container["securityContext"] = context
    return container


def test_seccomp_unconfined_on_a_model_server_is_advice():
    ((level, message),) = found_by([_deployment(_vllm_rocm({"seccompProfile": {"type": "Unconfined"}}))], G26)
    assert level == "advisory"
    assert message.startswith("container vllm: securityContext seccompProfile Unconfined on this vLLM server turns the")
    pod = {"securityContext": {"seccompProfile": {"type": "Unconfined"}}}
    ((_, message),) = found_by([_deployment(_vllm_rocm(), pod=pod)], G26)
    assert "the pod's securityContext seccompProfile Unconfined" in message
    # Careful: RuntimeDefault; a container's RuntimeDefault over the pod's Unconfined; a container that serves nothing.
    assert found_by([_deployment(_vllm_rocm({"seccompProfile": {"type": "RuntimeDefault"}}))], G26) == []
    assert found_by([_deployment(_vllm_rocm({"seccompProfile": {"type": "RuntimeDefault"}}), pod=pod)], G26) == []
    tool = {"name": "tool", "image": "busybox:1.36", "command": ["sleep", "3600"]}
    assert found_by([_deployment(tool, pod=pod)], G26) == []


def test_seccomp_unconfined_on_vllm_cpu_backend_is_silent():
    # vllm-project/vllm 3ff2de9c docs/getting_started/installation/cpu.md FAQ: Unconfined + SYS_NICE for NUMA page
    # migration on the CPU backend (spent sets 71 Sanmay-Das/LLM-Serving-Benchmark, 97 rajinikanthvadla-ai/...).
    cpu = {
        "name": "vllm",
        "image": "vllm/vllm-openai-cpu:latest-x86_64",
        "args": ["--model", "TinyLlama/TinyLlama-1.1B-Chat-v1.0"],
        "securityContext": {"capabilities": {"add": ["SYS_NICE"]}},
    }
    pod = {"securityContext": {"seccompProfile": {"type": "Unconfined"}}}
    assert found_by([_deployment(cpu, pod=pod)], G26) == []


def test_seccomp_unconfined_in_an_engine_crs_spec_is_advice():
    # Spent set 91 Tanguille/cluster@7caefd26 kubernetes/apps/ai/llmkube/models/qwen38-27b-vllm.yaml (llmkube).
    def cr(kind: str, image: str) -> dict:
        return {
            "apiVersion": "inference.llmkube.dev/v1alpha1",
            "kind": "InferenceService",
            "metadata": {"name": "qwen"},
            "spec": {
                "modelRef": "qwen",
                "runtime": "vllm",
                "image": image,
                "podSecurityContext": {"runAsUser": 0, "seccompProfile": {"type": kind}},
            },
        }

    ((level, message),) = found_by([cr("Unconfined", "vllm/vllm-openai-rocm:nightly")], G26)
    assert level == "advisory"
    assert message.startswith("spec.podSecurityContext: seccompProfile Unconfined, handed by the operator to the vLLM")
    assert found_by([cr("RuntimeDefault", "vllm/vllm-openai-rocm:nightly")], G26) == []
    assert found_by([cr("Unconfined", "ghcr.io/acme/dashboard:1.0")], G26) == []  # names no engine
    # G28 reads the same spec context: runAsUser 0 handed to the vLLM server (the label of set 91 was G28).
    ((level, message),) = found_by([cr("RuntimeDefault", "vllm/vllm-openai-rocm:nightly")], "model-server-runs-as-root")
    assert level == "advisory"
    assert message.startswith("spec.podSecurityContext: runAsUser: 0, handed by the operator to the vLLM server")
    non_root = cr("RuntimeDefault", "vllm/vllm-openai-rocm:nightly")
    non_root["spec"]["podSecurityContext"]["runAsUser"] = 1000
    assert found_by([non_root], "model-server-runs-as-root") == []
    assert found_by([cr("RuntimeDefault", "ghcr.io/acme/dashboard:1.0")], "model-server-runs-as-root") == []


# ---------------------------------------------------------------------------------------------------------------------
# G101 app-setting-exposure (components/app_exposure.toml).

G101 = "app-setting-exposure"


def _service(name: str, kind: str = "ClusterIP", app: str = "ollama") -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name},
        "spec": {"type": kind, "selector": {"app": app}, "ports": [{"port": 11434, "targetPort": 11434}]},
    }


def _ollama(origins: str) -> dict:
    # Spent set 92 NeptuneHub/k3s-supreme-waffle@6c62099c ollama/deployment.yaml.
    container = {
        "name": "ollama",
        "image": "ollama/ollama:0.12.3",
        "ports": [{"containerPort": 11434}],
        "env": [{"name": "OLLAMA_HOST", "value": "0.0.0.0"}, {"name": "OLLAMA_ORIGINS", "value": origins}],
    }
    return _deployment(container, name="ollama")


def test_ollama_any_origin_on_a_published_api_is_advice():
    ((level, message),) = found_by([_ollama("*"), _service("ollama-service", "LoadBalancer")], G101)
    assert level == "advisory"
    assert message.startswith("container ollama: env OLLAMA_ORIGINS=*: turns Ollama's browser-origin check off")
    assert "published through Service ollama-service, its LoadBalancer type" in message
    assert found_by([_ollama("http://localhost:3000,*"), _service("o", "NodePort")], G101) != []
    # Careful: not published (a ClusterIP Service only), and named origins on a published one.
    assert found_by([_ollama("*"), _service("ollama")], G101) == []
    assert found_by([_ollama("https://chat.example.org"), _service("o", "LoadBalancer")], G101) == []


def _webui_env(env: dict) -> list[dict]:
    return [found for found in found_by([_deployment(_webui(env), name="openwebui")], G101)]


def test_open_webui_self_signup_as_user_is_advice():
    # Spent set 95 tpural/flux@3f85be51 apps/openwebui/deployment.yaml (ENABLE_SIGNUP true, DEFAULT_USER_ROLE user) and
    # set 83 envelopeleo/open-web@fb82d84b k8s/open-webui.yaml (DEFAULT_USER_ROLE admin, sign-up left at its default).
    ((level, message),) = _webui_env({"ENABLE_SIGNUP": "true", "DEFAULT_USER_ROLE": "user"})
    assert level == "advisory"
    assert message.startswith(
        "container open-webui: env DEFAULT_USER_ROLE=user (ENABLE_SIGNUP=true, ENABLE_LOGIN_FORM unset: true, "
        "WEBUI_AUTH unset: true): with sign-up on, anyone who reaches the UI can register"
    )
    assert len(_webui_env({"DEFAULT_USER_ROLE": "admin"})) == 1
    # Careful: the default role, sign-up off, the login form off (spent set 91 thaynes43/haynes-ops: OAuth only, where
    # /api/v1/auths/signup is refused), and a sign-up switch the files do not show.
    assert _webui_env({"DEFAULT_USER_ROLE": "pending"}) == []
    assert _webui_env({"ENABLE_SIGNUP": "false", "DEFAULT_USER_ROLE": "user"}) == []
    assert _webui_env({"ENABLE_LOGIN_FORM": "false", "ENABLE_OAUTH_SIGNUP": "true", "DEFAULT_USER_ROLE": "user"}) == []
    hidden = _webui({"DEFAULT_USER_ROLE": "user"})
    hidden["env"].append({"name": "ENABLE_SIGNUP", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}})
    assert found_by([_deployment(hidden)], G101) == []


def _config_map(config: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "litellm-config"}, "data": {"config.yaml": config}}


_MODELS = "model_list:\n  - model_name: gpt-4\n    litellm_params:\n      model: gpt-4o-mini\n"


def test_litellm_client_side_credentials_is_advice():
    # Spent set 91 jlengelbrecht/prox-ops@46e452ce kubernetes/apps/ai/litellm/app/configmap.yaml.
    config = _MODELS + "general_settings:\n  master_key: os.environ/LITELLM_MASTER_KEY\n  allow_client_side_credentials: {}\n"
    ((level, message),) = found_by([_config_map(config.format("true"))], G101)
    assert level == "advisory"
    assert message.startswith(
        "data[config.yaml] LiteLLM config general_settings.allow_client_side_credentials: true lets any caller"
    )
    # Careful: false, and the text "true" (LiteLLM tests `is True`).
    assert found_by([_config_map(config.format("false"))], G101) == []
    assert found_by([_config_map(config.format('"true"'))], G101) == []


def test_litellm_metrics_without_auth_is_advice():
    # The form of spent set 107 cyberglitchlabs/clouddrop kubernetes/apps/ai/litellm/app/config/config.yaml, in a ConfigMap.
    config = _MODELS + "litellm_settings:\n  callbacks: [prometheus]\n  require_auth_for_metrics_endpoint: {}\n"
    ((level, message),) = found_by([_config_map(config.format("false"))], G101)
    assert level == "advisory"
    assert message.startswith("data[config.yaml] LiteLLM config litellm_settings.require_auth_for_metrics_endpoint: false")
    assert found_by([_config_map(config.format("true"))], G101) == []
    assert found_by([_config_map(_MODELS)], G101) == []  # unset: LiteLLM's default, not written here


def test_litellm_config_in_chart_values_is_read():
    # Spent set 85 Apocrathia/homelab@12eb7c92 flux/manifests/04-apps/artificial-intelligence/litellm/helmrelease.yaml
    # (values.proxy_config) and set 92 ingtranet/argocd-manifests@861a240d clusters/home/argo-applications/litellm.yaml
    # (Argo CD valuesObject gateway.config.proxy_config).
    release = {
        "apiVersion": "helm.toolkit.fluxcd.io/v2",
        "kind": "HelmRelease",
        "metadata": {"name": "litellm"},
        "spec": {
            "chart": {"spec": {"chart": "litellm-helm"}},
            "values": {"proxy_config": {"model_list": [], "general_settings": {"allow_client_side_credentials": True}}},
        },
    }
    ((_, message),) = found_by([release], G101)
    assert message.startswith("spec.values.proxy_config LiteLLM config general_settings.allow_client_side_credentials")
    app = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "Application",
        "metadata": {"name": "litellm"},
        "spec": {
            "source": {
                "repoURL": "oci://ghcr.io/berriai/litellm/chart/litellm",
                "helm": {
                    "valuesObject": {
                        "gateway": {
                            "config": {
                                "proxy_config": {
                                    "model_list": [],
                                    "general_settings": {"store_prompts_in_spend_logs": True},
                                }
                            }
                        }
                    }
                },
            }
        },
    }
    ((_, message),) = found_by([app], G101)
    assert message.startswith(
        "spec.source.helm.valuesObject.gateway.config.proxy_config LiteLLM config "
        "general_settings.store_prompts_in_spend_logs: true writes every prompt and response body"
    )
    # The values as text (Argo CD helm.values) are read too; false stays silent.
    app["spec"]["source"]["helm"] = {"values": "proxy_config:\n  general_settings:\n    store_prompts_in_spend_logs: false\n"}
    assert found_by([app], G101) == []
    app["spec"]["source"]["helm"] = {"values": "proxy_config:\n  general_settings:\n    store_prompts_in_spend_logs: true\n"}
    assert len(found_by([app], G101)) == 1


def test_litellm_tls_verify_off_is_advice():
    # Spent set 93 justicecanada/otto k8s/litellm.yaml (litellm_settings.ssl_verify: false).
    ((_, message),) = found_by([_config_map(_MODELS + "litellm_settings:\n  ssl_verify: false\n")], G101)
    assert "litellm_settings.ssl_verify: false turns off TLS certificate checks" in message
    assert found_by([_config_map(_MODELS + "litellm_settings:\n  ssl_verify: true\n")], G101) == []
    assert found_by([_config_map(_MODELS + "litellm_settings:\n  ssl_verify: /etc/ssl/ca.pem\n")], G101) == []


def _litellm(env: dict) -> dict:
    return _deployment(
        {
            "name": "litellm",
            "image": "ghcr.io/berriai/litellm:main-v1.77.7-stable",
            "args": ["--config", "/app/config.yaml"],
            "env": [{"name": k, "value": v} for k, v in env.items()],
        },
        name="litellm",
    )


def test_litellm_env_switches_are_advice():
    ((_, message),) = found_by([_litellm({"SSL_VERIFY": "False"})], G101)
    assert message.startswith("container litellm: env SSL_VERIFY=False: turns off TLS certificate checks")
    ((_, message),) = found_by([_litellm({"STORE_PROMPTS_IN_SPEND_LOGS": "true"})], G101)
    assert "env STORE_PROMPTS_IN_SPEND_LOGS=true: writes every prompt and response body" in message
    # Careful: the safe values, and the same names on a container that is not LiteLLM.
    assert found_by([_litellm({"SSL_VERIFY": "true", "STORE_PROMPTS_IN_SPEND_LOGS": "false"})], G101) == []
    other = {"name": "api", "image": "ghcr.io/acme/api:1.0", "env": [{"name": "SSL_VERIFY", "value": "false"}]}
    assert found_by([_deployment(other)], G101) == []


def test_admin_allow_list_of_everyone_is_advice():
    # Spent set 91 pipenodes/llm-gateway@9c1fc03d k8s/gateway-deployment.yaml (ADMIN_IP_WHITELIST 0.0.0.0/0).
    def gateway(value: str) -> dict:
        env = [{"name": "ADMIN_KEY", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}]
        env.append({"name": "ADMIN_IP_WHITELIST", "value": value})
        return _deployment({"name": "gateway", "image": "ghcr.io/pipenodes/hermes:1.0", "env": env}, name="hermes")

    ((level, message),) = found_by([gateway("0.0.0.0/0")], G101)
    assert level == "advisory"
    assert message.startswith("container gateway: env ADMIN_IP_WHITELIST=0.0.0.0/0: an admin allow-list that admits")
    assert len(found_by([gateway("10.0.0.0/8, ::/0")], G101)) == 1
    assert found_by([gateway("10.0.0.0/8,192.168.0.0/16")], G101) == []


def test_app_exposure_table_refuses_bad_rows():
    assert {s.id for s in SETTINGS} >= {"ollama-any-origin", "open-webui-open-signup", "admin-allow-list-everyone"}
    row = {
        "id": "x",
        "app": "ollama",
        "where": "env",
        "name": "OLLAMA_ORIGINS",
        "risky": ["*"],
        "default": "d",
        "why": "w",
        "fix": "f",
        "source": "s",
    }
    assert settings_of({"setting": [row]})[0].names("OLLAMA_ORIGINS")
    for change, field in (
        ({"app": "no-such-app"}, ".app"),
        ({"colour": "red"}, "unknown field 'colour'"),
        ({"source": ""}, ".source"),
        ({"pattern": "ADMIN_.*"}, "exactly one of name and pattern"),
        ({"risky": ["UPPER"]}, ".risky"),
        ({"where": "file"}, ".where"),
    ):
        with pytest.raises(AppExposureError, match=field):
            settings_of({"setting": [{**row, **change}]})
    bad = {**row, "app": "*", "name": "", "pattern": "ADMIN_(["}
    with pytest.raises(AppExposureError, match="does not compile"):
        settings_of({"setting": [bad]})
