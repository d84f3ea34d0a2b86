"""S65 route-model-served: a router or gateway routes a model name only to a vLLM server that serves it (brief routes52).

The router forms are rows of components/model_routes.toml:
- AIBrix registers a pod under its label, else annotation, model.aibrix.ai/name (vllm-project/aibrix@v0.7.0
  pkg/constants/model.go:23-25, pkg/cache/informers.go:104-117) and refuses a model no pod is registered under
  (pkg/plugins/gateway/gateway_req_body.go:210-217);
- an Envoy AI Gateway AIGatewayRoute rule matches header x-ai-eg-model, filled from the body's model
  (envoyproxy/ai-gateway@v1.1.0 api/v1alpha1/ai_gateway_route.go:84-86, shared_types.go:97); backendRefs[].modelNameOverride
  replaces the model sent (:355-358); AIServiceBackend.spec.backendRef is an Envoy Gateway Backend (ai_service_backend.go:59-67);
- an InferenceModel's modelName, else its targetModels names, reach the pods of its poolRef InferencePool
  (kubernetes-sigs/gateway-api-inference-extension@v0.5.1 api/v1alpha2/inferencemodel_types.go:66-104,
  inferencepool_types.go:52-60, pkg/epp/requestcontrol/director.go:113-119).
vLLM answers a model it does not serve 404 (vllm-project/vllm serving.py check_model, read at 00153c8b as S65 reads it).

Firing forms: spent set 96 nextvirus/fake-gpu@e92e064852e15f3ebf84b45c8ba0960fe008461d deploy/k8s/vllm.yaml (label
model.aibrix.ai/name deepseek-r1-distill-llama-8b on a vLLM serving qwen2.5-0.5b-instruct; labelled NONE), written
here in its shape, not copied; the AIGatewayRoute of spent set 96 GUGA12/llm-infra-platform@011d99325a02a2666b25ad77dc6a901e38715edf
deploy/gateway/routes/aigatewayroute.yaml (x-ai-eg-model: mock-model), whose engine is outside the files, completed
here with a Backend and Service of the files.
"""

from __future__ import annotations

import copy

import yaml
from policy_fixtures import found_by

from components.model_routes import ROUTES, load

POLICY = "route-model-served"

AIBRIX = yaml.safe_load(
    """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: deepseek-r1-distill-llama-8b
  labels: {model.aibrix.ai/name: deepseek-r1-distill-llama-8b, model.aibrix.ai/port: "8000"}
spec:
  selector: {matchLabels: {model.aibrix.ai/name: deepseek-r1-distill-llama-8b}}
  template:
    metadata:
      labels: {model.aibrix.ai/name: deepseek-r1-distill-llama-8b, model.aibrix.ai/port: "8000"}
    spec:
      containers:
      - name: vllm-openai
        image: vllm/vllm-openai:v0.11.0
        command: [python3, -m, vllm.entrypoints.openai.api_server, --port, "8000",
                  --model, Qwen/Qwen2.5-0.5B-Instruct, --served-model-name, qwen2.5-0.5b-instruct]
        resources: {limits: {nvidia.com/gpu: "1"}}
"""
)


def _aibrix(label: str | None, args: list[str], annotation: str | None = None) -> dict:
    d = copy.deepcopy(AIBRIX)
    meta = d["spec"]["template"]["metadata"]
    meta["labels"] = {"model.aibrix.ai/name": label} if label else {"app": "x"}
    d["spec"]["selector"]["matchLabels"] = dict(meta["labels"])
    if annotation:
        meta["annotations"] = {"model.aibrix.ai/name": annotation}
    d["spec"]["template"]["spec"]["containers"][0]["command"] = [
        "python3",
        "-m",
        "vllm.entrypoints.openai.api_server",
        *args,
    ]
    return d


def test_aibrix_label_naming_a_model_the_server_does_not_serve_blocks():
    ((level, message),) = found_by([AIBRIX], POLICY)
    assert level == "mandatory"
    assert "model.aibrix.ai/name=deepseek-r1-distill-llama-8b" in message
    assert "serves only qwen2.5-0.5b-instruct" in message
    # The annotation is read where the label is absent (a model name with '/', invalid in a label value).
    found = found_by([_aibrix(None, ["--model", "m/a"], annotation="m/b")], POLICY)
    assert [lv for lv, _ in found] == ["mandatory"]


