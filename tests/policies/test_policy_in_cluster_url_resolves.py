"""G63 in-cluster-url-resolves: an in-cluster URL a container is given names a Service of its run, on a port the
Service exposes.

Minimal hand-written shapes of the cited third-party files (only the fields the rule reads)."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "in-cluster-url-resolves"


def _deployment(name: str, namespace: str, env: list[dict], env_from: list[dict] | None = None) -> dict:
    container: dict = {"name": f"{name}-container", "image": f"{name}:1.0", "env": env}
    if env_from:
        container["envFrom"] = env_from
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container]}},
        },
    }


def _service(name: str, namespace: str, *ports: int, **spec) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"selector": {"app": name}, "ports": [{"port": p, "targetPort": p} for p in ports], **spec},
    }


# Spent set 34: SunilKumar-ugra/rayserve_assignment_kuberay at b1de7d48d6d59a8a09b53e14ab1bd0f0dcbf46a7,
# assignment/streamlit-deployment.yaml (Deployment streamlit-service, API_URL http://ray-cluster-head-svc:8000, and
# its NodePort Service on 8501) and assignment/raycluster.yaml (RayCluster raycluster in namespace ray, whose head
# Service KubeRay names raycluster-head-svc). Labelled there blocking with no catalogue row.
SUNIL = [
    _deployment("streamlit-service", "ray", [{"name": "API_URL", "value": "http://ray-cluster-head-svc:8000"}]),
    _service("streamlit-service", "ray", 8501, type="NodePort"),
    {
        "apiVersion": "ray.io/v1alpha1",
        "kind": "RayCluster",
        "metadata": {"name": "raycluster", "namespace": "ray"},
        "spec": {
            "headGroupSpec": {
                "rayStartParams": {"dashboard-host": "0.0.0.0"},
                "template": {"spec": {"containers": [{"name": "ray-head", "image": "rayproject/ray:2.0.0"}]}},
            }
        },
    },
]

# shikharvashistha/open-webui-ollama at e7fae8e6c64dc68297a716e5f54ac8abdafa7b3c: 04-open-webui-deployment.yaml gives
# Open WebUI OLLAMA_BASE_URL http://ollama-service:11434, and 05-services.yaml defines ollama-service (11434) and
# open-webui-service (8080) in ollama-system: the careful form.
WEBUI = [
    _deployment("open-webui", "ollama-system", [{"name": "OLLAMA_BASE_URL", "value": "http://ollama-service:11434"}]),
    _service("ollama-service", "ollama-system", 11434),
    _service("open-webui-service", "ollama-system", 8080, type="NodePort"),
]


def test_a_url_to_a_misspelled_head_service_blocks():
    [(level, message)] = found_by(SUNIL, POLICY)
    assert level == "mandatory"
    assert message == (
        "container streamlit-service-container env API_URL = http://ray-cluster-head-svc:8000 names Service "
        "ray-cluster-head-svc in namespace ray, which none of the files read defines (they define raycluster-head-svc, "
        "streamlit-service there): the name does not resolve and every request fails; use raycluster-head-svc"
    )


def test_a_name_no_typo_explains_is_advice():
    webui = copy.deepcopy(WEBUI)
    webui[0]["spec"]["template"]["spec"]["containers"][0]["env"][0]["value"] = (
        "http://ollama.ollama-system.svc.cluster.local:11434"
    )
    [(level, message)] = found_by(webui, POLICY)
    assert level == "advisory"
    assert "names Service ollama in namespace ollama-system, which none of the files read defines" in message
    assert message.endswith("unless that Service comes from elsewhere, use the name of the Service in front of the server")


def test_a_port_the_service_does_not_expose_blocks():
    webui = copy.deepcopy(WEBUI)
    webui[1]["spec"]["ports"] = [{"port": 80, "targetPort": 11434}]
    [(level, message)] = found_by(webui, POLICY)
    assert level == "mandatory"
    assert message == (
        "container open-webui-container env OLLAMA_BASE_URL = http://ollama-service:11434 calls port 11434 of Service "
        "ollama-service, which exposes 80 only: the Service forwards no other port, so every request fails; call one "
        "of its ports (or add 11434 to spec.ports)"
    )


def test_a_url_read_from_a_config_map():
    webui = copy.deepcopy(WEBUI)
    container = webui[0]["spec"]["template"]["spec"]["containers"][0]
    container["env"] = []
    container["envFrom"] = [{"configMapRef": {"name": "webui-config"}}]
    config = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "webui-config", "namespace": "ollama-system"},
        "data": {"OLLAMA_BASE_URL": "http://ollama-svc:11434"},
    }
    [(level, message)] = found_by([*webui, config], POLICY)
    assert message.startswith("container open-webui-container envFrom ConfigMap webui-config key OLLAMA_BASE_URL = ")
    assert level == "advisory"  # ollama-svc is no one-character slip of ollama-service


def test_careful_forms_stay_silent():
    assert found_by(WEBUI, POLICY) == []
    # The head Service KubeRay makes, by its default name or the one headService sets.
    fixed = copy.deepcopy(SUNIL)
    fixed[0]["spec"]["template"]["spec"]["containers"][0]["env"][0]["value"] = (
        "http://raycluster-head-svc.ray.svc.cluster.local:8265"
    )
    assert found_by(fixed, POLICY) == []
    named = copy.deepcopy(SUNIL)
    named[2]["spec"]["headGroupSpec"]["headService"] = {"metadata": {"name": "ray-cluster-head-svc"}}
    assert found_by(named, POLICY) == []
    # A host of a namespace the files leave empty is advice since spent set 75 (kcjones91/k8s-applications
    # apps/open-webui/deployment.yaml, an Ollama in a namespace the files never deploy, labelled G63).
    other = copy.deepcopy(WEBUI)
    other[0]["spec"]["template"]["spec"]["containers"][0]["env"][0]["value"] = "http://vllm.models.svc.cluster.local:8000/v1"
    assert [level for level, _ in found_by(other, POLICY)] == ["advisory"]
    # An external host, a database URL, an unrendered value.
    for value in (
        "https://api.openai.com/v1",
        "postgresql://app:app@postgres:5432/app",
        "http://${VLLM_HOST}:8000",
        "http://localhost:8000",
    ):
        other = copy.deepcopy(WEBUI)
        other[0]["spec"]["template"]["spec"]["containers"][0]["env"][0]["value"] = value
        assert found_by(other, POLICY) == [], value
    # Nothing to compare with: the run defines no Service in the namespace.
    assert found_by(SUNIL[:1], POLICY) == []
    # Another operator's custom resource there may make the Service (a Knative Service makes <name> and its revisions').
    knative = {
        "apiVersion": "serving.knative.dev/v1",
        "kind": "Service",
        "metadata": {"name": "llm", "namespace": "ray"},
        "spec": {"template": {"spec": {"containers": [{"image": "vllm/vllm-openai:v0.10.1"}]}}},
    }
    assert found_by([*SUNIL, knative], POLICY) == []
    # A KServe InferenceService's Services are named after it (<name>, <name>-predictor, ...): the namespace is judged,
    # as advice only (Knative's revision Services are not named).
    isvc = {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "llm", "namespace": "ray"},
        "spec": {"predictor": {"model": {"modelFormat": {"name": "huggingface"}}}},
    }
    assert [level for level, _ in found_by([*SUNIL, isvc], POLICY)] == ["advisory"]
    # A headless Service: DNS gives the pods, whose ports are not the Service's.
    headless = copy.deepcopy(WEBUI)
    headless[1]["spec"]["ports"] = [{"port": 80}]
    headless[1]["spec"]["clusterIP"] = "None"
    assert found_by(headless, POLICY) == []


# Review 43 item 4 (/tmp/review43/g63d): an ordinary Ollama + Open WebUI pair. OLLAMA_ORIGINS is an allow-list of
# browser Origin values (ollama/ollama envconfig/config.go AllowedOrigins, "A comma separated list of allowed
# origins"), Open WebUI's WEBUI_URL its own public address: compared or handed out, never dialled, and a browser-facing
# origin carries the container port (8080) while the Service exposes 80.
def _ollama_webui(ollama_env: list[dict], webui_env: list[dict]) -> list[dict]:
    ollama = _deployment("ollama", "llm", ollama_env)
    webui = _deployment("open-webui", "llm", webui_env)
    webui_service = _service("open-webui", "llm", 80, type="NodePort")
    webui_service["spec"]["ports"] = [{"port": 80, "targetPort": 8080}]
    return [ollama, webui, _service("ollama", "llm", 11434), webui_service]


def test_compared_and_own_urls_stay_silent():
    stack = _ollama_webui(
        [{"name": "OLLAMA_ORIGINS", "value": "http://open-webui:8080,http://localhost:3000"}],
        [
            {"name": "OLLAMA_BASE_URL", "value": "http://ollama:11434"},
            {"name": "WEBUI_URL", "value": "http://open-webui:8080"},
        ],
    )
    assert found_by(stack, POLICY) == []
    # The same class in other names: CORS lists, OAuth redirects, trusted hosts, NO_PROXY.
    for name in ("CORS_ALLOW_ORIGIN", "OPENID_REDIRECT_URI", "OAUTH_CALLBACK_URL", "TRUSTED_HOSTS", "NO_PROXY"):
        other = _ollama_webui([{"name": name, "value": "http://open-webui:8080;http://missing-ui:3000"}], [])
        assert found_by(other, POLICY) == [], name
    # A URL naming the container's own Service (any variable): the server's own address, not an upstream.
    own = _ollama_webui([], [{"name": "APP_BASE_URL", "value": "http://open-webui.llm.svc.cluster.local:8080"}])
    assert found_by(own, POLICY) == []


def test_a_variable_not_named_as_an_upstream_is_advice():
    stack = _ollama_webui([], [{"name": "MODEL_LIST", "value": "http://ollama:8080/api"}])
    [(level, message)] = found_by(stack, POLICY)
    assert level == "advisory"
    assert "calls port 8080 of Service ollama, which exposes 11434 only" in message
    # Named as an upstream, the same URL blocks.
    stack = _ollama_webui([], [{"name": "OLLAMA_API_BASE_URL", "value": "http://ollama:8080/api"}])
    [(level, _)] = found_by(stack, POLICY)
    assert level == "mandatory"


def test_a_large_namespace_is_named_in_a_few_words():
    # Review 43 item 10 (/tmp/review43/hostile/many: 4,000 Services, each message listed all of them, ~44 KB).
    services = [_service(f"svc-{i:04d}", "big", 80) for i in range(400)]
    clients = [_deployment(f"client-{i}", "big", [{"name": "API_URL", "value": f"http://nosuch-{i}zz:80"}]) for i in range(3)]
    findings = found_by([*services, *clients], POLICY)
    assert len(findings) == 3
    for level, message in findings:
        assert level == "advisory"
        assert "(they define svc-0000, svc-0001, svc-0002, svc-0003, svc-0004 and 395 more there)" in message
    # The typo test still finds the one near name among many.
    slip = _deployment("client", "big", [{"name": "API_URL", "value": "http://svc0123:80"}])
    [(level, message)] = found_by([*services, slip], POLICY)
    assert level == "mandatory" and message.endswith("use svc-0123")


# Review 43 item 14 (/tmp/review43/g63c, g63e): names the pod resolves without a Service of the files.
def test_names_the_cluster_or_the_pod_itself_resolves_stay_silent():
    # The API server's own Service, kubernetes in namespace default, exists in every cluster
    # (https://kubernetes.io/docs/tasks/run-application/access-api-from-pod/: kubernetes.default.svc).
    for url in (
        "https://kubernetes.default.svc:443",
        "https://kubernetes.default.svc.cluster.local",
        "https://kubernetes.default",
    ):
        stack = [
            _deployment("gateway", "default", [{"name": "APISERVER_URL", "value": url}]),
            _service("vllm-qwen", "default", 8000),
        ]
        stack.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}})
        assert found_by(stack, POLICY) == [], url
    # A host the pod maps in spec.hostAliases (/etc/hosts), one edit from a Service of its namespace: not a Service.
    aliased = _deployment("gateway", "default", [{"name": "UPSTREAM_URL", "value": "http://vllm-gwen:8000"}])
    stack = [aliased, _service("vllm-qwen", "default", 8000)]
    [(level, _)] = found_by(stack, POLICY)
    assert level == "mandatory"
    aliased["spec"]["template"]["spec"]["hostAliases"] = [{"ip": "10.0.0.5", "hostnames": ["vllm-gwen"]}]
    assert found_by(stack, POLICY) == []
    # The pod's own hostname and hostname.subdomain.
    own = _deployment("worker", "default", [{"name": "SELF_URL", "value": "http://worker-a.workers:8000"}])
    own["spec"]["template"]["spec"].update(hostname="worker-a", subdomain="workers")
    assert found_by([own, _service("vllm-qwen", "default", 8000)], POLICY) == []


def test_a_statefulset_pod_name_under_its_headless_service_is_a_pod_not_a_namespace():
    # http://ollama-0.ollama:11434 from namespace ollama resolves as ollama-0.ollama.ollama.svc.cluster.local, the
    # StatefulSet pod of the headless Service ollama ("Stable Network ID",
    # https://kubernetes.io/docs/concepts/workloads/controllers/statefulset/#stable-network-id).
    client = _deployment("open-webui", "ollama", [{"name": "OLLAMA_BASE_URL", "value": "http://ollama-0.ollama:11434"}])
    headless = _service("ollama", "ollama", 11434, clusterIP="None")
    assert found_by([client, headless], POLICY) == []
    # Not headless: no pod records, so <first>.<second> is still read as Service ollama-0 in namespace ollama.
    [(level, message)] = found_by([client, _service("ollama", "ollama", 11434)], POLICY)
    assert level == "advisory" and "names Service ollama-0 in namespace ollama" in message


# Fresh set 54 (labelled G63 advisory): questcollector/llmops-manifests gradio/gradio.yaml, INFERENCE_SERVICE
# http://luckyvicky.admin-profile.svc.cluster.local while namespace admin-profile holds InferenceService newjeans (whose
# Services KServe names newjeans, newjeans-predictor, ...; kserve/kserve pkg/constants/constants.go) and luckyvicky-vllm
# lives in pjt-test. A namespace with an InferenceService was read as hiding Services and never judged.
def _isvc(name: str, namespace: str) -> dict:
    return {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"predictor": {"model": {"modelFormat": {"name": "huggingface"}, "storageUri": "pvc://models/llama"}}},
    }


def test_a_url_to_an_inference_service_the_namespace_lacks_is_advice():
    gradio = _deployment(
        "gradio", "admin-profile", [{"name": "INFERENCE_SERVICE", "value": "http://luckyvicky.admin-profile.svc.cluster.local"}]
    )
    objs = [
        gradio,
        _service("gradio", "admin-profile", 80),
        _isvc("newjeans", "admin-profile"),
        _isvc("luckyvicky-vllm", "pjt-test"),
    ]
    [(level, message)] = found_by(objs, POLICY)
    assert level == "advisory" and "names Service luckyvicky in namespace admin-profile" in message
    # The InferenceService's own host, its predictor Service, and a URL into a namespace the files show nothing of.
    for url in (
        "http://newjeans.admin-profile.svc.cluster.local",
        "http://newjeans-predictor.admin-profile.svc.cluster.local/v1/models/newjeans:predict",
        "http://luckyvicky.elsewhere.svc.cluster.local",
    ):
        client = _deployment("gradio", "admin-profile", [{"name": "INFERENCE_SERVICE", "value": url}])
        assert found_by([client, *objs[1:]], POLICY) == []


# Spent set 61 PYTHON01100100/Serving-Large-Language-Models-at-Scale-Using-LiteLLM-and-vLLM-on-Alibaba-Cloud-ACK:
# k8s/litellm-config.yaml (ConfigMap litellm-config in dga-ai, a LiteLLM model_list whose api_base are short names)
# mounted by k8s/litellm-deployment.yaml (Deployment litellm-proxy and its Service, dga-ai), while
# k8s/Qwen3-32B-AWQ.yaml defines Service qwen3-32b-awq in another namespace. Labelled G63 on the ConfigMap.
_LITELLM_TEXT = """model_list:
  - model_name: qwen3-32b-awq
    litellm_params:
      model: openai/qwen3-32b-awq
      api_base: "http://qwen3-32b-awq:8000/v1"
  # - model_name: old
  #   litellm_params: {api_base: "http://retired-model:8000/v1"}
