"""The plan writes and checks what KServe creates from the stacks' InferenceServices (issue 30)."""

from __future__ import annotations

import pytest

from components.builders import addons
from stacks.plan import run_plan


@pytest.fixture(scope="module")
def prod():
    return run_plan("prod", simulate_slo=False)


def test_prod_writes_each_predictor_deployment(prod):
    derived = sorted(p for p in prod.files if p.startswith("derived/"))
    assert "derived/llm/deployment-chat-8b-predictor.yaml" in derived
    assert "derived/llm/service-qwen3-32b-predictor.yaml" in derived
    chat = next(m for m in prod.report["models"] if m["name"] == "chat-8b")
    deployment = next(c for c in chat["controllers"] if c["kind"] == "Deployment")
    assert "cpu" not in deployment["summary"]["resources"]["limits"]
    assert deployment["summary"]["progressDeadlineSeconds"] == 600


def test_prod_passes_the_derived_checks(prod):
    policies = {v["policy"] for v in prod.report["violations"] if v["enforcement"] == "mandatory"}
    assert not policies & {"requests-within-limits", "derived-object-valid"}


def test_restoring_kserves_cpu_limit_fails_prod(monkeypatch):
    """The done-when of issue 30: the kserve release's default CPU limit restored (charts/kserve-resources
    values.yaml:90-91, "1") makes plan prod fail, naming the model, the field and KServe's rule."""
    monkeypatch.setattr(addons, "KSERVE_DEFAULT_CPU_LIMIT", "1")
    result = run_plan("prod", simulate_slo=False)
    found = [v for v in result.report["violations"] if v["policy"] == "requests-within-limits"]
    assert result.mandatory_violations == len(found) == 3
    chat = next(v for v in found if "chat-8b" in v["resource"])
    assert chat["enforcement"] == "mandatory"
    assert "InferenceService llm/chat-8b" in chat["message"]
    assert "resources.requests.cpu 6 exceeds resources.limits.cpu 1" in chat["message"]
    assert "inference_service_defaults.go:59-96" in chat["message"]
    assert chat["line"] is not None  # traced to chat-8b's entry in the stack file


def test_qwen3_progress_deadline_is_reported(prod):
    """KServe v0.20.0 sets 600 s (deployment_reconciler.go:355-358) and offers no knob; qwen3's budget is 1,740 s."""
    rows = [v for v in prod.report["violations"] if v["policy"] == "progress-deadline-covers-startup"]
    assert [r["resource"] for r in rows] == ["derived-llm-deployment-qwen3-32b-predictor"]
    assert rows[0]["enforcement"] == "advisory"
    assert "1740 s" in rows[0]["message"]


def test_a_cluster_with_its_own_kserve_gets_explicit_cpu_limits(tmp_path):
    """addons.kserve.install false: the cluster's inferenceservice-config is not ours, so the vLLM container's
    CPU limit equals its request and KServe's defaulter (inference_service_defaults.go:86-93) adds nothing."""
    import yaml

    from tests.conftest import stack_config

    cfg = stack_config("dev")
    cfg["llm-serving:addons"] = {**cfg.get("llm-serving:addons", {}), "kserve": {"install": False}}
    path = tmp_path / "Pulumi.own-kserve.yaml"
    path.write_text(yaml.safe_dump({"config": cfg}))
    result = run_plan(str(path), simulate_slo=False)
    assert result.mandatory_violations == 0, result.report["violations"]
    [deployment] = [f for p, f in result.files.items() if p == "derived/llm/deployment-chat-8b-predictor.yaml"]
    resources = yaml.safe_load(deployment)["spec"]["template"]["spec"]["containers"][0]["resources"]
    assert resources["limits"]["cpu"] == resources["requests"]["cpu"] == "6"
