"""G68 route-backend-resolves and G69 reference-resolves: one table of references (policies/reading/references.py),
read by one checker.

Minimal hand-written shapes of the cited third-party files (only the fields the rules read). Where a citation says
"with only these files read", the target is defined in a file of the repository that the run leaves out: the finding
is advice there, and the careful form beside it reads that file too and stays silent.
"""

from __future__ import annotations

import copy

import pytest
import yaml
from policy_fixtures import found_by

from policies import catalog
from policies.reading import references
from policies.reading.references import ROWS, Row

ROUTES = "route-backend-resolves"
REFS = "reference-resolves"


def _service(name: str, namespace: str | None, *ports: dict) -> dict:
    meta = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {"apiVersion": "v1", "kind": "Service", "metadata": meta, "spec": {"selector": {"app": name}, "ports": list(ports)}}


def _deployment(name: str, namespace: str | None, **podspec) -> dict:
    meta = {"name": name, **({"namespace": namespace} if namespace else {})}
    pod = {"containers": [{"name": name, "image": f"{name}:1.0"}], **podspec}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": meta,
        "spec": {"selector": {"matchLabels": {"app": name}}, "template": {"metadata": {"labels": {"app": name}}, "spec": pod}},
    }


# Spent set 40: akshaymittal143/LLM-Kubernetes at 1517fea90a1be2d347f3f48d768efc3050cc9a47,
# kubernetes/optimized/service-mesh.yaml (VirtualService llm-optimized-vs routes to llm-optimized-service port 8000)
# and kubernetes/optimized/deployment.yaml (Service llm-optimized-service: port 80, targetPort 8000). Labelled there
# blocking with no catalogue row: Envoy has no llm-optimized-service:8000 cluster and answers 503.
AKSHAY = [
    {
        "apiVersion": "networking.istio.io/v1beta1",
        "kind": "VirtualService",
        "metadata": {"name": "llm-optimized-vs"},
        "spec": {
            "hosts": ["llm-optimized-service"],
            "gateways": ["llm-gateway"],
            "http": [{"route": [{"destination": {"host": "llm-optimized-service", "port": {"number": 8000}}}]}],
        },
    },
    _deployment("llm-optimized", None),
    _service("llm-optimized-service", None, {"protocol": "TCP", "port": 80, "targetPort": 8000}),
]


def test_a_virtual_service_to_a_port_the_service_lacks_blocks():
    [(level, message)] = found_by(AKSHAY, ROUTES)
    assert level == "mandatory"
    assert message == (
        "spec.http[0].route[0].destination: route destination asks Service llm-optimized-service (namespace default) "
        "for port 8000, which it does not offer (its spec.ports: 80): Envoy has no cluster for that host and port and "
        "answers 503; name one of its ports, or add 8000 to the Service"
    )


def test_careful_virtual_services_stay_silent():
    fixed = copy.deepcopy(AKSHAY)
    fixed[0]["spec"]["http"][0]["route"][0]["destination"]["port"]["number"] = 80
    assert found_by(fixed, ROUTES) == []
    # No port: Istio takes the Service's only port.
    bare = copy.deepcopy(AKSHAY)
    del bare[0]["spec"]["http"][0]["route"][0]["destination"]["port"]
    assert found_by(bare, ROUTES) == []
    # A host outside the cluster (a ServiceEntry's) or in a namespace the run does not hold is not judged.
    outside = copy.deepcopy(AKSHAY)
    outside[0]["spec"]["http"][0]["route"][0]["destination"]["host"] = "api.openai.com"
    assert found_by(outside, ROUTES) == []
    elsewhere = copy.deepcopy(AKSHAY)
    elsewhere[0]["spec"]["http"][0]["route"][0]["destination"]["host"] = "llm.serving.svc.cluster.local"
    assert found_by(elsewhere, ROUTES) == []


def test_a_fully_qualified_host_is_read_in_its_namespace():
    qualified = copy.deepcopy(AKSHAY)
    qualified[0]["metadata"]["namespace"] = "istio-system"
    qualified[2]["metadata"]["namespace"] = "llm"
    destination = qualified[0]["spec"]["http"][0]["route"][0]["destination"]
    destination["host"] = "llm-optimized-service.llm.svc.cluster.local"
    [(level, message)] = found_by(qualified, ROUTES)
    assert level == "mandatory" and "(namespace llm) for port 8000" in message
    destination["port"]["number"] = 80
    assert found_by(qualified, ROUTES) == []


