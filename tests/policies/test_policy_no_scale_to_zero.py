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
