"""Edge forms beyond the ALB (issue 32): GKE Ingress (BackendConfig timeoutSec, TLS), GKE Gateway (GCPBackendPolicy
timeoutSec), ingress-nginx (proxy-read-timeout), and an edge whose backend is not in the set.

Each form is a minimal hand-written shape of a real upstream file, cited where it is used; the facts the policies
rely on are cited in policies/reading/edge.py and policies/ingress/external_gce_ingress_guarded.py.
"""

from __future__ import annotations

import copy

from policy_fixtures import RAY_ROUTE, found_by

from policies.reading import edge

S9 = "llm-route-timeout-not-default"
G32 = "external-gce-ingress-guarded"


def found(objs: list[dict], policy: str, config=None) -> list[tuple[str, str]]:
    return found_by(objs, policy, config)


def ingress(name: str, service: str, port: int, *, annotations=None, class_name=None, tls=None) -> dict:
    spec: dict = {
        "rules": [
            {
                "http": {
                    "paths": [
                        {"path": "/", "pathType": "Prefix", "backend": {"service": {"name": service, "port": {"number": port}}}}
                    ]
                }
            }
        ]
    }
    if class_name:
        spec["ingressClassName"] = class_name
    if tls:
        spec["tls"] = tls
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": name, "annotations": dict(annotations or {})},
        "spec": spec,
    }


def service(name: str, selector: dict, port: int, annotations=None) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "annotations": dict(annotations or {})},
        "spec": {"selector": selector, "ports": [{"port": port, "targetPort": port}]},
    }


# huggingface/Google-Cloud-Containers examples/gke/tgi-llama-405b-deployment/config/{ingress,deployment}.yaml at
# 8d6aa78b23eb54fdf6bcb8cc1ce26ba7e593fdd9 (held-out set 3, rows 15-16): a gce-class Ingress to tgi-service:8080 with
# no TLS and no BackendConfig, in front of TGI on 8 GPUs.
TGI_INGRESS = ingress("tgi-ingress", "tgi-service", 8080, annotations={"kubernetes.io/ingress.class": "gce"})
TGI = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "tgi-deployment"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "tgi-server"}},
        "template": {
            "metadata": {"labels": {"app": "tgi-server"}},
            "spec": {
                "containers": [
                    {
                        "name": "tgi-container",
                        "image": "us-docker.pkg.dev/deeplearning-platform-release/gcr.io/huggingface-text-generation-inference-cu121.2-2.ubuntu2204:latest",
                        "resources": {"requests": {"nvidia.com/gpu": 8}},
                        "env": [{"name": "MODEL_ID", "value": "meta-llama/Llama-3.1-405B-Instruct-FP8"}],
                    }
                ]
            },
        },
    },
}
TGI_SERVICE = service("tgi-service", {"app": "tgi-server"}, 8080)


def test_a_gce_ingress_in_front_of_tgi_leaves_gkes_30_second_backend_timeout():
    assert found([TGI_INGRESS, TGI, TGI_SERVICE], S9) == [
        (
            "advisory",
            "GKE backend service timeout (BackendConfig timeoutSec) 30s (unset: no BackendConfig on the Service, GKE's "
            "default) in front of an LLM (tgi-service) cuts every response that takes longer than 30s in all (a streamed "
            "generation included)",
        )
    ]


def test_gkes_default_in_front_of_a_model_whose_service_is_in_the_set_blocks():
    # Session 24 review R4: the Service is in the set and names no BackendConfig, so the 30 s default is proven.
    ((level, message),) = found([TGI_INGRESS, TGI, TGI_SERVICE], "timeout-chain-ordered")
    assert level == "mandatory"
    assert message == (
        "Ingress tgi-ingress (GKE) sends to tgi-service, in front of tgi-deployment's model server, with the backend "
        "service timeout at 30s (unset: no BackendConfig on the Service, GKE's default): it bounds the whole response, "
        "so every generation that takes longer is cut (502/504); set timeoutSec in a BackendConfig above the longest "
        "request"
    )
    # The Service in another file, or a BackendConfig of the set with a long timeoutSec: not this rule's.
    assert found([TGI_INGRESS, TGI], "timeout-chain-ordered") == []
    config = {
        "apiVersion": "cloud.google.com/v1",
        "kind": "BackendConfig",
        "metadata": {"name": "tgi"},
        "spec": {"timeoutSec": 600},
    }
    svc = service("tgi-service", {"app": "tgi-server"}, 8080, {"cloud.google.com/backend-config": '{"default": "tgi"}'})
    assert found([TGI_INGRESS, TGI, svc, config], "timeout-chain-ordered") == []


