"""S7 hpa-custom-metric-is-served (stack policy): a compliant stack, one mutation per case."""

import copy

from policy_fixtures import (
    HPA_TYPE,
    SCALED_OBJECT_TYPE,
    deployment_props,
    found_by,
    hpa_props,
    isvc,
    messages,
    resource,
    scaled_object_props,
)

from policies.autoscaling.custom_metric_is_served import POLICY
from policies.registry import evaluate

RELEASE_TYPE = "kubernetes:helm.sh/v3:Release"
POD_MONITOR_TYPE = "kubernetes:monitoring.coreos.com/v1:PodMonitor"
SERVICE_MONITOR_TYPE = "kubernetes:monitoring.coreos.com/v1:ServiceMonitor"
UNSERVED = "the HPA shows <unknown> for it and never scales"
UNSCRAPED = "no series reach Prometheus, so the autoscaler sees no load and never scales"

_RULE = {
    "seriesQuery": 'vllm:num_requests_waiting{namespace="llm",model_name="chat-8b",pod!=""}',
    "resources": {"overrides": {"namespace": {"resource": "namespace"}, "pod": {"resource": "pod"}}},
    "name": {"matches": "^vllm:(.*)$", "as": "vllm_${1}"},
    "metricsQuery": "sum(<<.Series>>{<<.LabelMatchers>>}) by (<<.GroupBy>>)",
}
_ADAPTER = {
    "name": "prometheus-adapter",
    "chart": "prometheus-adapter",
    "version": "5.3.0",
    "repositoryOpts": {"repo": "https://prometheus-community.github.io/helm-charts"},
    "values": {"rules": {"default": False, "custom": [_RULE], "external": []}},
}
_POD_MONITOR = {
    "apiVersion": "monitoring.coreos.com/v1",
    "kind": "PodMonitor",
    "metadata": {"name": "chat-8b-vllm", "namespace": "llm"},
    "spec": {
        "selector": {"matchLabels": {"serving.kserve.io/inferenceservice": "chat-8b"}},
        "namespaceSelector": {"matchNames": ["llm"]},
        "podMetricsEndpoints": [{"port": "http", "path": "/metrics"}],
    },
}


def stack(hpa=None, adapter=None, monitor=None, extra=()):
    return [
        isvc(),
        resource(HPA_TYPE, hpa if hpa is not None else hpa_props()),
        resource(RELEASE_TYPE, adapter if adapter is not None else copy.deepcopy(_ADAPTER), name="adapter"),
        resource(POD_MONITOR_TYPE, monitor if monitor is not None else copy.deepcopy(_POD_MONITOR)),
        *extra,
    ]


def test_compliant_stack_passes():
    # The rule renames vllm:num_requests_waiting to vllm_num_requests_waiting, the HPA's metric.
    assert messages(POLICY, *stack()) == []


def test_metric_no_rule_produces():
    hpa = hpa_props()
    hpa["spec"]["metrics"][0]["pods"]["metric"]["name"] = "vllm_requests_in_flight"
    assert messages(POLICY, *stack(hpa=hpa)) == [
        "spec.metrics[0].pods.metric.name vllm_requests_in_flight is not produced by any Prometheus Adapter rule on "
        f"custom.metrics.k8s.io (the adapter rules in this stack serve vllm_num_requests_waiting); {UNSERVED}"
    ]


def test_external_metric_needs_an_external_rule():
    hpa = hpa_props()
    hpa["spec"]["metrics"] = [
        {
            "type": "External",
            "external": {
                "metric": {"name": "vllm_num_requests_waiting"},
                "target": {"type": "AverageValue", "averageValue": "4"},
            },
        }
    ]
    assert messages(POLICY, *stack(hpa=hpa)) == [
        "spec.metrics[0].external.metric.name vllm_num_requests_waiting is not produced by any Prometheus Adapter rule on "
        f"external.metrics.k8s.io (the adapter rules in this stack serve no such metric); {UNSERVED}"
    ]


def test_literal_rule_name_serves_the_metric():
    adapter = copy.deepcopy(_ADAPTER)
    adapter["values"]["rules"]["custom"][0]["name"] = {"matches": "^vllm:num_requests_waiting$", "as": "queue"}
    hpa = hpa_props()
    hpa["spec"]["metrics"][0]["pods"]["metric"]["name"] = "queue"
    assert messages(POLICY, *stack(hpa=hpa, adapter=adapter)) == []


