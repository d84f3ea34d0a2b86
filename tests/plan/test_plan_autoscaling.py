"""`python -m stacks plan` renders each model's autoscaler, monitor and alerts, and the metrics Helm releases."""

from __future__ import annotations

import json

import pytest
import yaml

from tests.plan.test_plan_cli import run, variant


@pytest.fixture(scope="module")
def prod_plan(tmp_path_factory):
    out = tmp_path_factory.mktemp("prod-autoscaling")
    proc = run("plan", "prod", "--format", "json", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), out


def test_every_model_has_its_autoscaler_monitor_and_alerts(prod_plan):
    report, out = prod_plan
    k8s = out / "kubernetes" / "llm"
    for m in report["models"]:
        name = m["name"]
        assert (k8s / f"podmonitor-{name}-vllm.yaml").is_file()
        assert (k8s / f"prometheusrule-{name}-alerts.yaml").is_file()
        if m.get("layout"):
            # A multi-node model: monitored from its Ray head, never autoscaled (out of scope).
            assert m["autoscaling"] is None
            assert not list(k8s.glob(f"horizontalpodautoscaler-{name}.yaml")) and not list(k8s.glob(f"scaledobject-{name}.yaml"))
            continue
        scaler = "scaledobject" if m["autoscaling"]["backend"] == "keda" else "horizontalpodautoscaler"
        obj = yaml.safe_load((k8s / f"{scaler}-{name}.yaml").read_text())
        if scaler == "horizontalpodautoscaler":
            (metric,) = obj["spec"]["metrics"]
            assert metric["type"] == "Pods"
            assert metric["pods"]["target"]["averageValue"] == str(m["target_in_flight_per_pod"])
        else:
            assert obj["spec"]["triggers"][0]["metadata"]["threshold"] == str(m["target_in_flight_per_pod"])
        assert (k8s / f"podmonitor-{name}-vllm.yaml").is_file()
        assert (k8s / f"prometheusrule-{name}-alerts.yaml").is_file()


def test_the_adapter_release_serves_every_hpa_metric(prod_plan):
    _, out = prod_plan
    adapter = yaml.safe_load((out / "helm" / "monitoring" / "prometheus-adapter.yaml").read_text())
    assert (adapter["chart"], adapter["version"]) == ("prometheus-adapter", "5.3.0")
    served = {r["name"]["as"] for r in adapter["values"]["rules"]["custom"]}
    asked = {
        yaml.safe_load(p.read_text())["spec"]["metrics"][0]["pods"]["metric"]["name"]
        for p in (out / "kubernetes" / "llm").glob("horizontalpodautoscaler-*.yaml")
    }
    assert asked and asked == served
    keda = yaml.safe_load((out / "helm" / "monitoring" / "keda.yaml").read_text())
    assert (keda["chart"], keda["version"], keda["repository"]) == ("keda", "2.20.2", "https://kedacore.github.io/charts")


def test_report_shows_the_scaling_of_each_model(prod_plan):
    report, _ = prod_plan
    chat = next(m for m in report["models"] if m["name"] == "chat-8b")["autoscaling"]
    assert chat["signal"] == "vllm:num_requests_running + vllm:num_requests_waiting per pod"
    assert (chat["min_replicas"], chat["max_replicas"]) == (2, 8)
    lead = chat["metric_lag_seconds"] + chat["node_lead_seconds"]
    assert chat["scale_out_estimate_seconds"] == lead + chat["replica_start_seconds"]
    assert chat["scale_out_seconds"] == lead + chat["startup_budget_seconds"]
    # The expected start (the plan's startup parts) fits inside the startup budget that bounds it.
    assert chat["replica_start_seconds"] <= chat["startup_budget_seconds"]
    assert chat["replica_start_source"].startswith("startup parts (")
    # One source of truth: the expected start is the sum of the plan's startup parts (capacity/cold_start.py).
    figures = next(m for m in report["models"] if m["name"] == "chat-8b")
    assert chat["replica_start_seconds"] == figures["startup"]["sum_seconds"]
    assert chat["startup_budget_seconds"] == figures["startup_budget_seconds"]


def test_text_report_has_a_scaling_line_per_model(tmp_path):
    proc = run("plan", "prod", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "  scaling: prometheus-adapter HPA on vllm_requests_in_flight_chat_8b" in proc.stdout
    assert "  scaling: keda ScaledObject" in proc.stdout


def test_an_unreachable_target_exits_2_naming_the_field(tmp_path):
    path = variant(tmp_path, "greedy", lambda c: c["llm-serving:models"][0].update(autoscaling={"targetInFlightPerPod": 500}))
    proc = run("plan", str(path), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2
    assert "models[0].autoscaling.targetInFlightPerPod = 500: exceeds what one replica can hold" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "out").exists()


def test_max_replicas_beyond_the_pool_exits_1_naming_s8(tmp_path):
    path = variant(tmp_path, "wide", lambda c: c["llm-serving:models"][0].update(replicas={"min": 1, "max": 3}))
    proc = run("plan", str(path), "--format", "json", "--out", str(tmp_path / "out"))
    assert proc.returncode == 1, proc.stderr
    # The pool-fit check (issue 7, advisory) names the same pool; S8 is the mandatory one.
    (v,) = [v for v in json.loads(proc.stdout)["violations"] if v["enforcement"] == "mandatory"]
    assert (v["policy"], v["catalog"], v["enforcement"]) == ("llm-hpa-behavior", "S8", "mandatory")
    assert v["message"].startswith(
        "spec.maxReplicas = 3 x 1 GPUs per pod of Deployment/chat-8b-predictor = 3 GPUs exceeds NodePool l40s"
    )


def test_a_short_scale_down_window_is_advice_naming_s8(tmp_path):
    path = variant(
        tmp_path, "jumpy", lambda c: c["llm-serving:models"][0].update(autoscaling={"scaleDownStabilizationSeconds": 30})
    )
    proc = run("plan", str(path), "--format", "json", "--out", str(tmp_path / "out"))
    # The 300 s floor is a house threshold, not a failure of serving: S8 advises (session 52), the plan still passes.
    assert proc.returncode == 0, proc.stderr
    violations = json.loads(proc.stdout)["violations"]
    assert [v for v in violations if v["enforcement"] == "mandatory"] == []
    (v,) = [v for v in violations if v["policy"] == "llm-hpa-behavior"]
    assert v["enforcement"] == "advisory"
    assert v["message"].startswith("spec.behavior.scaleDown.stabilizationWindowSeconds = 30 is below 300 s")