def test_the_gce_ingress_alone_says_its_backend_is_not_in_the_set():
    ((level, message),) = found([TGI_INGRESS], S9)
    assert level == "advisory"
    assert "30s (the Service is not in this set; GKE's default unless its BackendConfig sets timeoutSec)" in message
    assert "in front of Service tgi-service, which this set does not hold (if it serves a model)" in message


def test_a_backend_config_with_a_long_timeout_on_the_service_is_silent():
    # The shape GKE documents (https://cloud.google.com/kubernetes-engine/docs/concepts/backendconfig): the Service
    # names the BackendConfig by its "default" key; beta and GA keys both count (ingress-gce v1.41.1
    # pkg/annotations/service.go:157).
    config = {
        "apiVersion": "cloud.google.com/v1",
        "kind": "BackendConfig",
        "metadata": {"name": "tgi"},
        "spec": {"timeoutSec": 600},
    }
    for key in edge.BACKEND_CONFIG_KEYS:
        svc = service("tgi-service", {"app": "tgi-server"}, 8080, {key: '{"default": "tgi"}'})
        assert found([TGI_INGRESS, TGI, svc, config], S9) == []
    short = copy.deepcopy(config)
    short["spec"]["timeoutSec"] = 30
    svc = service("tgi-service", {"app": "tgi-server"}, 8080, {"cloud.google.com/backend-config": '{"ports": {"8080": "tgi"}}'})
    ((_, message),) = found([TGI_INGRESS, TGI, svc, short], S9)
    assert message.startswith("GKE backend service timeout (BackendConfig timeoutSec) 30s in front of an LLM (tgi-service)")


def test_a_backend_config_outside_the_set_is_not_guessed():
    svc = service("tgi-service", {"app": "tgi-server"}, 8080, {"cloud.google.com/backend-config": '{"default": "elsewhere"}'})
    assert found([TGI_INGRESS, TGI, svc], S9) == []


def test_an_external_gce_ingress_without_tls_blocks_with_a_model_behind_it():
    # Alone, the Ingress's backend may not be a model (session 24 review F11): advice.
    ((level, message),) = found([TGI_INGRESS], G32)
    assert level == "advisory"
    assert message == (
        "Ingress <default>/tgi-ingress (external GKE load balancer, class gce): no spec.tls, "
        "ingress.gcp.kubernetes.io/pre-shared-cert or networking.gke.io/managed-certificates, so it answers plain HTTP "
        "on port 80 and prompts cross the internet in clear text (Service tgi-service is not in this set)"
    )
    ((level, message),) = found([TGI_INGRESS, TGI, TGI_SERVICE], G32)
    assert level == "mandatory"
    assert message.endswith("(Service tgi-service has no BackendConfig, so no IAP or Cloud Armor)")


def test_a_gce_ingress_to_a_known_non_model_backend_is_silent():
    # The same Ingress to a Grafana Deployment of the set, or to a backend named as a UI, fronts no model (F11).
    grafana = copy.deepcopy(TGI)
    grafana["spec"]["template"]["spec"]["containers"] = [{"name": "grafana", "image": "grafana/grafana:11.2.0"}]
    assert found([TGI_INGRESS, grafana, TGI_SERVICE], G32) == []
    assert found([ingress("ui", "open-webui", 8080, annotations={"kubernetes.io/ingress.class": "gce"})], G32) == []


def test_iap_on_the_models_backend_config_makes_the_clear_text_finding_advice():
    iap = {
        "apiVersion": "cloud.google.com/v1",
        "kind": "BackendConfig",
        "metadata": {"name": "tgi"},
        "spec": {"iap": {"enabled": True, "oauthclientCredentials": {"secretName": "oauth"}}},
    }
    svc = service("tgi-service", {"app": "tgi-server"}, 8080, {"cloud.google.com/backend-config": '{"default": "tgi"}'})
    ((level, message),) = found([TGI_INGRESS, TGI, svc, iap], G32)
    assert level == "advisory" and message.endswith("(BackendConfig tgi of Service tgi-service sets IAP)")