def test_the_charts_default_rules_may_serve_anything():
    adapter = copy.deepcopy(_ADAPTER)
    adapter["values"]["rules"]["default"] = True
    hpa = hpa_props()
    hpa["spec"]["metrics"][0]["pods"]["metric"]["name"] = "http_requests"
    assert messages(POLICY, *stack(hpa=hpa, adapter=adapter)) == []


def test_adapter_config_map_is_read_on_plain_manifests():
    cm = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "adapter-config", "namespace": "monitoring"},
        "data": {
            "config.yaml": "rules:\n- seriesQuery: 'vllm:num_requests_running{pod!=\"\"}'\n"
            "  name: {matches: '^vllm:(.*)$', as: 'vllm_${1}'}\n"
            "  metricsQuery: 'sum(<<.Series>>{<<.LabelMatchers>>}) by (<<.GroupBy>>)'\n"
        },
    }
    found = messages(
        POLICY,
        isvc(),
        resource(HPA_TYPE, hpa_props()),
        resource("kubernetes:v1:ConfigMap", cm),
        resource(POD_MONITOR_TYPE, copy.deepcopy(_POD_MONITOR)),
    )
    assert found == [
        "spec.metrics[0].pods.metric.name vllm_num_requests_waiting is not produced by any Prometheus Adapter rule on "
        f"custom.metrics.k8s.io (the adapter rules in this stack serve vllm_num_requests_running); {UNSERVED}"
    ]


NO_ADAPTER = (
    "spec.metrics[0].pods.metric.name vllm_num_requests_waiting: the files hold no Prometheus Adapter configuration (no "
    "adapter ConfigMap, chart release or rules) to serve it on custom.metrics.k8s.io; unless an adapter installed "
    f"elsewhere in the cluster has a rule that names it, {UNSERVED}"
)


def test_a_set_without_any_adapter_is_advised_on_its_custom_metrics():
    # Brief autoscale50, spent set 78 ishaangulati8/kubernetes-gpu-inference@af4c161a hpa.yaml: a Pods metric and no
    # adapter configuration anywhere in the files. An adapter may be installed cluster-wide from elsewhere: advice.
    found = found_by_messages(isvc(), resource(HPA_TYPE, hpa_props()), resource(POD_MONITOR_TYPE, copy.deepcopy(_POD_MONITOR)))
    assert found == [("advisory", NO_ADAPTER)]


def test_names_another_adapter_serves_are_not_advised():
    for name in ("prometheus.googleapis.com|vllm:num_requests_running|gauge", "datadogmetric@llm:queue", "s0-prometheus"):
        hpa = hpa_props()
        hpa["spec"]["metrics"][0]["pods"]["metric"]["name"] = name
        assert messages(POLICY, isvc(), resource(HPA_TYPE, hpa), resource(POD_MONITOR_TYPE, copy.deepcopy(_POD_MONITOR))) == []


def found_by_messages(*resources):
    return [(v.enforcement, v.message) for v in evaluate(list(resources), None, policies=[POLICY])]


def test_require_in_same_set():
    found = messages(POLICY, isvc(), resource(HPA_TYPE, hpa_props()), config={"requireInSameSet": True})
    assert found == [
        "no PodMonitor or ServiceMonitor in this stack selects the pods of Deployment/chat-8b-predictor (labels "
        f"{{'component': 'predictor', 'serving.kserve.io/inferenceservice': 'chat-8b'}}); {UNSCRAPED}",
        "spec.metrics[0].pods.metric.name vllm_num_requests_waiting is not produced by any Prometheus Adapter rule on "
        f"custom.metrics.k8s.io (this stack holds no Prometheus Adapter configuration); {UNSERVED}",
    ]


def test_monitor_selecting_other_pods():
    monitor = copy.deepcopy(_POD_MONITOR)
    monitor["spec"]["selector"] = {"matchLabels": {"serving.kserve.io/inferenceservice": "other"}}
    ((level, message),) = found_by_messages(*stack(monitor=monitor))
    assert message.startswith("no PodMonitor or ServiceMonitor in this stack selects the pods of Deployment/chat-8b-predictor")
    # A scrape outside the files (the Prometheus chart's annotation-based pod job) may still collect the series, and
    # the model serves at the autoscaler's floor meanwhile: advice, unless the monitors must live beside the HPAs.
    assert level == "advisory" and UNSCRAPED + " (advice: a scrape configured outside these files" in message
    required = evaluate(list(stack(monitor=monitor)), {POLICY.name: {"requireInSameSet": True}}, policies=[POLICY])
    assert [(v.enforcement, v.message.endswith(UNSCRAPED)) for v in required] == [("mandatory", True)]


