"""The pulumi_policy wrappers: the SDK's arguments in, the same messages as `evaluate` out."""

from policy_fixtures import (
    HPA_TYPE,
    ISVC_TYPE,
    SCALED_OBJECT_TYPE,
    hpa_props,
    isvc,
    isvc_props,
    messages,
    scaled_object_props,
    set_arg,
    vllm_container,
)
from pulumi_policy import (
    PolicyCustomTimeouts,
    PolicyResource,
    PolicyResourceOptions,
    ResourceValidationArgs,
    StackValidationArgs,
)
from pulumi_policy.proxy import UNKNOWN_NUMBER_VALUE, UNKNOWN_STRING_VALUE, unknown_checking_proxy
from pulumi_policy.secret import Secret

from policies.autoscaling.gpu_workload_no_resource_metric_hpa import POLICY as S6
from policies.autoscaling.no_scale_to_zero import POLICY as S5
from policies.framework import UNKNOWN
from policies.pulumi_adapter import plain, to_pulumi
from policies.vllm.gpu_memory_utilization_bounds import POLICY as S1
from policies.vllm.startup_probe_budget import POLICY as S16

URN = "urn:pulumi:dev::llm-serving::kubernetes:serving.kserve.io/v1beta1:InferenceService::chat-8b"


def opts():
    return PolicyResourceOptions(False, [], None, [], PolicyCustomTimeouts(0, 0, 0), [], parent=None)


def run_resource(policy, type_, props, config=None):
    reported = []
    args = ResourceValidationArgs(type_, unknown_checking_proxy(props), URN, "chat-8b", opts(), None, config)
    to_pulumi(policy).validate(args, lambda message, urn=None: reported.append((message, urn)))
    return reported


def too_high_props():
    props = isvc_props()
    set_arg(vllm_container(props), "gpu-memory-utilization", "0.99")
    return props


def test_resource_policy_reports_the_same_messages_as_evaluate():
    props = too_high_props()
    assert run_resource(S1, ISVC_TYPE, props) == [(m, None) for m in messages(S1, isvc(too_high_props()))]
    assert len(run_resource(S1, ISVC_TYPE, props)) == 1


def test_resource_policy_ignores_other_types():
    assert run_resource(S1, "kubernetes:core/v1:ConfigMap", {"data": {}}) == []


def test_config_from_the_engine_overrides_defaults():
    assert run_resource(S16, ISVC_TYPE, isvc_props(), config={"minBudgetSeconds": 1200.0}) == [
        (m, None) for m in messages(S16, isvc(), config={"minBudgetSeconds": 1200})
    ]
    assert run_resource(S16, ISVC_TYPE, isvc_props(), config={"enforcementLevel": "mandatory"}) == []


def test_exemptions_apply_in_the_adapter():
    props = too_high_props()
    props["metadata"]["annotations"][S1.exemption_annotation] = "measured headroom"
    assert run_resource(S1, ISVC_TYPE, props) == []
    props["metadata"]["annotations"][S1.exemption_annotation] = ""
    reported = [m for m, _ in run_resource(S1, ISVC_TYPE, props)]
    assert reported[-1].startswith("metadata.annotations: exemption annotation")
    assert len(reported) == 2


def test_unknown_values_are_skipped_not_raised():
    props = scaled_object_props()
    props["spec"]["minReplicaCount"] = UNKNOWN_NUMBER_VALUE
    assert run_resource(S5, SCALED_OBJECT_TYPE, props) == []
    props["spec"]["minReplicaCount"] = 0.0
    assert len(run_resource(S5, SCALED_OBJECT_TYPE, props)) == 1


def test_plain_copies_proxies_and_unwraps_secrets():
    proxied = unknown_checking_proxy({"a": [1.0, {"b": UNKNOWN_STRING_VALUE}], "s": Secret("x")})
    assert plain(proxied) == {"a": [1.0, {"b": UNKNOWN}], "s": "x"}
    assert isinstance(plain(proxied), dict) and isinstance(plain(proxied)["a"], list)


def policy_resource(type_, name, props, urn):
    return PolicyResource(type_, unknown_checking_proxy(props), urn, name, opts(), None, None, [], {})


def test_stack_policy_reports_on_the_offending_resource_urn():
    hpa = hpa_props()
    hpa["spec"]["metrics"] = [{"type": "Resource", "resource": {"name": "cpu"}}]
    hpa_urn = "urn:pulumi:dev::llm-serving::kubernetes:autoscaling/v2:HorizontalPodAutoscaler::chat-8b-hpa"
    resources = [policy_resource(ISVC_TYPE, "chat-8b", isvc_props(), URN), policy_resource(HPA_TYPE, "chat-8b-hpa", hpa, hpa_urn)]
    reported = []
    to_pulumi(S6).validate(StackValidationArgs(resources), lambda m, urn=None: reported.append((m, urn)))
    assert len(reported) == 1
    assert reported[0][1] == hpa_urn
    assert reported[0][0].startswith("scaleTargetRef Deployment/chat-8b-predictor is a GPU workload")