# munagekar/kubeflow-tf gke-overlays/kubernetes_ingress.tf at 009eb52c6cd724a0ec66cc79794cb8cfa40e80aa and
# gke-overlays/backend-config.yaml at f0320c9d3b7b15515daab63103fe92bb17161ecb: a gce Ingress with a Google-managed
# certificate to istio-ingressgateway:80, and the IAP BackendConfig (timeoutSec 3600) that Service is patched to use.
KUBEFLOW_INGRESS = ingress(
    "envoy-ingress",
    "istio-ingressgateway",
    80,
    annotations={"kubernetes.io/ingress.class": "gce", "networking.gke.io/managed-certificates": "gke-certificate"},
)
KUBEFLOW_BACKEND = {
    "apiVersion": "cloud.google.com/v1",
    "kind": "BackendConfig",
    "metadata": {"name": "iap-backendconfig", "namespace": "istio-system"},
    "spec": {"iap": {"enabled": True, "oauthclientCredentials": {"secretName": "kubeflow-oauth"}}, "timeoutSec": 3600},
}


def test_the_careful_gke_form_is_silent():
    assert found([KUBEFLOW_INGRESS, KUBEFLOW_BACKEND], G32) == []
    assert found([KUBEFLOW_INGRESS, KUBEFLOW_BACKEND], S9) == []


def test_internal_and_tls_gce_ingresses_are_not_public_clear_text():
    internal = copy.deepcopy(TGI_INGRESS)
    internal["metadata"]["annotations"]["kubernetes.io/ingress.class"] = "gce-internal"
    with_tls = ingress("tgi-ingress", "tgi-service", 8080, class_name="gce", tls=[{"secretName": "tgi-tls"}])
    pre_shared = copy.deepcopy(TGI_INGRESS)
    pre_shared["metadata"]["annotations"]["ingress.gcp.kubernetes.io/pre-shared-cert"] = "tgi-cert"
    for form in (internal, with_tls, pre_shared):
        assert found([form], G32) == []


# aws-samples/awsome-inference 2.projects/trtllm-inference/2. Setup Container/{ingress,manifest}.yaml at
# d3236c8cfabb5699c4292f7e0351e4dbc9099de3 (held-out set 3, rows 1-2): an internet-facing ALB with no idle timeout to
# llama3-service:8000, in front of a TensorRT-LLM server started by its image's own script (a GPU container no engine
# row names).
TRT_INGRESS = ingress(
    "trtllm-ingress",
    "llama3-service",
    8000,
    class_name="alb",
    annotations={"alb.ingress.kubernetes.io/scheme": "internet-facing"},
)
TRT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "llama3"},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "llama3"}},
        "template": {
            "metadata": {"labels": {"app": "llama3"}},
            "spec": {
                "containers": [
                    {
                        "name": "trtllm-inference-container",
                        "image": "123456789012.dkr.ecr.us-east-2.amazonaws.com/trtllm-inference-registry:latest",
                        "resources": {"limits": {"nvidia.com/gpu": "1"}},
                    }
                ]
            },
        },
    },
}
TRT_SERVICE = service("llama3-service", {"app": "llama3"}, 8000)


def test_an_alb_in_front_of_a_gpu_server_no_engine_row_names():
    ((level, message),) = found([TRT_INGRESS, TRT, TRT_SERVICE], S9)
    assert level == "advisory"
    assert message.startswith(
        "ALB idle_timeout.timeout_seconds 60 (unset: the ALB's default) in front of an LLM cuts a request that sends no "
        "byte for 60s"
    )


