"""The generated PrometheusRules under the real promtool: syntax of every group, and unit tests on synthetic vLLM series.

Each alert has a case where it fires and cases where it stays quiet (below threshold, too
brief, another model's series). Metric names are vLLM 0.33's (vllm-project/vllm v0.33.0 vllm/v1/metrics/loggers.py
section 1) and kube-state-metrics'.
"""

from __future__ import annotations

import copy

import pytest

from components.builders import monitoring as mon
from components.capacity.plan import plan_stack
from components.config import load_stack_config
from tests import promtool
from tests.conftest import stack_config


def _rules(stack: str):
    cfg = load_stack_config(stack_config(stack))
    plans = plan_stack(cfg)
    return (
        cfg,
        plans,
        {m.name: mon.prometheus_rule(m, plans[m.name], cfg.namespace, cfg.monitoring.alerts, {}) for m in cfg.models},
    )


@pytest.mark.parametrize("stack", ["dev", "staging", "prod"])
def test_promtool_check_rules_accepts_every_generated_group(stack, tmp_path):
    cfg, _, rules = _rules(stack)
    multi_node = {m.name for m in cfg.models if m.distributed is not None}
    for name, pr in rules.items():
        path = promtool.write_yaml(tmp_path / f"{name}.yaml", pr["spec"])
        proc = promtool.run("check", "rules", path.name, cwd=tmp_path)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        # A multi-node model has no autoscaler, so no LlmAutoscalerAtMaxReplicas.
        expected = len(mon.ALERTS) - (1 if name in multi_node else 0)
        assert f"SUCCESS: {expected} rules found" in proc.stdout


def test_promtool_check_rules_is_not_a_rubber_stamp(tmp_path):
    _, _, rules = _rules("dev")
    broken = copy.deepcopy(rules["chat-8b"]["spec"])
    broken["groups"][0]["rules"][0]["expr"] = "sum by (pod) (vllm:num_requests_waiting{"
    proc = promtool.run("check", "rules", promtool.write_yaml(tmp_path / "bad.yaml", broken).name, cwd=tmp_path)
    assert proc.returncode != 0


# dev's chat-8b: namespace llm, maxNumQueuedReqs 22 (queue alert above 11), TTFT SLO 5 s, max 2 replicas.
NS, MODEL = "llm", "chat-8b"
POD = "chat-8b-predictor-7d9f8-abcde"
OTHER_POD = "chat-8b-predictor-7d9f8-fghij"
VLLM = f'namespace="{NS}",model_name="{MODEL}",engine="0"'
KSM = f'namespace="{NS}",container="kserve-container"'


def _series(name: str, labels: str, values: str) -> dict:
    return {"series": f"{name}{{{labels}}}", "values": values}


def _expected(alert: str, **labels: str) -> dict:
    return {"exp_labels": {"model": MODEL, "namespace": NS, "severity": _severity(alert), **labels}}


def _severity(alert: str) -> str:
    return "critical" if alert in ("LlmPodRestarting", "LlmPodOOMKilled", "LlmAdmissionRejections") else "warning"


def _ttft_buckets(pod: str, model: str, seconds_bucket: str) -> list[dict]:
    """60 requests a minute, all landing in the bucket whose upper bound is ``seconds_bucket``."""
    bounds = ["0.5", "1", "2.5", "5", "10", "20", "+Inf"]
    out = []
    for le in bounds:
        rising = bounds.index(le) >= bounds.index(seconds_bucket)
        out.append(
            _series(
                "vllm:time_to_first_token_seconds_bucket",
                f'namespace="{NS}",model_name="{model}",engine="0",pod="{pod}",le="{le}"',
                "0+60x30" if rising else "0x30",
            )
        )
    return out