def test_a_misspelt_or_unknown_destination_is_advice():
    typo = copy.deepcopy(AKSHAY)
    typo[0]["spec"]["http"][0]["route"][0]["destination"] = {"host": "llm-optimised-service", "port": {"number": 80}}
    [(level, message)] = found_by(typo, ROUTES)
    assert level == "advisory"
    assert message.endswith("unless that Service comes from elsewhere, use llm-optimized-service")
    assert "names Service llm-optimised-service, which none of the files read defines in namespace default" in message
    other = copy.deepcopy(AKSHAY)
    other[0]["spec"]["http"][0]["route"][0]["destination"] = {"host": "gateway", "port": {"number": 80}}
    [(level, message)] = found_by(other, ROUTES)
    assert level == "advisory"
    assert message.endswith("unless that Service comes from elsewhere, name one the files define")


def test_a_sibling_name_is_advice_not_a_typo():
    """Review 44 #2: llama-v2 beside llama-v1 (a canary), qwen-8b beside qwen-7b (another size), model-b beside model-a
    are one edit apart but name a series: the other sibling may come from another folder or stage, so advice."""
    for defined, asked in (("llama-v1", "llama-v2"), ("qwen-7b", "qwen-8b"), ("model-a", "model-b")):
        run = copy.deepcopy(AKSHAY)
        run[2] = _service(defined, None, {"port": 80, "targetPort": 8000})
        run[0]["spec"]["http"][0]["route"][0]["destination"] = {"host": asked, "port": {"number": 80}}
        [(level, message)] = found_by(run, ROUTES)
        assert level == "advisory", (defined, asked)
        assert message.endswith(f"use {defined}")


# Spent set 40: k8s-llm/k8s-llm-hosting at 3a134d7c4a42d6064d93581c8d2676a6a0d5f52c, routing/routes.yaml (HTTPRoute
# qwen3 in namespace traefik, backendRef Service ollama-qwen3-ro in namespace default, port 11434) and
# models/ollama/services.yaml (ollama-qwen3-ro: port 11434): the careful cross-namespace form.
HOSTING = [
    {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "HTTPRoute",
        "metadata": {"name": "qwen3", "namespace": "traefik"},
        "spec": {
            "parentRefs": [{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "weight-gateway"}],
            "rules": [
                {
                    "backendRefs": [
                        {"group": "", "kind": "Service", "name": "ollama-qwen3-ro", "namespace": "default", "port": 11434}
                    ]
                }
            ],
        },
    },
    _service("ollama-qwen3-ro", None, {"port": 11434, "protocol": "TCP", "targetPort": 11434}),
]


def test_a_backend_ref_into_another_namespace_is_read_there():
    assert found_by(HOSTING, ROUTES) == []
    # The same route on the server's container port behind a Service on 80: invalid, its requests get 500.
    moved = copy.deepcopy(HOSTING)
    moved[1]["spec"]["ports"] = [{"name": "http", "port": 80, "targetPort": 11434}]
    [(level, message)] = found_by(moved, ROUTES)
    assert level == "mandatory"
    assert message == (
        "spec.rules[0].backendRefs[0]: backendRef asks Service ollama-qwen3-ro (namespace default) for port 11434, "
        "which it does not offer (its spec.ports: 80 (http)): the backend is invalid and the requests it would take get "
        "500; name one of its ports, or add 11434 to the Service"
    )
    # A backendRef to another kind (an InferencePool) is not a Service reference.
    pool = copy.deepcopy(moved)
    pool[0]["spec"]["rules"][0]["backendRefs"][0].update(group="inference.networking.k8s.io", kind="InferencePool")
    assert found_by(pool, ROUTES) == []