def test_an_alb_alone_says_its_backend_is_not_in_the_set_and_a_known_non_model_backend_is_silent():
    ((_, message),) = found([TRT_INGRESS], S9)
    assert "in front of Service llama3-service, which this set does not hold (if it serves a model)" in message
    cpu = copy.deepcopy(TRT)
    cpu["spec"]["template"]["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "1"}}
    assert found([TRT_INGRESS, cpu, TRT_SERVICE], S9) == []


# geistlabs/Geist-Helm templates/ingress/inference-ingress.tpl at 221bb120603dfd775dfcc18289107fda40d2b342: an
# ingress-nginx Ingress to the inference Service with proxy-read-timeout and proxy-send-timeout "300" (its
# ingressClassName is a template value; nginx here). The firing form drops the two annotations.
def test_ingress_nginx_left_at_its_60_second_read_timeout():
    careful = ingress(
        "inference",
        "tgi-service",
        8080,
        class_name="nginx",
        annotations={
            "nginx.ingress.kubernetes.io/proxy-read-timeout": "300",
            "nginx.ingress.kubernetes.io/proxy-send-timeout": "300",
        },
    )
    assert found([careful, TGI, TGI_SERVICE], S9) == []
    bare = copy.deepcopy(careful)
    bare["metadata"]["annotations"] = {}
    ((level, message),) = found([bare, TGI, TGI_SERVICE], S9)
    assert level == "advisory"
    assert message.startswith(
        "nginx.ingress.kubernetes.io/proxy-read-timeout 60s (unset: ingress-nginx's default unless its ConfigMap changes "
        "it) in front of an LLM (tgi-service) cuts a request that sends no byte for 60s"
    )


# kubernetes-sigs/gateway-api-inference-extension config/manifests/gateway/gke/gcp-backend-policy.yaml at
# f4ab8c68750a16d4dce23046e1ba5a60b7ca20b7 (corpus 1, row 27) with its HTTPRoute (row 26): timeoutSec 300 on the
# InferencePool. Without timeoutSec, GKE's 30 s applies.
ROUTE = {
    "apiVersion": "gateway.networking.k8s.io/v1",
    "kind": "HTTPRoute",
    "metadata": {"name": "llm-route"},
    "spec": {
        "parentRefs": [{"name": "inference-gateway"}],
        "rules": [
            {
                "backendRefs": [
                    {"group": "inference.networking.x-k8s.io", "kind": "InferencePool", "name": "vllm-llama3-8b-instruct"}
                ],
                "timeouts": {"request": "300s"},
            }
        ],
    },
}
GCP_POLICY = {
    "apiVersion": "networking.gke.io/v1",
    "kind": "GCPBackendPolicy",
    "metadata": {"name": "inferencepool-backend-policy"},
    "spec": {
        "targetRef": {"group": "inference.networking.k8s.io", "kind": "InferencePool", "name": "vllm-llama3-8b-instruct"},
        "default": {"timeoutSec": 300, "logging": {"enabled": True}},
    },
}


def test_a_gcp_backend_policy_without_a_timeout_on_an_inference_pool():
    assert found([ROUTE, GCP_POLICY], S9) == []
    bare = copy.deepcopy(GCP_POLICY)
    del bare["spec"]["default"]["timeoutSec"]
    assert found([ROUTE, bare], S9) == [
        (
            "advisory",
            "spec.default.timeoutSec 30s (unset: GKE's default) on InferencePool vllm-llama3-8b-instruct (a model) cuts a "
            "response that takes longer; set it above the longest request",
        )
    ]


# GoogleCloudPlatform/kubernetes-engine-samples cost-optimization/gke-keda/ollama/keda-ollama-httpscaledobject.yaml
# (corpus manifests-v2, row 13, commit in PROVENANCE-v2.md): an HTTPScaledObject routing to Service ollama:11434 with
# no spec.timeouts, so the interceptor's response-header default applies (500 ms up to http-add-on v0.13.0).
OLLAMA_HSO = {
    "apiVersion": "http.keda.sh/v1alpha1",
    "kind": "HTTPScaledObject",
    "metadata": {"name": "ollama", "namespace": "ollama"},
    "spec": {
        "hosts": ["ollama.ollama"],
        "scaleTargetRef": {"name": "ollama", "kind": "Deployment", "apiVersion": "apps/v1", "service": "ollama", "port": 11434},
        "replicas": {"min": 0, "max": 2},
    },
}


def test_an_http_scaled_object_in_front_of_a_model_uses_the_interceptors_header_timeout():
    ((level, message),) = found([OLLAMA_HSO], S9)
    assert level == "advisory"
    assert message.startswith(
        "spec.timeouts.responseHeader unset (the interceptor's KEDA_HTTP_RESPONSE_HEADER_TIMEOUT: 500ms up to "
        "http-add-on v0.13.0, 300s from v0.14.0) in front of Service ollama, which this set does not hold"
    )
    short = copy.deepcopy(OLLAMA_HSO)
    short["spec"]["timeouts"] = {"responseHeader": "30s"}
    model = service("ollama", {"app": "tgi-server"}, 11434)
    ((_, message),) = found([short, TGI, model], S9)
    assert message.startswith("spec.timeouts.responseHeader 30s in front of an LLM (ollama): the interceptor answers 504")


def test_a_long_header_timeout_or_a_backend_that_is_no_model_is_silent():
    long = copy.deepcopy(OLLAMA_HSO)
    long["spec"]["timeouts"] = {"responseHeader": "600s"}
    assert found([long], S9) == []
    web = service("ollama", {"app": "web"}, 11434)
    assert found([OLLAMA_HSO, web], S9) == []


# GoogleCloudPlatform/kubernetes-engine-samples at 2b5036514162a489145c5e5570bc320efbcb37bf:
# ai-ml/gke-model-armor/configuring-the-gateway/llm-gateway.yaml (class gke-l7-regional-external-managed) and
# ai-ml/gke-ray/rayserve/ingress/gateway.yaml (gke-l7-global-external-managed): one listener, protocol HTTP, port 80.
def gateway(klass: str, listeners: list[dict]) -> dict:
    return {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "Gateway",
        "metadata": {"name": "llm-gateway", "namespace": "default"},
        "spec": {"gatewayClassName": klass, "listeners": listeners},
    }


HTTP_LISTENER = {"name": "http", "protocol": "HTTP", "port": 80}


PUBLIC = "public-model-endpoint-guarded"


def test_an_external_gke_gateway_with_only_http_listeners_is_read_by_the_generic_edge_rule():
    # A Gateway alone: what it publishes is in other files, so advice (session 24 review F11); the GKE Ingress rule
    # no longer reads Gateways.
    for klass in ("gke-l7-regional-external-managed", "gke-l7-global-external-managed"):
        assert found([gateway(klass, [HTTP_LISTENER])], G32) == []
        ((level, message),) = found([gateway(klass, [HTTP_LISTENER])], PUBLIC)
        assert level == "advisory"
        assert message == (
            f"Gateway default/llm-gateway (public: class {klass} is an external GKE Application Load Balancer) "
            "publishes backends in other files, which these files do not show (if it serves a model) with no TLS "
            "(prompts, answers and any key cross the network in clear text) and nothing in these files authenticates "
            "callers"
        )


def test_https_internal_and_other_gateways_are_silent():
    # The HTTPS listener GKE documents for an external Gateway (deploying-gateways: protocol HTTPS, port 443,
    # tls.certificateRefs), an internal class, and kaito-project/kaito
    # examples/gateway-api-inference-extension/gateway.yaml alone (corpus manifests-v2: class istio, no route).
    https = {"name": "https", "protocol": "HTTPS", "port": 443, "tls": {"certificateRefs": [{"name": "store-cert"}]}}
    ((level, message),) = found([gateway("gke-l7-global-external-managed", [https, HTTP_LISTENER])], PUBLIC)
    assert level == "advisory" and "no TLS" not in message  # TLS there; who may call is in other files
    assert found([gateway("gke-l7-rilb", [HTTP_LISTENER])], PUBLIC) == []
    assert found([gateway("istio", [HTTP_LISTENER])], G32) == []


# envoyproxy/ai-gateway at v1.1.0 (c217da8a539570ba3f6014a60c2687c29a945f1f): examples/inference-pool/aigwroute.yaml
# (rules to the vllm-llama3-8b-instruct and mistral InferencePools, no timeouts) and examples/aigw/ollama.yaml (a rule
# with timeouts.request 120s).
def ai_route(rules: list[dict]) -> dict:
    return {
        "apiVersion": "aigateway.envoyproxy.io/v1beta1",
        "kind": "AIGatewayRoute",
        "metadata": {"name": "inference-pool-with-aigwroute", "namespace": "default"},
        "spec": {"parentRefs": [{"name": "inference-pool-with-aigwroute", "kind": "Gateway"}], "rules": rules},
    }


def test_an_ai_gateway_route_left_at_its_60_second_default():
    pool = {"backendRefs": [{"group": "inference.networking.k8s.io", "kind": "InferencePool", "name": "vllm-llama3-8b-instruct"}]}
    assert found([ai_route([pool])], S9) == [
        (
            "advisory",
            "spec.rules[0]: timeouts.request 60s (unset: Envoy AI Gateway's default) on an AI Gateway route cuts "
            "generations that run longer; set it above the longest request",
        )
    ]
    careful = {"backendRefs": [{"name": "openai", "namespace": "default"}], "timeouts": {"request": "120s"}}
    assert found([ai_route([careful])], S9) == []


# GoogleCloudPlatform/kubernetes-engine-samples ai-ml/gke-ray/rayserve/ingress/{gateway,httproute}.yaml at
# 2b5036514162a489145c5e5570bc320efbcb37bf: an HTTPRoute with no timeouts from Gateway external-http
# (gke-l7-global-external-managed) to the Ray LLM head Service rayllm-head-svc:8000, which lives in another file.
RAY_GATEWAY = {**gateway("gke-l7-global-external-managed", [HTTP_LISTENER]), "metadata": {"name": "external-http"}}


def test_an_httproute_on_a_gke_gateway_to_a_service_outside_the_set():
    assert found([RAY_GATEWAY, RAY_ROUTE], S9) == [
        (
            "advisory",
            "spec.rules[0]: no timeouts.request on a route to Service rayllm-head-svc, which this set does not hold (if "
            "it serves a model): GKE's backend service timeout applies (30s unless a GCPBackendPolicy sets timeoutSec); "
            "set it above the longest request",
        )
    ]
    ((_, message),) = found([RAY_ROUTE], S9)
    assert message.endswith("the gateway's default applies (Envoy Gateway 15s, KServe 60s); set it above the longest request")


def test_a_gcp_backend_policy_timeout_or_a_known_non_model_backend_is_silent():
    policy = copy.deepcopy(GCP_POLICY)
    policy["spec"]["targetRef"] = {"group": "", "kind": "Service", "name": "rayllm-head-svc"}
    assert found([RAY_GATEWAY, RAY_ROUTE, policy], S9) == []
    web = service("rayllm-head-svc", {"app": "web"}, 8000)
    assert found([RAY_GATEWAY, RAY_ROUTE, web], S9) == []


# timeout-chain-ordered (S9, mandatory) with an explicit GKE / ingress-nginx timeout below the longest request.
VLLM_DRAINING = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm"},
    "spec": {
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.33.0",
                        "args": ["--model", "Qwen/Qwen3-8B", "--shutdown-timeout", "600"],
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                    }
                ]
            },
        },
    },
}


