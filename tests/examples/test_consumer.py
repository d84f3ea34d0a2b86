"""examples/consumer: another project adds one model to a running platform, offline.

The platform's stack outputs are the real ones: the prod stack is run first under the offline
engine and its exports become the faked StackReference's outputs, so the example is exercised
against exactly what the platform program exports.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from policies.registry import evaluate
from stacks.offline import FakeStack, load_stack_file, run_program
from stacks.plan import normalise, policy_resources
from tests.conftest import ROOT
from tests.kube_schemas import validate_object

EXAMPLE = ROOT / "examples" / "consumer"
PLATFORM = "organization/llm-serving/prod"


@pytest.fixture(scope="module")
def platform_outputs() -> dict:
    outputs = dict(run_program(load_stack_file("prod")).outputs)
    outputs.pop("models")
    return outputs


def run_consumer(outputs: dict, stack: Path = EXAMPLE / "Pulumi.dev.yaml"):
    return run_program(
        load_stack_file(str(stack)),
        EXAMPLE / "__main__.py",
        project="llm-serving-consumer",
        stack_references={PLATFORM: FakeStack(outputs)},
    )


@pytest.fixture(scope="module")
def consumer(platform_outputs):
    return run_consumer(platform_outputs)


def objects(recording) -> dict[str, dict]:
    return {
        r.type.rsplit(":", 1)[-1]: normalise(dict(r.inputs))
        for r in recording.resources
        if r.custom and r.type.startswith("kubernetes:")
    }


def test_platform_exports_what_the_consumer_reads(platform_outputs):
    assert {
        "clusterName",
        "namespace",
        "poolNames",
        "hfTokenSecret",
        "apiKeySecret",
        "region",
        "clusterEndpoint",
        "clusterCertificateAuthority",
    } <= set(platform_outputs)
    # The kubeconfig is exported as a secret (redacted in every output of the offline engine).
    assert platform_outputs["kubeconfig"] == "[secret]"


def test_the_consumer_reads_the_region_and_endpoint_prod_exports(consumer, platform_outputs):
    prod = load_stack_file("prod").config
    assert platform_outputs["region"] == prod["aws:region"] == "us-east-1"
    assert (
        platform_outputs["clusterEndpoint"].startswith("https://")
        and ".us-east-1.eks.amazonaws.com" in platform_outputs["clusterEndpoint"]
    )
    assert consumer.outputs["clusterRegion"] == platform_outputs["region"]
    assert consumer.outputs["clusterEndpoint"] == platform_outputs["clusterEndpoint"]
    # Its own aws:region is the platform's (it was us-west-2 against a us-east-1 platform before issue 19).
    assert load_stack_file(str(EXAMPLE / "Pulumi.dev.yaml")).config["aws:region"] == platform_outputs["region"]


def test_another_platform_endpoint_and_region_flow_through(platform_outputs, tmp_path):
    import yaml

    stack = yaml.safe_load((EXAMPLE / "Pulumi.dev.yaml").read_text())
    stack["config"].pop("aws:region")
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text(yaml.safe_dump(stack))
    rec = run_consumer(
        {**platform_outputs, "region": "eu-west-1", "clusterEndpoint": "https://EXAMPLE.gr7.eu-west-1.eks.amazonaws.com"}, path
    )
    assert rec.outputs["clusterRegion"] == "eu-west-1"
    assert rec.outputs["clusterEndpoint"] == "https://EXAMPLE.gr7.eu-west-1.eks.amazonaws.com"


def test_a_consumer_in_another_region_than_the_platform_is_refused(platform_outputs):
    with pytest.raises(Exception) as err:
        run_consumer({**platform_outputs, "region": "eu-west-1"})
    assert "aws:region = 'us-east-1', but the platform stack's region output is 'eu-west-1'" in str(err.value)


def test_the_added_model_is_behind_the_platforms_api_key(consumer, platform_outputs):
    env = {e["name"]: e for e in objects(consumer)["InferenceService"]["spec"]["predictor"]["containers"][0]["env"]}
    assert env["VLLM_API_KEY"]["valueFrom"]["secretKeyRef"] == {"name": platform_outputs["apiKeySecret"], "key": "key"}


def test_adds_one_model_on_the_platforms_names(consumer, platform_outputs):
    objs = objects(consumer)
    # The model's own ServiceAccount lists the platform's token Secret for KServe (issue 18, builders/credentials.py).
    assert sorted(objs) == [
        "InferenceService",
        "PodDisruptionBudget",
        "PodMonitor",
        "PrometheusRule",
        "ScaledObject",
        "ServiceAccount",
    ]
    assert {o["metadata"]["namespace"] for o in objs.values()} == {platform_outputs["namespace"]}
    predictor = objs["InferenceService"]["spec"]["predictor"]
    assert predictor["nodeSelector"]["karpenter.sh/nodepool"] == platform_outputs["poolNames"]["l40s"]
    # KServe's storage initializer reads HF_TOKEN only from a Secret listed on the predictor's
    # ServiceAccount: the consumer's model gets its own, listing the platform's token Secret.
    assert predictor["serviceAccountName"] == objs["ServiceAccount"]["metadata"]["name"]
    assert objs["ServiceAccount"]["secrets"] == [{"name": platform_outputs["hfTokenSecret"]}]
    env = {e["name"]: e for e in predictor["containers"][0]["env"]}
    assert env["HF_TOKEN"]["valueFrom"]["secretKeyRef"]["name"] == platform_outputs["hfTokenSecret"]


def test_every_object_goes_to_the_platforms_cluster(consumer):
    kube = [r for r in consumer.resources if r.custom and r.type.startswith("kubernetes:")]
    assert {r.provider for r in kube} == {"platform-cluster"}
    (provider,) = [r for r in consumer.resources if r.type == "pulumi:providers:kubernetes"]
    assert provider.inputs["kubeconfig"] == "[secret]"


def test_the_plan_is_computed_and_exported(consumer):
    from components import plan_model
    from components.config import GpuPoolConfig, ModelConfig

    cfg = load_stack_file(str(EXAMPLE / "Pulumi.dev.yaml")).config
    plan = plan_model(
        ModelConfig.model_validate(cfg["llm-serving-consumer:model"]),
        GpuPoolConfig.model_validate(cfg["llm-serving-consumer:gpuPool"]),
    )
    assert consumer.outputs == {
        "url": "http://summarize-8b-predictor.llm.svc.cluster.local",
        "modelName": "summarize-8b",
        "queueBudget": plan.max_num_queued_reqs,
        "hpaTarget": plan.target_in_flight_per_pod,
        "clusterRegion": "us-east-1",
        "clusterEndpoint": consumer.outputs["clusterEndpoint"],
    }
    args = objects(consumer)["InferenceService"]["spec"]["predictor"]["containers"][0]["args"]
    assert f"--max-num-seqs={plan.max_num_seqs}" in args


def test_another_platform_namespace_flows_through(platform_outputs):
    rec = run_consumer({**platform_outputs, "namespace": "team-b"})
    assert {o["metadata"]["namespace"] for o in objects(rec).values()} == {"team-b"}


def test_rendered_objects_are_valid_and_pass_the_pack(consumer, platform_outputs):
    """Through the public entry (docs/reuse.md; installed it is llm_serving_plan.plan_program, tests/packaging runs it so)."""
    from stacks import plan_program

    result = plan_program(EXAMPLE, EXAMPLE / "Pulumi.dev.yaml", stack_references={PLATFORM: platform_outputs})

    def key(r):
        return (r.type, r.name)

    # The same resources with the same inputs (the engine registers asynchronously: order may differ).
    assert [(key(r), r.inputs) for r in sorted(result.resources, key=key)] == [
        (key(r), r.inputs) for r in sorted(consumer.resources, key=key)
    ]
    assert result.outputs == consumer.outputs
    for obj in objects(result.recording).values():
        assert validate_object(obj) == [], obj["kind"]
    assert result.mandatory == []
    assert result.mandatory == [v for v in evaluate(policy_resources(consumer)) if v.enforcement == "mandatory"]
