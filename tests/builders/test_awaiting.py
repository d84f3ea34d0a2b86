"""An honest `pulumi up` and `pulumi destroy`: readiness annotations and custom timeouts (components/builders/awaiting.py).

What the provider does with them is pulumi-kubernetes v4.32.0 provider/pkg/metadata/overrides.go (ReadyCondition
100-165: no waitFor -> no wait; "condition=" prefix 144; TimeoutDuration 49-64: customTimeouts first, then
pulumi.com/timeoutSeconds, then await/await.go:306/491/976's 10 minutes).
"""

from __future__ import annotations

import json

import pytest

from components.builders import awaiting
from components.capacity.cold_start import cache_fill_seconds, cache_size_gib
from components.capacity.layout import IMAGE_PULL_SECONDS, NODE_READY_SECONDS
from components.capacity.plan import plan_stack
from components.capacity.pools import plan_pools
from components.config import load_stack_config
from components.errors import ConfigError
from tests.conftest import stack_config


@pytest.fixture(scope="module")
def prod():
    cfg = load_stack_config(stack_config("prod"))
    plans = plan_stack(cfg)
    return cfg, plans


def test_an_inference_service_waits_for_ready_through_a_new_node_and_its_startup_budget(prod):
    _, plans = prod
    plan = plans["chat-8b"]
    got = awaiting.inference_service(plan, wait=True)
    budget = plan.startup_failure_threshold * plan.startup_period_seconds
    assert got.annotations == {"pulumi.com/waitFor": "condition=Ready"}
    # chat-8b reads its node's LocalModelCache (17Gi): on a new node its pod waits for the agent's download first.
    fill = cache_fill_seconds(cache_size_gib(plan.model.checkpoint_gib))
    assert fill == 206
    assert got.ready_seconds == NODE_READY_SECONDS + IMAGE_PULL_SECONDS + fill + budget == 1406
    assert got.timeouts == {"create": "24m", "update": "24m", "delete": awaiting.duration(plan.termination_grace_seconds + 120)}
    # A model without a node cache: node launch, image pull and its budget only.
    s3 = plans["llama-70b"]
    assert awaiting.inference_service(s3, wait=True).ready_seconds == NODE_READY_SECONDS + IMAGE_PULL_SECONDS + 600


def test_the_ray_cluster_waits_for_every_pod_and_the_head_and_its_delete_covers_the_workers_drain(prod):
    _, plans = prod
    plan = plans["llama-405b"]
    got = awaiting.ray_cluster(plan, wait=True)
    # KubeRay v1.7.0 raycluster_types.go:654-658: there is no "Ready" condition on a RayCluster.
    assert json.loads(got.annotations["pulumi.com/waitFor"]) == ["condition=RayClusterProvisioned", "condition=HeadPodReady"]
    # The multi-node budget is the cold start (node launch, image pull, download, compile: capacity/layout.py).
    assert got.ready_seconds == plan.startup_failure_threshold * plan.startup_period_seconds >= 2292
    # The workers' preStop sleeps ~615 s inside their grace period; the delete waits for all of it.
    assert plan.termination_grace_seconds >= 615
    assert got.delete_seconds == plan.termination_grace_seconds + awaiting.DELETE_MARGIN_SECONDS
    assert got.timeouts["delete"] == awaiting.duration(got.delete_seconds)


