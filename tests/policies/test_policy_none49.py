"""Classes the labellers of spent sets 50-66 filed as NONE (brief none49), each a third-party form that fires and a
careful form that stays silent.

- G86 stateful-set-headless-service: a StatefulSet whose serviceName names a Service that is not headless, or none of
  the files while a pod is addressed as NAME-0.SERVICE (kubernetes/api v0.33.0 apps/v1/types.go L218-224: the
  governing Service gives the pods their DNS names; the cluster DNS publishes them only for a headless Service).
  Spent set 64: AdityaKhari1001/borgos@ef24cf9e:k8s/ollama-deployment.yaml (ClusterIP ollama-service).
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

G86 = "stateful-set-headless-service"


def _stateful_set(name: str, service: str, args: list | None = None) -> dict:
    container = {"name": "ollama", "image": "ollama/ollama:0.6.5", "ports": [{"containerPort": 11434}]}
    if args:
        container["args"] = args
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": name, "namespace": "borgos"},
        "spec": {
            "serviceName": service,
            "replicas": 2,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}},
        },
    }


def _service(name: str, selector: str, headless: bool = False) -> dict:
    spec: dict = {"type": "ClusterIP", "ports": [{"port": 11434, "targetPort": 11434}], "selector": {"app": selector}}
    if headless:
        spec["clusterIP"] = "None"
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": "borgos"}, "spec": spec}


def test_a_stateful_set_governed_by_a_cluster_ip_service_is_advice():
    objs = [_stateful_set("borgos-ollama", "ollama-service"), _service("ollama-service", "borgos-ollama")]
    ((level, message),) = found_by(objs, G86)
    assert level == "advisory"
    assert message.startswith("spec.serviceName names Service ollama-service, a ClusterIP Service with a cluster IP")
    assert "borgos-ollama-0.ollama-service" in message


def test_a_headless_governing_service_is_silent():
    objs = [
        _stateful_set("borgos-ollama", "ollama-headless"),
        _service("ollama-headless", "borgos-ollama", headless=True),
        _service("ollama-service", "borgos-ollama"),  # the load-balanced Service under another name
    ]
    assert found_by(objs, G86) == []
    other_namespace = _service("ollama-service", "borgos-ollama")
    other_namespace["metadata"]["namespace"] = "elsewhere"
    assert found_by([_stateful_set("borgos-ollama", "ollama-service"), other_namespace], G86) == []


def test_a_missing_service_is_advice_only_where_a_pod_is_addressed_by_it():
    leader = ["--leader-address", "ray-0.ray-headless.borgos.svc.cluster.local:6379"]
    ((level, message),) = found_by([_stateful_set("ray", "ray-headless", args=leader)], G86)
    assert level == "advisory" and "addresses a pod as ray-0.ray-headless" in message
    # Careful: nobody addresses a pod (the Service may be created elsewhere), a longer name that only starts alike.
    assert found_by([_stateful_set("ray", "ray-headless")], G86) == []
    assert found_by([_stateful_set("ray", "ray-headless", args=["--peer", "xray-0.ray-headless-2:1"])], G86) == []


def test_an_unrendered_cluster_ip_is_silent():
    service = _service("ollama-service", "borgos-ollama")
    service["spec"]["clusterIP"] = "${CLUSTER_IP}"
    assert found_by([_stateful_set("borgos-ollama", "ollama-service"), copy.deepcopy(service)], G86) == []


# --- G87: a chat UI's login and session key ---------------------------------------------------------------------------

G87 = "chat-ui-auth-kept"


def _webui(env: list, mounts: list | None = None, volumes: list | None = None, extra: list | None = None) -> dict:
    container = {
        "name": "open-webui",
        "image": "ghcr.io/open-webui/open-webui:0.6.18",
        "ports": [{"containerPort": 8080}],
        "env": env,
        "volumeMounts": mounts if mounts is not None else [{"name": "data", "mountPath": "/app/backend/data"}],
    }
    pod = {
        "containers": [container, *(extra or [])],
        "volumes": volumes if volumes is not None else [{"name": "data", "persistentVolumeClaim": {"claimName": "webui"}}],
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "open-webui", "namespace": "ai-inference"},
        "spec": {
            "selector": {"matchLabels": {"app": "open-webui"}},
            "template": {"metadata": {"labels": {"app": "open-webui"}}, "spec": pod},
        },
    }


_KEY = {"name": "WEBUI_SECRET_KEY", "valueFrom": {"secretKeyRef": {"name": "open-webui-secrets", "key": "secret-key"}}}
_BACKEND = {"name": "OPENAI_API_BASE_URL", "value": "http://llama-server.ai-inference.svc:8080/v1"}


def test_login_turned_off_is_advice_and_says_how_the_ui_is_published():
    """Spent set 60 janos-gyorgy/homelab-ai-inference-starter k8s/open-webui.yaml: WEBUI_AUTH "false" with the key from
    a Secret (open-webui b8912aa67 backend/open_webui/env.py L379: anything but "true" turns login off)."""
    objs = [_webui([_BACKEND, _KEY, {"name": "WEBUI_AUTH", "value": "false"}])]
    ((level, message),) = found_by(objs, G87)
    assert level == "advisory" and "WEBUI_AUTH='false' turns Open WebUI's login off" in message
    assert "anyone who reaches its Service or pod in the cluster" in message
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "open-webui", "namespace": "ai-inference"},
        "spec": {"type": "NodePort", "selector": {"app": "open-webui"}, "ports": [{"port": 80, "targetPort": 8080}]},
    }
    ((_, message),) = found_by([*objs, service], G87)
    assert "Service open-webui is published (its NodePort type)" in message


def test_login_kept_or_guarded_is_silent():
    assert found_by([_webui([_BACKEND, _KEY])], G87) == []
    assert found_by([_webui([_BACKEND, _KEY, {"name": "WEBUI_AUTH", "value": "True"}])], G87) == []
    proxy = {"name": "oauth2-proxy", "image": "quay.io/oauth2-proxy/oauth2-proxy:v7.6.0"}
    assert found_by([_webui([_BACKEND, _KEY, {"name": "WEBUI_AUTH", "value": "false"}], extra=[proxy])], G87) == []
    secret_switch = {"name": "WEBUI_AUTH", "valueFrom": {"secretKeyRef": {"name": "s", "key": "auth"}}}
    assert found_by([_webui([_BACKEND, _KEY, secret_switch])], G87) == []


def test_no_session_key_is_advice():
    """Spent set 65 dndeyeabsa-wq/k8s-llm-deployment manifests/05-deployment-webui.yaml: no WEBUI_SECRET_KEY, the PVC at
    /app/backend/data; open-webui b8912aa67 backend/start.sh L17-36 writes the generated key to /app/backend."""
    ((level, message),) = found_by([_webui([_BACKEND])], G87)
    assert level == "advisory" and message.startswith("container open-webui: no WEBUI_SECRET_KEY/WEBUI_JWT_SECRET_KEY is set")
    assert "/app/backend, the container's writable layer" in message
    scratch = _webui([_BACKEND], mounts=[{"name": "b", "mountPath": "/app/backend"}], volumes=[{"name": "b", "emptyDir": {}}])
    ((_, message),) = found_by([scratch], G87)
    assert "the emptyDir b" in message


def test_a_session_key_kept_is_silent():
    assert found_by([_webui([_BACKEND, {"name": "WEBUI_JWT_SECRET_KEY", "value": "a-long-random-key"}])], G87) == []
    assert found_by([_webui([_BACKEND, {"name": "WEBUI_SECRET_KEY_FILE", "value": "/app/backend/data/.key"}])], G87) == []
    lasting = _webui([_BACKEND], mounts=[{"name": "data", "mountPath": "/app/backend"}])
    assert found_by([lasting], G87) == []
    from_secret = _webui([_BACKEND])
    from_secret["spec"]["template"]["spec"]["containers"][0]["envFrom"] = [{"secretRef": {"name": "webui-env"}}]
    assert found_by([from_secret], G87) == []
    replaced = _webui([_BACKEND])
    replaced["spec"]["template"]["spec"]["containers"][0]["command"] = ["bash", "-c", "uvicorn open_webui.main:app"]
    assert found_by([replaced], G87) == []


# --- S66: a vLLM server on a local path names what it serves ----------------------------------------------------------

S66 = "vllm-served-name-for-path"


def _vllm(args: list) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "vllm", "namespace": "llm"},
        "spec": {
            "selector": {"matchLabels": {"app": "vllm"}},
            "template": {
                "metadata": {"labels": {"app": "vllm"}},
                "spec": {"containers": [{"name": "vllm", "image": "vllm/vllm-openai:v0.10.1", "args": args}]},
            },
        },
    }


# agud97/k8s-vllm@783a7904: gitops/platform/kserve/cluster-serving-runtime.yaml runs vllm/vllm-openai with
# --model=/mnt/models; gitops/apps/llm-serving/inference-service.yaml adds no --served-model-name (spent set 66).
RUNTIME = {
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "ClusterServingRuntime",
    "metadata": {"name": "vllm-openai-runtime"},
    "spec": {
        "supportedModelFormats": [{"name": "huggingface", "version": "1", "autoSelect": True}],
        "containers": [
            {
                "name": "kserve-container",
                "image": "vllm/vllm-openai:latest",
                "args": ["--model=/mnt/models", "--host=0.0.0.0", "--port=8080"],
            }
        ],
    },
}


def _isvc(args: list) -> dict:
    return {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "qwen35-27b-gptq-int4", "namespace": "llm"},
        "spec": {
            "predictor": {
                "model": {
                    "modelFormat": {"name": "huggingface"},
                    "runtime": "vllm-openai-runtime",
                    "storageUri": "hf://Qwen/Qwen3.5-27B-GPTQ-Int4",
                    "args": args,
                }
            }
        },
    }


def test_a_vllm_server_on_a_local_path_without_a_served_name_is_advice():
    ((level, message),) = found_by([_vllm(["--model", "/models/Qwen2.5-7B-Instruct-AWQ", "--port", "8000"])], S66)
    assert level == "advisory" and "serves the model under the name '/models/Qwen2.5-7B-Instruct-AWQ'" in message
    ((level, message),) = found_by([RUNTIME, _isvc(["--dtype=float16", "--max-model-len=4096"])], S66)
    assert level == "advisory" and message.startswith("predictor (on ClusterServingRuntime/vllm-openai-runtime)")


def test_a_served_name_or_a_hub_model_is_silent():
    assert found_by([_vllm(["--model", "/models/qwen", "--served-model-name", "qwen"])], S66) == []
    assert found_by([_vllm(["--model", "Qwen/Qwen2.5-7B-Instruct"])], S66) == []
    assert found_by([RUNTIME, _isvc(["--served-model-name=gpt-oss-20b", "--dtype=float16"])], S66) == []
    # the runtime beside an InferenceService of the files that names it: the InferenceService is read, not the runtime
    assert found_by([RUNTIME, _isvc(["--served-model-name=gpt-oss-20b"])], S66) == []
    # the runtime alone is read on its own command line since spent set 76 (cfchase/basic-kserve-vllm vllm-runtime.yaml,
    # labelled S66): advice, as an InferenceService outside the files may still add the name
    assert [lv for lv, _ in found_by([RUNTIME], S66)] == ["advisory"]
    huggingface = copy.deepcopy(RUNTIME)  # KServe's Hugging Face server passes --model_name itself
    huggingface["spec"]["containers"][0].update(image="kserve/huggingfaceserver:v0.15.0", args=["--model_dir=/mnt/models"])
    assert found_by([huggingface, _isvc([])], S66) == []