def test_monitor_in_another_namespace():
    monitor = copy.deepcopy(_POD_MONITOR)
    monitor["spec"]["namespaceSelector"] = {"matchNames": ["other"]}
    (message,) = messages(POLICY, *stack(monitor=monitor))
    assert message.startswith("no PodMonitor or ServiceMonitor in this stack selects the pods of Deployment/chat-8b-predictor")


def test_match_expressions_are_understood():
    monitor = copy.deepcopy(_POD_MONITOR)
    monitor["spec"]["selector"] = {
        "matchExpressions": [
            {"key": "component", "operator": "In", "values": ["predictor"]},
            {"key": "serving.kserve.io/inferenceservice", "operator": "Exists"},
        ]
    }
    assert messages(POLICY, *stack(monitor=monitor)) == []


def test_service_monitor_through_a_service_selecting_a_deployment():
    deployment = deployment_props()
    hpa = hpa_props()
    hpa["spec"]["scaleTargetRef"]["name"] = "chat-8b-raw"
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "chat", "namespace": "llm", "labels": {"app": "vllm"}},
        "spec": {"selector": {"app.kubernetes.io/instance": "chat-8b"}, "ports": [{"name": "http", "port": 8080}]},
    }
    service_monitor = {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "ServiceMonitor",
        "metadata": {"name": "vllm", "namespace": "llm"},
        "spec": {"selector": {"matchLabels": {"app": "vllm"}}, "endpoints": [{"port": "http"}]},
    }
    resources = [
        resource("kubernetes:apps/v1:Deployment", deployment),
        resource(HPA_TYPE, hpa),
        resource(RELEASE_TYPE, copy.deepcopy(_ADAPTER), name="adapter"),
        resource("kubernetes:v1:Service", service),
        resource(SERVICE_MONITOR_TYPE, service_monitor),
    ]
    assert messages(POLICY, *resources) == []
    service["metadata"]["labels"] = {"app": "other"}
    (message,) = messages(POLICY, *resources)
    assert message.startswith("no PodMonitor or ServiceMonitor in this stack selects the pods of Deployment/chat-8b-raw")


def test_scaled_object_needs_a_monitor_but_no_adapter():
    so = scaled_object_props()
    assert (
        messages(POLICY, isvc(), resource(SCALED_OBJECT_TYPE, so), resource(POD_MONITOR_TYPE, copy.deepcopy(_POD_MONITOR))) == []
    )
    monitor = copy.deepcopy(_POD_MONITOR)
    monitor["spec"]["selector"] = {"matchLabels": {"app": "nothing"}}
    (message,) = messages(POLICY, isvc(), resource(SCALED_OBJECT_TYPE, so), resource(POD_MONITOR_TYPE, monitor))
    assert message.startswith("no PodMonitor or ServiceMonitor in this stack selects the pods of Deployment/chat-8b-predictor")


def test_exemption_with_reason():
    hpa = hpa_props()
    hpa["spec"]["metrics"][0]["pods"]["metric"]["name"] = "served_elsewhere"
    hpa["metadata"]["annotations"] = {"llm-serving.io/exempt-hpa-custom-metric-is-served": "cluster adapter serves it"}
    assert messages(POLICY, *stack(hpa=hpa)) == []


def test_an_alias_bomb_in_an_adapter_config_map_is_refused_quickly():
    bomb = (
        "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        + "".join(
            f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
            f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
            for i in range(9)
        )
        + "rules: [{seriesQuery: x}]\n"
    )
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "adapter-config"}, "data": {"config.yaml": bomb}}
    # Unreadable within bounds: not an adapter configuration, so the set has none: only the no-adapter advice.
    assert messages(POLICY, isvc(), resource(HPA_TYPE, hpa_props()), resource("kubernetes:v1:ConfigMap", cm)) == [NO_ADAPTER]


