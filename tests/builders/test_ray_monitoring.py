"""Monitoring of a multi-node model: scraped from the Ray head, restarts of any Ray pod alert (real promtool)."""

from __future__ import annotations

import pytest

from components.builders import monitoring as mon
from components.builders import ray_cluster as ray
from components.builders.autoscaling import scaling_summary
from components.capacity.plan import plan_stack
from components.config import load_stack_config
from tests import promtool
from tests.conftest import stack_config
from tests.kube_schemas import validate_object


@pytest.fixture(scope="module")
def prod():
    cfg = load_stack_config(stack_config("prod"))
    m = next(m for m in cfg.models if m.distributed is not None)
    return cfg, m, plan_stack(cfg)[m.name]


def test_pod_monitor_scrapes_the_heads_api_port(prod):
    cfg, m, _ = prod
    pm = mon.pod_monitor(m, cfg.namespace, {})
    assert validate_object(pm) == []
    assert pm["spec"]["selector"]["matchLabels"] == ray.head_selector(m)
    (endpoint,) = pm["spec"]["podMetricsEndpoints"]
    cluster = ray.ray_cluster(m, prod[2], cfg.namespace, None)
    head_ports = {
        p["name"]: p["containerPort"] for p in cluster["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["ports"]
    }
    assert head_ports[endpoint["port"]] == ray.API_PORT and endpoint["path"] == "/metrics"


def test_no_autoscaler_and_no_autoscaler_alert(prod):
    cfg, m, plan = prod
    assert scaling_summary(m, plan) is None
    alerts = [r["alert"] for r in mon.alert_rules(m, plan, cfg.namespace, cfg.monitoring.alerts)]
    assert alerts == [a for a in mon.ALERTS if a != "LlmAutoscalerAtMaxReplicas"]


@pytest.mark.parametrize(
    "pod,container,fires",
    [
        ("llama-405b-head-x7k2p", "ray-head", True),
        ("llama-405b-gpu-workers-worker-9qz4m", "ray-worker", True),
        ("chat-8b-predictor-7d9f8-abcde", "kserve-container", False),
    ],
)
def test_a_restart_of_any_ray_pod_alerts(prod, tmp_path, pod, container, fires):
    cfg, m, plan = prod
    group = mon.prometheus_rule(m, plan, cfg.namespace, cfg.monitoring.alerts, {})["spec"]
    for rule in group["groups"][0]["rules"]:
        rule.pop("annotations", None)
    promtool.write_yaml(tmp_path / "rules.yaml", group)
    labels = f'namespace="{cfg.namespace}",pod="{pod}",container="{container}"'
    expected = (
        [{"exp_labels": {"model": m.name, "namespace": cfg.namespace, "severity": "critical", "pod": pod}}] if fires else []
    )
    doc = {
        "rule_files": ["rules.yaml"],
        "evaluation_interval": "1m",
        "tests": [
            {
                "interval": "1m",
                "input_series": [{"series": f"kube_pod_container_status_restarts_total{{{labels}}}", "values": "0x10 1x20"}],
                "alert_rule_test": [{"eval_time": "15m", "alertname": "LlmPodRestarting", "exp_alerts": expected}],
            }
        ],
    }
    promtool.write_yaml(tmp_path / "test.yaml", doc)
    proc = promtool.run("test", "rules", "test.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
