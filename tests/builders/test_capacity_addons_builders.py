"""Karpenter's AWS prerequisites, the add-on Helm releases and the GPU buffer, asserted on the rendered data."""

from __future__ import annotations

import json

import jsonschema
import pytest
import yaml

from components.builders import addons, buffer, karpenter_aws
from components.builders import vllm_service as vllm
from components.capacity.plan import plan_stack
from components.capacity.pools import plan_pools
from components.config import AddonsConfig, load_stack_config
from tests.chart_values import unknown_value_paths
from tests.conftest import shared_path, stack_config
from tests.kube_schemas import validate_object

POLICY = karpenter_aws.controller_policy(
    "llm-prod",
    "us-east-1",
    "123456789012",
    "aws",
    "arn:aws:sqs:us-east-1:123456789012:llm-prod",
    "arn:aws:iam::123456789012:role/KarpenterNodeRole-llm-prod",
)
# Read-only actions IAM cannot scope by resource (or that read public data).
_READS = (
    "ec2:Describe",
    "iam:GetInstanceProfile",
    "iam:ListInstanceProfiles",
    "pricing:GetProducts",
    "ssm:GetParameter",
    "eks:DescribeCluster",
    "arc-zonal-shift:GetManagedResource",
)


def _actions(statement):
    a = statement["Action"]
    return [a] if isinstance(a, str) else a


def test_no_write_action_of_the_controller_is_granted_on_every_resource():
    for st in POLICY["Statement"]:
        writes = [a for a in _actions(st) if not a.startswith(_READS)]
        if writes:
            assert st["Resource"] != "*", st["Sid"]
            resources = st["Resource"] if isinstance(st["Resource"], list) else [st["Resource"]]
            assert all(r.startswith("arn:aws:") for r in resources), st["Sid"]


def test_writes_on_what_karpenter_creates_are_conditioned_on_this_clusters_tags():
    by_sid = {st["Sid"]: st for st in POLICY["Statement"]}
    for sid in (
        "AllowScopedEC2InstanceActionsWithTags",
        "AllowScopedResourceCreationTagging",
        "AllowScopedInstanceProfileCreationActions",
    ):
        assert by_sid[sid]["Condition"]["StringEquals"]["aws:RequestTag/kubernetes.io/cluster/llm-prod"] == "owned"
    for sid in ("AllowScopedDeletion", "AllowScopedInstanceProfileActions", "AllowScopedEC2LaunchTemplateAccessActions"):
        assert by_sid[sid]["Condition"]["StringEquals"]["aws:ResourceTag/kubernetes.io/cluster/llm-prod"] == "owned"
    assert by_sid["AllowPassingInstanceRole"]["Resource"] == "arn:aws:iam::123456789012:role/KarpenterNodeRole-llm-prod"
    assert by_sid["AllowInterruptionQueueActions"]["Resource"] == "arn:aws:sqs:us-east-1:123456789012:llm-prod"
    assert by_sid["AllowAPIServerEndpointDiscovery"]["Resource"] == "arn:aws:eks:us-east-1:123456789012:cluster/llm-prod"
    assert by_sid["AllowRegionalReadActions"]["Condition"] == {"StringEquals": {"aws:RequestedRegion": "us-east-1"}}


def test_controller_is_assumed_through_eks_pod_identity_and_nodes_through_ec2():
    (trust,) = karpenter_aws.controller_role_trust("arn:aws:eks:us-east-1:123456789012:cluster/llm-prod", "kube-system")[
        "Statement"
    ]
    assert trust["Principal"] == {"Service": "pods.eks.amazonaws.com"} and trust["Action"] == ["sts:AssumeRole", "sts:TagSession"]
    assert trust["Condition"]["StringEquals"]["aws:RequestTag/kubernetes-service-account"] == "karpenter"
    (node,) = karpenter_aws.node_role_trust()["Statement"]
    assert node["Principal"] == {"Service": "ec2.amazonaws.com"}
    assert karpenter_aws.node_role_trust("amazonaws.com.cn")["Statement"][0]["Principal"] == {"Service": "ec2.amazonaws.com.cn"}
    assert karpenter_aws.node_policy_arns("aws-cn") == [
        "arn:aws-cn:iam::aws:policy/AmazonEKS_CNI_Policy",
        "arn:aws-cn:iam::aws:policy/AmazonEKSWorkerNodePolicy",
        "arn:aws-cn:iam::aws:policy/AmazonEC2ContainerRegistryPullOnly",
        "arn:aws-cn:iam::aws:policy/AmazonSSMManagedInstanceCore",
    ]


