"""The platform around the model server, read as set 8 showed it was missed: Karpenter budgets per disruption reason
with a moving AMI (S12), autoscalers named generically (S8), NIMService spec.scale (S6/S8), per-pod Prometheus
queries (S7). Every firing case is a minimal hand-written form of a third-party file (provenance beside it); every
careful form beside it must stay silent."""

from __future__ import annotations

import copy

from policy_fixtures import RISK_ROWS
from policy_fixtures import found_by as _pack_found_by


def found_by(objs: list[dict], policy: str, config: dict | None = None) -> list[tuple[str, str]]:
    """The pack's findings with the risk rows raised (S11-S14 advise by default): proven ones block, unproven advise."""
    return _pack_found_by(objs, policy, {policy: RISK_ROWS[policy]} if config is None and policy in RISK_ROWS else config)


S12 = "karpenter-gpu-nodepool-disruption-budget"

# Tazmainiandevil/eks-gpu-inference-autoscaling platform/karpenter/nodepool.yaml at
# 5fdf82bb5715f7fc00b01c9ca517b07bac00080c (held-out set 8, labelled blocking S12;S14): the EC2NodeClass selects the
# moving alias al2023@latest and the GPU pool's only budget is limited to Underutilized and Empty.
LATEST_CLASS = {
    "apiVersion": "karpenter.k8s.aws/v1",
    "kind": "EC2NodeClass",
    "metadata": {"name": "default"},
    "spec": {
        "amiSelectorTerms": [{"alias": "al2023@latest"}],
        "role": "gpu-node-role",
        "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "demo"}}],
        "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "demo"}}],
    },
}
REASONS_ONLY_POOL = {
    "apiVersion": "karpenter.sh/v1",
    "kind": "NodePool",
    "metadata": {"name": "gpu"},
    "spec": {
        "template": {
            "spec": {
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                "taints": [{"key": "gpu", "value": "true", "effect": "NoSchedule"}],
                "requirements": [
                    {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g5.xlarge", "g6.xlarge"]}
                ],
            }
        },
        "limits": {"cpu": "64", "nvidia.com/gpu": "8"},
        "disruption": {
            "consolidationPolicy": "WhenEmpty",
            "consolidateAfter": "3m",
            "budgets": [{"nodes": "10%", "reasons": ["Underutilized", "Empty"]}],
        },
    },
}


def test_s12_drift_unbudgeted_with_a_moving_ami_blocks():
    found = found_by([LATEST_CLASS, REASONS_ONLY_POOL], S12)
    assert [level for level, _ in found] == ["mandatory"]
    message = found[0][1]
    assert "none applies to Drifted" in message and "MaxInt32" in message
    assert "its EC2NodeClass default selects amiSelectorTerms alias al2023@latest" in message


def test_s12_drift_unbudgeted_is_advice_where_the_ami_is_pinned_or_the_class_elsewhere():
    pinned = copy.deepcopy(LATEST_CLASS)
    pinned["spec"]["amiSelectorTerms"] = [{"alias": "al2023@v20250505"}]
    for objs in ([pinned, REASONS_ONLY_POOL], [REASONS_ONLY_POOL]):
        found = found_by(objs, S12)
        assert [level for level, _ in found] == ["advisory"], objs
        assert "whenever the NodePool or its EC2NodeClass changes" in found[0][1]


def test_s12_moving_ami_forms():
    """An SSM parameter AWS repoints on every release, and a v1beta1 class with only an amiFamily, move too."""
    ssm = copy.deepcopy(LATEST_CLASS)
    ssm["spec"]["amiSelectorTerms"] = [
        {"ssmParameter": "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/nvidia/recommended/image_id"}
    ]
    family = {"apiVersion": "karpenter.k8s.aws/v1beta1", "kind": "EC2NodeClass", "metadata": {"name": "default"}}
    family["spec"] = {"amiFamily": "AL2023", "role": "r"}
    wildcard = copy.deepcopy(LATEST_CLASS)
    wildcard["spec"]["amiSelectorTerms"] = [{"name": "amazon-eks-node-al2023-x86_64-nvidia-1.31-*", "owner": "amazon"}]
    for node_class, why in (
        (ssm, "ssmParameter /aws/service"),
        (family, "amiFamily AL2023 with no amiSelectorTerms"),
        (wildcard, "name amazon-eks-node-al2023-x86_64-nvidia-1.31-* (the newest AMI it matches)"),
    ):
        found = found_by([node_class, REASONS_ONLY_POOL], S12)
        assert [level for level, _ in found] == ["mandatory"] and why in found[0][1]


def test_s12_careful_budgets_stay_silent():
    """A budget for Drifted (a window and a cap on every reason, as the builder renders and Karpenter's docs show),
    or one naming no reason, covers drift however moving the AMI."""
    for budgets in (
        [{"nodes": "10%", "reasons": ["Underutilized", "Empty"]}, {"nodes": "1", "reasons": ["Drifted"]}],
        [{"nodes": "0", "reasons": ["Drifted"], "schedule": "0 9 * * mon-fri", "duration": "8h"}, {"nodes": "1"}],
    ):
        pool = copy.deepcopy(REASONS_ONLY_POOL)
        pool["spec"]["disruption"]["budgets"] = budgets
        assert found_by([LATEST_CLASS, pool], S12) == [], budgets


# Tazmainiandevil/eks-gpu-inference-autoscaling apps/inference/scaledobject.yaml at
# 5fdf82bb5715f7fc00b01c9ca517b07bac00080c (held-out set 8): a ScaledObject on a generically named target in another
# file, a GPU queue-depth query and a cron trigger pinning 10 replicas, no behavior.
GENERIC_SCALED_OBJECT = {
    "apiVersion": "keda.sh/v1alpha1",
    "kind": "ScaledObject",
    "metadata": {"name": "inference-scaler"},
    "spec": {
        "scaleTargetRef": {"name": "inference-pod"},
        "minReplicaCount": 1,
        "maxReplicaCount": 10,
        "triggers": [
            {
                "type": "prometheus",
                "metadata": {
                    "serverAddress": "http://prometheus.monitoring.svc:9090",
                    "metricName": "gpu_job_queue_depth",
                    "query": "sum(gpu_job_queue_depth) or vector(0)",
                    "threshold": "5",
                },
            },
            {
                "type": "cron",
                "metadata": {
                    "timezone": "Europe/Dublin",
                    "start": "0 8 * * MON-FRI",
                    "end": "0 18 * * MON-FRI",
                    "desiredReplicas": "10",
                },
            },
        ],
    },
}
UNSET = "llm-autoscaler-behavior-explicit"
S8 = "llm-hpa-behavior"


def test_s8_a_generically_named_autoscaler_of_gpu_work_is_advised():
    found = found_by([GENERIC_SCALED_OBJECT], UNSET)
    assert [level for level, _ in found] == ["advisory"]
    # The target's name says it serves a model: "inference", not a router or gateway beside the server.
    assert "scaleTargetRef.name 'inference-pod' names a model server (inference)" in found[0][1]
    # Nothing in the names, but the series it scales on is GPU work.
    by_metric = copy.deepcopy(GENERIC_SCALED_OBJECT)
    by_metric["metadata"]["name"] = "queue-scaler"
    by_metric["spec"]["scaleTargetRef"]["name"] = "worker"
    assert "its metrics name GPU work" in found_by([by_metric], UNSET)[0][1]


def test_s8_careful_autoscalers_of_other_work_stay_silent():
    """A CPU web tier's autoscaler (no model-server or GPU name, no such series), and an inference gateway's, are not
    LLM autoscalers; a stated behavior silences the companion."""
    web = copy.deepcopy(GENERIC_SCALED_OBJECT)
    web["metadata"]["name"] = "web-scaler"
    web["spec"]["scaleTargetRef"]["name"] = "inference-gateway"
    web["spec"]["triggers"][0]["metadata"].update(metricName="http_requests", query="sum(rate(http_requests_total[1m]))")
    assert found_by([web], UNSET) == []
    stated = copy.deepcopy(GENERIC_SCALED_OBJECT)
    stated["spec"]["advanced"] = {
        "horizontalPodAutoscalerConfig": {"behavior": {"scaleDown": {"stabilizationWindowSeconds": 600}}}
    }
    assert found_by([stated], UNSET) == []


def test_s8_cron_pinned_replicas_beyond_every_gpu_pool_are_advice():
    """The same repository's gpu NodePool caps nvidia.com/gpu at 8; the cron trigger holds 10 replicas (set 8, S13;S8)."""
    found = found_by([GENERIC_SCALED_OBJECT, LATEST_CLASS, REASONS_ONLY_POOL], S8)
    assert [level for level, _ in found] == ["advisory"]
    assert "spec.triggers[1].metadata.desiredReplicas = 10 holds at least 10 GPUs" in found[0][1]
    assert 'limits["nvidia.com/gpu"]: gpu 8' in found[0][1]
    within = copy.deepcopy(GENERIC_SCALED_OBJECT)
    within["spec"]["maxReplicaCount"] = 8
    within["spec"]["triggers"][1]["metadata"]["desiredReplicas"] = "4"
    assert found_by([within, LATEST_CLASS, REASONS_ONLY_POOL], S8) == []
    uncron = copy.deepcopy(within)
    uncron["spec"]["maxReplicaCount"] = 12
    (only,) = found_by([uncron, LATEST_CLASS, REASONS_ONLY_POOL], S8)
    assert only[0] == "advisory" and "spec.maxReplicaCount = 12 asks for at least 12 GPUs" in only[1]


# redhat-na-ssa/nvaie-guide configs/software/nim/meta-service-hpa.yaml at d661aa19c9c9bff654304b5b2ce6ffc616883bc8
# (held-out set 8): a NIMService whose spec.scale.hpa aims KEDA's external metric at a Value of 0.01, no behavior.
NIM_HPA = {
    "apiVersion": "apps.nvidia.com/v1alpha1",
    "kind": "NIMService",
    "metadata": {"name": "meta-llama3-8b-instruct"},
    "spec": {
        "image": {"repository": "nvcr.io/nim/meta/llama-3.1-8b-instruct", "tag": "1.3.3"},
        "authSecret": "ngc-api-secret",
        "resources": {"limits": {"nvidia.com/gpu": 1}},
        "scale": {
            "enabled": True,
            "hpa": {
                "minReplicas": 1,
                "maxReplicas": 2,
                "metrics": [
                    {
                        "type": "External",
                        "external": {
                            "metric": {
                                "name": "s0-prometheus",
                                "selector": {"matchLabels": {"scaledobject.keda.sh/name": "meta-scaledobject"}},
                            },
                            "target": {"type": "Value", "value": "0.01"},
                        },
                    }
                ],
            },
        },
    },
}
S6 = "gpu-workload-no-resource-metric-hpa"


def test_nim_spec_scale_is_read_as_the_hpa_the_operator_renders():
    (unset,) = found_by([NIM_HPA], UNSET)
    assert unset[0] == "advisory" and unset[1].startswith("spec.scale.hpa.behavior is not set, so the HPA the operator")
    (pinned,) = found_by([NIM_HPA], S6)
    assert pinned[0] == "advisory"
    assert pinned[1].startswith("spec.scale.hpa.metrics[0].external.target.value = 0.01 on s0-prometheus: a target this")


def test_nim_spec_scale_careful_forms_stay_silent():
    """A behavior stated with a long window, and a target one replica can carry, as the NIM operator's own autoscaling
    sample writes its metric (NVIDIA/k8s-nim-operator config/samples/nim/serving/standalone/autoscaling/llm.yaml, corpus 1:
    an Object metric gpu_cache_usage_perc on the NIM's Service at a Value of 0.5)."""
    careful = copy.deepcopy(NIM_HPA)
    hpa = careful["spec"]["scale"]["hpa"]
    hpa["behavior"] = {
        "scaleDown": {"stabilizationWindowSeconds": 600, "policies": [{"type": "Pods", "value": 1, "periodSeconds": 120}]}
    }
    hpa["metrics"] = [
        {
            "type": "Object",
            "object": {
                "metric": {"name": "gpu_cache_usage_perc"},
                "describedObject": {"apiVersion": "v1", "kind": "Service", "name": "meta-llama3-8b-instruct"},
                "target": {"type": "Value", "value": "0.5"},
            },
        }
    ]
    assert found_by([careful], UNSET) == [] and found_by([careful], S8) == [] and found_by([careful], S6) == []
    # A short window is judged once, as every HPA's is.
    hpa["behavior"]["scaleDown"]["stabilizationWindowSeconds"] = 60
    (short,) = found_by([careful], S8)
    assert short[1].startswith("spec.scale.hpa.behavior.scaleDown.stabilizationWindowSeconds = 60 is below 300 s")


S7 = "hpa-custom-metric-is-served"


def _not_scope(found: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The findings other than the advice on a series selected with no label matcher (policies/autoscaling/
    query_series.py, tests/policies/test_policy_query_series.py): these tests read the result's shape."""
    return [f for f in found if " with no label matcher " not in f[1]]


def _keda(query: str, max_replicas: int = 3) -> dict:
    """A ScaledObject on a vLLM Deployment in another file with one prometheus trigger running ``query``."""
    return {
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {"name": "llm-scaler", "namespace": "llm"},
        "spec": {
            "scaleTargetRef": {"name": "llm-server"},
            "minReplicaCount": 1,
            "maxReplicaCount": max_replicas,
            "triggers": [
                {"type": "prometheus", "metadata": {"serverAddress": "http://prom:9090", "query": query, "threshold": "5"}}
            ],
        },
    }


def test_s7_per_pod_queries_of_any_engine_block():
    """The one-series rule beyond bare vLLM gauges: every engine family of the table, rates and quantiles of them, and
    an aggregation that keeps the pod. Shapes: erkerc/rhoai-autoscaling inferenceservice-autoscale.yaml @dadfb7b9
    (set 6, labelled blocking: `vllm:num_requests_running`, unaggregated), here in a ScaledObject and over engines."""
    for query, who in (
        ("rate(sglang:num_queue_reqs[1m])", "sglang pod"),
        ('tgi_queue_size{namespace="llm"}', "tgi pod"),
        ("sum by (pod) (vllm:num_requests_running)", "vLLM pod"),
        ("max(nv_inference_pending_request_count) by (instance)", "triton pod"),
        ("histogram_quantile(0.9, rate(vllm:time_to_first_token_seconds_bucket[5m]))", "vLLM pod"),
        ("DCGM_FI_DEV_GPU_UTIL", "GPU (DCGM)"),
    ):
        found = _not_scope(found_by([_keda(query)], S7))
        assert found == [
            (
                "mandatory",
                f"spec.triggers[0].metadata.query {query} returns one series per {who}, and KEDA's prometheus scaler fails "
                f"on a result of more than one element, so the trigger errors as soon as two replicas run; aggregate it "
                f"(sum(...) or avg(...))",
            )
        ], query


def test_s7_aggregated_or_unknown_queries_stay_silent():
    """Aggregates (rmehta2974/LLM_mlops alternate_learning/manifests/21-keda-scaledobject.yaml @5684269 (set 5): sum(rate(
    triton_...)); this project's own nested sum(sum by (pod)(...))), recording rules, and forms the text does not settle
    (without, an aggregation inside a binary expression) are not judged."""
    for query in (
        "sum(rate(nv_inference_request_success[1m]))",
        'sum(sum by (pod) ({__name__=~"vllm:num_requests_running|vllm:num_requests_waiting",namespace="llm"}))',
        "avg(vllm:kv_cache_usage_perc) or vector(0)",
        "vllm:num_requests_waiting:sum",
        "sum(rate(vllm:request_success_total[1m])) without (le)",
        "histogram_quantile(0.9, sum by (le) (rate(vllm:e2e_request_latency_seconds_bucket[5m])))",
        "num_requests_running",
        "absent(vllm:num_requests_running)",
    ):
        assert _not_scope(found_by([_keda(query)], S7)) == [], query
    # Set 5's own spelling, triton_..., is no series Triton exports (its families are nv_...): only that advice, not
    # the per-pod rule.
    ((level, message),) = _not_scope(found_by([_keda("sum(rate(triton_inference_request_success[1m]))")], S7))
    assert level == "advisory" and "which Triton Inference Server does not export" in message


DISK = "karpenter-gpu-node-disk"


def test_gpu_node_class_with_karpenters_default_disk_is_advised():
    """pseudorm/eks-vllm-terraform k8s/gpu-nodepool.yaml @c892e4cfd0b3a76f41a9a0db88872bddcab4cb4e (set 6): a g5 GPU
    NodePool whose Bottlerocket EC2NodeClass sets no blockDeviceMappings, so its nodes get Karpenter's 20 GiB volume."""
    node_class = {
        "apiVersion": "karpenter.k8s.aws/v1",
        "kind": "EC2NodeClass",
        "metadata": {"name": "default"},
        "spec": {"amiFamily": "Bottlerocket", "amiSelectorTerms": [{"id": "ami-0033dd75f1e9f764d"}], "role": "r"},
    }
    (found,) = found_by([node_class, REASONS_ONLY_POOL], DISK)
    assert found[0] == "advisory"
    assert found[1].startswith("spec.blockDeviceMappings: the GPU NodePool(s) gpu get 20 GiB of node disk (no blockDevice")
    # The same class for a CPU pool only, or alone: nothing says GPU nodes land on it.
    cpu_pool = copy.deepcopy(REASONS_ONLY_POOL)
    cpu_pool["spec"]["template"]["spec"]["requirements"][0]["values"] = ["t3.large"]
    del cpu_pool["spec"]["limits"]["nvidia.com/gpu"]
    assert found_by([node_class, cpu_pool], DISK) == [] and found_by([node_class], DISK) == []


def test_gpu_node_class_with_a_sized_disk_or_instance_store_stays_silent():
    """Tazmainiandevil/eks-gpu-inference-autoscaling @5fdf82bb gives /dev/xvda 100Gi gp3 (set 8); shawnawshk/
    ray-serve-on-eks k8s/karpenter/gpu-nodepool.yaml @fa037ec2 gives 500Gi with instanceStorePolicy RAID0 (set 7)."""
    sized = copy.deepcopy(LATEST_CLASS)
    sized["spec"]["blockDeviceMappings"] = [{"deviceName": "/dev/xvda", "ebs": {"volumeSize": "100Gi", "volumeType": "gp3"}}]
    nvme = copy.deepcopy(LATEST_CLASS)
    nvme["spec"]["instanceStorePolicy"] = "RAID0"
    for node_class in (sized, nvme):
        assert found_by([node_class, REASONS_ONLY_POOL], DISK) == []


def _v1beta1_pool(disruption: dict) -> dict:
    """aws-samples/awsome-inference 2.projects/nims-inference/nim-deploy/helm/scaling-lb-monitoring/scaling/
    karpenter-config.yaml @d3236c8cfabb5699c4292f7e0351e4dbc9099de3 (set 3): a karpenter.sh/v1beta1 GPU NodePool, whose
    consolidation policy is spelt WhenUnderutilized and whose expireAfter sits under spec.disruption."""
    return {
        "apiVersion": "karpenter.sh/v1beta1",
        "kind": "NodePool",
        "metadata": {"name": "default"},
        "spec": {
            "template": {
                "spec": {
                    "nodeClassRef": {"name": "default"},
                    "taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}],
                    "requirements": [{"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": ["p"]}],
                }
            },
            "limits": {"nvidia.com/gpu": "16"},
            "disruption": disruption,
        },
    }


def test_v1beta1_consolidation_and_expiry_are_read_in_v1beta1_places():
    """v1beta1's WhenUnderutilized is v1's WhenEmptyOrUnderutilized, and its expireAfter is spec.disruption.expireAfter
    (kubernetes-sigs/karpenter v0.37.0 pkg/apis/v1beta1/nodepool.go:73-88)."""
    (budget,) = found_by([_v1beta1_pool({"consolidationPolicy": "WhenUnderutilized", "budgets": [{"nodes": "1"}]})], S12)
    assert budget == (
        "mandatory",
        'spec.disruption: consolidationPolicy WhenUnderutilized with no budget of nodes "0" for Underutilized; add one '
        "(scheduled outside the maintenance window) so busy serving nodes are not consolidated at any hour",
    )
    (short,) = found_by(
        [_v1beta1_pool({"consolidationPolicy": "WhenEmpty", "budgets": [{"nodes": "1"}], "expireAfter": "1h"})],
        "karpenter-gpu-expiry",
    )
    assert short[1].startswith("spec.disruption.expireAfter: 1h is below the 24h floor")
    # The set's own 720h (Karpenter's default) is no finding (set 3 trap); a budget of 0 for every reason at all hours
    # blocks nothing, but freezes consolidation and drift for good: advice since spent set 14 (WebRTCventures).
    careful = {"consolidationPolicy": "WhenUnderutilized", "budgets": [{"nodes": "0"}], "expireAfter": "720h"}
    assert [level for level, _ in found_by([_v1beta1_pool(careful)], S12)] == ["advisory"]
    assert found_by([_v1beta1_pool(careful)], "karpenter-gpu-expiry") == []


def _kserve_isvc(cls: str, behavior: dict | None = None, mode: str = "RawDeployment") -> dict:
    """erkerc/rhoai-autoscaling inferenceservice-autoscale.yaml @dadfb7b9915d9fd4cb955e1e7c737c37b1de9d35 (set 6),
    reduced and without its stop annotation: a GPU vLLM predictor in RawDeployment mode autoscaled by KServe, 1 to 3."""
    predictor: dict = {
        "minReplicas": 1,
        "maxReplicas": 3,
        "autoScaling": {
            "metrics": [
                {
                    "type": "External",
                    "external": {
                        "metric": {"backend": "prometheus", "query": 'sum(vllm:num_requests_running{namespace="demo"})'},
                        "target": {"type": "Value", "value": "4"},
                    },
                }
            ]
        },
        "model": {
            "modelFormat": {"name": "vLLM"},
            "runtime": "qwen25-7b-instruct",
            "resources": {"limits": {"nvidia.com/gpu": "1", "memory": "10Gi"}, "requests": {"nvidia.com/gpu": "1"}},
        },
    }
    if behavior is not None:
        predictor["autoScaling"]["behavior"] = behavior
    annotations = {"serving.kserve.io/deploymentMode": mode, "serving.kserve.io/autoscalerClass": cls}
    return {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "qwen25-7b-instruct", "namespace": "demo", "annotations": annotations},
        "spec": {"predictor": predictor},
    }


def test_kserve_autoscaling_is_read_as_the_hpa_or_scaled_object_kserve_renders():
    (keda,) = found_by([_kserve_isvc("keda")], UNSET)
    assert keda[1].startswith("spec.predictor.autoScaling.behavior is not set, so the ScaledObject KServe renders takes")
    (hpa,) = found_by([_kserve_isvc("hpa", {"scaleDown": {"stabilizationWindowSeconds": 600}})], UNSET)
    assert hpa[1].startswith("KServe's own HPA (autoscalerClass hpa) is rendered with an empty behavior whatever")
    # KServe copies the keda class's scale-down window into its ScaledObject: a short one is judged as any HPA's is
    # (advice: the 300 s floor is a house threshold, not a failure of serving).
    (short,) = found_by([_kserve_isvc("keda", {"scaleDown": {"stabilizationWindowSeconds": 60}})], S8)
    assert short == (
        "advisory",
        "spec.predictor.autoScaling.behavior.scaleDown.stabilizationWindowSeconds = 60 is below 300 s: a GPU replica "
        "removed on a short dip takes minutes to come back, so the service flaps and queues",
    )


def test_kserve_autoscaling_careful_or_other_forms_stay_silent():
    """A stated keda window, an external autoscaler (the user's own HPA judges), Knative's mode (its KPA is read
    elsewhere) and a predictor that cannot scale (maxReplicas 1) are no KServe-rendered HPA to judge here."""
    careful = [_kserve_isvc("keda", {"scaleDown": {"stabilizationWindowSeconds": 600}}), _kserve_isvc("external")]
    careful.append(_kserve_isvc("keda", mode="Serverless"))
    fixed = _kserve_isvc("keda")
    fixed["spec"]["predictor"]["maxReplicas"] = 1
    for isvc in [*careful, fixed]:
        assert found_by([isvc], UNSET) == [] and [f for f in found_by([isvc], S8) if "autoScaling" in f[1]] == [], isvc


def _ray_service(delay: int, gpus: int = 1) -> dict:
    """awslabs/ai-on-eks blueprints/inference/vllm-rayserve-gpu/ray-service-vllm.yaml (corpus 1), reduced: one Serve
    deployment with num_gpus and an autoscaling_config whose downscale_delay_s is ``delay`` (the blueprint's is 600)."""
    serve = (
        "applications:\n- name: mistral\n  import_path: vllm_serve:deployment\n  deployments:\n  - name: mistral-deployment\n"
        f"    autoscaling_config: {{min_replicas: 1, max_replicas: 4, downscale_delay_s: {delay}, upscale_delay_s: 30}}\n"
        f"    ray_actor_options: {{num_cpus: 1, num_gpus: {gpus}}}\n"
    )
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayService",
        "metadata": {"name": "vllm"},
        "spec": {"serveConfigV2": serve, "rayClusterConfig": {"rayVersion": "2.24.0", "headGroupSpec": {}}},
    }