# (alert, input series, eval time, expected firing alerts)
CASES = {
    "LlmQueueBuildingUp": [
        (
            "fires: 15 waiting (> 11) for 10 min",
            [_series("vllm:num_requests_waiting", f'{VLLM},pod="{POD}"', "15x20")],
            "10m",
            [_expected("LlmQueueBuildingUp", pod=POD)],
        ),
        ("quiet: 8 waiting", [_series("vllm:num_requests_waiting", f'{VLLM},pod="{POD}"', "8x20")], "10m", []),
        (
            "quiet: 15 waiting for 2 min only",
            [_series("vllm:num_requests_waiting", f'{VLLM},pod="{POD}"', "0x5 15x2 0x10")],
            "8m",
            [],
        ),
        (
            "quiet: another model's queue",
            [_series("vllm:num_requests_waiting", f'namespace="{NS}",model_name="qwen3-8b",engine="0",pod="q"', "50x20")],
            "10m",
            [],
        ),
    ],
    "LlmKvCacheNearlyFull": [
        (
            "fires: 97% used",
            [_series("vllm:kv_cache_usage_perc", f'{VLLM},pod="{POD}"', "0.97x20")],
            "10m",
            [_expected("LlmKvCacheNearlyFull", pod=POD)],
        ),
        ("quiet: 90% used", [_series("vllm:kv_cache_usage_perc", f'{VLLM},pod="{POD}"', "0.9x20")], "10m", []),
        (
            "quiet: only the removed pre-0.10 name",
            [_series("vllm:gpu_cache_usage_perc", f'{VLLM},pod="{POD}"', "0.99x20")],
            "10m",
            [],
        ),
    ],
    "LlmPreemptions": [
        (
            "fires: 10 preemptions a minute",
            [_series("vllm:num_preemptions_total", f'{VLLM},pod="{POD}"', "0+10x30")],
            "15m",
            [_expected("LlmPreemptions")],
        ),
        ("quiet: counter flat", [_series("vllm:num_preemptions_total", f'{VLLM},pod="{POD}"', "7x30")], "15m", []),
    ],
    "LlmPodRestarting": [
        (
            "fires: one restart",
            [_series("kube_pod_container_status_restarts_total", f'{KSM},pod="{POD}"', "0x10 1x20")],
            "15m",
            [_expected("LlmPodRestarting", pod=POD)],
        ),
        (
            "quiet: restarts long ago",
            [_series("kube_pod_container_status_restarts_total", f'{KSM},pod="{POD}"', "3x40")],
            "30m",
            [],
        ),
        (
            "quiet: another workload's pod",
            [_series("kube_pod_container_status_restarts_total", f'{KSM},pod="qwen3-8b-predictor-1-x"', "0x10 4x20")],
            "15m",
            [],
        ),
    ],
    "LlmPodOOMKilled": [
        (
            "fires: restarted after an OOM kill",
            [
                _series("kube_pod_container_status_restarts_total", f'{KSM},pod="{POD}"', "0x10 1x20"),
                _series("kube_pod_container_status_last_terminated_reason", f'{KSM},pod="{POD}",reason="OOMKilled"', "0x10 1x20"),
            ],
            "15m",
            [_expected("LlmPodOOMKilled", pod=POD)],
        ),
        (
            "quiet: restarted after a crash",
            [
                _series("kube_pod_container_status_restarts_total", f'{KSM},pod="{POD}"', "0x10 1x20"),
                _series("kube_pod_container_status_last_terminated_reason", f'{KSM},pod="{POD}",reason="Error"', "0x10 1x20"),
            ],
            "15m",
            [],
        ),
    ],
    "LlmTimeToFirstTokenAboveSlo": [
        (
            "fires: requests take 5-10 s to the first token",
            _ttft_buckets(POD, MODEL, "10"),
            "15m",
            [_expected("LlmTimeToFirstTokenAboveSlo")],
        ),
        ("quiet: first tokens within 1 s", _ttft_buckets(POD, MODEL, "1"), "15m", []),
        ("quiet: another model is slow", _ttft_buckets("q", "qwen3-8b", "20"), "15m", []),
    ],
    "LlmAdmissionRejections": [
        (
            "fires: 503s every minute",
            [
                _series(
                    "vllm:admission_rejections_total",
                    f'namespace="{NS}",model_name="{MODEL}",pod="{POD}",reason="max_num_queued_reqs"',
                    "0+5x30",
                )
            ],
            "15m",
            [_expected("LlmAdmissionRejections")],
        ),
        (
            "quiet: no new rejections",
            [
                _series(
                    "vllm:admission_rejections_total",
                    f'namespace="{NS}",model_name="{MODEL}",pod="{POD}",reason="max_num_queued_reqs"',
                    "12x30",
                )
            ],
            "15m",
            [],
        ),
    ],
    "LlmAutoscalerAtMaxReplicas": [
        (
            "fires: at 2 of 2 for 20 min",
            [
                _series(
                    "kube_horizontalpodautoscaler_status_current_replicas",
                    f'namespace="{NS}",horizontalpodautoscaler="{MODEL}"',
                    "2x30",
                ),
                _series(
                    "kube_horizontalpodautoscaler_spec_max_replicas",
                    f'namespace="{NS}",horizontalpodautoscaler="{MODEL}"',
                    "2x30",
                ),
            ],
            "20m",
            [_expected("LlmAutoscalerAtMaxReplicas", horizontalpodautoscaler=MODEL)],
        ),
        (
            "quiet: at max for 10 min only",
            [
                _series(
                    "kube_horizontalpodautoscaler_status_current_replicas",
                    f'namespace="{NS}",horizontalpodautoscaler="{MODEL}"',
                    "1x10 2x10",
                ),
                _series(
                    "kube_horizontalpodautoscaler_spec_max_replicas",
                    f'namespace="{NS}",horizontalpodautoscaler="{MODEL}"',
                    "2x30",
                ),
            ],
            "20m",
            [],
        ),
        (
            "quiet: 1 of 2",
            [
                _series(
                    "kube_horizontalpodautoscaler_status_current_replicas",
                    f'namespace="{NS}",horizontalpodautoscaler="{MODEL}"',
                    "1x30",
                ),
                _series(
                    "kube_horizontalpodautoscaler_spec_max_replicas",
                    f'namespace="{NS}",horizontalpodautoscaler="{MODEL}"',
                    "2x30",
                ),
            ],
            "20m",
            [],
        ),
    ],
}


