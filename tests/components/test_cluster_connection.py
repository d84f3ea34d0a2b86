"""The cluster connection: one explicit Kubernetes provider on every Kubernetes child, and no kubeconfig in clear text."""

from __future__ import annotations

import json

import pulumi
import pytest

from components.builders.kubeconfig import eks_kubeconfig
from components.cluster import k8s_child_opts, kubernetes_provider_of
from components.config import load_stack_config
from components.errors import ConfigError
from stacks import mock_cloud
from tests.conftest import STACKS, stack_config
from tests.recording import record


def test_kubeconfig_uses_the_aws_exec_plugin_and_holds_no_token():
    doc = json.loads(eks_kubeconfig("llm-prod", "https://x.gr7.us-east-1.eks.amazonaws.com", "Q0E=", "us-east-1"))
    (user,) = doc["users"]
    assert user["user"]["exec"]["command"] == "aws"
    assert user["user"]["exec"]["args"] == [
        "--region",
        "us-east-1",
        "eks",
        "get-token",
        "--cluster-name",
        "llm-prod",
        "--output",
        "json",
    ]
    assert "token" not in user["user"] and "client-key-data" not in user["user"]
    assert doc["clusters"][0]["cluster"] == {
        "server": "https://x.gr7.us-east-1.eks.amazonaws.com",
        "certificate-authority-data": "Q0E=",
    }
    assert doc["current-context"] == "llm-prod"


@pytest.fixture(scope="module")
def prod_recording():
    return record("prod")


def providers(rec):
    return [r for r in rec["resources"] if r["type"] == "pulumi:providers:kubernetes"]


def test_every_kubernetes_resource_uses_the_explicit_provider(prod_recording):
    (provider,) = providers(prod_recording)
    assert provider["name"] == "prod-k8s" and provider["parent"] == "prod"
    kube = [r for r in prod_recording["resources"] if r["custom"] and r["type"].startswith("kubernetes:")]
    assert len(kube) >= 10
    assert {r["provider"] for r in kube} == {"prod-k8s"}


def test_the_kubeconfig_is_a_secret_in_the_recording_and_never_written(prod_recording):
    (provider,) = providers(prod_recording)
    assert provider["inputs"]["kubeconfig"] == "[secret]"
    for name, text in prod_recording["files"].items():
        assert "get-token" not in text and "certificate-authority-data" not in text, name


def test_the_mocked_eks_lookup_answers_in_the_shape_the_provider_reads():
    answer = mock_cloud.invoke("aws:eks/getCluster:getCluster", {"name": "llm-prod"}, "us-east-1")
    assert answer["arn"] == "arn:aws:eks:us-east-1:123456789012:cluster/llm-prod"
    assert answer["endpoint"].startswith("https://") and answer["endpoint"].endswith(".gr7.us-east-1.eks.amazonaws.com")
    doc = json.loads(eks_kubeconfig(answer["name"], answer["endpoint"], answer["certificateAuthorities"][0]["data"], "us-east-1"))
    assert doc["clusters"][0]["cluster"]["server"] == answer["endpoint"]
    assert mock_cloud.invoke("aws:eks/getCluster:getCluster", {"name": "llm-prod"}, "us-east-1") == answer


def test_ambient_connection_builds_a_provider_on_the_local_kubeconfig(tmp_path):
    doc = (
        (STACKS / "Pulumi.dev.yaml")
        .read_text()
        .replace(
            '    kubernetesVersion: "1.33"\n',
            '    kubernetesVersion: "1.33"\n    connection: ambient\n    kubeContext: admin@llm-dev\n',
        )
    )
    path = tmp_path / "Pulumi.ambient.yaml"
    path.write_text(doc)
    rec = record(str(path))
    (provider,) = providers(rec)
    assert provider["inputs"].get("context") == "admin@llm-dev" and "kubeconfig" not in provider["inputs"]
    assert {r["provider"] for r in rec["resources"] if r["custom"] and r["type"].startswith("kubernetes:")} == {provider["name"]}


def test_kube_context_without_ambient_is_refused():
    raw = stack_config("dev")
    raw["llm-serving:cluster"]["kubeContext"] = "admin"
    with pytest.raises(ConfigError) as err:
        load_stack_config(raw)
    assert 'kubeContext is only read with connection "ambient"' in str(err.value)


def test_one_gpu_pool_component_per_pool_with_its_node_class_and_node_pool(prod_recording):
    pools = [r for r in prod_recording["resources"] if r["type"] == "llm-serving:karpenter:GpuPool"]
    assert sorted(r["name"] for r in pools) == ["prod-pool-h100", "prod-pool-h100-ray", "prod-pool-l40s"]
    children = {(r["parent"], r["type"].split(":")[-1]) for r in prod_recording["resources"]}
    for pool in ("prod-pool-h100", "prod-pool-h100-ray", "prod-pool-l40s"):
        assert {(pool, "EC2NodeClass"), (pool, "NodePool")} <= children


class _FakeProvider(pulumi.ProviderResource):
    """A stand-in that is never registered: kubernetes_provider_of only reads .package."""


def test_kubernetes_provider_of_reads_provider_or_providers():
    p = object.__new__(_FakeProvider)
    p.package = "kubernetes"
    assert kubernetes_provider_of(pulumi.ResourceOptions(provider=p)) is p
    assert kubernetes_provider_of(pulumi.ResourceOptions(providers={"kubernetes": p})) is p
    assert kubernetes_provider_of(pulumi.ResourceOptions(providers=[p])) is p
    assert kubernetes_provider_of(pulumi.ResourceOptions()) is None
    assert kubernetes_provider_of(None) is None
    opts = k8s_child_opts("parent", p, protect=True)  # type: ignore[arg-type]
    assert (opts.parent, opts.provider, opts.protect) == ("parent", p, True)