# Spent set 34: Jneville0815/llama-k8s-platform at a26e4776531d93385f82c074b6ecc4a6dd4e4177,
# infrastructure/kubernetes/manifests/ingress/main-ingress.yaml (ingress-nginx, backends llama-api-backend:8080 and
# llama-react-frontend:80 in llama-platform) with only model-server/model-server-deployment.yaml beside it (Service
# llama-model-server: 8000): the run holds that namespace's Services and neither backend is among them (advice).
MAIN_INGRESS = {
    "apiVersion": "networking.k8s.io/v1",
    "kind": "Ingress",
    "metadata": {"name": "main-ingress", "namespace": "llama-platform"},
    "spec": {
        "ingressClassName": "nginx",
        "rules": [
            {
                "host": "chat.jimmyneville.com",
                "http": {
                    "paths": [
                        {
                            "path": "/api/(.*)",
                            "pathType": "ImplementationSpecific",
                            "backend": {"service": {"name": "llama-api-backend", "port": {"number": 8080}}},
                        },
                        {
                            "path": "/(.*)",
                            "pathType": "ImplementationSpecific",
                            "backend": {"service": {"name": "llama-react-frontend", "port": {"number": 80}}},
                        },
                    ]
                },
            }
        ],
    },
}
MODEL_SERVER = _service("llama-model-server", "llama-platform", {"port": 8000, "targetPort": 8000})


def test_ingress_backends_the_namespace_lacks_are_advice():
    found = found_by([MAIN_INGRESS, MODEL_SERVER], ROUTES)
    assert [level for level, _ in found] == ["advisory", "advisory"]
    assert found[0][1].startswith(
        "spec.rules[0].http.paths[0].backend: backend names Service llama-api-backend, which none of the files read "
        "defines in namespace llama-platform (they define Service llama-model-server there): the controller has no "
        "endpoint for the backend and answers 503; "
    )


def test_careful_ingress_backends_stay_silent():
    backends = [
        _service("llama-api-backend", "llama-platform", {"name": "http", "port": 80, "targetPort": 8080}),
        _service("llama-react-frontend", "llama-platform", {"port": 80, "targetPort": 3000}),
    ]
    # ingress-nginx takes the Service's targetPort (8080) as well as its port (controller.go:1233-1248).
    assert found_by([MAIN_INGRESS, MODEL_SERVER, *backends], ROUTES) == []
    by_name = copy.deepcopy(MAIN_INGRESS)
    by_name["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]["port"] = {"name": "http"}
    assert found_by([by_name, MODEL_SERVER, *backends], ROUTES) == []
    wrong = copy.deepcopy(MAIN_INGRESS)
    wrong["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]["port"] = {"number": 9000}
    [(level, message)] = found_by([wrong, MODEL_SERVER, *backends], ROUTES)
    assert level == "mandatory" and "for port 9000, which it does not offer (its spec.ports: 80 (http))" in message
    assert found_by([MAIN_INGRESS], ROUTES) == []  # no Service of the namespace in the run


# Spent set 37: yhxuyou/GLM-OCR at 12bc06631b97497914b4d9a745b38015173a828c, deploy/k8s/hpa.yaml (HPA
# glmocr-backend-hpa, scaleTargetRef Deployment glmocr-backend in glm-ocr) with deploy/k8s/vllm-deployment.yaml
# (Deployment vllm-server) and without deploy/k8s/backend-deployment.yaml, which defines glmocr-backend.
HPA = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "glmocr-backend-hpa", "namespace": "glm-ocr"},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "glmocr-backend"},
        "minReplicas": 1,
        "maxReplicas": 4,
        "metrics": [
            {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}}}
        ],
    },
}


def test_a_scale_target_the_namespace_lacks_is_advice():
    [(level, message)] = found_by([HPA, _deployment("vllm-server", "glm-ocr")], REFS)
    assert level == "advisory"
    assert message.startswith(
        "spec.scaleTargetRef: scaleTargetRef names Deployment glmocr-backend, which none of the files read defines in "
        "namespace glm-ocr (they define Deployment vllm-server there): the autoscaler finds nothing to scale"
    )
    # The careful form: the target defined in another file of the folder (backend-deployment.yaml).
    assert found_by([HPA, _deployment("vllm-server", "glm-ocr"), _deployment("glmocr-backend", "glm-ocr")], REFS) == []
    # A StatefulSet target is looked up among StatefulSets (the run defines none: not judged).
    stateful = copy.deepcopy(HPA)
    stateful["spec"]["scaleTargetRef"]["kind"] = "StatefulSet"
    assert found_by([stateful, _deployment("vllm-server", "glm-ocr")], REFS) == []


# Spent set 32: eliran89c/self-hosted-llm-on-eks at 87198d8afa9d40b3ae929ff5458e504b03a8a658,
# karpenter/karpenter-default-nodepool.yaml (NodePool default, nodeClassRef EC2NodeClass default) with
# karpenter/karpenter-gpu-nodeclass.yaml (EC2NodeClass nvidia-gpu) and without karpenter/karpenter-default-nodeclass.yaml.
NODEPOOL = {
    "apiVersion": "karpenter.sh/v1",
    "kind": "NodePool",
    "metadata": {"name": "default"},
    "spec": {
        "template": {
            "spec": {
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                "requirements": [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]}],
            }
        }
    },
}


