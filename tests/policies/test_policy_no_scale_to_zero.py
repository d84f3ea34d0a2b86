"""S5 llm-no-scale-to-zero: one compliant fixture per kind, one mutation per case."""

from policy_fixtures import (
    HPA_TYPE,
    SCALED_OBJECT_TYPE,
    hpa_props,
    isvc,
    isvc_props,
    messages,
    resource,
    scaled_object_props,
)

from policies.autoscaling.no_scale_to_zero import POLICY
from policies.framework import Unproven

WHY = (
    "an LLM replica takes minutes to return (GPU node, image pull, weight load), so the "
    "first request after idling times out; set it to at least 1"
)


def test_compliant_resources_pass():
    assert messages(POLICY, isvc(), resource(HPA_TYPE, hpa_props()), resource(SCALED_OBJECT_TYPE, scaled_object_props())) == []


def test_inference_service_min_replicas_zero():
    props = isvc_props()
    props["spec"]["predictor"]["minReplicas"] = 0.0
    assert messages(POLICY, isvc(props)) == [f"spec.predictor.minReplicas is 0; {WHY}"]


def test_inference_service_without_min_replicas_uses_kserve_default_of_one():
    props = isvc_props()
    props["spec"]["predictor"].pop("minReplicas")
    assert messages(POLICY, isvc(props)) == []


def test_hpa_min_replicas_zero():
    props = hpa_props()
    props["spec"]["minReplicas"] = 0.0
    assert messages(POLICY, resource(HPA_TYPE, props)) == [f"spec.minReplicas is 0; {WHY}"]


def test_scaled_object_min_replica_count_zero():
    props = scaled_object_props()
    props["spec"]["minReplicaCount"] = 0.0
    assert messages(POLICY, resource(SCALED_OBJECT_TYPE, props)) == [f"spec.minReplicaCount is 0; {WHY}"]


def test_scaled_object_without_min_replica_count_gets_keda_default_of_zero():
    props = scaled_object_props()
    props["spec"].pop("minReplicaCount")
    assert messages(POLICY, resource(SCALED_OBJECT_TYPE, props)) == [
        f"spec.minReplicaCount is not set and KEDA defaults it to 0; {WHY}"
    ]


def test_exemption_with_reason_allows_scale_to_zero():
    props = isvc_props()
    props["spec"]["predictor"]["minReplicas"] = 0.0
    props["metadata"]["annotations"]["llm-serving.io/exempt-llm-no-scale-to-zero"] = "dev model, idle at night"
    assert messages(POLICY, isvc(props)) == []


def test_scaled_object_idle_replica_count_zero():
    props = scaled_object_props()
    props["spec"]["idleReplicaCount"] = 0.0
    assert messages(POLICY, resource(SCALED_OBJECT_TYPE, props)) == [
        f"spec.idleReplicaCount is 0, so KEDA scales to zero whenever its triggers are idle; {WHY}"
    ]


# Siryoos/kserve-vllm-mini isvc.yaml at 627b171ad83a8637443f85f6919455dfaca2717e (spent set 11, blocking label S5),
# reduced: a Serverless InferenceService, vLLM runtime by reference, Knative's legacy minScale "0" and no minReplicas.
def _siryoos_isvc(annotation: str = "autoscaling.knative.dev/minScale", value: str = "0") -> dict:
    return {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "demo-llm", "namespace": "ml-prod", "annotations": {annotation: value}},
        "spec": {
            "predictor": {
                "model": {
                    "runtime": "vllm",
                    "storageUri": "s3://models/llm-demo/",
                    "resources": {"limits": {"nvidia.com/gpu": "1", "memory": "12Gi"}},
                }
            }
        },
    }


def test_isvc_knative_min_scale_zero_is_advice_since_kserve_writes_min_scale():
    isvc_type = "kubernetes:serving.kserve.io/v1beta1:InferenceService"
    assert all(isinstance(m, Unproven) for m in POLICY.check_resource(resource(isvc_type, _siryoos_isvc()), {}))
    found = messages(POLICY, resource(isvc_type, _siryoos_isvc()))
    assert found == [
        'metadata.annotations: autoscaling.knative.dev/minScale is "0", so Knative scales the model server to zero '
        f"when idle; {WHY} (KServe v0.20.0 writes min-scale from spec.predictor.minReplicas, default 1, over it; a "
        "release that passes the annotation through to Knative scales to zero: set spec.predictor.minReplicas: 1 "
        "and drop it)"
    ]


def test_isvc_knative_min_scale_careful_forms_are_silent():
    isvc_type = "kubernetes:serving.kserve.io/v1beta1:InferenceService"
    assert messages(POLICY, resource(isvc_type, _siryoos_isvc(value="1"))) == []
    raw = _siryoos_isvc("autoscaling.knative.dev/min-scale")
    raw["metadata"]["annotations"]["serving.kserve.io/deploymentMode"] = "RawDeployment"
    assert messages(POLICY, resource(isvc_type, raw)) == []
    # minReplicas wins in KServe (utils.go:69-74): the annotation no longer decides the floor.
    floored = _siryoos_isvc()
    floored["spec"]["predictor"]["minReplicas"] = 1
    assert messages(POLICY, resource(isvc_type, floored)) == []


# coreweave/kubernetes-cloud online-inference/vllm/02-inference-service.yaml at
# 67ae991a24e94e8e064c3484bcba48f26e1cd671 (spent set 11; its trap: minScale "1" must not be flagged), reduced.
def _coreweave_ksvc(min_scale: str) -> dict:
    return {
        "apiVersion": "serving.knative.dev/v1",
        "kind": "Service",
        "metadata": {"name": "vllm-inference-service"},
        "spec": {
            "template": {
                "metadata": {"annotations": {"autoscaling.knative.dev/minScale": min_scale}},
                "spec": {
                    "containers": [
                        {
                            "name": "kfserving-container",
                            "image": "rtalaricw/vllm:0.1",
                            "command": ["/bin/sh", "-c", "python -m vllm.entrypoints.openai.api_server --model m --port 80"],
                            "resources": {"limits": {"nvidia.com/gpu": 1}},
                        }
                    ]
                },
            }
        },
    }


def test_knative_service_min_scale_zero_on_a_model_server_blocks():
    ksvc_type = "kubernetes:serving.knative.dev/v1:Service"
    assert messages(POLICY, resource(ksvc_type, _coreweave_ksvc("1"))) == []
    assert messages(POLICY, resource(ksvc_type, _coreweave_ksvc("0"))) == [
        'spec.template.metadata.annotations: autoscaling.knative.dev/minScale is "0", so Knative scales the model '
        f"server to zero when idle; {WHY}"
    ]
    web = _coreweave_ksvc("0")
    web["spec"]["template"]["spec"]["containers"] = [{"name": "web", "image": "nginx:1.27"}]
    assert messages(POLICY, resource(ksvc_type, web)) == []
