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


def test_prod_writes_each_predictor_pod_as_kserves_webhook_admits_it(prod):
    """Review finding 10: chat-8b's vLLM reads /mnt/models, which only KServe's pod webhook mounts (the local model
    cache's PVC, storage_initializer_injector.go:723-737); the derived pod has it, and the per-object checks
    (derived-object-valid: kubernetes-validate, strict) run on it."""
    import yaml

    pod = yaml.safe_load(prod.files["derived/llm/pod-chat-8b-predictor-00000.yaml"])
    container = next(c for c in pod["spec"]["containers"] if c["name"] == "kserve-container")
    assert container["args"][0] == "/mnt/models"
    [mount] = [m for m in container["volumeMounts"] if m["mountPath"] == "/mnt/models"]
    volume = next(v for v in pod["spec"]["volumes"] if v["name"] == mount["name"])
    assert volume == {"name": "kserve-pvc-source", "persistentVolumeClaim": {"claimName": "chat-8b-l40s"}}
    assert {f"derived/llm/pod-{m}-predictor-00000.yaml" for m in ("qwen3-32b", "llama-70b")} <= set(prod.files)
    assert not [v for v in prod.report["violations"] if "derived-llm-pod-" in v["resource"]]


def test_a_derived_pod_the_api_server_refuses_is_reported():
    """The same schema check (S33) on the webhook's pod: a field the schema does not know is refused."""
    from components.derive import Derived
    from policies.derived import derived_object_valid
    from policies.registry import evaluate
    from stacks.plan import derived_resources

    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "m-predictor-00000", "namespace": "llm"},
        "spec": {"containers": [{"name": "kserve-container", "image": "x", "volumeMount": []}]},
    }
    derived = [Derived("kserve", "InferenceService llm/m", "m", pod)]
    found = evaluate(derived_resources(derived), policies=[derived_object_valid.POLICY])
    assert [v.policy for v in found] == ["derived-object-valid"] and "volumeMount" in found[0].message


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


def test_progress_deadline_against_each_predictors_cold_path(prod):
    """KServe v0.20.0 sets 600 s (deployment_reconciler.go:355-358) and nothing changes it; each prod predictor's
    cold path (node launch 300 + image pull 300 + cache fill + startup budget) is longer, its warm start is not."""
    rows = {v["resource"]: v for v in prod.report["violations"] if v["policy"] == "progress-deadline-covers-startup"}
    assert sorted(rows) == [f"derived-llm-deployment-{m}-predictor" for m in ("chat-8b", "llama-70b", "qwen3-32b")]
    assert {r["enforcement"] for r in rows.values()} == {"advisory"}
    chat = rows["derived-llm-deployment-chat-8b-predictor"]["message"]
    assert "cold path 1406 s (node launch 300 s + image pull 300 s + node cache fill 206 s + startup budget 600 s)" in chat
    assert "startup budget 600 s, within the deadline" in chat
    assert "KubeDeploymentRolloutStuck (Progressing=false for 15 min) stays quiet" in chat
    assert "deployment_reconciler.go:355-358" in chat
    qwen = rows["derived-llm-deployment-qwen3-32b-predictor"]["message"]
    assert "cold path 1200 s (node launch 300 s + image pull 300 s + startup budget 600 s)" in qwen


def test_the_derived_cold_path_is_what_pulumi_waits_for(prod):
    """One figure, two readers: the derived Deployment's coldReady (from the rendered objects: probe, LocalModelCache
    modelSize) equals the InferenceService's Ready wait (builders/awaiting.py, from the capacity plan)."""
    from components.builders import awaiting
    from components.capacity.plan import plan_stack
    from components.config import load_stack_config
    from tests.conftest import stack_config

    plans = plan_stack(load_stack_config(stack_config("prod")))
    for m in prod.report["models"]:
        deployments = [c for c in m.get("controllers") or [] if c["kind"] == "Deployment"]
        if not deployments:
            continue  # the 405B is a RayCluster
        cold = deployments[0]["summary"]["coldReady"]
        assert cold["seconds"] == awaiting.inference_service(plans[m["name"]], wait=True).ready_seconds, m["name"]


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
