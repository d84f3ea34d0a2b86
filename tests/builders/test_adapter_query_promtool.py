"""Each Prometheus Adapter rule, filled in as the adapter fills it, evaluated by the real promtool.

The adapter answers the HPA's `pods/*/<metric>` request by filling the rule's metricsQuery
(`<<.Series>>` = the discovered series, `<<.LabelMatchers>>` = the namespace and the requested
pods, `<<.GroupBy>>` = the pod label; kubernetes-sigs/prometheus-adapter v0.12.0 docs/config.md, "Querying") and
needs one sample per pod. Here promtool's expression tests evaluate the filled query over
synthetic vLLM series and check the per-pod value the HPA averages against its target, and that
KEDA's query sees the same per-pod average.
"""

from __future__ import annotations

import math

import pytest

from components.builders import autoscaling as scale
from components.builders import prometheus_adapter as metrics
from components.capacity.plan import plan_stack
from components.config import load_stack_config
from tests import promtool
from tests.conftest import stack_config

PODS = {  # pod -> (running per engine, waiting per engine); two engines on the first pod (data parallel)
    "predictor-a": ((30, 10), (4, 2)),
    "predictor-b": ((50,), (25,)),
}
# Series that must NOT count: the waiting-by-reason breakdown (it repeats num_requests_waiting),
# KV usage, and another model sharing the namespace.
NOISE = [
    ("vllm:num_requests_waiting_by_reason", 'reason="capacity"', 25),
    ("vllm:kv_cache_usage_perc", "", 0.9),
]


def _series(model: str, namespace: str) -> list[dict]:
    out = []
    for suffix, (running, waiting) in PODS.items():
        pod = f"{model}-{suffix}"
        for engine, (r, w) in enumerate(zip(running, waiting + (0,) * (len(running) - len(waiting)), strict=True)):
            labels = f'namespace="{namespace}",model_name="{model}",pod="{pod}",engine="{engine}"'
            out.append({"series": f"{scale.RUNNING}{{{labels}}}", "values": f"{r}x10"})
            out.append({"series": f"{scale.WAITING}{{{labels}}}", "values": f"{w}x10"})
            for name, extra, value in NOISE:
                out.append({"series": f"{name}{{{labels},{extra}}}" if extra else f"{name}{{{labels}}}", "values": f"{value}x10"})
        # Another model in the same namespace whose pods' names the request does not list.
        other = f'namespace="{namespace}",model_name="other",pod="other-{suffix}",engine="0"'
        out.append({"series": f"{scale.RUNNING}{{{other}}}", "values": "99x10"})
    return out


def _expected_per_pod(model: str) -> dict[str, int]:
    return {f"{model}-{s}": sum(r) + sum(w) for s, (r, w) in PODS.items()}


def _adapter_models():
    for stack in ("dev", "staging", "prod"):
        cfg = load_stack_config(stack_config(stack))
        for m in cfg.models:
            if m.autoscaling.backend == "prometheus-adapter":
                yield pytest.param(cfg, m, id=f"{stack}-{m.name}")


def _run_expr_tests(tmp_path, series, exprs):
    promtool.write_yaml(tmp_path / "rules.yaml", {"groups": []})
    doc = {
        "rule_files": ["rules.yaml"],
        "evaluation_interval": "1m",
        "tests": [{"interval": "1m", "input_series": series, "promql_expr_test": exprs}],
    }
    promtool.write_yaml(tmp_path / "test.yaml", doc)
    return promtool.run("test", "rules", "test.yaml", cwd=tmp_path)