def test_an_explicit_gke_or_nginx_timeout_below_the_longest_request_blocks():
    # The GKE BackendConfig shape of munagekar/kubeflow-tf (above) with timeoutSec 300 instead of 3600; the
    # ingress-nginx form of geistlabs/Geist-Helm (above, proxy-read-timeout "300").
    config = copy.deepcopy(KUBEFLOW_BACKEND)
    config["metadata"] = {"name": "iap-backendconfig"}
    config["spec"]["timeoutSec"] = 300
    svc = service("vllm", {"app": "vllm"}, 8000, {"cloud.google.com/backend-config": '{"default": "iap-backendconfig"}'})
    gce = ingress("llm", "vllm", 8000, annotations={"kubernetes.io/ingress.class": "gce"})
    assert found([VLLM_DRAINING, svc, config, gce], "timeout-chain-ordered") == [
        (
            "mandatory",
            "serves requests up to 600s but Ingress llm (BackendConfig timeoutSec=300) cuts them at 300s",
        )
    ]
    config["spec"]["timeoutSec"] = 3600
    assert found([VLLM_DRAINING, svc, config, gce], "timeout-chain-ordered") == []
    nginx = ingress(
        "llm", "vllm", 8000, class_name="nginx", annotations={"nginx.ingress.kubernetes.io/proxy-read-timeout": "300"}
    )
    plain = service("vllm", {"app": "vllm"}, 8000)
    ((level, message),) = found([VLLM_DRAINING, plain, nginx], "timeout-chain-ordered")
    # nginx's read timeout runs between reads: a streamed reply is not cut (session 24 review F14), so advice.
    assert level == "advisory" and "(nginx.ingress.kubernetes.io/proxy-read-timeout=300) cuts them at 300s" in message
    assert message.endswith("(if replies are not streamed)")
    # Unset, the controller's ConfigMap may raise it: llm-route-timeout-not-default's (advisory), not this policy's.
    nginx["metadata"]["annotations"] = {}
    assert found([VLLM_DRAINING, plain, nginx], "timeout-chain-ordered") == []


