"""Autoscaling builders: HPA / ScaledObject, PodMonitor, PrometheusRule and the metrics Helm releases."""

from __future__ import annotations

import pytest
import yaml

from components.builders import autoscaling as scale
from components.builders import monitoring as mon
from components.builders import prometheus_adapter as metrics
from components.builders import vllm_service as vllm
from components.capacity.plan import plan_stack
from components.config import load_stack_config
from components.errors import ConfigError
from tests.chart_values import unknown_value_paths
from tests.conftest import shared_path, stack_config
from tests.kube_schemas import validate_object


@pytest.fixture(scope="module")
def prod():
    cfg = load_stack_config(stack_config("prod"))
    return cfg, plan_stack(cfg)


def model(prod, name):
    cfg, plans = prod
    m = next(m for m in cfg.models if m.name == name)
    return m, plans[name]


def test_hpa_scales_the_predictor_on_the_pods_metric_at_the_plans_target(prod):
    cfg, _ = prod
    m, plan = model(prod, "chat-8b")
    hpa = scale.horizontal_pod_autoscaler(m, plan, cfg.namespace)
    spec = hpa["spec"]
    assert spec["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "chat-8b-predictor"}
    assert (spec["minReplicas"], spec["maxReplicas"]) == (2, 8)
    (metric,) = spec["metrics"]
    assert metric == {
        "type": "Pods",
        "pods": {
            "metric": {"name": "vllm_requests_in_flight_chat_8b"},
            "target": {"type": "AverageValue", "averageValue": str(plan.target_in_flight_per_pod)},
        },
    }
    assert validate_object(hpa) == []


def test_behavior_scales_up_at_once_and_down_slowly(prod):
    m, plan = model(prod, "chat-8b")
    b = scale.horizontal_pod_autoscaler(m, plan, "llm")["spec"]["behavior"]
    assert b["scaleUp"]["stabilizationWindowSeconds"] == 0
    assert {p["type"]: p["value"] for p in b["scaleUp"]["policies"]} == {"Percent": 100, "Pods": 4}
    assert b["scaleDown"]["stabilizationWindowSeconds"] == 300
    assert b["scaleDown"]["selectPolicy"] == "Min"
    assert {p["type"]: (p["value"], p["periodSeconds"]) for p in b["scaleDown"]["policies"]} == {
        "Percent": (10, 60),
        "Pods": (1, 60),
    }


def test_the_user_stabilization_window_reaches_the_hpa():
    raw = stack_config("dev")
    raw["llm-serving:models"][0]["autoscaling"] = {"scaleDownStabilizationSeconds": 600}
    cfg = load_stack_config(raw)
    m = cfg.models[0]
    hpa = scale.horizontal_pod_autoscaler(m, plan_stack(cfg)[m.name], cfg.namespace)
    assert hpa["spec"]["behavior"]["scaleDown"]["stabilizationWindowSeconds"] == 600


def test_keda_scaled_object_has_the_same_signal_target_and_behavior(prod):
    cfg, _ = prod
    m, plan = model(prod, "qwen3-32b")
    assert m.autoscaling.backend == "keda"
    so = scale.scaled_object(m, plan, cfg.namespace, metrics.prometheus_url(cfg.monitoring))
    hpa = scale.horizontal_pod_autoscaler(m, plan, cfg.namespace)
    spec = so["spec"]
    assert spec["scaleTargetRef"] == hpa["spec"]["scaleTargetRef"]
    assert (spec["minReplicaCount"], spec["maxReplicaCount"]) == (2, 3)
    assert spec["advanced"]["horizontalPodAutoscalerConfig"]["behavior"] == hpa["spec"]["behavior"]
    (trigger,) = spec["triggers"]
    assert trigger["type"] == "prometheus" and trigger["metricType"] == "AverageValue"
    assert trigger["metadata"]["threshold"] == hpa["spec"]["metrics"][0]["pods"]["target"]["averageValue"]
    assert trigger["metadata"]["query"] == f"sum({scale.in_flight_per_pod_query('qwen3-32b', 'llm')})"
    assert trigger["metadata"]["serverAddress"] == "http://prometheus-operated.monitoring.svc:9090"
    assert validate_object(so) == []


def test_the_inference_service_keeps_the_external_autoscaler_class(prod):
    cfg, plans = prod
    for m in cfg.models:
        isvc = vllm.inference_service(m, plans[m.name], cfg.namespace, m.pool, None)
        assert isvc["metadata"]["annotations"]["serving.kserve.io/autoscalerClass"] == "external"
        # The HPA's bounds and KServe's agree (one source: the model's replicas).
        assert (isvc["spec"]["predictor"]["minReplicas"], isvc["spec"]["predictor"]["maxReplicas"]) == (
            m.replicas.min,
            m.replicas.max,
        )


def test_adapter_rule_serves_the_metric_the_hpa_asks_for_scoped_to_the_model(prod):
    cfg, _ = prod
    m, plan = model(prod, "chat-8b")
    rule = metrics.adapter_rule(m, cfg.namespace)
    hpa = scale.horizontal_pod_autoscaler(m, plan, cfg.namespace)
    assert rule["name"]["as"] == hpa["spec"]["metrics"][0]["pods"]["metric"]["name"]
    assert ":" not in rule["name"]["as"]
    assert rule["seriesQuery"] == 'vllm:num_requests_running{namespace="llm",model_name="chat-8b",pod!=""}'
    assert rule["resources"]["overrides"] == {"namespace": {"resource": "namespace"}, "pod": {"resource": "pod"}}
    assert 'model_name="chat-8b"' in rule["metricsQuery"] and "vllm:num_requests_waiting" in rule["metricsQuery"]


def test_adapter_values_list_only_adapter_backed_models(prod):
    cfg, _ = prod
    values = metrics.adapter_values(cfg.models, cfg.namespace, cfg.monitoring)
    assert [r["name"]["as"] for r in values["rules"]["custom"]] == [
        "vllm_requests_in_flight_chat_8b",
        "vllm_requests_in_flight_llama_70b",
    ]
    assert values["rules"]["default"] is False
    assert values["prometheus"] == {"url": "http://prometheus-operated.monitoring.svc", "port": 9090, "path": ""}


def test_prometheus_location_comes_from_the_stack():
    dev = load_stack_config(stack_config("dev"))
    assert metrics.installs_prometheus(dev.monitoring)
    assert metrics.prometheus_url(dev.monitoring) == "http://kube-prometheus-prometheus.monitoring.svc:9090"
    names = [r["chart"] for r in metrics.metrics_releases(dev.models, dev.namespace, dev.monitoring)]
    assert names == ["kube-prometheus-stack", "prometheus-adapter"]
    prod = load_stack_config(stack_config("prod"))
    assert [r["chart"] for r in metrics.metrics_releases(prod.models, prod.namespace, prod.monitoring)] == [
        "prometheus-adapter",
        "keda",
    ]


@pytest.mark.parametrize("stack", ["dev", "staging", "prod"])
def test_helm_values_exist_in_the_pinned_charts(stack):
    cfg = load_stack_config(stack_config(stack))
    for rel in metrics.metrics_releases(cfg.models, cfg.namespace, cfg.monitoring):
        chart_dir = shared_path("charts", rel["chart"], rel["version"])
        chart = yaml.safe_load((chart_dir / "Chart.yaml").read_text())
        assert (chart["name"], chart["version"]) == (rel["chart"], rel["version"])
        defaults = yaml.safe_load((chart_dir / "values.yaml").read_text())
        assert unknown_value_paths(rel["values"], defaults) == [], rel["chart"]


def test_adapter_rules_match_the_chart_rule_shape():
    # rules.custom is a list in the chart's defaults; each rule has the documented four parts.
    defaults = yaml.safe_load((shared_path("charts", "prometheus-adapter", "5.3.0") / "values.yaml").read_text())
    assert defaults["rules"]["custom"] == [] and defaults["rules"]["default"] is True
    cfg = load_stack_config(stack_config("dev"))
    (rule,) = metrics.adapter_values(cfg.models, cfg.namespace, cfg.monitoring)["rules"]["custom"]
    assert set(rule) == {"seriesQuery", "resources", "name", "metricsQuery"}


def test_pod_monitor_selects_the_predictor_pods_on_the_vllm_port(prod):
    cfg, _ = prod
    m, plan = model(prod, "chat-8b")
    pm = mon.pod_monitor(m, cfg.namespace, cfg.monitoring.prometheus.monitor_labels)
    isvc = vllm.inference_service(m, plan, cfg.namespace, m.pool, None)
    port_names = {p["name"] for p in isvc["spec"]["predictor"]["containers"][0]["ports"]}
    assert pm["spec"]["selector"] == {"matchLabels": {"serving.kserve.io/inferenceservice": "chat-8b"}}
    assert pm["spec"]["podMetricsEndpoints"][0]["port"] in port_names
    assert pm["metadata"]["labels"]["release"] == "kube-prometheus-stack"
    assert validate_object(pm) == []


def test_prometheus_rule_has_every_alert_with_thresholds_from_config_slo_and_plan(prod):
    cfg, _ = prod
    m, plan = model(prod, "qwen3-32b")
    pr = mon.prometheus_rule(m, plan, cfg.namespace, cfg.monitoring.alerts, {})
    (group,) = pr["spec"]["groups"]
    rules = {r["alert"]: r for r in group["rules"]}
    assert tuple(rules) == mon.ALERTS
    assert rules["LlmTimeToFirstTokenAboveSlo"]["expr"].endswith("> 8")
    assert rules["LlmQueueBuildingUp"]["expr"].endswith(f"> {plan.max_num_queued_reqs * 0.5:g}")
    assert rules["LlmKvCacheNearlyFull"]["expr"].startswith("max by (namespace, pod) (vllm:kv_cache_usage_perc{")
    assert "gpu_cache_usage_perc" not in str(pr)
    assert 'horizontalpodautoscaler="keda-hpa-qwen3-32b"' in rules["LlmAutoscalerAtMaxReplicas"]["expr"]
    assert rules["LlmAutoscalerAtMaxReplicas"]["for"] == "900s"
    assert validate_object(pr) == []


def test_a_target_above_what_one_replica_holds_is_refused_naming_field_and_capacity():
    raw = stack_config("dev")
    raw["llm-serving:models"][0]["autoscaling"] = {"targetInFlightPerPod": 1000}
    cfg = load_stack_config(raw)
    with pytest.raises(ConfigError) as err:
        plan_stack(cfg)
    (problem,) = err.value.problems
    assert problem.path == "models[0].autoscaling.targetInFlightPerPod"
    assert "exceeds what one replica can hold: maxNumSeqs 88 + maxNumQueuedReqs 22 = 110 requests in flight" in str(err.value)


def test_a_target_equal_to_what_one_replica_holds_is_accepted():
    raw = stack_config("dev")
    raw["llm-serving:models"][0]["autoscaling"] = {"targetInFlightPerPod": 110}
    cfg = load_stack_config(raw)
    assert plan_stack(cfg)["chat-8b"].target_in_flight_per_pod == 110