def _nodeclass(name: str) -> dict:
    return {
        "apiVersion": "karpenter.k8s.aws/v1",
        "kind": "EC2NodeClass",
        "metadata": {"name": name},
        "spec": {"amiSelectorTerms": [{"alias": "al2023@latest"}], "role": "KarpenterNodeRole"},
    }


def test_a_node_class_the_run_lacks_is_advice():
    [(level, message)] = found_by([NODEPOOL, _nodeclass("nvidia-gpu")], REFS)
    assert level == "advisory"
    assert message.startswith(
        "spec.template.spec.nodeClassRef: nodeClassRef names EC2NodeClass default, which none of the files read defines "
        "among the cluster-scoped objects (they define EC2NodeClass nvidia-gpu there): the NodePool is not ready"
    )
    assert found_by([NODEPOOL, _nodeclass("nvidia-gpu"), _nodeclass("default")], REFS) == []
    # EKS Auto Mode's built-in NodeClass is another kind: not read against EC2NodeClasses.
    auto = copy.deepcopy(NODEPOOL)
    auto["spec"]["template"]["spec"]["nodeClassRef"] = {"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "default"}
    assert found_by([auto, _nodeclass("nvidia-gpu")], REFS) == []


# The NodePool of spent set 32 (above) beside a node class of the same name written in Karpenter's pre-v0.33 form, an
# AWSNodeTemplate (karpenter.k8s.aws/v1alpha1; its CRD is gone from v0.33.0, G40), or as EKS Auto Mode's NodeClass:
# Karpenter resolves nodeClassRef by group and kind, so neither is the EC2NodeClass the NodePool names.
LEGACY_TEMPLATE = {
    "apiVersion": "karpenter.k8s.aws/v1alpha1",
    "kind": "AWSNodeTemplate",
    "metadata": {"name": "default"},
    "spec": {"subnetSelector": {"karpenter.sh/discovery": "llm"}, "securityGroupSelector": {"karpenter.sh/discovery": "llm"}},
}


def test_a_node_class_written_as_another_kind_is_advice():
    [(level, message)] = found_by([NODEPOOL, LEGACY_TEMPLATE], REFS)
    assert (level, message) == (
        "advisory",
        "spec.template.spec.nodeClassRef: nodeClassRef names EC2NodeClass default (karpenter.k8s.aws), and the files read "
        "define default only as an AWSNodeTemplate (karpenter.k8s.aws/v1alpha1), which is not an EC2NodeClass: the "
        "controller looks the reference up by its group and kind, so the NodePool is not ready and launches no node; "
        "unless an EC2NodeClass default comes from elsewhere, write default as an EC2NodeClass (or make the reference "
        "name the kind and group the files define)",
    )
    auto_class = {"apiVersion": "eks.amazonaws.com/v1", "kind": "NodeClass", "metadata": {"name": "default"}, "spec": {}}
    [(level, _)] = found_by([NODEPOOL, auto_class], REFS)
    assert level == "advisory"
    # Silent: the EC2NodeClass is defined too; the reference names the Auto Mode kind it means; a Helm template.
    assert found_by([NODEPOOL, LEGACY_TEMPLATE, _nodeclass("default")], REFS) == []
    auto = copy.deepcopy(NODEPOOL)
    auto["spec"]["template"]["spec"]["nodeClassRef"] = {"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "default"}
    assert found_by([auto, auto_class], REFS) == []
    assert found_by([NODEPOOL, {**LEGACY_TEMPLATE, "metadata": {"name": "gpu"}}], REFS) == []


# Spent set 15: bogdancstrike/k8s-llm-slm-hami platform/kserve/vllm-servingruntime.yaml (ClusterServingRuntime
# vllm-runtime): an InferenceService naming it, or a KServe built-in runtime, resolves; a misspelt one does not.
RUNTIME = {
    "apiVersion": "serving.kserve.io/v1alpha1",
    "kind": "ClusterServingRuntime",
    "metadata": {"name": "vllm-runtime"},
    "spec": {
        "supportedModelFormats": [{"name": "vLLM", "autoSelect": True}],
        "containers": [{"name": "kserve-container", "image": "vllm/vllm-openai:v0.8.5"}],
    },
}


def _isvc(runtime: str) -> dict:
    return {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "qwen", "namespace": "llm"},
        "spec": {
            "predictor": {"model": {"modelFormat": {"name": "vLLM"}, "runtime": runtime, "storageUri": "hf://Qwen/Qwen2.5-0.5B"}}
        },
    }


def test_a_kserve_runtime_the_run_lacks_is_advice():
    [(level, message)] = found_by([_isvc("vllm-runtme"), RUNTIME], REFS)
    assert level == "advisory"
    assert (
        "runtime names ServingRuntime vllm-runtme, which none of the files read defines in namespace llm (they define " in message
    )
    assert message.endswith("use vllm-runtime")
    assert found_by([_isvc("vllm-runtime"), RUNTIME], REFS) == []
    assert found_by([_isvc("kserve-huggingfaceserver"), RUNTIME], REFS) == []  # built into KServe
    # Every runtime KServe's chart installs (components/kserve_runtimes.toml [[supports]]), not only the LLM ones.
    assert found_by([_isvc("kserve-tritonserver"), RUNTIME], REFS) == []


def test_a_config_map_the_namespace_lacks_is_advice_unless_optional():
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "chat-template", "namespace": "llm"}, "data": {"t": "x"}}
    volumes = [{"name": "template", "configMap": {"name": "chat-templates"}}]
    pod = _deployment("vllm", "llm", volumes=volumes)
    [(level, message)] = found_by([pod, cm], REFS)
    assert level == "advisory"
    assert message.startswith("spec.template.spec.volumes[0].configMap: ConfigMap volume names ConfigMap chat-templates")
    assert message.endswith("use chat-template")
    optional = _deployment("vllm", "llm", volumes=[{"name": "t", "configMap": {"name": "chat-templates", "optional": True}}])
    assert found_by([optional, cm], REFS) == []
    env = _deployment("vllm", "llm")
    env["spec"]["template"]["spec"]["containers"][0]["envFrom"] = [{"configMapRef": {"name": "chat-template"}}]
    assert found_by([env, cm], REFS) == []
    assert found_by([pod], REFS) == []  # the run defines no ConfigMap in llm


