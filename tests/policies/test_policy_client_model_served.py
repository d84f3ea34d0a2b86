"""S65 client-model-served: a client whose base URL reaches a vLLM server of the files asks for a name it serves.

vLLM answers a request whose model is not a served name with 404 "The model `X` does not exist." (vllm-project/vllm
vllm/entrypoints/openai/models/serving.py OpenAIModelRegistry.check_model, read at 00153c8b7948077ebdfc5bfa14e403da41aaea6d);
the served names are --served-model-name's, else --model's (vllm/engine/arg_utils.py --served-model-name help).

Firing form: the class of gabrielmariebrisson/rag_LLM@2f6886f36e027bd8e48c5a4487a83b1a0939e783 k8s/vllm.yaml and
k8s/backend.yaml (spent set 60, a NONE label): the server runs --model TheBloke/Mistral-7B-Instruct-v0.2-AWQ with no
--served-model-name, the backend's LLM_BASE_URL is the server's Service and its LLM_MODEL_NAME the unquantised
repository; written here as a generic form (ConfigMap envFrom), not a copy.
"""

from __future__ import annotations

import copy

import yaml
from policy_fixtures import found_by

POLICY = "client-model-served"

SERVER = yaml.safe_load(
    """
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm-service, namespace: rag}
spec:
  selector: {matchLabels: {app: vllm}}
  template:
    metadata: {labels: {app: vllm, tier: llm}}
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.8.5
        args: ["--model", "TheBloke/Mistral-7B-Instruct-v0.2-AWQ", "--quantization", "awq"]
        resources: {limits: {nvidia.com/gpu: 1}}
"""
)
SERVICE = yaml.safe_load(
    """
apiVersion: v1
kind: Service
metadata: {name: vllm-service, namespace: rag}
spec:
  selector: {app: vllm}
  ports: [{port: 8000}]
"""
)
CONFIG = yaml.safe_load(
    """
apiVersion: v1
kind: ConfigMap
metadata: {name: backend-config, namespace: rag}
data:
  LLM_BASE_URL: http://vllm-service:8000/v1
  LLM_MODEL_NAME: mistralai/Mistral-7B-Instruct-v0.2
"""
)
CLIENT = yaml.safe_load(
    """
apiVersion: apps/v1
kind: Deployment
metadata: {name: rag-backend, namespace: rag}
spec:
  selector: {matchLabels: {app: rag}}
  template:
    metadata: {labels: {app: rag}}
    spec:
      containers:
      - name: backend
        image: example/rag-backend:1.0
        envFrom: [{configMapRef: {name: backend-config}}]
"""
)


def _client(env: list[dict]) -> dict:
    client = copy.deepcopy(CLIENT)
    client["spec"]["template"]["spec"]["containers"][0] = {"name": "backend", "image": "example/app:1", "env": env}
    return client


def _server(args: list[str], **container: object) -> dict:
    server = copy.deepcopy(SERVER)
    server["spec"]["template"]["spec"]["containers"][0].update(args=args, **container)
    return server


def test_a_client_asking_a_name_the_server_does_not_serve_is_advice():
    ((enforcement, message),) = found_by([SERVER, SERVICE, CONFIG, CLIENT], POLICY)
    assert enforcement == "advisory"
    assert message.startswith("container backend: LLM_MODEL_NAME=mistralai/Mistral-7B-Instruct-v0.2 asks the vLLM server")
    assert "serves only TheBloke/Mistral-7B-Instruct-v0.2-AWQ" in message
    # Case matters: vLLM compares names exactly; a full in-cluster host reaches the Service too.
    served = _server(["--model", "/models/qwen", "--served-model-name", "qwen"])
    client = _client(
        [
            {"name": "OPENAI_BASE_URL", "value": "http://vllm-service.rag.svc.cluster.local:8000/v1"},
            {"name": "OPENAI_MODEL", "value": "Qwen"},
        ]
    )
    assert [e for e, _ in found_by([served, SERVICE, client], POLICY)] == ["advisory"]