def _gce_front(container: dict) -> list[dict]:
    server = copy.deepcopy(TGI)
    server["spec"]["template"]["spec"]["containers"] = [container]
    return [TGI_INGRESS, server, TGI_SERVICE]


def test_gkes_default_blocks_only_a_generation_longer_than_30_seconds():
    # Review 32 R2 (/work/review/s25/s9.yaml): GKE's 30 s bounds the whole response, which an embedding server (vLLM
    # --task embed, vllm v0.10.1 vllm/config.py TaskOption; --runner pooling from v0.10.2) answers well within: silent.
    gpu = {"limits": {"nvidia.com/gpu": 1}}
    embed = {
        "name": "vllm",
        "image": "vllm/vllm-openai:v0.10.1",
        "args": ["--model", "intfloat/e5-mistral-7b-instruct", "--task", "embed"],
        "resources": gpu,
    }
    assert found(_gce_front(embed), "timeout-chain-ordered") == []
    pooling = {**embed, "image": "vllm/vllm-openai:v0.11.0", "args": ["--model", "BAAI/bge-m3", "--runner=pooling"]}
    assert found(_gce_front(pooling), "timeout-chain-ordered") == []
    # A GPU image the engine table does not know (text-embeddings-inference): maybe an embedding server, advice.
    tei = {
        "name": "tei",
        "image": "ghcr.io/huggingface/text-embeddings-inference:1.5",
        "args": ["--model-id", "BAAI/bge-large-en-v1.5", "--port", "8080"],
        "resources": gpu,
    }
    ((level, message),) = found(_gce_front(tei), "timeout-chain-ordered")
    assert level == "advisory" and "if this server generates" in message
    # A generation server that states its longest request (--shutdown-timeout): within 30 s silent, above it blocks.
    chat = {**embed, "args": ["--model", "Qwen/Qwen2.5-7B-Instruct", "--shutdown-timeout", "20"]}
    assert found(_gce_front(chat), "timeout-chain-ordered") == []
    chat["args"] = ["--model", "Qwen/Qwen2.5-7B-Instruct", "--shutdown-timeout", "600"]
    ((level, message),) = found(_gce_front(chat), "timeout-chain-ordered")
    assert level == "mandatory" and "it states 600s as its longest request" in message