def test_every_row_is_reported_by_a_rule_of_the_catalogue():
    for row in ROWS:
        assert row.family in ("G68", "G69") and catalog.is_id(row.family)
        assert row.fails and row.at and row.name
        assert not row.port or row.port_fails


def test_a_new_reference_kind_is_one_row(monkeypatch):
    # An Istio DestinationRule's host (a Service, as a VirtualService destination names it): not a row of the table
    # (a rule for a missing host applies to nothing, it breaks nothing), added here to show one row is enough.
    row = Row(
        family="G69",
        what="DestinationRule host",
        sources=(("networking.istio.io", "DestinationRule"),),
        at=("spec",),
        name="host",
        host=True,
        fails="the rule applies to no Service",
    )
    rule = {"apiVersion": "networking.istio.io/v1beta1", "kind": "DestinationRule", "metadata": {"name": "llm-optimized-dr"}}
    rule["spec"] = {"host": "llm-optimised-service", "trafficPolicy": {"loadBalancer": {"simple": "LEAST_CONN"}}}
    assert found_by([rule, *AKSHAY[1:]], REFS) == []
    monkeypatch.setattr(references, "ROWS", (*ROWS, row))
    [(level, message)] = found_by([rule, *AKSHAY[1:]], REFS)
    assert level == "advisory"
    assert message.startswith("spec: DestinationRule host names Service llm-optimised-service, which none of the files")


# kubernetes-sigs/gateway-api-inference-extension at v1.6.0 (992e5c292afb248801ce8d9234eb5b9d28eea231), conformance:
# resources/base.yaml defines InferencePool primary-inference-pool (endpointPickerRef primary-endpoint-picker-svc port
# 9002), that Service (port 9002) and Gateway conformance-primary in inference-conformance-infra;
# tests/inferencepool_invalid_epp_service.yaml names EPP Service non-existent-epp-svc (the test expects ResolvedRefs
# False and 5xx: inferencepool_invalid_epp_service.go:64-84) and tests/httproute_invalid_inferencepool_ref.yaml routes
# to InferencePool non-existent-inference-pool (expects ResolvedRefs False, BackendNotFound: .go:53-64).
_BACKEND = "inference-conformance-app-backend"


