"""Components compose like Pulumi's own: Inputs from other stacks, a plan computed when not given, typed outputs.

Each test runs a small program under the offline engine (stacks/offline.py) and asserts on what
the engine recorded: the resources' inputs and the component's registered outputs.
"""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pulumi
import pytest
from pydantic import ValidationError

from components import VllmService, VllmServiceArgs, load_stack_config, plan_model
from stacks.offline import FakeStack, StackFile, run_program
from tests.conftest import stack_config


@pytest.fixture
def dev():
    cfg = load_stack_config(stack_config("dev"))
    return cfg.models[0], {p.name: p for p in cfg.gpu_pools}[cfg.models[0].pool]


def empty_stack(tmp_path: Path) -> StackFile:
    return StackFile(name="test", path=tmp_path / "Pulumi.test.yaml", config={})


def by_type(recording, suffix: str):
    return [r for r in recording.resources if r.type.endswith(suffix)]


def test_plan_is_computed_when_not_given_and_equals_the_stack_plan(tmp_path, dev):
    model, pool = dev
    made = {}

    def program():
        made["svc"] = VllmService("chat", VllmServiceArgs(model=model, gpu_pool=pool, namespace="team-a"))

    rec = run_program(empty_stack(tmp_path), program)
    assert made["svc"].plan == plan_model(model, pool, "model")
    (isvc,) = by_type(rec, ":InferenceService")
    args = isvc.inputs["spec"]["predictor"]["containers"][0]["args"]
    assert f"--max-num-seqs={made['svc'].plan.max_num_seqs}" in args
    assert isvc.inputs["metadata"]["namespace"] == "team-a"


def test_namespace_pool_and_secret_from_another_stack(tmp_path, dev):
    """The platform stack's outputs (an Output each, via a StackReference) reach the rendered objects."""
    model, pool = dev
    outputs = {}

    def program():
        platform = pulumi.StackReference("org/llm-serving/prod")
        svc = VllmService(
            "chat",
            VllmServiceArgs(
                model=model,
                gpu_pool=pool,
                namespace=platform.require_output("namespace"),
                pool_name=platform.require_output("poolNames").apply(lambda p: p["l40s"]),
                hf_token_secret=platform.require_output("hfTokenSecret"),
            ),
        )
        pulumi.export("url", svc.url)
        pulumi.export("queueBudget", svc.queue_budget)
        pulumi.export("hpaTarget", svc.hpa_target)
        pulumi.export("poolName", svc.pool_name)
        outputs["plan"] = svc.plan

    fake = FakeStack({"namespace": "shared-llm", "poolNames": {"l40s": "gpu-l40s-a"}, "hfTokenSecret": "hf"})
    rec = run_program(empty_stack(tmp_path), program, stack_references={"org/llm-serving/prod": fake})
    (isvc,) = by_type(rec, ":InferenceService")
    (pdb,) = by_type(rec, ":PodDisruptionBudget")
    predictor = isvc.inputs["spec"]["predictor"]
    assert isvc.inputs["metadata"]["namespace"] == pdb.inputs["metadata"]["namespace"] == "shared-llm"
    assert predictor["nodeSelector"]["karpenter.sh/nodepool"] == "gpu-l40s-a"
    env = {e["name"]: e for e in predictor["containers"][0]["env"]}
    assert env["HF_TOKEN"]["valueFrom"]["secretKeyRef"]["name"] == "hf"
    assert rec.outputs == {
        "url": f"http://{model.name}-predictor.shared-llm.svc.cluster.local",
        "queueBudget": outputs["plan"].max_num_queued_reqs,
        "hpaTarget": outputs["plan"].target_in_flight_per_pod,
        "poolName": "gpu-l40s-a",
    }


# The failed program leaves the SDK's pending output coroutines unawaited; Python warns when it drops them.
@pytest.mark.filterwarnings("ignore:coroutine 'Output:RuntimeWarning")
def test_a_reference_to_an_unfaked_stack_is_an_input_error(tmp_path, dev):
    from components.errors import ConfigError

    def program():
        pulumi.StackReference("org/other/prod").require_output("namespace")

    with pytest.raises(ConfigError, match="no outputs for stack 'org/other/prod'"):
        run_program(empty_stack(tmp_path), program, stack_references={"org/llm-serving/prod": FakeStack({})})
    gc.collect()  # drop the failed run's coroutines while the warning filter above applies


