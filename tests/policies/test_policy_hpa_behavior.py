"""S8 llm-hpa-behavior (stack policy): a compliant stack, one mutation per case."""

import copy

from policy_fixtures import HPA_TYPE, SCALED_OBJECT_TYPE, hpa_props, isvc, isvc_props, messages, resource, scaled_object_props

from policies.autoscaling.hpa_behavior import POLICY

NODEPOOL_TYPE = "kubernetes:karpenter.sh/v1:NodePool"
FLAP = "a GPU replica removed on a short dip takes minutes to come back, so the service flaps and queues"
BURST = "each pod is a GPU node to buy, so an unbounded burst overshoots the pool and the budget"

_BEHAVIOR = {
    "scaleUp": {
        "stabilizationWindowSeconds": 0.0,
        "selectPolicy": "Max",
        "policies": [
            {"type": "Percent", "value": 100.0, "periodSeconds": 15.0},
            {"type": "Pods", "value": 4.0, "periodSeconds": 15.0},
        ],
    },
    "scaleDown": {
        "stabilizationWindowSeconds": 300.0,
        "selectPolicy": "Min",
        "policies": [
            {"type": "Percent", "value": 10.0, "periodSeconds": 60.0},
            {"type": "Pods", "value": 1.0, "periodSeconds": 60.0},
        ],
    },
}
_NODEPOOL = {
    "apiVersion": "karpenter.sh/v1",
    "kind": "NodePool",
    "metadata": {"name": "l40s"},
    "spec": {"limits": {"nvidia.com/gpu": "16"}, "template": {"spec": {}}},
}


def hpa(**spec):
    props = hpa_props()
    props["spec"]["behavior"] = copy.deepcopy(_BEHAVIOR)
    props["spec"].update(spec)
    return props


def pool(limit="16"):
    props = copy.deepcopy(_NODEPOOL)
    props["spec"]["limits"]["nvidia.com/gpu"] = limit
    return resource(NODEPOOL_TYPE, props)


def test_compliant_stack_passes():
    assert messages(POLICY, isvc(), resource(HPA_TYPE, hpa()), pool()) == []


def test_hpa_without_behavior_gets_the_kubernetes_defaults_which_pass():
    props = hpa_props()
    assert "behavior" not in props["spec"]
    assert messages(POLICY, isvc(), resource(HPA_TYPE, props), pool()) == []


def test_short_scale_down_stabilization():
    props = hpa()
    props["spec"]["behavior"]["scaleDown"]["stabilizationWindowSeconds"] = 60.0
    assert messages(POLICY, isvc(), resource(HPA_TYPE, props), pool()) == [
        f"spec.behavior.scaleDown.stabilizationWindowSeconds = 60 is below 300 s: {FLAP}"
    ]


def test_disabled_scale_down_is_not_flapping():
    props = hpa()
    props["spec"]["behavior"]["scaleDown"] = {"selectPolicy": "Disabled", "stabilizationWindowSeconds": 0.0}
    assert messages(POLICY, isvc(), resource(HPA_TYPE, props), pool()) == []


def test_a_pinned_autoscaler_never_scales_so_its_behavior_is_moot():
    # minReplicas equal to maxReplicas: the HPA holds the count, no window or step applies.
    props = hpa(minReplicas=2, maxReplicas=2)
    props["spec"]["behavior"]["scaleDown"]["stabilizationWindowSeconds"] = 0.0
    assert messages(POLICY, isvc(), resource(HPA_TYPE, props), pool()) == []
    props["spec"]["maxReplicas"] = 3
    assert messages(POLICY, isvc(), resource(HPA_TYPE, props), pool()) == [
        f"spec.behavior.scaleDown.stabilizationWindowSeconds = 0 is below 300 s: {FLAP}"
    ]


def test_unbounded_scale_up_pods():
    props = hpa()
    props["spec"]["behavior"]["scaleUp"]["policies"][1]["value"] = 50.0
    assert messages(POLICY, isvc(), resource(HPA_TYPE, props), pool()) == [
        f"spec.behavior.scaleUp.policies[1] adds 50 pods per 15 s, above the bound of 10 pods: {BURST}"
    ]


def test_unbounded_scale_up_percent_with_a_configured_bound():
    props = hpa()
    props["spec"]["behavior"]["scaleUp"]["policies"][0]["value"] = 900.0
    assert messages(POLICY, isvc(), resource(HPA_TYPE, props), pool(), config={"maxScaleUpPercentPerPeriod": 300}) == [
        f"spec.behavior.scaleUp.policies[0] adds 900% per 15 s, above the bound of 300%: {BURST}"
    ]


def test_max_replicas_beyond_the_pool_gpu_limit():
    assert messages(POLICY, isvc(), resource(HPA_TYPE, hpa()), pool("4")) == [
        "spec.maxReplicas = 8 x 1 GPUs per pod of Deployment/chat-8b-predictor = 8 GPUs exceeds NodePool l40s "
        'limits["nvidia.com/gpu"] = 4: replicas beyond it stay Pending'
    ]


def test_without_the_node_pool_the_gpu_cap_is_not_judged():
    assert messages(POLICY, isvc(), resource(HPA_TYPE, hpa(maxReplicas=500.0))) == []