def _pool(name: str, epp: str, port: int) -> dict:
    return {
        "apiVersion": "inference.networking.k8s.io/v1",
        "kind": "InferencePool",
        "metadata": {"name": name, "namespace": _BACKEND},
        "spec": {
            "selector": {"matchLabels": {"app": "primary-inference-model-server"}},
            "targetPorts": [{"number": 3000}],
            "endpointPickerRef": {"name": epp, "port": {"number": port}},
        },
    }


def _route(name: str, pool: str) -> dict:
    return {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "HTTPRoute",
        "metadata": {"name": name, "namespace": _BACKEND},
        "spec": {
            "parentRefs": [
                {
                    "group": "gateway.networking.k8s.io",
                    "kind": "Gateway",
                    "name": "conformance-primary",
                    "namespace": "inference-conformance-infra",
                }
            ],
            "rules": [{"backendRefs": [{"group": "inference.networking.k8s.io", "kind": "InferencePool", "name": pool}]}],
        },
    }


CONFORMANCE = [
    _pool("primary-inference-pool", "primary-endpoint-picker-svc", 9002),
    _service("primary-endpoint-picker-svc", _BACKEND, {"protocol": "TCP", "port": 9002, "targetPort": 9002}),
    {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "Gateway",
        "metadata": {"name": "conformance-primary", "namespace": "inference-conformance-infra"},
        "spec": {"gatewayClassName": "gateway-conformance", "listeners": [{"name": "http", "port": 80, "protocol": "HTTP"}]},
    },
    _route("httproute-for-primary", "primary-inference-pool"),
]


def test_the_conformance_base_stays_silent():
    assert found_by(CONFORMANCE, ROUTES) == []
    assert found_by(CONFORMANCE, REFS) == []


def test_an_inference_pool_naming_no_endpoint_picker_service():
    invalid = _pool("pool-with-invalid-epp", "non-existent-epp-svc", 9002)
    invalid["spec"]["endpointPickerRef"]["kind"] = "Service"
    [(level, message)] = found_by([*CONFORMANCE, invalid], ROUTES)
    assert level == "advisory"
    assert message.startswith(
        "spec.endpointPickerRef: endpointPickerRef names Service non-existent-epp-svc, which none of the files read "
        "defines in namespace inference-conformance-app-backend (they define Service primary-endpoint-picker-svc there)"
    )
    # The picker's target port (a common slip) instead of its Service port.
    moved = copy.deepcopy(CONFORMANCE)
    moved[1]["spec"]["ports"] = [{"name": "grpc", "port": 9002, "targetPort": 9003}]
    moved[0]["spec"]["endpointPickerRef"]["port"]["number"] = 9003
    [(level, message)] = found_by(moved, ROUTES)
    assert level == "mandatory" and "for port 9003, which it does not offer (its spec.ports: 9002 (grpc))" in message


def test_a_route_to_an_inference_pool_the_namespace_lacks():
    [(level, message)] = found_by([*CONFORMANCE, _route("httproute-to-non-existent-pool", "non-existent-inference-pool")], ROUTES)
    assert level == "advisory"
    assert "backendRef names InferencePool non-existent-inference-pool, which none of the files read defines" in message


def test_a_route_whose_gateway_the_run_lacks():
    route = _route("httproute-for-primary", "primary-inference-pool")
    route["spec"]["parentRefs"][0]["name"] = "conformance-primay"
    [(level, message)] = found_by([*CONFORMANCE[:3], route], REFS)
    assert level == "advisory"
    assert message.startswith("spec.parentRefs[0]: parentRef names Gateway conformance-primay, which none of the files")
    assert message.endswith("use conformance-primary")
    # Without a namespace the parentRef is the route's own namespace, where the run defines no Gateway: not judged.
    del route["spec"]["parentRefs"][0]["namespace"]
    assert found_by([*CONFORMANCE[:3], route], REFS) == []


def test_pod_scalar_references():
    account = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "vllm-sa", "namespace": "llm"}}
    priority = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "llm-serving"}, "value": 1000}
    pod = _deployment("vllm", "llm", serviceAccountName="vllm-serviceaccount", priorityClassName="llm-serving-high")
    found = sorted(m for _, m in found_by([pod, account, priority], REFS))
    assert [m.split(":")[0] for m in found] == ["spec.template.spec", "spec.template.spec"]
    assert "priorityClassName names PriorityClass llm-serving-high, which none of the files read defines among" in found[0]
    assert "serviceAccountName names ServiceAccount vllm-serviceaccount, which none of the files read" in found[1]
    careful = _deployment("vllm", "llm", serviceAccountName="vllm-sa", priorityClassName="system-cluster-critical")
    assert found_by([careful, account, priority], REFS) == []
    assert found_by([_deployment("vllm", "llm", serviceAccountName="default"), account], REFS) == []