def test_aibrix_careful_forms_are_silent():
    # The label is a served name: one of several --served-model-name values, or the --model value itself.
    several = ["--model", "/models/q", "--served-model-name", "Qwen/Qwen2.5-7B", "qwen2-5-7b"]
    assert found_by([_aibrix("qwen2-5-7b", several)], POLICY) == []
    assert found_by([_aibrix("llama-3-8b", ["--model", "llama-3-8b"])], POLICY) == []
    # The annotation names the served path-like name while the label is absent.
    assert found_by([_aibrix(None, ["--model", "meta-llama/Llama-3-8B"], annotation="meta-llama/Llama-3-8B")], POLICY) == []
    # The served names are set at run time or by runtime LoRA loading: unknown, silent.
    assert found_by([_aibrix("x", ["--model", "m/a", "--served-model-name", "$(NAME)"])], POLICY) == []
    runtime = _aibrix("adapter", ["--model", "m/a", "--enable-lora"])
    runtime["spec"]["template"]["spec"]["containers"][0]["env"] = [{"name": "VLLM_ALLOW_RUNTIME_LORA_UPDATING", "value": "True"}]
    assert found_by([runtime], POLICY) == []
    # A pod with no AIBrix label.
    assert found_by([_aibrix(None, ["--model", "m/a"])], POLICY) == []


SERVER = yaml.safe_load(
    """
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm, namespace: inference}
spec:
  selector: {matchLabels: {app: vllm}}
  template:
    metadata: {labels: {app: vllm}}
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.11.0
        args: ["--model", "Qwen/Qwen2.5-1.5B-Instruct"]
        resources: {limits: {nvidia.com/gpu: "1"}}
"""
)
SERVICE = yaml.safe_load(
    """
apiVersion: v1
kind: Service
metadata: {name: vllm-backend-service, namespace: inference}
spec:
  selector: {app: vllm}
  ports: [{port: 80, targetPort: 8000}]
"""
)
ROUTE = list(
    yaml.safe_load_all(
        """
apiVersion: aigateway.envoyproxy.io/v1alpha1
kind: AIGatewayRoute
metadata: {name: llm-route, namespace: gateway}
spec:
  parentRefs: [{name: llm-gw}]
  rules:
    - matches:
        - headers: [{name: x-ai-eg-model, value: mock-model}]
      backendRefs: [{name: vllm-backend}]
---
apiVersion: aigateway.envoyproxy.io/v1alpha1
kind: AIServiceBackend
metadata: {name: vllm-backend, namespace: gateway}
spec:
  schema: {name: OpenAI}
  backendRef: {name: vllm-backend, namespace: gateway, kind: Backend, group: gateway.envoyproxy.io}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata: {name: vllm-backend, namespace: gateway}
spec:
  endpoints: [{fqdn: {hostname: vllm-backend-service.inference.svc.cluster.local, port: 80}}]
"""
    )
)


def test_ai_gateway_rule_for_a_model_its_backend_does_not_serve_blocks():
    ((level, message),) = found_by([SERVER, SERVICE, *ROUTE], POLICY)
    assert level == "mandatory"
    assert "x-ai-eg-model: mock-model" in message and "serves only Qwen/Qwen2.5-1.5B-Instruct" in message
    # An AIServiceBackend naming the Service directly (the pre-Backend API) reaches it too.
    direct = copy.deepcopy(ROUTE[:2])
    direct[1]["spec"]["backendRef"] = {"name": "vllm-backend-service", "namespace": "inference"}
    assert [lv for lv, _ in found_by([SERVER, SERVICE, *direct], POLICY)] == ["mandatory"]


def test_ai_gateway_careful_forms_are_silent():
    # The rule matches the served name; a modelNameOverride rewrites it to the served name.
    matching = copy.deepcopy(ROUTE)
    matching[0]["spec"]["rules"][0]["matches"][0]["headers"][0]["value"] = "Qwen/Qwen2.5-1.5B-Instruct"
    assert found_by([SERVER, SERVICE, *matching], POLICY) == []
    rewrite = copy.deepcopy(ROUTE)
    rewrite[0]["spec"]["rules"][0]["backendRefs"][0]["modelNameOverride"] = "Qwen/Qwen2.5-1.5B-Instruct"
    assert found_by([SERVER, SERVICE, *rewrite], POLICY) == []
    # A regular-expression match; the backend's Service outside the files (the spent form): not proven.
    regex = copy.deepcopy(ROUTE)
    regex[0]["spec"]["rules"][0]["matches"][0]["headers"][0]["type"] = "RegularExpression"
    assert found_by([SERVER, SERVICE, *regex], POLICY) == []
    assert found_by([SERVER, *ROUTE], POLICY) == []
    # A server whose names several --served-model-name values give, one of them the rule's.
    many = copy.deepcopy(SERVER)
    many["spec"]["template"]["spec"]["containers"][0]["args"] += ["--served-model-name", "qwen", "mock-model"]
    assert found_by([many, SERVICE, *ROUTE], POLICY) == []