def test_gkes_default_behind_a_gke_gateway_with_a_gcp_backend_policy_blocks():
    # Review 32 R13 (/work/review/s25/gkegw.yaml): a gke-l7 Gateway, an HTTPRoute to the vLLM Service and a
    # GCPBackendPolicy of the set on that Service with IAP but no timeoutSec: GKE's 30 s is proven, as for a gce
    # Ingress whose Service names no BackendConfig (edge.py cites GKE's default).
    gw = {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "Gateway",
        "metadata": {"name": "gw"},
        "spec": {
            "gatewayClassName": "gke-l7-regional-external-managed",
            "listeners": [{"name": "http", "port": 80, "protocol": "HTTP"}],
        },
    }
    route = {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "HTTPRoute",
        "metadata": {"name": "llm"},
        "spec": {"parentRefs": [{"name": "gw"}], "rules": [{"backendRefs": [{"name": "tgi-service", "port": 8080}]}]},
    }
    policy = {
        "apiVersion": "networking.gke.io/v1",
        "kind": "GCPBackendPolicy",
        "metadata": {"name": "tgi"},
        "spec": {"default": {"iap": {"enabled": True}}, "targetRef": {"group": "", "kind": "Service", "name": "tgi-service"}},
    }
    ((level, message),) = found([gw, route, policy, TGI, TGI_SERVICE], "timeout-chain-ordered")
    assert level == "mandatory" and "GCPBackendPolicy tgi leaves timeoutSec at GKE's 30s" in message
    # timeoutSec set, or no GCPBackendPolicy of the set (one elsewhere may set it): not this rule's.
    long = copy.deepcopy(policy)
    long["spec"]["default"]["timeoutSec"] = 600
    assert found([gw, route, long, TGI, TGI_SERVICE], "timeout-chain-ordered") == []
    assert found([gw, route, TGI, TGI_SERVICE], "timeout-chain-ordered") == []
    # An embedding server behind it answers within 30 s: silent.
    embed = {
        "name": "vllm",
        "image": "vllm/vllm-openai:v0.10.1",
        "args": ["--model", "intfloat/e5-mistral-7b-instruct", "--task", "embed"],
        "resources": {"limits": {"nvidia.com/gpu": 1}},
    }
    objs = _gce_front(embed)[1:]
    assert found([gw, route, policy, *objs], "timeout-chain-ordered") == []
