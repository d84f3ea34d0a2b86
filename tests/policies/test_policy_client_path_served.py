"""S65 client-path-served: a client's URL reaches a model server of the files on a path that server has (brief routes52).

The routes are components/engine_routes.toml's: vLLM's OpenAI server (vllm 0.19.1 vllm/entrypoints/*/api_router.py,
e.g. openai/chat_completion/api_router.py:40-41 /v1/chat/completions, pooling/score/api_router.py:126-127 /v2/rerank,
serve/disagg/api_router.py:49-50 /inference/v1/generate), Ollama (ollama/ollama@v0.32.15 server/routes.go:1877-1926)
and TGI (huggingface/text-generation-inference@v3.3.7 router/src/server.rs:2200-2288, the kserve feature's /v2 routes
included).

Firing forms, written in the shape of spent set 96 (where the path sat in the apps' code, not in the files):
simardeep1792/Knative-DAPR-GPU-K8s@02ba41902abe1589b5847099288fc99db4d43369 knative/inference-service.yaml (the app
POSTs ${OLLAMA_HOST}/inference) and sudsho/model-serving-autoscaler@adf351f8a1614648cb3ba71659fa9d7ffdc1584a
kserve/llm-llama3.yaml (a transformer POSTing /v2/models/{name}/infer to vLLM's OpenAI server).
"""

from __future__ import annotations

import copy

import yaml
from policy_fixtures import found_by

from components.engine_routes import ENGINE_ROUTES, load

POLICY = "client-path-served"

OLLAMA = list(
    yaml.safe_load_all(
        """
apiVersion: apps/v1
kind: Deployment
metadata: {name: ollama, namespace: ollama}
spec:
  selector: {matchLabels: {app: ollama}}
  template:
    metadata: {labels: {app: ollama}}
    spec:
      containers:
      - name: ollama
        image: ollama/ollama:0.12.3
        ports: [{containerPort: 11434}]
---
apiVersion: v1
kind: Service
metadata: {name: ollama, namespace: ollama}
spec:
  selector: {app: ollama}
  ports: [{port: 11434}]
"""
    )
)
VLLM = list(
    yaml.safe_load_all(
        """
apiVersion: apps/v1
kind: Deployment
metadata: {name: llm, namespace: ollama}
spec:
  selector: {matchLabels: {app: llm}}
  template:
    metadata: {labels: {app: llm}}
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.11.0
        args: ["--model", "meta-llama/Meta-Llama-3-8B-Instruct"]
        ports: [{containerPort: 8000}]
        resources: {limits: {nvidia.com/gpu: 1}}
---
apiVersion: v1
kind: Service
metadata: {name: llm-predictor, namespace: ollama}
spec:
  selector: {app: llm}
  ports: [{port: 80, targetPort: 8000}]
"""
    )
)
CLIENT = yaml.safe_load(
    """
apiVersion: apps/v1
kind: Deployment
metadata: {name: inference-app, namespace: ollama}
spec:
  selector: {matchLabels: {app: inference-app}}
  template:
    metadata: {labels: {app: inference-app}}
    spec:
      containers:
      - name: app
        image: example/inference-app:1
        env: []
"""
)


def _client(name: str, value: str) -> dict:
    client = copy.deepcopy(CLIENT)
    client["spec"]["template"]["spec"]["containers"][0]["env"] = [{"name": name, "value": value}]
    return client


def test_a_path_the_server_has_no_route_for_is_advice():
    ((level, message),) = found_by([*OLLAMA, _client("OLLAMA_URL", "http://ollama:11434/inference")], POLICY)
    assert level == "advisory"
    assert "OLLAMA_URL=http://ollama:11434/inference reaches the ollama server of Deployment ollama on path /inference" in message
    infer = _client("PREDICTOR_URL", "http://llm-predictor.ollama.svc.cluster.local/v2/models/llama3/infer")
    assert [lv for lv, _ in found_by([*VLLM, infer], POLICY)] == ["advisory"]
    # A ConfigMap of the files gives the URL.
    cm = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "c", "namespace": "ollama"},
        "data": {"LLM_URL": "http://ollama:11434/generate"},
    }
    client = copy.deepcopy(CLIENT)
    client["spec"]["template"]["spec"]["containers"][0]["envFrom"] = [{"configMapRef": {"name": "c"}}]
    assert [lv for lv, _ in found_by([*OLLAMA, cm, client], POLICY)] == ["advisory"]


