"""`python -m stacks plan` renders the GPU capacity layer: Karpenter's AWS side, add-ons, pools and buffers."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.conftest import STACKS, absolute_traffic, run_plan
from tests.kube_schemas import validate_object


def plan(stack: str, out: Path) -> subprocess.CompletedProcess:
    return run_plan(stack, out, "--format", "json")


def variant(tmp_path: Path, base: str, edit) -> str:
    doc = yaml.safe_load((STACKS / f"Pulumi.{base}.yaml").read_text())
    edit(absolute_traffic(doc["config"]))
    path = tmp_path / f"Pulumi.{base}-variant.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return str(path)


@pytest.fixture(scope="module")
def prod(tmp_path_factory):
    out = tmp_path_factory.mktemp("prod")
    proc = plan("prod", out)
    assert proc.returncode == 0, proc.stderr
    return out, json.loads(proc.stdout)


def aws_files(out: Path) -> dict[str, dict]:
    return {p.name: json.loads(p.read_text()) for p in sorted((out / "aws").glob("*.json"))}


def test_karpenter_prerequisites_are_written_under_aws(prod):
    out, _ = prod
    files = {k: f for k, f in aws_files(out).items() if f["name"].startswith("prod-karpenter-")}
    types = sorted({f["type"] for f in files.values()})
    assert types == [
        "aws:cloudwatch/eventRule:EventRule",
        "aws:cloudwatch/eventTarget:EventTarget",
        "aws:eks/accessEntry:AccessEntry",
        "aws:eks/podIdentityAssociation:PodIdentityAssociation",
        "aws:iam/role:Role",
        "aws:iam/rolePolicy:RolePolicy",
        "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
        "aws:sqs/queue:Queue",
        "aws:sqs/queuePolicy:QueuePolicy",
    ]
    # Beside them only the EFA pool's security group and its self rules (tests/plan/test_plan_multi_node.py),
    # the load balancer controller's IAM policy (tests/plan/test_plan_ingress.py) and the Pod Identity Agent
    # add-on (tests/components/test_prerequisites.py).
    others = sorted({f["type"] for f in aws_files(out).values()} - set(types))
    assert others == [
        "aws:ec2/securityGroup:SecurityGroup",
        "aws:eks/addon:Addon",
        "aws:iam/policy:Policy",
        "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule",
        "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
    ]
    roles = {f["inputs"]["name"] for f in files.values() if f["type"] == "aws:iam/role:Role"}
    assert roles == {"KarpenterNodeRole-llm-prod", "KarpenterControllerRole-llm-prod"}
    (queue,) = [f for f in files.values() if f["type"] == "aws:sqs/queue:Queue"]
    assert queue["inputs"]["sqsManagedSseEnabled"] is True
    rules = [f for f in files.values() if f["type"] == "aws:cloudwatch/eventRule:EventRule"]
    assert len(rules) == 5  # the reference template's five (tests/builders/test_upstream_iam.py)
    (assoc,) = [f for f in files.values() if f["type"] == "aws:eks/podIdentityAssociation:PodIdentityAssociation"]
    assert assoc["inputs"]["serviceAccount"] == "karpenter" and assoc["inputs"]["namespace"] == "kube-system"
    assert assoc["inputs"]["roleArn"] == "arn:aws:iam::123456789012:role/KarpenterControllerRole-llm-prod"
    (policy,) = [f for f in files.values() if f["type"] == "aws:iam/rolePolicy:RolePolicy"]
    doc = json.loads(policy["inputs"]["policy"])
    assert any(
        s["Sid"] == "AllowPassingInstanceRole" and s["Resource"] == "arn:aws:iam::123456789012:role/KarpenterNodeRole-llm-prod"
        for s in doc["Statement"]
    )


def test_helm_releases_of_karpenter_and_the_addons(prod):
    out, _ = prod
    releases = {p.stem: yaml.safe_load(p.read_text()) for p in (out / "helm").rglob("*.yaml")}
    assert {"karpenter", "cert-manager", "kserve-crd", "kserve", "nvidia-device-plugin"} <= set(releases)
    k = releases["karpenter"]
    assert (k["chart"], k["version"]) == ("oci://public.ecr.aws/karpenter/karpenter", "1.14.1")
    assert k["values"]["settings"]["clusterName"] == "llm-prod" and k["values"]["settings"]["interruptionQueue"] == "llm-prod"


def test_pools_buffer_and_priority_classes_are_rendered_and_schema_valid(prod):
    out, _ = prod
    cluster = out / "kubernetes" / "_cluster"
    for name in (
        "nodepool-l40s",
        "nodepool-h100",
        "ec2nodeclass-l40s",
        "ec2nodeclass-h100",
        "priorityclass-llm-serving-gpu-buffer",
        "priorityclass-llm-serving-inference",
    ):
        doc = yaml.safe_load((cluster / f"{name}.yaml").read_text())
        assert validate_object(doc) == [], name
    buffer = yaml.safe_load((out / "kubernetes" / "llm" / "deployment-gpu-buffer-l40s.yaml").read_text())
    assert validate_object(buffer) == []
    assert buffer["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"] == "4"
    # The h100 pool keeps no buffer.
    assert not (out / "kubernetes" / "llm" / "deployment-gpu-buffer-h100.yaml").exists()


def test_without_karpenter_install_no_aws_resource_and_pools_use_the_named_role(tmp_path):
    def edit(c):
        c["llm-serving:karpenter"] = {"install": False, "nodeRoleName": "eks-gpu-nodes"}
        c["llm-serving:addons"] = {
            "certManager": {"install": False},
            "kserve": {"install": False},
            "nvidiaDevicePlugin": {"install": False},
            "podIdentityAgent": {"install": False},
        }
        c["llm-serving:ingress"]["installController"] = False  # the load balancer controller's IAM is AWS too

    out = tmp_path / "out"
    proc = plan(variant(tmp_path, "dev", edit), out)
    assert proc.returncode == 0, proc.stderr
    assert not (out / "aws").exists()
    helm = {p.stem for p in (out / "helm").rglob("*.yaml")} if (out / "helm").exists() else set()
    assert not helm & {"karpenter", "cert-manager", "kserve-crd", "kserve", "nvidia-device-plugin"}
    node_class = yaml.safe_load((out / "kubernetes" / "_cluster" / "ec2nodeclass-l40s.yaml").read_text())
    assert node_class["spec"]["role"] == "eks-gpu-nodes"


def test_capacity_buffer_mode_turns_the_feature_gate_on(tmp_path):
    out = tmp_path / "out"
    proc = plan(variant(tmp_path, "staging", lambda c: c["llm-serving:gpuPools"][0]["buffer"].update(mode="capacityBuffer")), out)
    assert proc.returncode == 0, proc.stderr
    cb = yaml.safe_load((out / "kubernetes" / "llm" / "capacitybuffer-gpu-buffer-l40s.yaml").read_text())
    template = yaml.safe_load((out / "kubernetes" / "llm" / "podtemplate-gpu-buffer-l40s.yaml").read_text())
    assert validate_object(cb) == [] and validate_object(template) == []
    assert not (out / "kubernetes" / "llm" / "deployment-gpu-buffer-l40s.yaml").exists()
    karpenter = yaml.safe_load((out / "helm" / "kube-system" / "karpenter.yaml").read_text())
    assert karpenter["values"]["settings"]["featureGates"]["capacityBuffer"] is True


def test_a_model_that_cannot_fit_its_pool_exits_1_naming_the_pool(tmp_path):
    path = variant(tmp_path, "prod", lambda c: c["llm-serving:models"][1]["replicas"].update(max=6))
    proc = plan(path, tmp_path / "out")
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    fit = [v for v in report["violations"] if v["policy"] == "gpu-pool-fits-models"]
    assert [v["message"] for v in fit] == [
        "pool l40s: qwen3-32b needs 6 replicas x 4 GPUs + 4 buffer GPUs = 28 GPUs, above the NodePool's "
        'limits["nvidia.com/gpu"] = 24; raise the limit or lower the replicas'
    ]
    assert {p["name"]: p["fits"] for p in report["pools"]} == {"l40s": False, "h100": True, "h100-ray": True}


def test_the_report_has_a_row_per_pool_with_the_cold_start_parts(prod):
    _, report = prod
    pools = {p["name"]: p for p in report["pools"]}
    assert pools["l40s"]["gpus_per_node"] == {"g6e.2xlarge": 1, "g6e.4xlarge": 1, "g6e.12xlarge": 4}
    assert (pools["l40s"]["gpu_limit"], pools["l40s"]["buffer_gpus"], pools["l40s"]["models"]) == (
        24,
        4,
        ["chat-8b", "qwen3-32b"],
    )
    s3 = pools["h100"]["startup"]["llama-70b"]
    assert s3["source"] == "s3" and [p["name"] for p in s3["parts"]][1] == "stream from S3 (Run:ai streamer)"