def test_careful_forms_are_silent():
    # Every name --served-model-name gives is served (the option takes several), the base name with LoRA too.
    several = _server(["--model", "/models/qwen", "--served-model-name", "Qwen/Qwen2.5-7B-Instruct", "qwen"])
    for name in ("qwen", "Qwen/Qwen2.5-7B-Instruct"):
        client = _client([{"name": "LLM_BASE_URL", "value": "http://vllm-service:8000/v1"}, {"name": "LLM_MODEL", "value": name}])
        assert found_by([several, SERVICE, client], POLICY) == []
    adapters = _server(["--model", "m/base", "--enable-lora", "--lora-modules", "sql=/a/sql"])
    client = _client([{"name": "LLM_BASE_URL", "value": "http://vllm-service:8000/v1"}, {"name": "LLM_MODEL", "value": "sql"}])
    assert found_by([adapters, SERVICE, client], POLICY) == []
    # The served name comes from a Secret; runtime LoRA loading; a --config file: the files do not show the names.
    secret = _server(
        ["--model", "m/base", "--served-model-name", "$(SERVED)"],
        env=[{"name": "SERVED", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}],
    )
    runtime = _server(["--model", "m/base", "--enable-lora"], env=[{"name": "VLLM_ALLOW_RUNTIME_LORA_UPDATING", "value": "True"}])
    config = _server(["--config", "/etc/vllm/config.yaml"])
    for server in (secret, runtime, config):
        assert found_by([server, SERVICE, CONFIG, CLIENT], POLICY) == []
    # Several workloads behind one Service; a second server.
    pool = copy.deepcopy(SERVICE)
    pool["spec"]["selector"] = {"tier": "llm"}
    other = copy.deepcopy(SERVER)
    other["metadata"]["name"] = "vllm-b"
    other["spec"]["template"]["spec"]["containers"][0]["args"] = ["--model", "mistralai/Mistral-7B-Instruct-v0.2"]
    assert found_by([SERVER, other, pool, CONFIG, CLIENT], POLICY) == []
    # A router in between (LiteLLM's proxy names its own models); an embedding variable; two model endpoints with a
    # generic variable; a client that takes the model from each request (no model variable).
    litellm = _client(
        [{"name": "VLLM_API_BASE", "value": "http://vllm-service:8000/v1"}, {"name": "VLLM_MODEL", "value": "alias"}]
    )
    litellm["spec"]["template"]["spec"]["containers"][0].update(
        image="ghcr.io/berriai/litellm:main-v1.55.0", args=["--config", "/app/config.yaml"]
    )
    embed = _client(
        [{"name": "LLM_BASE_URL", "value": "http://vllm-service:8000/v1"}, {"name": "EMBEDDING_MODEL", "value": "BAAI/bge-m3"}]
    )
    two = _client(
        [
            {"name": "VLLM_BASE_URL", "value": "http://vllm-service:8000/v1"},
            {"name": "OPENAI_API_BASE", "value": "https://api.openai.com/v1"},
            {"name": "MODEL", "value": "gpt-4o"},
        ]
    )
    per_request = _client([{"name": "LLM_BASE_URL", "value": "http://vllm-service:8000/v1"}])
    for client in (litellm, embed, two, per_request):
        assert found_by([SERVER, SERVICE, client], POLICY) == []
    # Another namespace's Service of the same name is not this server.
    elsewhere = _client(
        [{"name": "LLM_BASE_URL", "value": "http://vllm-service.other:8000/v1"}, {"name": "LLM_MODEL", "value": "x"}]
    )
    assert found_by([SERVER, SERVICE, elsewhere], POLICY) == []


def test_bad_input_never_tracebacks():
    odd = _client([{"name": "LLM_BASE_URL", "value": "http://:8000"}, {"name": "LLM_MODEL", "value": None}, {"name": 5}])
    broken = _server(["--served-model-name"])
    assert found_by([broken, SERVICE, odd], POLICY) == []


def test_a_litellm_provider_prefix_is_stripped_before_comparing():
    """Review 49 item 4 (/tmp/r49/s65a.yaml): LiteLLM splits hosted_vllm/..., openai/... at the first '/' and sends the
    rest as the model (litellm 1.77.7 litellm_core_utils/get_llm_provider_logic.py:148-172, :450-451; the prefixes of
    constants.py:457-499 and types/utils.py:2372-2377, kept in components/litellm_providers.json); vllm-project/vllm
    docs/deployment/frameworks/litellm.md: "hosted_vllm is prefix key word and necessary"."""
    server = _server(["--model", "Qwen/Qwen2.5-7B-Instruct"])
    for value in (
        "hosted_vllm/Qwen/Qwen2.5-7B-Instruct",
        "openai/Qwen/Qwen2.5-7B-Instruct",
        "litellm_proxy/Qwen/Qwen2.5-7B-Instruct",
    ):
        client = _client(
            [{"name": "LLM_BASE_URL", "value": "http://vllm-service:8000/v1"}, {"name": "LLM_MODEL", "value": value}]
        )
        assert found_by([server, SERVICE, client], POLICY) == [], value
    # A prefixed name the server does not serve: the name LiteLLM sends is quoted, and the advice keeps the prefix.
    wrong = _client(
        [
            {"name": "LLM_BASE_URL", "value": "http://vllm-service:8000/v1"},
            {"name": "LLM_MODEL", "value": "hosted_vllm/Qwen/Qwen3-8B"},
        ]
    )
    ((_, message),) = found_by([server, SERVICE, wrong], POLICY)
    assert "'The model `Qwen/Qwen3-8B` does not exist'" in message
    assert "set LLM_MODEL to hosted_vllm/Qwen/Qwen2.5-7B-Instruct" in message
    # vllm/ runs the vllm package in-process (litellm main.py:3298-3300): not a prefix of a server call.
    local = _client(
        [
            {"name": "LLM_BASE_URL", "value": "http://vllm-service:8000/v1"},
            {"name": "LLM_MODEL", "value": "vllm/Qwen/Qwen2.5-7B-Instruct"},
        ]
    )
    assert [e for e, _ in found_by([server, SERVICE, local], POLICY)] == ["advisory"]


