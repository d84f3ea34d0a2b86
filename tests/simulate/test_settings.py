"""The simulator reads what the plan rendered: a change in the stack reaches it through the manifests, not a copy."""

from __future__ import annotations

import pytest
import yaml

from tests.conftest import stack_config


def _settings(tmp_path, mutate):
    from components.capacity.plan import plan_stack
    from components.config import load_stack_config
    from stacks.plan import run_plan
    from stacks.simulate import settings_from

    cfg = stack_config("dev")
    mutate(cfg["llm-serving:models"][0], cfg["llm-serving:gpuPools"][0])
    path = tmp_path / "Pulumi.simset.yaml"
    path.write_text(yaml.safe_dump({"config": cfg}, sort_keys=False))
    stack = load_stack_config(cfg)
    result = run_plan(str(path))
    return settings_from(stack, plan_stack(stack, tmp_path), result.files), result.files


def test_settings_follow_the_rendered_hpa_queue_drain_and_buffer(tmp_path):
    def mutate(model, pool):
        model["autoscaling"] = {"scaleDownStabilizationSeconds": 600}
        model["engine"]["maxNumQueuedReqs"] = 7
        pool["buffer"] = {"replicas": 1}
        pool["gpuLimit"] = 3

    settings, files = _settings(tmp_path, mutate)
    m = settings.models[0]
    hpa = yaml.safe_load(files["kubernetes/llm/horizontalpodautoscaler-chat-8b.yaml"])
    isvc = yaml.safe_load(files["kubernetes/llm/inferenceservice-chat-8b.yaml"])
    assert m.scaling.down.stabilization_seconds == hpa["spec"]["behavior"]["scaleDown"]["stabilizationWindowSeconds"] == 600
    assert m.scaling.target == float(hpa["spec"]["metrics"][0]["pods"]["target"]["averageValue"])
    # The simulator runs the flag as rendered: maxNumSeqs + the queue of 7 (vLLM counts running requests against it).
    assert m.engine.max_num_queued_reqs == m.engine.max_num_seqs + 7
    assert f"--max-num-queued-reqs={m.engine.max_num_seqs + 7}" in isvc["spec"]["predictor"]["containers"][0]["args"]
    container = isvc["spec"]["predictor"]["containers"][0]
    pre_stop = container["lifecycle"]["preStop"]["sleep"]["seconds"]
    shutdown = next(int(a.split("=", 1)[1]) for a in container["args"] if a.startswith("--shutdown-timeout="))
    assert m.drain_seconds == min(isvc["spec"]["predictor"]["terminationGracePeriodSeconds"], pre_stop + shutdown)
    # A CPU HPA's utilisation is relative to the container's CPU request as rendered.
    assert m.cpu_request == float(container["resources"]["requests"]["cpu"])
    pool = settings.pools[0]
    assert pool.gpu_limit == 3 and pool.buffer_pods == 1 and pool.buffer_gpus == 1


def test_the_seed_defaults_drain_is_kubernetes_default_grace_and_vllms_default_shutdown():
    """No preStop, the default grace period and vLLM's default --shutdown-timeout (0: abort) leave a 0 s drain."""
    from components.simulate.settings import K8S_DEFAULT_GRACE_SECONDS, VLLM_DEFAULT_SHUTDOWN_SECONDS, drain_window, seed_defaults
    from tests.conftest import shared_path
    from tests.simulate.helpers import model, stack

    # Kubernetes' PodSpec text (k8s.io/api core/v1, as embedded in the LeaderWorkerSet CRD the project pins).
    crd = shared_path("crds", "leaderworkerset.x-k8s.io", "LeaderWorkerSet.yaml").read_text()
    at = crd.index(
        "terminationGracePeriodSeconds:\n                            description: |-\n"
        "                              Optional duration in seconds the pod needs to terminate gracefully."
    )
    assert "Defaults to 30 seconds." in crd[at : at + 1200]
    assert K8S_DEFAULT_GRACE_SECONDS == 30
    assert VLLM_DEFAULT_SHUTDOWN_SECONDS == 0
    derived = stack(model(drain=615.0))
    defaults = seed_defaults(derived, {})
    assert defaults.models[0].drain_seconds == drain_window(0, VLLM_DEFAULT_SHUTDOWN_SECONDS, K8S_DEFAULT_GRACE_SECONDS) == 0
    # A server drain runs after the preStop and is bounded by the grace period; without one only the preStop holds.
    assert drain_window(15, 600, 630) == 615 and drain_window(15, 600, 300) == 300 and drain_window(15, 0, 30) == 15
    assert defaults.models[0].scaling.signal == "cpu" and defaults.models[0].scaling.target == 0.8


@pytest.mark.parametrize("stack_name", ["dev", "staging", "prod"])
def test_every_autoscaled_pod_can_hold_its_scaling_target(stack_name):
    # vLLM refuses a request once the requests in flight, running or waiting, reach --max-num-queued-reqs
    # (config/scheduler.py and v1/engine/async_llm.py check_admission, 0.29.0 to 0.33.0), so the in-flight metric
    # the HPA or KEDA scales on never passes the flag. A target at or above it could never be exceeded: the
    # deployment would answer 503 and never scale (what the plan rendered before the flag carried the batch).
    from stacks.plan import run_plan

    files = run_plan(stack_name).files
    objects = [yaml.safe_load(text) for rel, text in sorted(files.items()) if rel.startswith("kubernetes/")]
    by_kind = {(o["kind"], o["metadata"]["name"]): o for o in objects}
    checked = 0
    for (kind, name), isvc in sorted(by_kind.items()):
        if kind != "InferenceService":
            continue
        args = isvc["spec"]["predictor"]["containers"][0]["args"]
        cap = next((int(a.split("=", 1)[1]) for a in args if a.startswith("--max-num-queued-reqs=")), None)
        hpa, so = by_kind.get(("HorizontalPodAutoscaler", name)), by_kind.get(("ScaledObject", name))
        if cap is None or (hpa is None and so is None):
            continue
        target = (
            float(hpa["spec"]["metrics"][0]["pods"]["target"]["averageValue"])
            if hpa is not None
            else float(so["spec"]["triggers"][0]["metadata"]["threshold"])
        )
        seqs = next(int(a.split("=", 1)[1]) for a in args if a.startswith("--max-num-seqs="))
        assert target < cap, f"{stack_name}/{name}: target {target:g} in flight per pod, but vLLM admits {cap}"
        assert cap > seqs, f"{stack_name}/{name}: --max-num-queued-reqs={cap} leaves no queue beyond --max-num-seqs={seqs}"
        checked += 1
    assert checked > 0
