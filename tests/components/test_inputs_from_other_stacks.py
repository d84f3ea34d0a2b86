"""Every component takes the values another stack owns (cluster, region, namespace, VPC, security group,
HF token) as ``pulumi.Input[str]``, and typed providers.

Each test runs the component under the offline engine (stacks/offline.py) twice: once with plain
strings and once with the same values as Outputs of a faked StackReference. The recorded
resources must be identical (builders see plain values either way, components/inputs.py), and
the resolved values must be where they belong. Then: a wrong type is refused naming the field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import pulumi
import pytest
from pydantic import ValidationError

from components import load_stack_config, plan_stack
from stacks.offline import FakeStack, StackFile, run_program
from tests.conftest import stack_config

REF = "org/eks/prod"
# What the stack that owns the cluster exports (the values these tests pass through it).
OWNED = {
    "clusterName": "shared-eks",
    "region": "eu-west-1",
    "namespace": "shared-llm",
    "vpcId": "vpc-0abc",
    "hfToken": "hf_not_a_real_token_0123456789",
}


@pytest.fixture(scope="module")
def prod():
    cfg = load_stack_config(stack_config("prod"))
    return cfg, plan_stack(cfg)


def _stack(tmp_path: Path) -> StackFile:
    return StackFile(name="test", path=tmp_path / "Pulumi.test.yaml", config={})


def _run(tmp_path: Path, build: Callable[[Callable[[str], Any]], None]) -> dict[str, dict]:
    """The resources ``build`` registers, by name; ``build`` reads each owned value through ``value(key)``."""

    def program() -> None:
        ref = pulumi.StackReference(REF)
        build(lambda key: ref.require_output(key))

    rec = run_program(_stack(tmp_path), program, stack_references={REF: FakeStack(dict(OWNED), secret_names=("hfToken",))})
    return {
        r.name: {"type": r.type, "inputs": r.inputs, "parent": r.parent, "provider": r.provider}
        for r in rec.resources
        if r.type != "pulumi:pulumi:StackReference"
    }


def _plain_and_from_stack(tmp_path: Path, build: Callable[[Callable[[str], Any]], None]) -> dict[str, dict]:
    """Run ``build`` with plain values and with Outputs; assert both render the same; return the latter."""
    plain = _run(tmp_path, lambda value: build(OWNED.__getitem__))
    outputs = _run(tmp_path, build)
    assert outputs == plain
    return outputs


def _of_type(resources: dict[str, dict], suffix: str) -> dict[str, dict]:
    return {n: r for n, r in resources.items() if r["type"].endswith(suffix)}


def test_karpenter_takes_cluster_region_and_aws_provider(tmp_path):
    import pulumi_aws as aws

    from components import Karpenter, KarpenterArgs

    def build(value):
        provider = aws.Provider("shared-aws", region=value("region"))
        Karpenter("k", KarpenterArgs(cluster_name=value("clusterName"), region=value("region"), aws_provider=provider))

    res = _plain_and_from_stack(tmp_path, build)
    assert res["k-node-role"]["inputs"]["name"] == "KarpenterNodeRole-shared-eks"
    assert res["k-controller-role"]["inputs"]["name"] == "KarpenterControllerRole-shared-eks"
    rules = _of_type(res, ":EventRule")
    assert {r["inputs"]["name"] for r in rules.values()} == {
        f"karpenter-shared-eks-{rule}"
        for rule in (
            "spot-interruption",
            "rebalance",
            "instance-state-change",
            "scheduled-change",
            "capacity-reservation-interruption",
        )
    }
    policy = json.loads(res["k-controller-policy"]["inputs"]["policy"])
    text = json.dumps(policy)
    assert "arn:aws:ec2:eu-west-1:" in text and "kubernetes.io/cluster/shared-eks" in text
    # The component registers the builder's document (diffed against upstream in tests/builders/test_upstream_iam.py).
    from components.builders import karpenter_aws
    from stacks.mock_cloud import ACCOUNT_ID

    (queue,) = [st["Resource"] for st in policy["Statement"] if st["Sid"] == "AllowInterruptionQueueActions"]
    assert queue.startswith("arn:aws:sqs:") and queue.endswith(f":{ACCOUNT_ID}:shared-eks")
    node_role = f"arn:aws:iam::{ACCOUNT_ID}:role/KarpenterNodeRole-shared-eks"
    assert policy == karpenter_aws.controller_policy("shared-eks", "eu-west-1", ACCOUNT_ID, "aws", queue, node_role)
    trust = json.loads(res["k-controller-role"]["inputs"]["assumeRolePolicy"])
    assert trust["Statement"][0]["Condition"]["StringEquals"]["aws:RequestTag/eks-cluster-arn"] == (
        f"arn:aws:eks:eu-west-1:{ACCOUNT_ID}:cluster/shared-eks"
    )
    settings = res["k-release"]["inputs"]["values"]["settings"]
    assert settings["clusterName"] == settings["interruptionQueue"] == "shared-eks"
    assert res["k-pod-identity"]["inputs"]["clusterName"] == "shared-eks"
    # Every AWS child goes through the caller's AWS provider.
    aws_children = [r for r in res.values() if r["type"].startswith("aws:")]
    assert len(aws_children) == 21 and {r["provider"] for r in aws_children} == {"shared-aws"}


def test_s3_model_reader_takes_namespace_and_cluster(tmp_path, prod):
    import pulumi_aws as aws

    from components import S3ModelReader, S3ModelReaderArgs

    cfg, _ = prod
    model = next(m for m in cfg.models if m.source.type == "s3")

    def build(value):
        provider = aws.Provider("shared-aws", region=value("region"))
        S3ModelReader(
            "reader",
            S3ModelReaderArgs(
                model=model, namespace=value("namespace"), cluster_name=value("clusterName"), aws_provider=provider
            ),
        )

    res = _plain_and_from_stack(tmp_path, build)
    assert res["reader-sa"]["inputs"]["metadata"]["namespace"] == "shared-llm"
    # The builder's "no Kubernetes token" reaches the ServiceAccount (Pod Identity has its own volume).
    assert res["reader-sa"]["inputs"]["automountServiceAccountToken"] is False
    assert res["reader-role"]["inputs"]["name"] == f"llm-serving-shared-eks-{model.name}-s3"
    association = res["reader-pod-identity"]["inputs"]
    assert (association["clusterName"], association["namespace"]) == ("shared-eks", "shared-llm")
    assert {r["provider"] for r in res.values() if r["type"].startswith("aws:")} == {"shared-aws"}


def test_metrics_stack_takes_the_models_namespace(tmp_path):
    from components import MetricsStack, MetricsStackArgs

    cfg = load_stack_config(stack_config("dev"))

    def build(value):
        MetricsStack("metrics", MetricsStackArgs(models=cfg.models, namespace=value("namespace"), monitoring=cfg.monitoring))

    res = _plain_and_from_stack(tmp_path, build)
    adapter = res["metrics-prometheus-adapter"]["inputs"]
    queries = [rule["seriesQuery"] for rule in adapter["values"]["rules"]["custom"]]
    assert queries and all('namespace="shared-llm"' in q for q in queries)
    # The release itself stays in the monitoring namespace (only the rules follow the models).
    assert adapter["namespace"] == cfg.monitoring.namespace


def test_load_balancer_controller_takes_cluster_region_and_vpc(tmp_path):
    from components.ingress import AwsLoadBalancerController, AwsLoadBalancerControllerArgs

    def build(value):
        AwsLoadBalancerController(
            "lbc", AwsLoadBalancerControllerArgs(cluster_name=value("clusterName"), region=value("region"), vpc_id=value("vpcId"))
        )

    res = _plain_and_from_stack(tmp_path, build)
    values = res["lbc-release"]["inputs"]["values"]
    assert (values["clusterName"], values["region"], values["vpcId"]) == ("shared-eks", "eu-west-1", "vpc-0abc")
    assert res["lbc-pod-identity"]["inputs"]["clusterName"] == "shared-eks"


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_llm_ingress_takes_namespace_and_cluster(tmp_path, stack):
    """dev routes ALB -> vLLM (the Ingress in the models' namespace); prod through Istio (routes there)."""
    from components import LlmIngress, LlmIngressArgs
    from components.builders.ingress import GATEWAY_NAMESPACE

    cfg = load_stack_config(stack_config(stack))
    plans = plan_stack(cfg)
    assert cfg.ingress is not None

    def build(value):
        LlmIngress(
            "ing",
            LlmIngressArgs(
                ingress=cfg.ingress,
                models=cfg.models,
                plans=plans,
                namespace=value("namespace"),
                cluster_name=value("clusterName"),
                region=value("region"),
            ),
        )

    res = _plain_and_from_stack(tmp_path, build)
    (alb,) = _of_type(res, ":Ingress").values()
    istio = cfg.ingress.routing == "istio"
    assert alb["inputs"]["metadata"]["namespace"] == (GATEWAY_NAMESPACE if istio else "shared-llm")
    routes = {**_of_type(res, ":VirtualService"), **_of_type(res, ":DestinationRule")}
    assert len(routes) == (2 * len(cfg.models) if istio else 0)
    for route in routes.values():
        assert route["inputs"]["metadata"]["namespace"] == "shared-llm"
        assert all(".shared-llm.svc.cluster.local" in h for h in _hosts(route["inputs"]["spec"]))
    assert res["ing-lb-controller-release"]["inputs"]["values"]["clusterName"] == "shared-eks"


def _hosts(spec: dict) -> list[str]:
    """The in-cluster hosts a VirtualService routes to, or a DestinationRule's host."""
    if "host" in spec:
        return [spec["host"]]
    return [d["destination"]["host"] for route in spec["http"] for d in route["route"]]


def test_gpu_pool_takes_the_vpc_of_its_efa_group(tmp_path, prod):
    """A pool's EFA security group goes into the VPC another stack exports, through the caller's AWS provider."""
    import pulumi_aws as aws

    from components import GpuPool, GpuPoolArgs
    from components.capacity.pools import plan_pools
    from stacks.mock_cloud import physical_id

    cfg, plans = prod
    pool = next(p for p in cfg.gpu_pools if p.name == "h100")
    plan = plan_pools(cfg.gpu_pools, cfg.models, plans)[pool.name]

    def build(value):
        provider = aws.Provider("shared-aws", region=value("region"))
        GpuPool(
            "h100",
            GpuPoolArgs(
                pool=pool, plan=plan, cluster_name=value("clusterName"), efa_vpc_id=value("vpcId"), aws_provider=provider
            ),
        )

    res = _plain_and_from_stack(tmp_path, build)
    group = res["h100-efa-sg"]
    group_id = physical_id(group["type"], "h100-efa-sg")
    assert group["inputs"]["vpcId"] == "vpc-0abc" and group["provider"] == "shared-aws" and group_id.startswith("sg-")
    for rule in (res["h100-efa-ingress"], res["h100-efa-egress"]):
        assert rule["inputs"]["securityGroupId"] == rule["inputs"]["referencedSecurityGroupId"] == group_id
        assert rule["provider"] == "shared-aws"
    terms = res["h100-node-class"]["inputs"]["spec"]["securityGroupSelectorTerms"]
    assert terms == [{"tags": {"karpenter.sh/discovery": "shared-eks"}}, {"id": group_id}]


def test_platform_takes_token_providers_and_security_group_from_another_stack(tmp_path, prod):
    """The whole platform on a cluster another stack owns: its providers, its node group, its HF token."""
    import pulumi_aws as aws
    import pulumi_kubernetes as k8s

    from components import LlmPlatform, LlmPlatformArgs

    cfg, plans = prod
    # The region comes from the shared provider (eu-west-1): with aws:region set to another, the
    # platform would refuse the pair (components/cluster.py provider_region, issue 19).
    cfg = cfg.model_copy(update={"region": None})

    def build(value):
        LlmPlatform(
            "p",
            LlmPlatformArgs(
                config=cfg,
                plans=plans,
                hf_token=value("hfToken"),
                k8s_provider=k8s.Provider("shared-k8s", kubeconfig="{}"),
                aws_provider=aws.Provider("shared-aws", region=value("region")),
                vpc_id=value("vpcId"),
            ),
        )

    res = _plain_and_from_stack(tmp_path, build)
    custom = [r for r in res.values() if not r["type"].startswith(("llm-serving:", "pulumi:providers:"))]
    assert {r["provider"] for r in custom if r["type"].startswith("kubernetes:")} == {"shared-k8s"}
    assert {r["provider"] for r in custom if r["type"].startswith("aws:")} == {"shared-aws"}
    assert res["p-pool-h100-ray-efa-sg"]["inputs"]["vpcId"] == "vpc-0abc"
    # The token reaches the Secret as a secret: redacted in what the engine recorded, never in clear.
    secret = res["p-hf-token"]["inputs"]
    assert set(secret["stringData"]) == {"HF_TOKEN"} and secret["stringData"]["HF_TOKEN"] != OWNED["hfToken"]
    assert OWNED["hfToken"] not in json.dumps(res)


def _args_errors(make: Callable[[], Any]) -> str:
    with pytest.raises(ValidationError) as caught:
        make()
    return str(caught.value)


def _wrong_types(prod_cfg, plans) -> list[tuple[str, Callable[[], Any], str]]:
    """(field, a constructor given a wrong type for it, the rule the message states)."""
    from components import KarpenterArgs, LlmIngressArgs, LlmPlatformArgs, MetricsStackArgs, S3ModelReaderArgs
    from components.ingress import AwsLoadBalancerControllerArgs

    s3 = next(m for m in prod_cfg.models if m.source.type == "s3")
    text = "must be a string or a pulumi Output of one, not int"
    aws = "must be a pulumi_aws.Provider or null, not str"
    return [
        ("cluster_name", lambda: KarpenterArgs(cluster_name=7, region="us-east-1"), text),
        ("region", lambda: KarpenterArgs(cluster_name="c", region=7), text),
        ("aws_provider", lambda: KarpenterArgs(cluster_name="c", region="r", aws_provider="us-east-1"), aws),
        ("namespace", lambda: S3ModelReaderArgs(model=s3, namespace=7, cluster_name="c"), text),
        ("cluster_name", lambda: S3ModelReaderArgs(model=s3, namespace="llm", cluster_name=7), text),
        ("aws_provider", lambda: S3ModelReaderArgs(model=s3, namespace="llm", cluster_name="c", aws_provider="x"), aws),
        ("namespace", lambda: MetricsStackArgs(models=prod_cfg.models, namespace=7), text),
        ("vpc_id", lambda: AwsLoadBalancerControllerArgs(cluster_name="c", region="r", vpc_id=7), text),
        ("aws_provider", lambda: AwsLoadBalancerControllerArgs(cluster_name="c", region="r", aws_provider="x"), aws),
        (
            "namespace",
            lambda: LlmIngressArgs(
                ingress=prod_cfg.ingress, models=prod_cfg.models, plans=plans, namespace=7, cluster_name="c", region="r"
            ),
            text,
        ),
        ("hf_token", lambda: LlmPlatformArgs(config=prod_cfg, hf_token=7), text),
        (
            "k8s_provider",
            lambda: LlmPlatformArgs(config=prod_cfg, k8s_provider="~/.kube/config"),
            "must be a pulumi_kubernetes.Provider or null, not str",
        ),
        ("vpc_id", lambda: LlmPlatformArgs(config=prod_cfg, vpc_id=7), text),
    ]


def test_a_wrong_type_is_refused_naming_the_field(prod):
    cfg, plans = prod
    for field, make, rule in _wrong_types(cfg, plans):
        message = _args_errors(make)
        # pydantic names the field on the line above the rule.
        assert f"{field}\n  Value error, {rule}" in message, (field, message)


def test_a_provider_of_the_wrong_package_is_refused_naming_it(tmp_path):
    """A Kubernetes provider where the AWS one belongs (and the reverse) is refused, naming both types."""
    import pulumi_aws as aws
    import pulumi_kubernetes as k8s

    from components import KarpenterArgs, LlmPlatformArgs

    cfg = load_stack_config(stack_config("dev"))
    messages: list[str] = []

    def program():
        k8s_provider = k8s.Provider("cluster", kubeconfig="{}")
        aws_provider = aws.Provider("account", region="us-east-1")
        for make in (
            lambda: KarpenterArgs(cluster_name="c", region="r", aws_provider=k8s_provider),
            lambda: LlmPlatformArgs(config=cfg, k8s_provider=aws_provider),
        ):
            try:
                make()
            except ValidationError as exc:
                messages.append(str(exc))

    run_program(_stack(tmp_path), program)
    assert len(messages) == 2
    assert (
        "aws_provider\n  Value error, must be a pulumi_aws.Provider or null, not pulumi_kubernetes.provider.Provider"
        in messages[0]
    )
    assert (
        "k8s_provider\n  Value error, must be a pulumi_kubernetes.Provider or null, not pulumi_aws.provider.Provider"
        in messages[1]
    )


def test_the_reference_names_inputs_and_providers():
    """The README's generated reference says Input[str] and the provider's type, never "any", for these fields."""
    from components import KarpenterArgs, LlmPlatformArgs
    from stacks import reference

    rows = {
        line.split("|")[1].strip(" `"): line.split("|")[2].strip() for line in reference.model_table(KarpenterArgs, "name")[2:]
    }
    assert rows["cluster_name"] == rows["region"] == "Input[str]"
    assert rows["aws_provider"] == "pulumi_aws.Provider (optional)"
    rows = {
        line.split("|")[1].strip(" `"): line.split("|")[2].strip() for line in reference.model_table(LlmPlatformArgs, "name")[2:]
    }
    assert rows["hf_token"] == rows["vpc_id"] == "Input[str] (optional)"
    assert rows["k8s_provider"] == "pulumi_kubernetes.Provider (optional)"