def _kandakji(image: str, *args: str) -> list[dict]:
    # Minimal form of kandakji/sample-aws-eks-auto-mode examples/gpu/prometheus-scaledObject.yaml and
    # model-qwen3-4b-instruct-fp8.yaml at b8611f035f22800aad42b6966a9a8390ee306031 (spent set 35): a KEDA prometheus
    # trigger on sum({__name__=~"vllm:gpu_cache_usage_perc"}) scaling the vLLM Deployment qwen3-4b-instruct-fp8.
    container = {"name": "vllm", "image": image, "args": ["--model", "Qwen/Qwen3-4B-Instruct-2507-FP8", *args]}
    container["resources"] = {"limits": {"nvidia.com/gpu": 1}}
    labels = {"app": "qwen3-4b-instruct-fp8"}
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "qwen3-4b-instruct-fp8", "namespace": "vllm-inference"},
        "spec": {
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [container]}},
        },
    }
    trigger = {
        "type": "prometheus",
        "metadata": {
            "serverAddress": "http://prometheus-operated.monitoring.svc:9090",
            "query": 'sum({__name__=~"vllm:gpu_cache_usage_perc"})',
            "threshold": "0.1",
        },
    }
    scaled = {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": "vllm-scaledobject", "namespace": "vllm-inference"},
        "spec": {"scaleTargetRef": {"name": "qwen3-4b-instruct-fp8"}, "maxReplicaCount": 2, "triggers": [trigger]},
    }
    return [scaled, deployment]


POLICY_NAME = "hpa-custom-metric-is-served"
_DIGEST = "vllm/vllm-openai@sha256:0b51ec38fb965b44f6aa75d8d847c5f21bc062b7140e1d83444b39b67fc4a2ea"


def test_a_retired_vllm_family_in_a_keda_query():
    # The digest names no release: advice.
    ((level, message),) = found_by(_kandakji(_DIGEST), "hpa-custom-metric-is-served")
    assert level == "advisory" and "names vllm:gpu_cache_usage_perc, which vLLM renamed vllm:kv_cache_usage_perc" in message
    # A release that hides it, or the moving tag: blocks.
    for image in ("vllm/vllm-openai:v0.11.0", "vllm/vllm-openai:latest"):
        assert [lv for lv, _ in found_by(_kandakji(image), "hpa-custom-metric-is-served")] == ["mandatory"], image
    # A rebuild's moving tag names no vLLM release: advice (set 41, rajyadav9/mlops k8s/vllm/deployment.yaml@37bc3e2 runs
    # ACCOUNT_ID.dkr.ecr.REGION.amazonaws.com/vllm-inference:latest under a KEDA query on this family; measured blocking
    # at the freeze, a wrong block). A registry mirror of vLLM's own image keeps its meaning.
    rebuild = "123456789012.dkr.ecr.us-east-1.amazonaws.com/vllm-inference:latest"
    assert [lv for lv, _ in found_by(_kandakji(rebuild), "hpa-custom-metric-is-served")] == ["advisory"]
    # Nor does a rebuild's version tag name vLLM's (review 43 #1): v1.4.2 of acme's image is no vLLM 1.4.2.
    versioned = "registry.example.com/ml/vllm-server:v1.4.2"
    assert [lv for lv, _ in found_by(_kandakji(versioned), "hpa-custom-metric-is-served")] == ["advisory"]
    mirror = "registry.example.com/vllm/vllm-openai:latest"
    assert [lv for lv, _ in found_by(_kandakji(mirror), "hpa-custom-metric-is-served")] == ["mandatory"]
    # The careful forms: a release that still exports it, a server that keeps hidden families.
    assert found_by(_kandakji("vllm/vllm-openai:v0.10.1"), "hpa-custom-metric-is-served") == []
    kept = _kandakji("vllm/vllm-openai:v0.11.0", "--show-hidden-metrics-for-version=0.10")
    assert found_by(kept, "hpa-custom-metric-is-served") == []


def test_the_hidden_metrics_flag_keeps_a_retired_family_only_on_the_release_after_its_named_minor():
    # review 43 #9: the PyPI wheels' vllm/version.py:17-34 (0.11.0) shows hidden metrics only for the previous minor
    # ("0.10" on 0.11.x), and the 0.12.0 and 0.13.0 loggers.py define no vllm:gpu_cache_usage_perc at all.
    def levels(image, value):
        return [lv for lv, _ in found_by(_kandakji(image, f"--show-hidden-metrics-for-version={value}"), POLICY_NAME)]

    assert levels("vllm/vllm-openai:v0.12.0", "0.11") == ["mandatory"]
    assert levels("vllm/vllm-openai:v0.13.0", "0.10") == ["mandatory"]
    assert levels("vllm/vllm-openai:latest", "0.10") == ["mandatory"]
    assert levels("vllm/vllm-openai:v0.11.0", "0.9") == ["mandatory"]
    # The release unknown (a digest): the one value that ever shows the family keeps it silent, another is advice.
    assert levels(_DIGEST, "0.10") == []
    assert levels(_DIGEST, "0.9") == ["advisory"]
    # The careful form: 0.11.x told "0.10" still creates it.
    assert levels("vllm/vllm-openai:v0.11.2", "0.10") == []