def test_the_callers_provider_reaches_every_child(tmp_path, dev):
    import pulumi_kubernetes as k8s

    model, pool = dev

    def program():
        provider = k8s.Provider("team-cluster", kubeconfig="{}")
        VllmService(
            "chat", VllmServiceArgs(model=model, gpu_pool=pool, namespace="a"), opts=pulumi.ResourceOptions(providers=[provider])
        )

    rec = run_program(empty_stack(tmp_path), program)
    children = [r for r in rec.resources if r.custom and r.type.startswith("kubernetes:") and r.parent == "chat"]
    assert {r.type.rsplit(":", 1)[-1] for r in children} == {"InferenceService", "PodDisruptionBudget", "ServiceAccount"}
    assert {r.provider for r in children} == {"team-cluster"}


def test_plan_or_pool_is_required(dev):
    model, _ = dev
    with pytest.raises(ValidationError, match="gpu_pool is required when plan is not given"):
        VllmServiceArgs(model=model, namespace="a")


def test_a_plain_namespace_is_still_checked(dev):
    model, pool = dev
    with pytest.raises(ValidationError, match="namespace\n.*DNS-1035 label"):
        VllmServiceArgs(model=model, gpu_pool=pool, namespace="Not_A_Name")
    with pytest.raises(ValidationError, match="must be a string or a pulumi Output of one, not int"):
        VllmServiceArgs(model=model, gpu_pool=pool, namespace=7)


def test_a_plan_of_another_model_is_refused(dev):
    model, pool = dev
    other = model.model_copy(update={"name": "other"})
    with pytest.raises(ValidationError, match="plan is the plan of model 'other'"):
        VllmServiceArgs(model=model, plan=plan_model(other, pool), namespace="a")


def test_platform_outputs_are_the_stack_outputs(tmp_path):
    """The program exports what the platform registers; every model and pool is named."""
    from stacks.offline import load_stack_file

    rec = run_program(load_stack_file("prod"))
    cfg = load_stack_config(stack_config("prod"))
    names = [m.name for m in cfg.models]
    assert rec.outputs["namespace"] == cfg.namespace
    assert rec.outputs["modelNames"] == names
    # A multi-node model is served by its Ray head's Service (port 8000) and has no autoscaler.
    multi = {m.name for m in cfg.models if m.distributed is not None}
    assert multi == {"llama-405b"}
    assert rec.outputs["serviceUrls"] == {
        n: f"http://{n}.{cfg.namespace}.svc.cluster.local:8000"
        if n in multi
        else f"http://{n}-predictor.{cfg.namespace}.svc.cluster.local"
        for n in names
    }
    assert rec.outputs["poolNames"] == {p.name: p.name for p in cfg.gpu_pools}
    figures = json.loads(rec.outputs["models"])
    assert rec.outputs["queueBudgets"] == {n: figures[n]["max_num_queued_reqs"] for n in names}
    assert rec.outputs["hpaTargets"] == {n: figures[n]["target_in_flight_per_pod"] for n in names if n not in multi}
    platform = [r for r in rec.resources if r.type == "llm-serving:platform:LlmPlatform"]
    assert len(platform) == 1


def test_gpu_pool_takes_the_cluster_name_from_another_stack(tmp_path):
    """A GpuPool on a cluster another stack owns: the EC2NodeClass discovers that cluster's subnets."""
    from components import GpuPool, GpuPoolArgs
    from components.capacity.pools import plan_pools

    cfg = load_stack_config(stack_config("dev"))
    pool = cfg.gpu_pools[0]
    plan = plan_pools(cfg.gpu_pools, cfg.models, {m.name: plan_model(m, pool) for m in cfg.models})[pool.name]
    exported = {}

    def program():
        cluster = pulumi.StackReference("org/eks/prod").require_output("clusterName")
        gp = GpuPool("pool", GpuPoolArgs(pool=pool, plan=plan, cluster_name=cluster))
        exported["gp"] = gp
        pulumi.export("poolName", gp.pool_name)

    rec = run_program(empty_stack(tmp_path), program, stack_references={"org/eks/prod": FakeStack({"clusterName": "shared-eks"})})
    (node_class,) = by_type(rec, ":EC2NodeClass")
    spec = node_class.inputs["spec"]
    assert spec["subnetSelectorTerms"] == [{"tags": {"karpenter.sh/discovery": "shared-eks"}}]
    assert spec["role"] == "KarpenterNodeRole-shared-eks"
    assert rec.outputs == {"poolName": pool.name}