@pytest.mark.parametrize("kind", ["RayService", "InferenceService"])
def test_an_operator_in_the_namespace_hides_its_services(kind):
    operator = {
        "apiVersion": "ray.io/v1" if kind == "RayService" else "serving.kserve.io/v1beta1",
        "kind": kind,
        "metadata": {"name": "llm"},
        "spec": {},
    }
    ingress = copy.deepcopy(MAIN_INGRESS)
    del ingress["metadata"]["namespace"]
    found = found_by([ingress, _service("other", None, {"port": 80}), operator], ROUTES)
    # KServe makes Services the files do not show; KubeRay's (llm-head-svc, llm-serve-svc) are counted as defined.
    assert len(found) == (0 if kind == "InferenceService" else 2)


def test_a_kustomization_may_generate_the_config_map(tmp_path):
    from policies.check import load_resources, manifest_files
    from policies.registry import evaluate

    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "vllm-env", "namespace": "llm"}, "data": {"a": "b"}}
    pod = _deployment("vllm", "llm", volumes=[{"name": "t", "configMap": {"name": "chat-template"}}])
    (tmp_path / "deploy.yaml").write_text(yaml.safe_dump_all([pod, cm]))

    def found() -> list[str]:
        resources = load_resources(manifest_files([str(tmp_path)]))
        return [v.message for v in evaluate(resources) if v.policy == REFS]

    assert [m.split(":")[0] for m in found()] == ["spec.template.spec.volumes[0].configMap"]
    # configMapGenerator makes chat-template (with a hash suffix kustomize writes into the pod): not judged.
    (tmp_path / "kustomization.yaml").write_text(
        "resources: [deploy.yaml]\nconfigMapGenerator:\n- name: chat-template\n  files: [template.jinja]\n"
    )
    assert found() == []


def test_a_port_a_kustomization_may_patch_is_advice(tmp_path):
    """Review 44 #13: a kustomization.yaml that patches the Service's port inline (a JSON6902 patch under `patches:`)
    is no patch object of the run, so the base Service's ports are not what is applied: the port finding is advice.
    Without the kustomization the same files block."""
    (tmp_path / "service.yaml").write_text(
        yaml.safe_dump(_service("vllm", None, {"name": "http", "port": 80, "targetPort": 8080}))
    )
    ingress = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": "vllm"},
        "spec": {
            "ingressClassName": "alb",
            "rules": [
                {
                    "http": {
                        "paths": [
                            {
                                "path": "/",
                                "pathType": "Prefix",
                                "backend": {"service": {"name": "vllm", "port": {"number": 8000}}},
                            }
                        ]
                    }
                }
            ],
        },
    }
    (tmp_path / "ingress.yaml").write_text(yaml.safe_dump(ingress))
    assert [v.enforcement for v in _check_folder(tmp_path) if v.policy == ROUTES] == ["mandatory"]
    patch = "- op: replace\n  path: /spec/ports/0/port\n  value: 8000\n"
    kustomization = {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "resources": ["service.yaml", "ingress.yaml"],
        "patches": [{"target": {"kind": "Service", "name": "vllm"}, "patch": patch}],
    }
    (tmp_path / "kustomization.yaml").write_text(yaml.safe_dump(kustomization))
    assert [v.enforcement for v in _check_folder(tmp_path) if v.policy == ROUTES] == ["advisory"]


def _check_folder(path) -> list:
    from policies.check import load_resources, manifest_files
    from policies.registry import evaluate

    return evaluate(load_resources(manifest_files([str(path)])))


# Fresh set 55 (labelled G69 advisory): linsun/gen-al-demo policy/authz-host-ollama.yaml, an Istio AuthorizationPolicy
# whose targetRefs names ServiceEntry host-ollama while policy/se-ollama.yaml defines external-ollama in istio-egress.
# A second form: a RequestAuthentication whose targetRef (singular) names a Service its namespace lacks.
def _service_entry(name: str) -> dict:
    return {
        "apiVersion": "networking.istio.io/v1",
        "kind": "ServiceEntry",
        "metadata": {"name": name, "namespace": "istio-egress"},
        "spec": {"hosts": ["host.docker.internal"], "ports": [{"number": 11434, "name": "http", "protocol": "HTTP"}]},
    }