POOL = list(
    yaml.safe_load_all(
        """
apiVersion: inference.networking.x-k8s.io/v1alpha2
kind: InferencePool
metadata: {name: vllm-pool, namespace: inference}
spec:
  selector: {app: vllm}
  targetPortNumber: 8000
  extensionRef: {name: vllm-epp}
---
apiVersion: inference.networking.x-k8s.io/v1alpha2
kind: InferenceModel
metadata: {name: chat, namespace: inference}
spec:
  modelName: llama-3-chat
  poolRef: {name: vllm-pool}
"""
    )
)


def test_inference_model_name_no_pool_server_serves_blocks():
    ((level, message),) = found_by([SERVER, *POOL], POLICY)
    assert level == "mandatory" and "modelName llama-3-chat" in message
    # A v1 pool (selector.matchLabels) and an AIGatewayRoute backendRef naming it.
    v1 = copy.deepcopy(POOL[0])
    v1["apiVersion"] = "inference.networking.k8s.io/v1"
    v1["spec"]["selector"] = {"matchLabels": {"app": "vllm"}}
    route = copy.deepcopy(ROUTE[0])
    route["metadata"]["namespace"] = "inference"
    route["spec"]["rules"][0]["backendRefs"] = [
        {"name": "vllm-pool", "group": "inference.networking.k8s.io", "kind": "InferencePool"}
    ]
    assert [lv for lv, _ in found_by([SERVER, v1, route], POLICY)] == ["mandatory"]


def test_inference_model_careful_forms_are_silent():
    # targetModels rewrite the name to a served one; a split where one target is served; a name served.
    target = copy.deepcopy(POOL)
    target[1]["spec"]["targetModels"] = [{"name": "Qwen/Qwen2.5-1.5B-Instruct", "weight": 100}]
    assert found_by([SERVER, *target], POLICY) == []
    split = copy.deepcopy(POOL)
    split[1]["spec"]["targetModels"] = [{"name": "Qwen/Qwen2.5-1.5B-Instruct", "weight": 50}, {"name": "other", "weight": 50}]
    assert found_by([SERVER, *split], POLICY) == []
    served = copy.deepcopy(POOL)
    served[1]["spec"]["modelName"] = "Qwen/Qwen2.5-1.5B-Instruct"
    assert found_by([SERVER, *served], POLICY) == []
    # The pool is not in the files; it selects pods in another namespace.
    assert found_by([SERVER, POOL[1]], POLICY) == []
    other_ns = copy.deepcopy(POOL)
    for o in other_ns:
        o["metadata"]["namespace"] = "elsewhere"
    assert found_by([SERVER, *other_ns], POLICY) == []


BBR_ROUTE = yaml.safe_load(
    """
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: routes-to-llms, namespace: inference}
spec:
  parentRefs: [{name: inference-gateway}]
  rules:
  - matches:
    - headers: [{type: Exact, name: X-Gateway-Model-Name, value: chatbot}]
      path: {type: PathPrefix, value: /}
    backendRefs: [{name: vllm-pool, group: inference.networking.k8s.io, kind: InferencePool}]
"""
)


def _pool_v1() -> dict:
    pool = copy.deepcopy(POOL[0])
    pool["apiVersion"] = "inference.networking.k8s.io/v1"
    pool["spec"]["selector"] = {"matchLabels": {"app": "vllm"}}
    return pool


def test_httproute_on_body_based_routing_for_a_name_the_pool_does_not_serve_blocks():
    # The shape of the project's own guide (gateway-api-inference-extension v1.0.0
    # site-src/guides/serve-multiple-genai-models.md:19-47), with a pool whose server serves another name.
    ((level, message),) = found_by([SERVER, _pool_v1(), BBR_ROUTE], POLICY)
    assert level == "mandatory" and "x-gateway-model-name: chatbot" in message
    # A rule straight to the server's Service (no endpoint picker: the body goes unchanged).
    to_service = copy.deepcopy(BBR_ROUTE)
    to_service["spec"]["rules"][0]["backendRefs"] = [{"name": "vllm-backend-service", "port": 80}]
    assert [lv for lv, _ in found_by([SERVER, SERVICE, to_service], POLICY)] == ["mandatory"]


def test_httproute_careful_forms_are_silent():
    served = copy.deepcopy(SERVER)
    served["spec"]["template"]["spec"]["containers"][0]["args"] += [
        "--served-model-name",
        "Qwen/Qwen2.5-1.5B-Instruct",
        "chatbot",
    ]
    assert found_by([served, _pool_v1(), BBR_ROUTE], POLICY) == []
    # The rule sets the endpoint picker's rewrite header; an InferenceModel on the pool rewrites (judged on its own).
    rewrite = copy.deepcopy(BBR_ROUTE)
    rewrite["spec"]["rules"][0]["filters"] = [
        {
            "type": "RequestHeaderModifier",
            "requestHeaderModifier": {"set": [{"name": "x-gateway-model-name-rewrite", "value": "Qwen/Qwen2.5-1.5B-Instruct"}]},
        }
    ]
    assert found_by([SERVER, _pool_v1(), rewrite], POLICY) == []
    model = copy.deepcopy(POOL[1])
    model["spec"]["modelName"] = "chatbot"
    model["spec"]["targetModels"] = [{"name": "Qwen/Qwen2.5-1.5B-Instruct"}]
    assert found_by([SERVER, POOL[0], model, BBR_ROUTE], POLICY) == []
    # A plain HTTPRoute (no model header), a path match only.
    plain = copy.deepcopy(BBR_ROUTE)
    del plain["spec"]["rules"][0]["matches"][0]["headers"]
    assert found_by([SERVER, _pool_v1(), plain], POLICY) == []


