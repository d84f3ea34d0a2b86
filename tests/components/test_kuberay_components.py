"""The KubeRay components under the offline engine: Inputs from another stack, the cluster's provider, parents."""

from __future__ import annotations

from pathlib import Path

import pulumi
import pytest
from pydantic import ValidationError

from components import RayVllmService, RayVllmServiceArgs, load_stack_config, plan_stack
from components.builders import ray_cluster as build
from stacks.offline import FakeStack, StackFile, run_program
from tests.conftest import stack_config
from tests.recording import record


@pytest.fixture(scope="module")
def prod_405b():
    cfg = load_stack_config(stack_config("prod"))
    m = next(m for m in cfg.models if m.distributed is not None)
    return m, plan_stack(cfg)[m.name]


def _stack(tmp_path: Path) -> StackFile:
    return StackFile(name="test", path=tmp_path / "Pulumi.test.yaml", config={})


def test_ray_service_takes_its_namespace_pool_and_secret_from_another_stack(tmp_path, prod_405b):
    m, plan = prod_405b

    def program():
        platform = pulumi.StackReference("org/llm-serving/prod")
        svc = RayVllmService(
            "big",
            RayVllmServiceArgs(
                model=m,
                plan=plan,
                namespace=platform.require_output("namespace"),
                pool_name=platform.require_output("poolNames").apply(lambda p: p["h100"]),
                hf_token_secret=platform.require_output("hfTokenSecret"),
            ),
        )
        pulumi.export("url", svc.url)
        pulumi.export("queueBudget", svc.queue_budget)

    fake = FakeStack({"namespace": "shared-llm", "poolNames": {"h100": "gpu-h100-a"}, "hfTokenSecret": "hf"})
    rec = run_program(_stack(tmp_path), program, stack_references={"org/llm-serving/prod": fake})
    (cluster,) = [r for r in rec.resources if r.type == "kubernetes:ray.io/v1:RayCluster"]
    (svc,) = [r for r in rec.resources if r.type == "kubernetes:core/v1:Service"]
    assert cluster.inputs["metadata"]["namespace"] == svc.inputs["metadata"]["namespace"] == "shared-llm"
    for group in (cluster.inputs["spec"]["headGroupSpec"], cluster.inputs["spec"]["workerGroupSpecs"][0]):
        pod = group["template"]["spec"]
        assert pod["nodeSelector"]["karpenter.sh/nodepool"] == "gpu-h100-a"
        env = {e["name"]: e for e in pod["containers"][0]["env"]}
        assert env["HF_TOKEN"]["valueFrom"]["secretKeyRef"]["name"] == "hf"
    assert {r.parent for r in (cluster, svc)} == {"big"}
    assert rec.outputs["url"] == f"http://{m.name}.shared-llm.svc.cluster.local:{build.API_PORT}"
    assert rec.outputs["queueBudget"] == plan.max_num_queued_reqs


def test_a_single_node_model_is_refused():
    cfg = load_stack_config(stack_config("prod"))
    m = cfg.models[0]
    with pytest.raises(ValidationError, match="model 'chat-8b' is not distributed; serve it with VllmService"):
        RayVllmServiceArgs(model=m, plan=plan_stack(cfg)[m.name], namespace="llm")


def test_a_plan_of_another_model_is_refused(prod_405b):
    m, plan = prod_405b
    with pytest.raises(ValidationError, match="plan is the plan of model 'llama-405b', not of 'other'"):
        RayVllmServiceArgs(model=m.model_copy(update={"name": "other"}), plan=plan, namespace="llm")


def test_every_ray_child_uses_the_clusters_provider_and_efa_has_its_own_group():
    rec = record("prod")
    by_name = {r["name"]: r for r in rec["resources"]}
    for child in ("prod-kuberay-operator", "prod-llama-405b-raycluster", "prod-llama-405b-service"):
        assert by_name[child]["provider"] == "prod-k8s", child
    assert by_name["prod-llama-405b-raycluster"]["parent"] == "prod-llama-405b"
    assert by_name["prod-llama-405b"]["type"] == "llm-serving:ray:RayVllmService"
    # The cluster waits for the operator (its CRDs and webhook) and the namespace.
    assert {"prod-kuberay-operator", "prod-namespace"} <= set(by_name["prod-llama-405b"]["dependencies"])
    # EFA's self rules sit on the EFA pool's own group, never on the EKS cluster security group (issue 19).
    from stacks.mock_cloud import eks_cluster, physical_id

    cluster_sg = eks_cluster("llm-prod", "us-east-1")["vpcConfig"]["clusterSecurityGroupId"]
    efa_sg = physical_id("aws:ec2/securityGroup:SecurityGroup", "prod-pool-h100-ray-efa-sg")
    rules = [r for r in rec["resources"] if r["type"].startswith("aws:vpc/securityGroup")]
    assert sorted(r["name"] for r in rules) == ["prod-pool-h100-ray-efa-egress", "prod-pool-h100-ray-efa-ingress"]
    for rule in rules:
        assert rule["parent"] == "prod-pool-h100-ray"
        assert rule["inputs"]["securityGroupId"] == rule["inputs"]["referencedSecurityGroupId"] == efa_sg != cluster_sg
        assert rule["inputs"]["ipProtocol"] == "-1"
    assert by_name["prod-pool-h100-ray-efa-sg"]["inputs"]["vpcId"] == eks_cluster("llm-prod", "us-east-1")["vpcConfig"]["vpcId"]
    terms = by_name["prod-pool-h100-ray-node-class"]["inputs"]["spec"]["securityGroupSelectorTerms"]
    assert {"id": efa_sg} in terms and {"id": cluster_sg} not in terms
    assert "prod-pool-h100-ray-efa-sg" in by_name["prod-pool-h100-ray-node-class"]["dependencies"]