def test_two_autoscalers_that_together_exceed_the_pool():
    other = isvc_props()
    other["metadata"]["name"] = "chat-b"
    second = hpa()
    second["metadata"]["name"] = "chat-b"
    second["spec"]["scaleTargetRef"]["name"] = "chat-b-predictor"
    assert messages(
        POLICY,
        isvc(),
        resource("kubernetes:serving.kserve.io/v1beta1:InferenceService", other),
        resource(HPA_TYPE, hpa()),
        resource(HPA_TYPE, second),
        pool("12"),
    ) == [
        "the autoscalers on NodePool l40s may together ask for chat-8b 8 x 1 + chat-b 8 x 1 = 16 GPUs, above its "
        'limits["nvidia.com/gpu"] = 12: at peak some replicas stay Pending'
    ]


def test_scaled_object_behavior_and_default_max_replica_count():
    so = scaled_object_props()
    so["spec"].pop("maxReplicaCount")
    so["spec"]["advanced"] = {"horizontalPodAutoscalerConfig": {"behavior": {"scaleDown": {"stabilizationWindowSeconds": 30.0}}}}
    assert messages(POLICY, isvc(), resource(SCALED_OBJECT_TYPE, so), pool()) == [
        "spec.advanced.horizontalPodAutoscalerConfig.behavior.scaleDown.stabilizationWindowSeconds = 30 is below 300 s: " + FLAP,
        "spec.maxReplicaCount = 100 x 1 GPUs per pod of Deployment/chat-8b-predictor = 100 GPUs exceeds NodePool l40s "
        'limits["nvidia.com/gpu"] = 16: replicas beyond it stay Pending',
    ]


def test_a_cpu_web_app_hpa_is_not_judged():
    props = hpa()
    props["spec"]["behavior"]["scaleDown"]["stabilizationWindowSeconds"] = 0.0
    props["spec"]["scaleTargetRef"]["name"] = "web"
    props["spec"]["metrics"] = [
        {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70.0}}}
    ]
    assert messages(POLICY, isvc(), resource(HPA_TYPE, props), pool()) == []


def test_an_hpa_on_vllm_metrics_is_judged_without_its_target_in_the_set():
    props = hpa()
    props["spec"]["behavior"]["scaleDown"]["stabilizationWindowSeconds"] = 0.0
    assert messages(POLICY, resource(HPA_TYPE, props)) == [
        f"spec.behavior.scaleDown.stabilizationWindowSeconds = 0 is below 300 s: {FLAP}"
    ]


def test_exemption_with_reason():
    props = hpa()
    props["spec"]["behavior"]["scaleDown"]["stabilizationWindowSeconds"] = 60.0
    props["metadata"]["annotations"] = {"llm-serving.io/exempt-llm-hpa-behavior": "batch model, cost first"}
    assert messages(POLICY, isvc(), resource(HPA_TYPE, props), pool()) == []


def test_a_queue_named_for_vllm_does_not_make_its_consumer_a_model_server():
    """Spent set 93 xinhangl44-blip/llm-inference-optimization k8s/keda-scaler.yaml (trimmed): a redis-streams trigger on
    stream vllm_task_stream scales Deployment vllm-consumer (image vllm-consumer:v1, no GPU, no engine) with a 30 s
    scale-down window; the word in a stream name is no vLLM series, so S8's blocking window check stays silent. A
    Prometheus trigger whose query reads vllm:num_requests_waiting still marks its target as an LLM server."""
    from policy_fixtures import found_by

    consumer = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "vllm-consumer", "namespace": "default"},
        "spec": {
            "selector": {"matchLabels": {"app": "vllm-consumer"}},
            "template": {
                "metadata": {"labels": {"app": "vllm-consumer"}},
                "spec": {"containers": [{"name": "consumer", "image": "vllm-consumer:v1"}]},
            },
        },
    }
    scaler = {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": "vllm-consumer-scaler", "namespace": "default"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "vllm-consumer"},
            "minReplicaCount": 1,
            "maxReplicaCount": 5,
            "advanced": {"horizontalPodAutoscalerConfig": {"behavior": {"scaleDown": {"stabilizationWindowSeconds": 30}}}},
            "triggers": [
                {
                    "type": "redis-streams",
                    "metadata": {
                        "host": "redis-headless.default.svc.cluster.local",
                        "stream": "vllm_task_stream",
                        "consumerGroup": "vllm_inference_group",
                        "lagCount": "3",
                    },
                }
            ],
        },
    }
    served = "a GPU replica removed on a short dip"  # the model-server reading of the short window
    assert [f for f in found_by([consumer, scaler], "llm-hpa-behavior") if served in f[1]] == []
    prometheus = {
        **scaler,
        "spec": {
            **scaler["spec"],
            "triggers": [
                {
                    "type": "prometheus",
                    "metadata": {
                        "serverAddress": "http://prometheus:9090",
                        "query": "sum(vllm:num_requests_waiting)",
                        "threshold": "5",
                    },
                }
            ],
        },
    }
    # A vLLM metric makes it a model server's scaler; the short window is a house threshold, reported as advice.
    assert [level for level, m in found_by([consumer, prometheus], "llm-hpa-behavior") if served in m] == ["advisory"]