def test_route_table_rows_carry_sources(tmp_path):
    assert set(ROUTES) == {"aibrix", "envoy-ai-gateway", "inference-model", "gateway-api-bbr"}
    assert all("@" in r.source for r in ROUTES.values())
    bad = tmp_path / "routes.toml"
    bad.write_text(
        '[routes.x]\ndisplay = "x"\nform = "pod-label"\nkey = "k"\nkinds = ["a:B"]\nrewrite = ""\neffect = "e"\nsource = "s"\n'
    )
    try:
        load(bad)
    except ValueError as e:
        assert "routes.x" in str(e)
    else:
        raise AssertionError("a pod-label row with kinds loads")


def test_a_rule_with_a_fallback_or_split_to_a_backend_that_serves_the_name_is_silent():
    # review52a: an AIGatewayRoute rule whose primary backend serves the name and whose fallback (backendRefs[].priority,
    # envoyproxy/ai-gateway@v1.1.0 api/v1alpha1/ai_gateway_route.go:387-397) does not: the fallback takes traffic only
    # when the primary fails, so the rule is not proven to fail. Every backend of the rule failing still blocks.
    served = copy.deepcopy(SERVER)
    served["metadata"]["name"] = "vllm-mock"
    served["spec"]["selector"]["matchLabels"] = served["spec"]["template"]["metadata"]["labels"] = {"app": "mock"}
    served["spec"]["template"]["spec"]["containers"][0]["args"] += ["--served-model-name", "mock-model"]
    service = copy.deepcopy(SERVICE)
    service["metadata"]["name"] = "mock-service"
    service["spec"]["selector"] = {"app": "mock"}
    primary = copy.deepcopy(ROUTE[1])
    primary["metadata"]["name"] = "mock-backend"
    primary["spec"]["backendRef"] = {"name": "mock-service", "namespace": "inference"}
    route = copy.deepcopy(ROUTE)
    route[0]["spec"]["rules"][0]["backendRefs"] = [{"name": "mock-backend"}, {"name": "vllm-backend", "priority": 1}]
    assert found_by([SERVER, SERVICE, served, service, primary, *route], POLICY) == []
    # A weight-0 ref gets no traffic: the rule is judged on the other.
    weightless = copy.deepcopy(ROUTE)
    weightless[0]["spec"]["rules"][0]["backendRefs"] = [{"name": "vllm-backend"}, {"name": "mock-backend", "weight": 0}]
    assert [lv for lv, _ in found_by([SERVER, SERVICE, served, service, primary, *weightless], POLICY)] == ["mandatory"]


def test_a_pool_that_also_selects_another_engine_is_silent():
    # review52a: an SGLang Deployment behind the same pool labels may serve the name; S65 reads only vLLM's names.
    sglang = yaml.safe_load(
        """
apiVersion: apps/v1
kind: Deployment
metadata: {name: sglang, namespace: inference}
spec:
  selector: {matchLabels: {app: vllm}}
  template:
    metadata: {labels: {app: vllm}}
    spec:
      containers:
      - name: sglang
        image: lmsysorg/sglang:v0.4.6
        command: [python3, -m, sglang.launch_server, --model-path, meta-llama/Llama-3-8B, --served-model-name, llama-3-chat]
"""
    )
    assert found_by([SERVER, sglang, *POOL], POLICY) == []
    assert found_by([SERVER, sglang, _pool_v1(), BBR_ROUTE], POLICY) == []


def test_aibrix_label_on_a_server_whose_names_the_files_do_not_show_is_silent():
    # review52a: served names from a --config file (vLLM reads served-model-name there too), and an SGLang server under
    # the AIBrix label (S65 reads vLLM's names only): not proven.
    config = _aibrix("qwen", [])
    config["spec"]["template"]["spec"]["containers"][0]["command"] = ["vllm", "serve", "--config", "/etc/vllm/config.yaml"]
    assert found_by([config], POLICY) == []
    sglang = _aibrix("qwen", [])
    sglang["spec"]["template"]["spec"]["containers"][0].update(
        image="lmsysorg/sglang:v0.4.6",
        command=["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen2.5-7B-Instruct", "--port", "8000"],
    )
    assert found_by([sglang], POLICY) == []