def test_every_alert_has_unit_cases():
    assert set(CASES) == set(mon.ALERTS)
    for alert, cases in CASES.items():
        assert any(expected for *_, expected in cases) and any(not expected for *_, expected in cases), alert


def _rules_file(tmp_path, annotations: bool):
    _, _, rules = _rules("dev")
    spec = copy.deepcopy(rules[MODEL]["spec"])
    if not annotations:
        # Alert summaries embed $value (float formatting); the cases assert on labels, a separate test on the text.
        for rule in spec["groups"][0]["rules"]:
            rule.pop("annotations", None)
    return promtool.write_yaml(tmp_path / "rules.yaml", spec)


@pytest.mark.parametrize(
    "alert,case",
    [(alert, i) for alert, cases in CASES.items() for i in range(len(cases))],
    ids=[f"{alert}: {c[0]}" for alert, cases in CASES.items() for c in cases],
)
def test_promtool_unit_case(alert, case, tmp_path):
    _, series, at, expected = CASES[alert][case]
    _rules_file(tmp_path, annotations=False)
    doc = {
        "rule_files": ["rules.yaml"],
        "evaluation_interval": "1m",
        "tests": [
            {
                "interval": "1m",
                "input_series": series,
                "alert_rule_test": [{"eval_time": at, "alertname": alert, "exp_alerts": expected}],
            }
        ],
    }
    promtool.write_yaml(tmp_path / "test.yaml", doc)
    proc = promtool.run("test", "rules", "test.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "SUCCESS" in proc.stdout


def test_the_queue_alert_text_names_the_pod_and_the_queue(tmp_path):
    _rules_file(tmp_path, annotations=True)
    doc = {
        "rule_files": ["rules.yaml"],
        "evaluation_interval": "1m",
        "tests": [
            {
                "interval": "1m",
                "input_series": [_series("vllm:num_requests_waiting", f'{VLLM},pod="{POD}"', "15x20")],
                "alert_rule_test": [
                    {
                        "eval_time": "10m",
                        "alertname": "LlmQueueBuildingUp",
                        "exp_alerts": [
                            {
                                **_expected("LlmQueueBuildingUp", pod=POD),
                                "exp_annotations": {
                                    "summary": f"{MODEL}: {POD} has 15 requests waiting (queue holds 22; 503s start when it is full)"
                                },
                            }
                        ],
                    }
                ],
            }
        ],
    }
    promtool.write_yaml(tmp_path / "test.yaml", doc)
    proc = promtool.run("test", "rules", "test.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_wrong_expectation_fails_under_promtool(tmp_path):
    # The harness can fail: expecting the queue alert on a quiet pod is reported as a failure.
    _rules_file(tmp_path, annotations=False)
    doc = {
        "rule_files": ["rules.yaml"],
        "evaluation_interval": "1m",
        "tests": [
            {
                "interval": "1m",
                "input_series": [_series("vllm:num_requests_waiting", f'{VLLM},pod="{POD}"', "2x20")],
                "alert_rule_test": [
                    {
                        "eval_time": "10m",
                        "alertname": "LlmQueueBuildingUp",
                        "exp_alerts": [_expected("LlmQueueBuildingUp", pod=POD)],
                    }
                ],
            }
        ],
    }
    promtool.write_yaml(tmp_path / "test.yaml", doc)
    assert promtool.run("test", "rules", "test.yaml", cwd=tmp_path).returncode != 0