def test_careful_forms_are_silent():
    # Base URLs and full endpoints the servers have.
    for value in (
        "http://ollama:11434",
        "http://ollama:11434/",
        "http://ollama:11434/api",
        "http://ollama:11434/api/generate",
        "http://ollama:11434/v1",
    ):
        assert found_by([*OLLAMA, _client("OLLAMA_URL", value)], POLICY) == []
    for value in (
        "http://llm-predictor/v1",
        "http://llm-predictor/v1/chat/completions",
        "http://llm-predictor/health",
        "http://llm-predictor/v2/rerank",
    ):
        assert found_by([*VLLM, _client("VLLM_URL", value)], POLICY) == []
    # vLLM's demo server, a --root-path, a proxy sidecar with its own port: the routes are not the table's.
    for change in (
        {"command": ["python3", "-m", "vllm.entrypoints.api_server"], "args": ["--model", "m/a"]},
        {"args": ["--model", "m/a", "--root-path", "/llm"]},
    ):
        server = copy.deepcopy(VLLM)
        server[0]["spec"]["template"]["spec"]["containers"][0].update(change)
        assert found_by([*server, _client("VLLM_URL", "http://llm-predictor/generate")], POLICY) == []
    proxied = copy.deepcopy(OLLAMA)
    proxied[0]["spec"]["template"]["spec"]["containers"].append(
        {"name": "auth", "image": "nginx:1.27", "ports": [{"containerPort": 8080}]}
    )
    assert found_by([*proxied, _client("OLLAMA_URL", "http://ollama:11434/inference")], POLICY) == []
    # A host outside the files, a URL with a variable, a KServe predictor with the v2 protocol (KServe's own server).
    assert found_by([*OLLAMA, _client("OLLAMA_URL", "http://ollama.example.com/inference")], POLICY) == []
    assert found_by([*OLLAMA, _client("OLLAMA_URL", "http://ollama:11434/$(PATH_PART)")], POLICY) == []
    isvc = yaml.safe_load(
        """
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata: {name: triton, namespace: ollama}
spec:
  predictor:
    model: {modelFormat: {name: triton}, storageUri: gs://b/m}
"""
    )
    assert found_by([isvc, _client("PREDICTOR_URL", "http://triton-predictor/v2/models/m/infer")], POLICY) == []


def test_route_table():
    vllm, ollama, tgi = ENGINE_ROUTES["vllm"], ENGINE_ROUTES["ollama"], ENGINE_ROUTES["tgi"]
    assert vllm.answers("/v1") and vllm.answers("/v1/chat/completions") and not vllm.answers("/v2/models/x/infer")
    assert ollama.answers("/api/chat") and not ollama.answers("/inference") and not ollama.answers("/v2/models/x/infer")
    # TGI's root route takes POSTs on "/" itself only; its kserve feature's /v2 routes count.
    assert tgi.answers("/") and not tgi.answers("/inference") and tgi.answers("/v2/models/m/versions/1/infer")
    assert all(any(t in r.source for t in ("@v", "0.19.1", "b8914")) for r in ENGINE_ROUTES.values())


def test_bad_rows_fail_naming_the_row(tmp_path):
    bad = tmp_path / "routes.toml"
    bad.write_text('[engines.x]\nroutes = ["v1"]\nunless = []\nsource = "s"\n')
    try:
        load(bad)
    except ValueError as e:
        assert "engines.x" in str(e)
    else:
        raise AssertionError("a route without a leading / loads")


LLAMA = yaml.safe_load(
    """
apiVersion: apps/v1
kind: Deployment
metadata: {name: ollama, namespace: ollama}
spec:
  selector: {matchLabels: {app: ollama}}
  template:
    metadata: {labels: {app: ollama}}
    spec:
      containers:
      - name: llama-server
        image: ghcr.io/ggml-org/llama.cpp:server
        args: ["-m", "/models/qwen2.5-0.5b-instruct-q4_k_m.gguf", "--host", "0.0.0.0", "--port", "11434"]
        ports: [{containerPort: 11434}]
"""
)


def test_llama_cpp_routes():
    # An Ollama-API client in front of llama.cpp's server (ggml-org/llama.cpp b8914 tools/server/server.cpp:168-224:
    # no /api routes) fires; its own /completion and OpenAI paths do not; --api-prefix (common/arg.cpp:2855-2860,
    # LLAMA_ARG_API_PREFIX) moves every route: silent.
    service = OLLAMA[1]
    ((level, message),) = found_by([LLAMA, service, _client("OLLAMA_URL", "http://ollama:11434/api/generate")], POLICY)
    assert level == "advisory" and "llama-cpp server" in message
    for value in ("http://ollama:11434/completion", "http://ollama:11434/v1", "http://ollama:11434/health"):
        assert found_by([LLAMA, service, _client("LLM_URL", value)], POLICY) == []
    prefixed = copy.deepcopy(LLAMA)
    prefixed["spec"]["template"]["spec"]["containers"][0]["env"] = [{"name": "LLAMA_ARG_API_PREFIX", "value": "/api"}]
    assert found_by([prefixed, service, _client("OLLAMA_URL", "http://ollama:11434/api/generate")], POLICY) == []


def test_tgi_vertex_routes_from_env_are_silent():
    # TGI built with the google feature adds the routes AIP_PREDICT_ROUTE and AIP_HEALTH_ROUTE name
    # (huggingface/text-generation-inference@v3.3.7 router/src/server.rs:2255-2266): a client of that path is answered.
    tgi = copy.deepcopy(VLLM)
    container = tgi[0]["spec"]["template"]["spec"]["containers"][0]
    container.update(name="tgi", image="ghcr.io/huggingface/text-generation-inference:3.3.7", args=["--model-id", "m/a"])
    client = _client("TGI_URL", "http://llm-predictor/predict")
    assert [lvl for lvl, _ in found_by([*tgi, client], POLICY)] == ["advisory"]
    container["env"] = [{"name": "AIP_PREDICT_ROUTE", "value": "/predict"}]
    assert found_by([*tgi, client], POLICY) == []
