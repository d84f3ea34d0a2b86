"""S7 widened (alert-metric-is-exported): alerting and analysis queries that spell an engine series as the engine does
not export it (advice). Minimal hand-written shapes of the cited files (only the queries the rule reads)."""

from __future__ import annotations

from policy_fixtures import found_by

POLICY = "alert-metric-is-exported"


def _rule(name: str, *rules: dict) -> dict:
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": {"name": name},
        "spec": {"groups": [{"name": name, "rules": list(rules)}]},
    }


# Set 17: kevinmeix1/kserve-model-serving-platform kserve/llm-inference-readiness.yaml (PrometheusRule
# policy-assistant-llm-readiness).
KEVIN = _rule(
    "policy-assistant-llm-readiness",
    {"alert": "TTFT", "expr": "histogram_quantile(0.95, sum(rate(vllm_time_to_first_token_seconds_bucket[5m])) by (le)) > 0.9"},
    {"alert": "PrefixCacheLow", "expr": 'avg(vllm_prefix_cache_hit_rate{model="policy-assistant-7b"}) < 0.65'},
)


def test_an_alert_on_an_underscore_spelling_of_a_vllm_series_is_advice():
    (first, second) = found_by([KEVIN], POLICY)
    assert first == (
        "advisory",
        "spec.groups[0].rules[0].expr names vllm_time_to_first_token_seconds_bucket, which vllm does not export: it "
        "exports vllm:time_to_first_token_seconds_bucket (Prometheus keeps the colon), so the query selects no series "
        "and the alert never fires (an analysis gets no result); query vllm:time_to_first_token_seconds_bucket",
    )
    assert second[0] == "advisory" and "names vllm_prefix_cache_hit_rate, a vllm metric spelled with an underscore" in second[1]


def test_canary_analyses_and_rules_files_in_config_maps_are_read():
    # The form of the Argo Rollouts docs' success-rate analysis, over a vLLM counter written without its colon (a
    # spelling the code search finds throughout published dashboards and runbooks: rate(vllm_request_success_total[5m])).
    analysis = {
        "apiVersion": "argoproj.io/v1alpha1",
        "kind": "AnalysisTemplate",
        "metadata": {"name": "canary-health"},
        "spec": {"metrics": [{"name": "ok", "provider": {"prometheus": {"query": "sum(rate(vllm_request_success_total[5m]))"}}}]},
    }
    ((level, message),) = found_by([analysis], POLICY)
    assert level == "advisory" and message.startswith(
        "spec.metrics[0].provider.prometheus.query names vllm_request_success_total, which vllm does not export: it "
        "exports vllm:request_success_total"
    )
    rules_file = "groups:\n- name: vllm\n  rules:\n  - alert: Queue\n    expr: max(vllm_num_requests_waiting) > 50\n"
    config_map = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "prometheus-rules"},
        "data": {"vllm.rules": rules_file},
    }
    ((level, message),) = found_by([config_map], POLICY)
    assert message.startswith("data[vllm.rules].groups[0].rules[0].expr names vllm_num_requests_waiting")
    flagger = {
        "apiVersion": "flagger.app/v1beta1",
        "kind": "MetricTemplate",
        "metadata": {"name": "queue"},
        "spec": {"provider": {"type": "prometheus"}, "query": "sum(vllm_num_requests_running)"},
    }
    assert [lv for lv, _ in found_by([flagger], POLICY)] == ["advisory"]


def test_colon_spellings_and_recorded_names_stay_silent():
    careful = _rule(
        "vllm-metric-alerts",
        {"alert": "Up", "expr": "rate(vllm:request_success_total[1m]) >= 0"},
        {"alert": "TTFT", "expr": "histogram_quantile(0.99, sum by (le) (rate(vllm:time_to_first_token_seconds_bucket[5m])))"},
    )
    assert found_by([careful], POLICY) == []
    recorded = _rule(
        "recorded",
        {"record": "vllm_num_requests_waiting", "expr": "sum by (pod) (vllm:num_requests_waiting)"},
        {"alert": "Queue", "expr": "max(vllm_num_requests_waiting) > 50"},
    )
    assert found_by([recorded], POLICY) == []
    # A Grafana dashboard or any other ConfigMap text is not a rules file.
    dashboard = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "d"}, "data": {"d.json": '{"expr": "vllm_x"}'}}
    assert found_by([dashboard], POLICY) == []