def _ayeni(image: str) -> list[dict]:
    # Minimal form of AyeniOluwatosinOlawale/vllm-k8s-stack vllm/hpa.yaml and vllm/deployment.yaml at
    # 7e0cb853d5903e9d644d6f6e0797dee5acb54500 (spent set 15): a Prometheus Adapter ConfigMap whose rule serves
    # vllm:gpu_cache_usage_perc, beside the vLLM Deployment it watches (vllm/vllm-openai:v0.6.3 there).
    rules = (
        "rules:\n"
        "  - seriesQuery: 'vllm:gpu_cache_usage_perc{namespace=\"llm-serving\"}'\n"
        "    resources: {overrides: {namespace: {resource: namespace}, pod: {resource: pod}}}\n"
        '    name: {matches: "^vllm:(.*)$", as: "vllm_${1}"}\n'
        "    metricsQuery: 'avg(<<.Series>>{<<.LabelMatchers>>}) by (<<.GroupBy>>)'\n"
    )
    adapter = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "prometheus-adapter-config", "namespace": "monitoring"},
        "data": {"config.yaml": rules},
    }
    container = {"name": "vllm", "image": image, "args": ["--model", "Qwen/Qwen2.5-0.5B-Instruct"]}
    container["resources"] = {"limits": {"nvidia.com/gpu": 1}}
    labels = {"app": "vllm"}
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "vllm", "namespace": "llm-serving"},
        "spec": {
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [container]}},
        },
    }
    return [adapter, deployment]


def test_an_adapter_rule_on_a_retired_vllm_family():
    ((level, message),) = found_by(_ayeni("vllm/vllm-openai:v0.11.0"), "hpa-custom-metric-is-served")
    assert level == "advisory" and message.startswith("adapter rule rules[0] queries vllm:gpu_cache_usage_perc")
    # The spent-set file as written: its v0.6.3 server still exports the family.
    assert found_by(_ayeni("vllm/vllm-openai:v0.6.3"), "hpa-custom-metric-is-served") == []


# Spent set 44: ShivSingh96/litellm-gateway-demo keda/scaledobject.yaml (labelled S7): a prometheus trigger on
# sum(rate(litellm_requests_total[1m])); LiteLLM counts requests as litellm_requests_metric(_total) and
# litellm_proxy_total_requests_metric(_total) (its wheels' litellm/integrations/prometheus.py, components/litellm_metrics.json).
def _litellm_scaler(query: str) -> dict:
    return {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": "litellm-gateway", "namespace": "llm-gateway"},
        "spec": {
            "scaleTargetRef": {"name": "litellm"},
            "triggers": [
                {
                    "type": "prometheus",
                    "metadata": {"serverAddress": "http://prometheus:9090", "query": query, "threshold": "50"},
                }
            ],
        },
    }


def test_a_litellm_series_litellm_does_not_export_is_advice():
    found = [f for f in found_by([_litellm_scaler("sum(rate(litellm_requests_total[1m]))")], POLICY_NAME) if "LiteLLM" in f[1]]
    assert [lv for lv, _ in found] == ["advisory"] and "litellm_requests_metric_total" in found[0][1]
    # Same class, another name public dashboards and guides use for LiteLLM's latency (no such histogram).
    query = "histogram_quantile(0.95, sum(rate(litellm_request_duration_seconds_bucket[5m])) by (le))"
    assert [lv for lv, m in found_by([_litellm_scaler(query)], POLICY_NAME) if "LiteLLM" in m] == ["advisory"]


def test_exported_litellm_series_stay_silent():
    for query in (
        "sum(rate(litellm_proxy_total_requests_metric_total[1m]))",
        "sum(rate(litellm_requests_metric_total[2m]))",
        "histogram_quantile(0.9, sum(rate(litellm_request_total_latency_metric_bucket[5m])) by (le))",
        "sum(litellm_redis_latency_count)",  # a per-service histogram (prometheus_services.py)
        "sum(litellm_in_flight_requests)",
    ):
        assert [m for _, m in found_by([_litellm_scaler(query)], POLICY_NAME) if "LiteLLM" in m] == [], query