def test_a_role_variable_and_variants_of_one_server_behind_one_service():
    # bugbiteme/vllm-demo@a31b9769067aa62dfd555c490b121b1244d55797 k8s/ogx/deployment-base.yaml (spent set 70): the
    # Llama Stack distribution's VLLM_URL with INFERENCE_MODEL ibm-granite/granite-4.2-8b-fp8, while k8s/vllm/
    # deployment.yaml and deployment-w-storage.yaml (two variants of Deployment rhaiis-granite behind one Service name)
    # both serve --model ibm-granite/granite-4.2-8b.
    plain = _server(["--model", "ibm-granite/granite-4.2-8b"])
    storage = _server(["--model", "ibm-granite/granite-4.2-8b", "--gpu-memory-utilization", "0.95"])
    storage["metadata"]["name"] = "vllm-storage"
    ogx = _client(
        [
            {"name": "VLLM_URL", "value": "http://vllm-service:8000/v1"},
            {"name": "VLLM_MAX_TOKENS", "value": "1024"},
            {"name": "INFERENCE_MODEL", "value": "ibm-granite/granite-4.2-8b-fp8"},
        ]
    )
    ((enforcement, message),) = found_by([plain, storage, SERVICE, ogx], POLICY)
    assert enforcement == "advisory"
    assert message.startswith("container backend: INFERENCE_MODEL=ibm-granite/granite-4.2-8b-fp8 asks the vLLM server")
    assert "(reached by VLLM_URL)" in message and "serves only ibm-granite/granite-4.2-8b," in message
    # Careful: the name served; variants behind the Service serving different names; a role variable beside a second
    # model endpoint; a variable of another provider's role (ANTHROPIC_MODEL) is no role of this endpoint.
    served = copy.deepcopy(ogx)
    served["spec"]["template"]["spec"]["containers"][0]["env"][2]["value"] = "ibm-granite/granite-4.2-8b"
    other = _server(["--model", "ibm-granite/granite-4.2-8b-fp8"])
    other["metadata"]["name"] = "vllm-fp8"
    second = copy.deepcopy(ogx)
    second["spec"]["template"]["spec"]["containers"][0]["env"].append(
        {"name": "OPENAI_BASE_URL", "value": "https://api.openai.com/v1"}
    )
    anthropic = _client(
        [{"name": "VLLM_URL", "value": "http://vllm-service:8000/v1"}, {"name": "ANTHROPIC_MODEL", "value": "claude-x"}]
    )
    assert found_by([plain, storage, SERVICE, served], POLICY) == []
    assert found_by([plain, other, SERVICE, copy.deepcopy(ogx)], POLICY) == []
    assert found_by([plain, SERVICE, second], POLICY) == []
    assert found_by([plain, SERVICE, anthropic], POLICY) == []


def _litellm(routes: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "litellm-config", "namespace": "rag"},
        "data": {"config.yaml": routes},
    }


def test_a_litellm_route_of_a_configmap_is_a_client():
    """Brief unread57 class 4: the form of spent set 128 obaida7/gke-vllm-serving@0343a25d8e1d06716c34cd34dbfef18dbb5fd60e
    k8s/litellm/config.yaml (LiteLLM's config.yaml in a ConfigMap, route model openai/qwen, api_base the vLLM server's
    host, the server serving a local path with no --served-model-name); written generically, not a copy. LiteLLM sends
    the name after the provider prefix (litellm 1.77.7 get_llm_provider_logic.py:148-172)."""
    server = _server(["--model", "/models/Qwen2.5-0.5B-Instruct"])
    wrong = _litellm(
        "model_list:\n- model_name: qwen\n  litellm_params:\n    model: openai/qwen\n"
        "    api_base: http://vllm-service.rag.svc.cluster.local:8000/v1\n"
    )
    ((enforcement, message),) = found_by([server, SERVICE, wrong], POLICY)
    assert enforcement == "advisory"
    assert message.startswith("data[config.yaml] model_list[0]: LiteLLM route model openai/qwen sends model qwen")
    assert "serves only /models/Qwen2.5-0.5B-Instruct" in message
    # Careful forms: the served name behind a prefix, another provider, a host outside the files, a variable.
    for params in (
        "model: hosted_vllm//models/Qwen2.5-0.5B-Instruct\n    api_base: http://vllm-service:8000/v1",
        "model: anthropic/claude-3-5-sonnet\n    api_base: http://vllm-service:8000/v1",
        "model: openai/qwen\n    api_base: http://other-vllm:8000/v1",
        "model: openai/qwen\n    api_base: os.environ/VLLM_API_BASE",
        "model: os.environ/MODEL\n    api_base: http://vllm-service:8000/v1",
    ):
        careful = _litellm(f"model_list:\n- model_name: qwen\n  litellm_params:\n    {params}\n")
        assert found_by([server, SERVICE, careful], POLICY) == [], params
    named = _server(["--model", "/models/Qwen2.5-0.5B-Instruct", "--served-model-name", "qwen"])
    assert found_by([named, SERVICE, wrong], POLICY) == []