@pytest.mark.parametrize("cfg,m", list(_adapter_models()))
def test_filled_adapter_query_returns_running_plus_waiting_per_pod(cfg, m, tmp_path):
    rule = metrics.adapter_rule(m, cfg.namespace)
    expected = _expected_per_pod(m.name)
    query = promtool.fill_adapter_template(
        rule["metricsQuery"],
        {
            "Series": scale.RUNNING,  # what the rule's seriesQuery discovers
            "LabelMatchers": f'pod=~"{"|".join(expected)}",namespace="{cfg.namespace}"',
            "GroupBy": "pod",
        },
    )
    assert "<<" not in query
    exprs = [
        {
            "expr": query,
            "eval_time": "5m",
            "exp_samples": [{"labels": f'{{pod="{pod}"}}', "value": value} for pod, value in sorted(expected.items())],
        }
    ]
    proc = _run_expr_tests(tmp_path, _series(m.name, cfg.namespace), exprs)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("cfg,m", list(_adapter_models())[:1])
def test_a_wrong_per_pod_value_fails(cfg, m, tmp_path):
    rule = metrics.adapter_rule(m, cfg.namespace)
    expected = _expected_per_pod(m.name)
    query = promtool.fill_adapter_template(
        rule["metricsQuery"],
        {"Series": scale.RUNNING, "LabelMatchers": f'pod=~"{"|".join(expected)}",namespace="{cfg.namespace}"', "GroupBy": "pod"},
    )
    # Running alone (forgetting the queue) is not what the rule must return.
    wrong = [{"labels": f'{{pod="{m.name}-{s}"}}', "value": sum(r)} for s, (r, _) in sorted(PODS.items())]
    proc = _run_expr_tests(tmp_path, _series(m.name, cfg.namespace), [{"expr": query, "eval_time": "5m", "exp_samples": wrong}])
    assert proc.returncode != 0


def test_seriesquery_discovers_only_the_models_running_series(tmp_path):
    cfg = load_stack_config(stack_config("dev"))
    m = cfg.models[0]
    rule = metrics.adapter_rule(m, cfg.namespace)
    # A series selector is a valid instant query: it must find the model's running series, per engine.
    samples = []
    for s, (running, _) in sorted(PODS.items()):
        for engine, r in enumerate(running):
            samples.append(
                {
                    "labels": f'{scale.RUNNING}{{engine="{engine}",model_name="{m.name}",namespace="{cfg.namespace}",pod="{m.name}-{s}"}}',
                    "value": r,
                }
            )
    proc = _run_expr_tests(
        tmp_path, _series(m.name, cfg.namespace), [{"expr": rule["seriesQuery"], "eval_time": "5m", "exp_samples": samples}]
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_keda_sees_the_same_per_pod_average_and_the_hpa_the_same_replica_count(tmp_path):
    cfg = load_stack_config(stack_config("prod"))
    plans = plan_stack(cfg)
    m = next(m for m in cfg.models if m.autoscaling.backend == "keda")
    so = scale.scaled_object(m, plans[m.name], cfg.namespace, metrics.prometheus_url(cfg.monitoring))
    query = so["spec"]["triggers"][0]["metadata"]["query"]
    per_pod = _expected_per_pod(m.name)
    total = sum(per_pod.values())
    proc = _run_expr_tests(
        tmp_path,
        _series(m.name, cfg.namespace),
        [{"expr": query, "eval_time": "5m", "exp_samples": [{"labels": "{}", "value": total}]}],
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # KEDA (AverageValue) divides the total by the replicas; a Pods-metric HPA averages the per-pod values: same number,
    # so both backends ask for the same replica count (HPA: ceil(current x average / target)).
    target = plans[m.name].target_in_flight_per_pod
    average = total / len(per_pod)
    assert average == sum(per_pod.values()) / len(per_pod)
    assert math.ceil(len(per_pod) * average / target) == math.ceil(total / target)


def test_fill_refuses_unknown_template_actions():
    with pytest.raises(KeyError):
        promtool.fill_adapter_template("sum(<<.Series>>{<<.LabelValuesByName>>})", {"Series": "x"})
    with pytest.raises(ValueError):
        promtool.fill_adapter_template("sum(<<range .GroupBySlice>>x<<end>>)", {})
