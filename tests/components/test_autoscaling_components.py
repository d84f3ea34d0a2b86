"""The autoscaling components as the engine sees them: type tokens, child names, parents, provider, inputs."""

from __future__ import annotations

import pytest

from components.builders import autoscaling as scale
from components.capacity.plan import plan_stack
from components.config import load_stack_config
from tests.conftest import stack_config
from tests.recording import record


@pytest.fixture(scope="module")
def prod():
    return record("prod")


def by_name(rec):
    return {r["name"]: r for r in rec["resources"]}


def test_metrics_stack_releases_are_children_with_the_cluster_provider(prod):
    res = by_name(prod)
    assert res["prod-metrics"]["type"] == "llm-serving:autoscaling:MetricsStack"
    adapter, keda = res["prod-metrics-prometheus-adapter"], res["prod-metrics-keda"]
    for rel in (adapter, keda):
        assert (rel["type"], rel["parent"], rel["provider"]) == ("kubernetes:helm.sh/v3:Release", "prod-metrics", "prod-k8s")
    assert (adapter["inputs"]["chart"], adapter["inputs"]["version"]) == ("prometheus-adapter", "5.3.0")
    # Neither chart needs the other (components/deploy_order.py): they install side by side.
    assert "prod-metrics-prometheus-adapter" not in keda["dependencies"]
    assert "prod-metrics-keda" not in adapter["dependencies"]
    # prod points at an existing Prometheus: no kube-prometheus-stack release.
    assert "prod-metrics-kube-prometheus-stack" not in res


def test_each_model_gets_a_model_autoscaling_with_three_children(prod):
    res = by_name(prod)
    cfg = load_stack_config(stack_config("prod"))
    plans = plan_stack(cfg)
    for m in cfg.models:
        comp = res[f"prod-{m.name}-autoscaling"]
        assert (comp["type"], comp["parent"]) == ("llm-serving:autoscaling:ModelAutoscaling", "prod")
        children = {r["name"]: r for r in prod["resources"] if r["parent"] == comp["name"]}
        if m.distributed is not None:
            # A multi-node model: monitored (from its Ray head) but never autoscaled.
            assert set(children) == {f"prod-{m.name}-autoscaling-{role}" for role in ("podmonitor", "alerts")}
            continue
        scaler = "scaledobject" if m.autoscaling.backend == "keda" else "hpa"
        assert set(children) == {f"prod-{m.name}-autoscaling-{role}" for role in (scaler, "podmonitor", "alerts")}
        assert {c["provider"] for c in children.values()} == {"prod-k8s"}
        # The component registers exactly what the builder returns (numbers arrive as floats from the engine).
        s = children[f"prod-{m.name}-autoscaling-{scaler}"]
        built = (
            scale.scaled_object(m, plans[m.name], cfg.namespace, "http://prometheus-operated.monitoring.svc:9090")
            if scaler == "scaledobject"
            else scale.horizontal_pod_autoscaler(m, plans[m.name], cfg.namespace)
        )
        assert s["inputs"]["metadata"]["name"] == built["metadata"]["name"]
        assert s["inputs"]["spec"]["scaleTargetRef"] == built["spec"]["scaleTargetRef"]
        # Autoscalers wait for the metrics releases (the adapter must serve their metric).
        assert "prod-metrics-prometheus-adapter" in comp["dependencies"]


def test_dev_installs_kube_prometheus_stack_first():
    res = by_name(record("dev"))
    kps, adapter = res["dev-metrics-kube-prometheus-stack"], res["dev-metrics-prometheus-adapter"]
    assert (kps["inputs"]["chart"], kps["inputs"]["version"]) == ("kube-prometheus-stack", "88.5.3")
    assert "dev-metrics-kube-prometheus-stack" in adapter["dependencies"]
    assert adapter["inputs"]["values"]["prometheus"]["url"] == "http://kube-prometheus-prometheus.monitoring.svc"
