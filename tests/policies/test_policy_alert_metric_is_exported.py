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


# Set 35: nbethala/triton-mlops-gpu-platform infra/terraform/modules/monitoring/alert-rules/triton-alerts.yaml at
# bf014c4af02650b501ce89551e8a9f98a988b6bb: Triton exports nv_inference_request_duration_us and nv_inference_count.
NBETHALA = _rule(
    "triton-alerts",
    {"alert": "TritonHighLatency", "expr": "avg(triton_server_request_duration_us) > 2000000"},
    {"alert": "TritonLowBatching", "expr": "rate(triton_server_inference_count[2m]) < 5"},
    {"alert": "TritonServerDown", "expr": 'up{job="triton"} == 0'},
)


def test_a_triton_series_under_the_engines_own_name_is_advice():
    (first, second) = found_by([NBETHALA], POLICY)
    assert first[0] == second[0] == "advisory"
    assert "names triton_server_request_duration_us, which Triton Inference Server does not export" in first[1]
    assert "its series are named nv_..." in first[1] and "triton_server_inference_count" in second[1]
    # The careful form: Triton's own names, and a name a recording rule of the files defines.
    careful = _rule(
        "triton-alerts",
        {"alert": "TritonHighLatency", "expr": "rate(nv_inference_request_duration_us[5m]) > 2000000"},
        {"alert": "TritonLowBatching", "expr": "rate(triton_server_inference_count[2m]) < 5"},
        {"record": "triton_server_inference_count", "expr": "sum(nv_inference_count)"},
    )
    assert found_by([careful], POLICY) == []


def _vllm(image: str, *args: str) -> dict:
    container = {"name": "vllm", "image": image, "args": ["--model", "Qwen/Qwen3-4B", *args]}
    container["resources"] = {"limits": {"nvidia.com/gpu": 1}}
    spec = {"containers": [container]}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "vllm"},
        "spec": {
            "selector": {"matchLabels": {"app": "vllm"}},
            "template": {"metadata": {"labels": {"app": "vllm"}}, "spec": spec},
        },
    }


def test_an_alert_on_a_retired_vllm_family_is_advice_unless_the_servers_export_it():
    alert = _rule("kv", {"alert": "KVFull", "expr": "avg(vllm:gpu_cache_usage_perc) > 0.9"})
    ((level, message),) = found_by([alert, _vllm("vllm/vllm-openai:v0.11.0")], POLICY)
    assert level == "advisory" and "renamed vllm:kv_cache_usage_perc in 0.9.2" in message
    assert [lv for lv, _ in found_by([alert], POLICY)] == ["advisory"]
    # A release that still exports it, or a server that keeps hidden families: silent.
    assert found_by([alert, _vllm("vllm/vllm-openai:v0.10.1")], POLICY) == []
    kept = _vllm("vllm/vllm-openai:v0.11.0", "--show-hidden-metrics-for-version=0.10")
    assert found_by([alert, kept], POLICY) == []
    # The flag brings nothing back on 0.12 or later (no such family in those wheels), nor on 0.11 for another minor.
    for image, value in (("vllm/vllm-openai:v0.12.0", "0.11"), ("vllm/vllm-openai:v0.11.0", "0.9")):
        shown = _vllm(image, f"--show-hidden-metrics-for-version={value}")
        assert [lv for lv, _ in found_by([alert, shown], POLICY)] == ["advisory"], image


def test_a_retired_family_is_judged_against_the_servers_of_the_querys_namespace():
    alert = _rule("kv", {"alert": "KVFull", "expr": 'avg(vllm:gpu_cache_usage_perc{namespace="llm"}) > 0.9'})
    old, new = _vllm("vllm/vllm-openai:v0.10.1"), _vllm("vllm/vllm-openai:v0.11.0")
    old["metadata"]["namespace"], new["metadata"]["namespace"] = "llm", "other"
    # The server of namespace llm still exports it; another namespace's newer server is not the one queried.
    assert found_by([alert, old, new], POLICY) == []


def test_an_alert_on_a_series_litellm_does_not_export_is_advice():
    # The same class as the set-44 KEDA trigger (litellm_requests_total), in an alerting rule; a recording rule of the
    # files that defines the name, and LiteLLM's own counter, stay silent.
    rule = _rule("litellm", {"alert": "LiteLLMErrors", "expr": "sum(rate(litellm_requests_total{status='error'}[5m])) > 1"})
    ((level, message),) = found_by([rule], POLICY)
    assert level == "advisory" and "LiteLLM's Prometheus integration does not export" in message
    recorded = _rule(
        "litellm",
        {"record": "litellm_requests_total", "expr": "sum(rate(litellm_proxy_total_requests_metric_total[5m]))"},
        {"alert": "LiteLLMErrors", "expr": "litellm_requests_total > 1"},
    )
    assert found_by([recorded], POLICY) == []