def test_five_interruption_rules_and_a_tls_only_queue():
    kinds = sorted(karpenter_aws.event_pattern(r)["detail-type"][0] for r in karpenter_aws.INTERRUPTION_RULES)
    assert kinds == [
        "AWS Health Event",
        "EC2 Capacity Reservation Instance Interruption Warning",
        "EC2 Instance Rebalance Recommendation",
        "EC2 Instance State-change Notification",
        "EC2 Spot Instance Interruption Warning",
    ]
    deny = karpenter_aws.queue_policy("arn:q")["Statement"][1]
    assert deny["Effect"] == "Deny" and deny["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}


def _releases():
    return [karpenter_aws.karpenter_release("kube-system", "llm-prod", "llm-prod", True), *addons.addon_releases(AddonsConfig())]


@pytest.mark.parametrize("rel", _releases(), ids=lambda r: r["chart"])
def test_helm_values_exist_in_the_pinned_chart(rel):
    chart_dir = shared_path("charts", rel["chart"], rel["version"])
    chart = yaml.safe_load((chart_dir / "Chart.yaml").read_text())
    assert chart["name"] == rel["chart"]
    # Two files carry a placeholder that the upstream release step rewrites (charts/PROVENANCE.md): karpenter's
    # Chart.yaml at tag v1.14.1 still says 1.13.0, cert-manager's says v0.0.0; the folder is the published version.
    placeholders = {("karpenter", "1.13.0"), ("cert-manager", "v0.0.0")}
    assert chart["version"] == rel["version"] or (rel["chart"], chart["version"]) in placeholders
    defaults = yaml.safe_load((chart_dir / "values.yaml").read_text()) or {}
    assert unknown_value_paths(rel["values"], defaults) == []
    schema_file = chart_dir / "values.schema.json"
    if schema_file.exists():
        jsonschema.Draft7Validator(json.loads(schema_file.read_text())).validate(rel["values"])


def test_karpenter_release_names_the_cluster_queue_and_sets_the_capacity_buffer_gate():
    values = karpenter_aws.karpenter_values("llm-prod", "llm-prod", True)
    assert values["settings"] == {
        "clusterName": "llm-prod",
        "interruptionQueue": "llm-prod",
        "featureGates": {"capacityBuffer": True},
    }
    assert karpenter_aws.karpenter_values("c", "q", False)["settings"]["featureGates"] == {"capacityBuffer": False}


def test_kserve_defaults_to_standard_and_the_device_plugin_runs_on_gpu_nodes_only():
    assert addons.kserve_values()["kserve"]["controller"]["deploymentMode"] == "Standard"
    dp = addons.device_plugin_values()
    (term,) = dp["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert term["matchExpressions"] == [
        {"key": "karpenter.k8s.aws/instance-gpu-manufacturer", "operator": "In", "values": ["nvidia"]}
    ]
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in dp["tolerations"]


def test_each_addon_can_be_skipped():
    cfg = AddonsConfig.model_validate({"certManager": {"install": False}, "kserve": {"install": False}})
    assert [r["chart"] for r in addons.addon_releases(cfg)] == ["nvidia-device-plugin"]
    assert [r["chart"] for r in addons.addon_releases(AddonsConfig())] == [
        "cert-manager",
        "kserve-crd",
        "kserve-resources",
        "nvidia-device-plugin",
    ]


@pytest.fixture(scope="module")
def prod():
    cfg = load_stack_config(stack_config("prod"))
    plans = plan_stack(cfg)
    return cfg, plans, plan_pools(cfg.gpu_pools, cfg.models, plans)


def test_priority_classes_put_serving_above_zero_and_the_buffer_below(prod):
    pcs = {pc["metadata"]["name"]: pc for pc in buffer.priority_classes()}
    assert pcs[buffer.BUFFER_PRIORITY_CLASS]["value"] < 0 < pcs[buffer.SERVING_PRIORITY_CLASS]["value"]
    assert pcs[buffer.BUFFER_PRIORITY_CLASS]["preemptionPolicy"] == "Never"
    for pc in pcs.values():
        assert validate_object(pc) == []


def test_placeholder_deployment_holds_one_replica_of_the_largest_model(prod):
    cfg, plans, pools = prod
    dep = buffer.placeholder_deployment(pools["l40s"], cfg.namespace)
    assert validate_object(dep) == []
    pod = dep["spec"]["template"]["spec"]
    (c,) = pod["containers"]
    qwen = plans["qwen3-32b"].resources
    assert c["resources"]["requests"] == {"cpu": str(qwen.cpu), "memory": f"{qwen.memory_gib}Gi", "nvidia.com/gpu": "4"}
    assert c["image"] == "registry.k8s.io/pause:3.10"
    assert dep["spec"]["replicas"] == 1
    assert pod["priorityClassName"] == buffer.BUFFER_PRIORITY_CLASS
    assert pod["nodeSelector"] == {"karpenter.sh/nodepool": "l40s", "karpenter.k8s.aws/instance-gpu-name": "l40s"}
    assert pod["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "PreferNoSchedule"},
    ]


def test_capacity_buffer_mode_renders_a_pod_template_and_a_capacity_buffer(prod):
    cfg, _, pools = prod
    template = buffer.buffer_pod_template(pools["l40s"], cfg.namespace)
    cb = buffer.capacity_buffer(pools["l40s"], cfg.namespace)
    assert validate_object(template) == [] and validate_object(cb) == []
    assert cb["spec"] == {"podTemplateRef": {"name": template["metadata"]["name"]}, "replicas": 1}


def test_serving_pods_preempt_the_buffer_and_spread_over_zones(prod):
    cfg, plans, _ = prod
    m = next(m for m in cfg.models if m.name == "chat-8b")
    predictor = vllm.inference_service(m, plans["chat-8b"], cfg.namespace, m.pool, None)["spec"]["predictor"]
    assert predictor["priorityClassName"] == buffer.SERVING_PRIORITY_CLASS
    zone, host = predictor["topologySpreadConstraints"]
    assert zone["topologyKey"] == "topology.kubernetes.io/zone" and zone["whenUnsatisfiable"] == "ScheduleAnyway"
    assert host["topologyKey"] == "kubernetes.io/hostname"
    assert zone["labelSelector"] == {"matchLabels": {"serving.kserve.io/inferenceservice": "chat-8b"}}


def test_replicas_that_fill_a_node_together_are_packed_not_spread_over_hostnames(prod):
    # Karpenter v1.14.1 keeps ScheduleAnyway constraints while it provisions (kubernetes-sigs/karpenter
    # pkg/controllers/provisioning/scheduling/topology.go:461-490 skips them only under the Ignore preference policy;
    # preferences.go:90-100 drops one only after a failed attempt, scheduler.go:521-552), and a hostname spread of
    # maxSkew 1 admits one selected pod per new node (topologygroup.go:238-252). Two TP4 llama-70b replicas must be able
    # to share one 8-GPU p5 (the stack file's cost reasoning): no hostname spread, and a zone spread whose maxSkew lets a
    # zone take a node's worth (topologygroup.go:254-297 chooses the least-loaded zone within maxSkew).
    from components.builders.scheduling import replicas_per_node

    cfg, plans, _ = prod
    m = next(m for m in cfg.models if m.name == "llama-70b")
    assert replicas_per_node(plans["llama-70b"]) == 2
    predictor = vllm.inference_service(m, plans["llama-70b"], cfg.namespace, m.pool, None)["spec"]["predictor"]
    (zone,) = predictor["topologySpreadConstraints"]
    assert zone["topologyKey"] == "topology.kubernetes.io/zone" and zone["maxSkew"] == 2
    # A replica that fills its node alone keeps the hostname spread: nothing to share.
    chat = next(m for m in cfg.models if m.name == "chat-8b")
    assert replicas_per_node(plans["chat-8b"]) == 1
    spread = vllm.inference_service(chat, plans["chat-8b"], cfg.namespace, chat.pool, None)["spec"]["predictor"]
    assert [c["maxSkew"] for c in spread["topologySpreadConstraints"]] == [1, 1]