def test_ray_serve_gpu_deployment_scaling_in_before_the_floor_is_advice():
    # An operator's own short scale-down window is a flapping risk, not a failure (advice since fresh set 27).
    found = [f for f in found_by([_ray_service(60)], S8) if "downscale_delay_s" in f[1]]
    assert found == [
        (
            "advisory",
            "serveConfigV2 application mistral deployment mistral-deployment autoscaling_config.downscale_delay_s = 60: "
            "Ray Serve removes replicas after 60 s of lower load (its default is 600 s), below 300 s; a GPU replica "
            "removed on a short dip takes minutes to come back; set it to at least 300",
        )
    ]
    # The blueprint's own 600 s, and a CPU deployment's short delay, are no finding.
    for careful in (_ray_service(600), _ray_service(60, gpus=0)):
        assert [f for f in found_by([careful], S8) if "downscale_delay_s" in f[1]] == []


S5 = "llm-no-scale-to-zero"
# kedacore/keda v2.20.2 config/samples/keda_v1alpha1_scaledobject.yaml: KEDA's own sample, minReplicaCount 0 on
# example-deployment, nothing about a model server.
KEDA_SAMPLE = {
    "apiVersion": "keda.sh/v1alpha1",
    "kind": "ScaledObject",
    "metadata": {"name": "example-scaledobject"},
    "spec": {
        "scaleTargetRef": {"name": "example-deployment"},
        "cooldownPeriod": 300,
        "minReplicaCount": 0,
        "maxReplicaCount": 100,
        "triggers": [{"type": "example-trigger", "metadata": {"property": "example-property"}}],
    },
}
CPU_DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "example-deployment"},
    "spec": {"template": {"spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}}},
}


def test_s5_scale_to_zero_blocks_only_a_model_server_the_files_show():
    """A floor of 0 on KEDA's own sample (nothing says model server) or on a CPU Deployment of the files is no
    finding; named for a model server with the target elsewhere (DrOSAlchemist/keda-scale-zero-gpu-inference
    k8s/vllm-keda-scaledobject.yaml, set 6: target vllm) it is advice; on a GPU Deployment of the files that serves on a
    port it blocks (one with no port, probe or Service, scaled only on queue triggers, is a queue worker: advice)."""
    assert found_by([KEDA_SAMPLE], S5) == [] and found_by([KEDA_SAMPLE, CPU_DEPLOYMENT], S5) == []
    named = copy.deepcopy(KEDA_SAMPLE)
    named["metadata"]["name"], named["spec"]["scaleTargetRef"]["name"] = "vllm-autoscaler", "vllm"
    (advice,) = found_by([named], S5)
    assert advice[0] == "advisory" and advice[1].endswith("names a model server (vllm))")
    gpu = copy.deepcopy(CPU_DEPLOYMENT)
    gpu["spec"]["template"]["spec"]["containers"][0]["resources"] = {"limits": {"nvidia.com/gpu": "1"}}
    # A GPU container that answers no request (no port, no probe, no Service), scaled only on a queue, is a queue
    # worker: advice. KEDA's sample trigger is no queue scaler, so the same target under it still blocks (review46a #6).
    assert [level for level, _ in found_by([KEDA_SAMPLE, gpu], S5)] == ["mandatory"]
    queued = copy.deepcopy(KEDA_SAMPLE)
    queued["spec"]["triggers"] = [{"type": "rabbitmq", "metadata": {"queueName": "jobs", "value": "5"}}]
    assert [level for level, _ in found_by([queued, gpu], S5)] == ["advisory"]
    gpu["spec"]["template"]["spec"]["containers"][0]["ports"] = [{"containerPort": 80}]
    assert [level for level, _ in found_by([KEDA_SAMPLE, gpu], S5)] == ["mandatory"]


def test_s8_a_leaderworkerset_replica_is_a_group_of_gpu_pods():
    """An HPA on a LeaderWorkerSet scales groups: each replica holds the leader's GPUs and size - 1 workers' (shape of
    kubernetes-sigs/lws docs/examples/vllm/GPU/lws.yaml, corpus 1: size 2, 8 GPUs per pod), so 2 replicas need 32 GPUs of
    a pool capped at 16 (kubernetes-sigs/lws v0.10.0 api/leaderworkerset/v1/leaderworkerset_types.go:151-165)."""
    pod = {"containers": [{"name": "vllm", "image": "vllm/vllm-openai:v0.8.5", "resources": {"limits": {"nvidia.com/gpu": "8"}}}]}
    pod["nodeSelector"] = {"karpenter.sh/nodepool": "gpu"}
    lws = {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": "vllm"},
        "spec": {
            "replicas": 1,
            "leaderWorkerTemplate": {"size": 2, "leaderTemplate": {"spec": pod}, "workerTemplate": {"spec": pod}},
        },
    }
    hpa = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "vllm"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet", "name": "vllm"},
            "minReplicas": 1,
            "maxReplicas": 2,
            "metrics": [
                {
                    "type": "Pods",
                    "pods": {
                        "metric": {"name": "vllm_num_requests_waiting"},
                        "target": {"type": "AverageValue", "averageValue": "5"},
                    },
                }
            ],
            "behavior": {"scaleDown": {"stabilizationWindowSeconds": 600}},
        },
    }
    pool = copy.deepcopy(REASONS_ONLY_POOL)
    pool["spec"]["limits"]["nvidia.com/gpu"] = "16"
    (found,) = [f for f in found_by([lws, hpa, pool], S8) if "exceeds NodePool" in f[1]]
    assert found[0] == "mandatory" and "spec.maxReplicas = 2 x 16 GPUs per group of LeaderWorkerSet/vllm = 32 GPUs" in found[1]
    pool["spec"]["limits"]["nvidia.com/gpu"] = "32"
    assert [f for f in found_by([lws, hpa, pool], S8) if "exceeds NodePool" in f[1]] == []