def test_an_edit_of_the_ray_cluster_replaces_it_while_up_waits_so_the_wait_proves_the_new_spec(prod):
    # No status of a RayCluster says the new spec serves after an edit: pulumi-kubernetes v4.20.0 waits only for
    # status.observedGeneration (await/condition/kubectl.go:48-58, jsonpath.go:44-51), which KubeRay v1.7.0 sets in the
    # same reconcile that deletes every pod (raycluster_controller.go:968-981, 1998), with HeadPodReady read from the
    # draining head (2026-2040) and RayClusterProvisioned never reset (2044-2046). So `spec` edits replace the object,
    # deleted first (its name is fixed), and the create's wait runs on a fresh status.
    _, plans = prod
    got = awaiting.ray_cluster(plans["llama-405b"], wait=True)
    assert got.replace_on_changes == ("spec",) and got.delete_before_replace is True
    # Switched off, KubeRay's Recreate applies edits in place and nothing waits: no replacement either.
    off = awaiting.ray_cluster(plans["llama-405b"], wait=False)
    assert off.replace_on_changes == () and off.delete_before_replace is False
    # An InferenceService is KServe's to roll (a Deployment rollout keeps serving): not replaced.
    assert awaiting.inference_service(plans["llama-70b"], wait=True).replace_on_changes == ()


def test_switched_off_no_wait_but_the_delete_timeout_stays(prod):
    _, plans = prod
    got = awaiting.inference_service(plans["llama-70b"], wait=False)
    assert got.annotations == {} and set(got.timeouts) == {"delete"}


def test_a_pools_delete_covers_its_drain_and_the_instances_termination(prod):
    cfg, plans = prod
    pools = plan_pools(cfg.gpu_pools, cfg.models, plans)
    h100 = pools["h100"]
    got = awaiting.node_pool(h100)
    assert got.delete_seconds == h100.drain_seconds + awaiting.INSTANCE_TERMINATION_SECONDS
    assert got.delete_seconds > 10 * 60  # Pulumi's default delete timeout would cut the drain short


@pytest.mark.parametrize("minutes, seconds", [("1m", 1), ("1m", 60), ("2m", 61), ("39m", 2292)])
def test_durations_round_up_to_whole_minutes(minutes, seconds):
    assert awaiting.duration(seconds) == minutes


def test_the_switch_is_validated_and_named():
    raw = stack_config("dev")
    raw["llm-serving:deploy"] = {"waitForModels": "sometimes"}
    with pytest.raises(ConfigError) as err:
        load_stack_config(raw)
    assert "deploy.waitForModels" in str(err.value)
    raw["llm-serving:deploy"] = {"waitForModels": False}
    assert load_stack_config(raw).deploy.wait_for_models is False
    assert load_stack_config(stack_config("dev")).deploy.wait_for_models is True


def test_the_plan_json_lists_custom_timeouts_and_await_annotations(planned):
    # python -m stacks plan prod --format json, exit 0 (tests.conftest.planned)
    rows = {r["name"]: r for r in planned("prod").report["resources"]}
    isvc = rows["prod-chat-8b-isvc"]
    assert isvc["awaitAnnotations"] == {"pulumi.com/waitFor": "condition=Ready"}
    assert isvc["customTimeouts"]["create"] == "24m"  # 1,406 s: node, image, cache fill, budget
    ray = rows["prod-llama-405b-raycluster"]
    assert set(ray["customTimeouts"]) == {"create", "update", "delete"}
    assert "condition=HeadPodReady" in ray["awaitAnnotations"]["pulumi.com/waitFor"]
    # What the engine receives: an edit of the spec replaces the RayCluster, deleting it first.
    assert (ray["replaceOnChanges"], ray["deleteBeforeReplace"]) == (["spec"], True)
    assert "replaceOnChanges" not in isvc
    for kind in ("node-pool", "node-class"):
        assert set(rows[f"prod-pool-h100-{kind}"]["customTimeouts"]) == {"delete"}
    # Placeholders are not awaited (builders/buffer.py) and say so; a row with nothing set carries neither key.
    assert rows["prod-pool-l40s-buffer"]["awaitAnnotations"] == {"pulumi.com/skipAwait": "true"}
    assert not {"customTimeouts", "awaitAnnotations"} & set(rows["prod-chat-8b-pdb"])
    # The annotation is on the object Pulumi sends, not only in the report.
    text = (planned("prod").out / "kubernetes").rglob("*chat-8b*")
    assert any("pulumi.com/waitFor: condition=Ready" in p.read_text() for p in text if p.is_file())
