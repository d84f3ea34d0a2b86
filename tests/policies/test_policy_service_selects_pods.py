"""G56 service-selects-pods: a Service whose selector matches no pod template of its run has no endpoints.

Fixture: set 29, KaveeshKhattar/inference-router k8s/vllm-service.yaml, k8s/vllm-headless.yaml and
k8s/vllm-deployment.yaml @3fb97cdea8e4a248930b8ea9f8235651c29d39b3: the NodePort Service vllm-sim-service selects
app=vllm-sim; the simulator's pods are labelled app=vllm (the headless Service beside it selects app=vllm and is
silent). Across spent sets 13-25 (173 repositories, each checked on its own) the rule finds nothing else.
Silent forms: the headless Service; a Service for pods no file of its directory defines; a namespace holding an
operator's custom resource (KServe InferenceService, whose controller labels the predictor pods); a selector on a
controller-added label (statefulset.kubernetes.io/pod-name); a Helm template.
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by, manifest

from policies.registry import evaluate

_DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm", "labels": {"app": "vllm"}},
    "spec": {
        "replicas": 2,
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {
                "containers": [
                    {
                        "name": "simulator",
                        "image": "ghcr.io/llm-d/llm-d-inference-sim:v0.8.0",
                        "args": ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--port", "8000"],
                        "ports": [{"containerPort": 8000, "name": "http"}],
                    }
                ]
            },
        },
    },
}
_ROUTER = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "inference-router"},
    "spec": {
        "selector": {"matchLabels": {"app": "inference-router"}},
        "template": {
            "metadata": {"labels": {"app": "inference-router"}},
            "spec": {"containers": [{"name": "router", "image": "inference-router:latest", "ports": [{"containerPort": 8080}]}]},
        },
    },
}
_NODEPORT = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "vllm-sim-service"},
    "spec": {"type": "NodePort", "selector": {"app": "vllm-sim"}, "ports": [{"protocol": "TCP", "port": 80, "targetPort": 8000}]},
}
_HEADLESS = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "vllm-headless", "labels": {"app": "vllm"}},
    "spec": {"clusterIP": "None", "selector": {"app": "vllm"}, "ports": [{"name": "http", "port": 8000, "targetPort": 8000}]},
}


def _in(directory: str, *objs: dict):
    """The objects as `policies check` reads them from files of one directory."""
    out = []
    for i, obj in enumerate(objs):
        r = manifest(obj)
        out.append(type(r)(type=r.type, name=f"{directory}/f{i}.yaml#0 {r.name}", props=r.props))
    return out


def _g56(resources) -> list[tuple[str, str]]:
    return [(v.enforcement, v.message) for v in evaluate(resources, None) if v.policy == "service-selects-pods"]


def test_a_misspelled_selector_blocks():
    ((level, message),) = _g56(_in("k8s", _DEPLOYMENT, _ROUTER, _NODEPORT, _HEADLESS))
    assert level == "mandatory"
    assert message.startswith("spec.selector app=vllm-sim matches no pod of the files read in namespace default; Deployment/vllm")


def test_a_selector_on_keys_no_workload_here_carries_is_advice():
    other = copy.deepcopy(_NODEPORT)
    other["spec"]["selector"] = {"app.kubernetes.io/name": "vllm"}
    ((level, _),) = _g56(_in("k8s", _DEPLOYMENT, other))
    assert level == "advisory"


def test_another_variant_of_the_app_is_advice():
    # Cold review 29, finding 9: a blue/green preview Service selects the idle colour, whose Deployment the pipeline
    # applies later; a selector naming another app altogether (no prefix of the pods' value) may also mean pods from
    # elsewhere. Both are advice; the typo-style app=vllm-sim against app=vllm above blocks.
    blue = copy.deepcopy(_DEPLOYMENT)
    blue["spec"]["template"]["metadata"]["labels"] = {**blue["spec"]["template"]["metadata"]["labels"], "color": "blue"}
    preview = copy.deepcopy(_NODEPORT)
    preview["spec"]["selector"] = {**blue["spec"]["template"]["metadata"]["labels"], "color": "green"}
    ((level, _),) = _g56(_in("k8s", blue, preview))
    assert level == "advisory"
    # Cold review 29b, finding 7: the variant named inside the value (app=vllm-canary beside the stable app=vllm).
    canary = copy.deepcopy(_NODEPORT)
    canary["spec"]["selector"] = {"app": "vllm-canary"}
    ((level, _),) = _g56(_in("k8s", _DEPLOYMENT, canary))
    assert level == "advisory"
    other_app = copy.deepcopy(_NODEPORT)
    other_app["spec"]["selector"] = {"app": "embedding-server"}
    ((level, _),) = _g56(_in("k8s", _DEPLOYMENT, other_app))
    assert level == "advisory"


def test_careful_forms_stay_silent():
    assert _g56(_in("k8s", _DEPLOYMENT, _HEADLESS)) == []
    # The pods are another directory's (another repository's, or a chart installed beside).
    assert _g56([*_in("svc", _NODEPORT), *_in("k8s", _DEPLOYMENT)]) == []
    # An operator in the namespace may label the pods: KServe's predictor pods.
    isvc = {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "vllm-sim"},
        "spec": {"predictor": {"model": {"modelFormat": {"name": "huggingface"}}}},
    }
    assert _g56(_in("k8s", _DEPLOYMENT, _NODEPORT, isvc)) == []
    pinned = copy.deepcopy(_NODEPORT)
    pinned["spec"]["selector"] = {"statefulset.kubernetes.io/pod-name": "vllm-0"}
    assert _g56(_in("k8s", _DEPLOYMENT, pinned)) == []
    external = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "x"},
        "spec": {"type": "ExternalName", "externalName": "a.b"},
    }
    assert _g56(_in("k8s", _DEPLOYMENT, external)) == []
    # Another namespace's workload does not stand for this one.
    elsewhere = copy.deepcopy(_DEPLOYMENT)
    elsewhere["metadata"]["namespace"] = "serving"
    assert _g56(_in("k8s", elsewhere, _NODEPORT)) == []
    assert found_by([_DEPLOYMENT, _HEADLESS], "service-selects-pods") == []


# Spent set 45: totallylegitco/model-serving serve.yaml and service.yaml (labelled G56 blocking): a RayService whose
# head and worker templates carry no labels, beside a LoadBalancer Service selecting model_server=present. KubeRay labels
# its pods ray.io/* and app.kubernetes.io/* (ray-project/kuberay v1.7.0 ray-operator/controllers/ray/common/pod.go:1167-1191
# labelPod) plus the group template's own labels, so no pod carries model_server.
def _ray_service(head_labels: dict | None = None, kind: str = "RayService") -> dict:
    head: dict = {"rayStartParams": {}, "template": {"spec": {"containers": [{"name": "ray-head", "image": "x:1"}]}}}
    if head_labels:
        head["template"]["metadata"] = {"labels": head_labels}
    worker = {"groupName": "gpu", "replicas": 1, "template": {"spec": {"containers": [{"name": "w", "image": "x:1"}]}}}
    cluster = {"headGroupSpec": head, "workerGroupSpecs": [worker]}
    spec = {"rayClusterConfig": cluster} if kind == "RayService" else cluster
    return {"apiVersion": "ray.io/v1", "kind": kind, "metadata": {"name": "model-serve", "namespace": "t"}, "spec": spec}


def _lb(selector: dict) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "model-backend-svc", "namespace": "t"},
        "spec": {"type": "LoadBalancer", "selector": selector, "ports": [{"port": 80, "targetPort": 8000}]},
    }


def test_a_selector_no_kuberay_pod_carries_is_reported():
    ((level, message),) = _g56(_in("k8s", _ray_service(), _lb({"model_server": "present"})))
    assert level == "advisory" and "model_server=present matches no pod" in message
    # Same class on a RayCluster: a head Service that selects app=ray-head while the template labels component=ray-head.
    cluster = _ray_service({"component": "ray-head"}, kind="RayCluster")
    assert [lv for lv, _ in _g56(_in("k8s", cluster, _lb({"app": "ray-head"})))] == ["advisory"]


def test_selectors_on_kuberay_labels_or_the_template_labels_stay_silent():
    # Careful forms: the public pattern of a LoadBalancer on the head pod (ray.io/node-type: head,
    # app.kubernetes.io/name: kuberay, ray.io/cluster: the cluster's name), a selector on the template's own label, and
    # ray.io/cluster on a RayService (the operator names the cluster it creates, unknown to the files).
    head = {"ray.io/node-type": "head", "app.kubernetes.io/name": "kuberay", "ray.io/cluster": "model-serve"}
    assert _g56(_in("k8s", _ray_service(kind="RayCluster"), _lb(head))) == []
    assert _g56(_in("k8s", _ray_service({"model_server": "present"}), _lb({"model_server": "present"}))) == []
    assert _g56(_in("k8s", _ray_service(), _lb({"ray.io/cluster": "model-serve-raycluster-abcde"}))) == []
    assert _g56(_in("k8s", _ray_service(), _lb({"ray.io/serve": "true", "ray.io/node-type": "worker"}))) == []


def test_a_template_value_of_a_kuberay_fixed_key_may_be_the_pods():
    # Review 45 #11: up to kuberay v1.2.x the template's own ray.io/group (and ray.io/cluster, ray.io/node-type) wins
    # (ray-project/kuberay v1.2.0 ray-operator/controllers/ray/common/pod.go labelPod: `if _, ok := labels[k]; !ok`);
    # the files name no operator release, so a Service on the template's value is silent. A selector key no pod
    # carries is still reported.
    cluster = _ray_service({"ray.io/group": "frontend"}, kind="RayCluster")
    assert _g56(_in("k8s", cluster, _lb({"ray.io/group": "frontend"}))) == []
    assert [lv for lv, _ in _g56(_in("k8s", cluster, _lb({"ray.io/group": "frontnd", "app": "x"})))] == ["advisory"]


# Fresh set 55 (labelled G56 blocking; advice here: `kubectl apply -n` may put both together): egel/k8s-ollama
# ollama-all.yaml at the labelled commit, Service ollama-service-node-port with no namespace beside Deployment ollama in
# namespace ollama, selecting name=ollama.
_OLLAMA = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "ollama", "namespace": "ollama"},
    "spec": {
        "selector": {"matchLabels": {"name": "ollama"}},
        "template": {
            "metadata": {"labels": {"name": "ollama"}},
            "spec": {"containers": [{"name": "ollama", "image": "ollama/ollama:latest", "ports": [{"containerPort": 11434}]}]},
        },
    },
}
_OLLAMA_NODEPORT = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "ollama-service-node-port"},
    "spec": {"type": "NodePort", "selector": {"name": "ollama"}, "ports": [{"port": 11434, "targetPort": 11434}]},
}


def test_a_service_without_the_namespace_its_workload_names_is_advice():
    ((level, message),) = _g56(_in("k8s", _OLLAMA, _OLLAMA_NODEPORT))
    assert level == "advisory" and "runs in namespace ollama" in message and "set metadata.namespace: ollama" in message
    # The same shape in another app: a StatefulSet in namespace llm, a ClusterIP Service on app.kubernetes.io/name.
    sts = copy.deepcopy(_OLLAMA)
    sts["kind"], sts["metadata"] = "StatefulSet", {"name": "vllm", "namespace": "llm"}
    sts["spec"]["selector"]["matchLabels"] = sts["spec"]["template"]["metadata"]["labels"] = {"app.kubernetes.io/name": "vllm"}
    svc = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "vllm"},
        "spec": {"selector": {"app.kubernetes.io/name": "vllm"}, "ports": [{"port": 8000}]},
    }
    assert [level for level, _ in _g56(_in("deploy", sts, svc))] == ["advisory"]


def test_namespaces_that_agree_or_are_both_left_out_stay_silent(tmp_path):
    named = copy.deepcopy(_OLLAMA_NODEPORT)
    named["metadata"]["namespace"] = "ollama"
    assert _g56(_in("k8s", _OLLAMA, named)) == []
    bare = copy.deepcopy(_OLLAMA)
    del bare["metadata"]["namespace"]
    assert _g56(_in("k8s", bare, _OLLAMA_NODEPORT)) == []
    # A kustomization beside them may set one namespace for both.
    (tmp_path / "kustomization.yaml").write_text("namespace: ollama\nresources: [a.yaml]\n")
    assert _g56(_in(str(tmp_path), _OLLAMA, _OLLAMA_NODEPORT)) == []


def test_a_service_stating_another_namespace_than_its_workload_blocks():
    # egel/k8s-ollama's form (fresh set 55) with the Service's namespace written as another one: both stated, the
    # EndpointSlice controller lists only the pods of the Service's namespace.
    elsewhere = copy.deepcopy(_OLLAMA_NODEPORT)
    elsewhere["metadata"]["namespace"] = "llm"
    assert _g56(_in("k8s", _OLLAMA, elsewhere)) == [
        (
            "mandatory",
            "the Service is in namespace llm while Deployment/ollama of the same directory, whose pods carry name=ollama, "
            "runs in namespace ollama: a Service selects only pods of its own namespace, so it has no endpoints and every "
            "connection to it is refused; put the Service in namespace ollama",
        )
    ]
    # The Service states one and the workload none: advice (the pods land where the workload is applied).
    bare = copy.deepcopy(_OLLAMA)
    del bare["metadata"]["namespace"]
    ((level, message),) = _g56(_in("k8s", bare, elsewhere))
    assert level == "advisory" and "names no namespace" in message


def test_stated_namespaces_a_kustomization_overrides_stay_silent():
    elsewhere = copy.deepcopy(_OLLAMA_NODEPORT)
    elsewhere["metadata"]["namespace"] = "llm"
    resources = _in("k8s", _OLLAMA, elsewhere)
    rewritten = [type(r)(type=r.type, name=r.name, props=r.props, kustomize_namespace="serving") for r in resources]
    assert _g56(rewritten) == []


def test_a_service_without_a_namespace_beside_a_workload_pinned_to_default_is_advice(tmp_path):
    """Session 51: spent set 58 raulcmz/k8s-llmops-inference-platform k8s/gateway/service.yaml (no namespace) beside
    k8s/gateway/deployment.yaml (namespace: default), labelled G56: applied with -n the Service lands elsewhere."""
    pinned = copy.deepcopy(_OLLAMA)
    pinned["metadata"]["namespace"] = "default"
    ((level, message),) = _g56(_in("k8s", pinned, _OLLAMA_NODEPORT))
    assert level == "advisory" and "pins namespace default" in message
    named = copy.deepcopy(_OLLAMA_NODEPORT)
    named["metadata"]["namespace"] = "default"
    assert _g56(_in("k8s", pinned, named)) == []
    (tmp_path / "kustomization.yaml").write_text("resources: [a.yaml]\n")
    assert _g56(_in(str(tmp_path), pinned, _OLLAMA_NODEPORT)) == []
    assert _g56(_in("other", pinned) + _in("k8s", _OLLAMA_NODEPORT)) == []


def test_a_near_miss_beside_a_sibling_fronting_pods_defined_elsewhere_is_advice():
    # Sealed set 119 (read after its measurement), lahlfors/cybernetic-governance-engine@2bcc2f2e
    # deployment/k8s/vllm-services.yaml: Service vllm-service selects app=vllm-inference and, in the same file,
    # vllm-reasoning selects app=vllm-reasoning; their Deployments live in vllm-deployment.yaml and vllm-reasoning.yaml,
    # which the run did not hold, while vllm-streaming.yaml labels its pods app=vllm-inference-streaming (another app).
    # The pack blocked on the prefix match; the file's other Service fronting pods the files do not define shows the
    # run holds only part of what the Services front.
    streaming = copy.deepcopy(_DEPLOYMENT)
    streaming["metadata"] = {"name": "vllm-inference-streaming"}
    streaming["spec"]["selector"] = {"matchLabels": {"app": "vllm-inference-streaming"}}
    streaming["spec"]["template"]["metadata"]["labels"] = {"app": "vllm-inference-streaming"}
    inference = copy.deepcopy(_NODEPORT)
    inference["metadata"] = {"name": "vllm-service"}
    inference["spec"] = {"selector": {"app": "vllm-inference"}, "ports": [{"port": 8000, "targetPort": 8000}]}
    reasoning = copy.deepcopy(inference)
    reasoning["metadata"] = {"name": "vllm-reasoning"}
    reasoning["spec"]["selector"] = {"app": "vllm-reasoning"}

    def at(file: str, index: int, obj: dict):
        r = manifest(obj)
        return type(r)(type=r.type, name=f"k8s/{file}#{index} {r.name}", props=r.props)

    both = [
        at("vllm-streaming.yaml", 0, streaming),
        at("vllm-services.yaml", 0, inference),
        at("vllm-services.yaml", 1, reasoning),
    ]
    levels = {message.split(" matches", 1)[0]: level for level, message in _g56(both)}
    assert levels == {"spec.selector app=vllm-inference": "advisory", "spec.selector app=vllm-reasoning": "advisory"}
    # Alone in its file, the same near miss still blocks (the typo rule above); a sibling whose pods the run holds (the
    # set 29 headless Service) changes nothing.
    alone = [at("vllm-streaming.yaml", 0, streaming), at("vllm-services.yaml", 0, inference)]
    assert [level for level, _ in _g56(alone)] == ["mandatory"]
    headless = copy.deepcopy(_HEADLESS)
    headless["spec"]["selector"] = {"app": "vllm-inference-streaming"}
    with_headless = [*alone, at("vllm-services.yaml", 1, headless)]
    assert [level for level, _ in _g56(with_headless)] == ["mandatory"]