"""


def _litellm(text: str, vllm_namespace: str = "your-namespace") -> list[dict]:
    proxy = _deployment("litellm-proxy", "dga-ai", [])
    spec = proxy["spec"]["template"]["spec"]
    spec["containers"][0]["volumeMounts"] = [{"name": "config", "mountPath": "/app/config.yaml", "subPath": "config.yaml"}]
    spec["volumes"] = [{"name": "config", "configMap": {"name": "litellm-config"}}]
    config = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "litellm-config", "namespace": "dga-ai"},
        "data": {"config.yaml": text},
    }
    return [config, proxy, _service("litellm-proxy", "dga-ai", 4000), _service("qwen3-32b-awq", vllm_namespace, 8000)]


def test_a_mounted_config_routing_to_another_namespaces_short_name_is_advice_on_the_config_map():
    ((level, message),) = found_by(_litellm(_LITELLM_TEXT), POLICY)
    assert level == "advisory"
    assert message.startswith(
        "data.config.yaml (mounted by container litellm-proxy-container of Deployment litellm-proxy) = "
        "http://qwen3-32b-awq:8000 names Service qwen3-32b-awq in namespace dga-ai, which none of the files read defines "
        "(they define litellm-proxy there, and qwen3-32b-awq only in namespace your-namespace, which a name without its "
        "namespace does not reach)"
    )


def test_mounted_config_careful_forms_stay_silent():
    # The Service in the proxy's own namespace; the commented-out route is not read.
    assert found_by(_litellm(_LITELLM_TEXT, "dga-ai"), POLICY) == []
    # The namespace-qualified name reaches the other namespace.
    qualified = _LITELLM_TEXT.replace("http://qwen3-32b-awq:8000", "http://qwen3-32b-awq.your-namespace:8000")
    assert found_by(_litellm(qualified), POLICY) == []
    # An nginx upstream block's name is no Service.
    nginx = "upstream qwen3-32b { server qwen3-32b-awq:8000; }\nserver { location / { proxy_pass http://qwen3-32b; } }\n"
    assert found_by(_litellm(nginx, "dga-ai"), POLICY) == []