AUTHZ = {
    "apiVersion": "security.istio.io/v1",
    "kind": "AuthorizationPolicy",
    "metadata": {"name": "openai", "namespace": "istio-egress"},
    "spec": {
        "targetRefs": [{"kind": "ServiceEntry", "group": "networking.istio.io", "name": "host-ollama"}],
        "action": "ALLOW",
        "rules": [{"from": [{"source": {"namespaces": ["default"]}}]}],
    },
}


def test_an_istio_policy_attached_to_an_object_the_run_lacks_is_advice():
    [(level, message)] = found_by([AUTHZ, _service_entry("external-ollama")], REFS)
    assert level == "advisory" and "names ServiceEntry host-ollama" in message and "external-ollama" in message
    jwt = {
        "apiVersion": "security.istio.io/v1",
        "kind": "RequestAuthentication",
        "metadata": {"name": "jwt", "namespace": "llm"},
        "spec": {"targetRef": {"kind": "Service", "name": "vllm-gateway"}, "jwtRules": [{"issuer": "https://id"}]},
    }
    [(level, message)] = found_by([jwt, _service("vllm", "llm", {"port": 8000})], REFS)
    assert level == "advisory" and "names Service vllm-gateway" in message


def test_istio_policies_attached_to_what_the_run_defines_or_does_not_show_stay_silent():
    assert found_by([AUTHZ, _service_entry("host-ollama")], REFS) == []
    # No ServiceEntry of that namespace in the files: the target may be defined elsewhere.
    assert found_by([AUTHZ], REFS) == []
    # A selector policy names no object.
    by_selector = copy.deepcopy(AUTHZ)
    by_selector["spec"] = {"selector": {"matchLabels": {"app": "ollama"}}, "action": "ALLOW", "rules": [{}]}
    assert found_by([by_selector, _service_entry("external-ollama")], REFS) == []


# A namespaced reference whose target the run defines only in another namespace: the lookup is in the source's
# namespace alone (ConfigMap: https://kubernetes.io/docs/concepts/configuration/configmap/#configmap-object, "must
# exist in the same namespace as the Pod"; an HPA's scaleTargetRef: its own namespace). The shape of set 39's
# bnice00/k3s-vLLM-Streamlit-inference-stack- manifests/streamlit.yaml@ae2ba97 (G60 reads its Secret) with a ConfigMap.
def _config_map(name: str, namespace: str | None) -> dict:
    meta = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"MODEL": "qwen"}}


def _ui(namespace: str | None) -> dict:
    env_from = [{"configMapRef": {"name": "gateway-config"}}]
    return _deployment("streamlit", namespace, containers=[{"name": "ui", "image": "ui:1.0", "envFrom": env_from}])


def test_a_target_only_in_another_stated_namespace_is_advice():
    [(level, message)] = found_by([_ui("vllm-rocm"), _config_map("gateway-config", "hermes-lair")], REFS)
    assert (level, message) == (
        "advisory",
        "spec.template.spec.containers[0].envFrom[0].configMapRef: ConfigMap reference names ConfigMap gateway-config in "
        "namespace vllm-rocm, and the files read define gateway-config only in namespace hermes-lair: the lookup is in "
        "vllm-rocm alone, so the container does not start (CreateContainerConfigError: configmap not found); unless "
        "vllm-rocm/gateway-config is created another way, put both in one namespace",
    )
    hpa = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "vllm", "namespace": "default"},
        "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "vllm"}, "maxReplicas": 2},
    }
    [(level, message)] = found_by([hpa, _deployment("vllm", "llm")], REFS)
    assert level == "advisory" and "define vllm only in namespace llm" in message


def test_a_target_in_both_namespaces_or_a_side_stating_none_is_silent():
    both = [_ui("vllm-rocm"), _config_map("gateway-config", "hermes-lair"), _config_map("gateway-config", "vllm-rocm")]
    assert found_by(both, REFS) == []
    assert found_by([_ui(None), _config_map("gateway-config", "hermes-lair")], REFS) == []
    assert found_by([_ui("vllm-rocm"), _config_map("gateway-config", None)], REFS) == []
