"""S15 S19 S20 and the pool-fit check: GPU pods against their pools, one compliant stack, one mutation per case."""

from __future__ import annotations

import copy

from policy_fixtures import DEPLOYMENT_TYPE, deployment_props, isvc, isvc_props, messages, resource, vllm_container

from policies.gpu import ephemeral_storage, rollout_surge, tolerates_and_targets
from policies.karpenter import pool_fits_models

NODEPOOL = {
    "apiVersion": "karpenter.sh/v1",
    "kind": "NodePool",
    "metadata": {"name": "l40s"},
    "spec": {
        "template": {
            "spec": {
                "requirements": [{"key": "karpenter.k8s.aws/instance-gpu-name", "operator": "In", "values": ["l40s"]}],
                "taints": [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}],
            }
        },
        "limits": {"nvidia.com/gpu": 12.0},
    },
}


def stack(*extra, nodepool=None, isvc_edit=None):
    props = isvc_props()
    if isvc_edit:
        isvc_edit(props)
    return [
        resource("kubernetes:karpenter.sh/v1:NodePool", nodepool or copy.deepcopy(NODEPOOL), "l40s-pool"),
        isvc(props),
        *extra,
    ]


def test_compliant_stack_passes_every_gpu_pod_policy():
    for policy in (tolerates_and_targets, ephemeral_storage, rollout_surge, pool_fits_models):
        assert messages(policy.POLICY, *stack()) == [], policy.POLICY.name


def test_s15_missing_toleration_of_the_pool_taint():
    def edit(p):
        p["spec"]["predictor"]["tolerations"] = []

    # On a cluster without the ExtendedResourceToleration admission plugin the pod stays Pending: it blocks ...
    off = {"extendedResourceToleration": False}
    assert messages(tolerates_and_targets.POLICY, *stack(isvc_edit=edit), config=off) == [
        "spec.predictor: requests GPUs but does not tolerate the nvidia.com/gpu:NoSchedule taint of NodePool l40s; it stays Pending"
    ]
    # ... while EKS, AKS and GKE (the default) add {nvidia.com/gpu, Exists, NoSchedule} to a pod that requests GPUs
    # (kubernetes plugin/pkg/admission/extendedresourcetoleration/admission.go): advice to write it.
    assert messages(tolerates_and_targets.POLICY, *stack(isvc_edit=edit)) == [
        "spec.predictor: requests GPUs but does not tolerate the nvidia.com/gpu:NoSchedule taint of NodePool l40s; it stays "
        "Pending" + tolerates_and_targets.ADMITTED
    ]


def test_s15_a_pool_taint_the_pod_does_not_know():
    pool = copy.deepcopy(NODEPOOL)
    pool["spec"]["template"]["spec"]["taints"].append({"key": "team", "value": "llm", "effect": "NoSchedule"})
    assert messages(tolerates_and_targets.POLICY, *stack(nodepool=pool)) == [
        "spec.predictor: requests GPUs but does not tolerate the team:NoSchedule taint of NodePool l40s; it stays Pending"
    ]


def test_s15_a_soft_pool_taint_needs_its_own_toleration_under_karpenter():
    # Karpenter v1.14.1 checks every NodePool taint whatever its effect when it provisions (kubernetes-sigs/karpenter
    # pkg/scheduling/taints.go:83-95) and tolerates PreferNoSchedule only as its last relaxation, after dropping the
    # pod's spread (pkg/controllers/provisioning/scheduling/preferences.go:38-57, 132-146). A toleration matches a
    # taint only with an empty or equal effect, so NoSchedule alone does not cover a PreferNoSchedule cache pool.
    pool = copy.deepcopy(NODEPOOL)
    pool["spec"]["template"]["spec"]["taints"] = [{"key": "nvidia.com/gpu", "value": "true", "effect": "PreferNoSchedule"}]
    assert messages(tolerates_and_targets.POLICY, *stack(nodepool=pool)) == [
        "spec.predictor: requests GPUs but does not tolerate the nvidia.com/gpu:PreferNoSchedule taint of NodePool l40s; "
        "it stays Pending"
    ]

    def soft(p):
        p["spec"]["predictor"]["tolerations"].append(
            {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "PreferNoSchedule"}
        )

    assert messages(tolerates_and_targets.POLICY, *stack(nodepool=pool, isvc_edit=soft)) == []


def test_s15_no_gpu_type_selector():
    def edit(p):
        p["spec"]["predictor"]["nodeSelector"] = {}

    (msg,) = messages(tolerates_and_targets.POLICY, *stack(isvc_edit=edit))
    assert msg.startswith("spec.predictor: requests GPUs without a nodeSelector or required affinity on a GPU type or pool label")


def test_s19_hub_download_without_ephemeral_storage():
    def edit(p):
        del vllm_container(p)["resources"]["requests"]["ephemeral-storage"]

    assert messages(ephemeral_storage.POLICY, *stack(isvc_edit=edit)) == [S19_MESSAGE.format(into="/root/.cache/huggingface/hub")]


S19_MESSAGE = (
    "container kserve-container: downloads meta-llama/Llama-3.1-8B-Instruct from the Hugging Face Hub into {into} on the "
    "node's ephemeral storage but requests no ephemeral-storage, so the scheduler may place it on a node whose disk cannot "
    "hold the checkpoint, and under disk pressure the kubelet evicts it first; request the checkpoint size plus ~10 GiB "
    "(the node's disk itself comes from the EC2NodeClass blockDeviceMappings or instance store, not from this request), "
    "or mount a PersistentVolumeClaim at the cache"
)


def _cache_on(volume: dict, mount_path: str, env: dict | None = None):
    """The compliant server without its ephemeral-storage request, its HF cache on ``volume`` mounted at ``mount_path``."""

    def edit(p):
        c = vllm_container(p)
        del c["resources"]["requests"]["ephemeral-storage"]
        c["volumeMounts"].append({"name": "hf-cache", "mountPath": mount_path})
        c["env"].extend({"name": k, "value": v} for k, v in (env or {}).items())
        p["spec"]["predictor"]["volumes"].append({"name": "hf-cache", **volume})

    return stack(isvc_edit=edit)


PVC = {"persistentVolumeClaim": {"claimName": "hf-cache"}}


def test_s19_a_cache_on_a_pvc_at_the_default_path_needs_no_request():
    assert messages(ephemeral_storage.POLICY, *_cache_on(PVC, "/root/.cache/huggingface")) == []
    assert messages(ephemeral_storage.POLICY, *_cache_on(PVC, "/root/.cache")) == []  # a folder above it counts


def test_s19_a_cache_on_a_pvc_named_by_hf_home_needs_no_request():
    assert messages(ephemeral_storage.POLICY, *_cache_on(PVC, "/models", {"HF_HOME": "/models/hf"})) == []


def test_s19_the_same_cache_on_an_emptydir_still_needs_the_request():
    # The mutation of the careful forms above: an emptyDir lives on the node's ephemeral storage.
    assert messages(ephemeral_storage.POLICY, *_cache_on({"emptyDir": {}}, "/models", {"HF_HOME": "/models/hf"})) == [
        S19_MESSAGE.format(into="/models/hf/hub")
    ]
    # A PVC mounted somewhere else leaves the download where it was.
    assert messages(ephemeral_storage.POLICY, *_cache_on(PVC, "/data")) == [
        S19_MESSAGE.format(into="/root/.cache/huggingface/hub")
    ]


def test_s19_a_streamed_model_needs_no_disk():
    def edit(p):
        c = vllm_container(p)
        del c["resources"]["requests"]["ephemeral-storage"]
        c["args"] = ["s3://bucket/llama", "--load-format=runai_streamer", *c["args"][2:]]

    assert messages(ephemeral_storage.POLICY, *stack(isvc_edit=edit)) == []


def _gpu_deployment(strategy, replicas=1.0, gpus="4"):
    props = deployment_props()
    props["metadata"]["name"] = "gpu-job"
    props["spec"]["replicas"] = replicas
    if strategy is not None:
        props["spec"]["strategy"] = strategy
    pod = props["spec"]["template"]["spec"]
    pod["nodeSelector"] = {"karpenter.sh/nodepool": "l40s"}
    c = pod["containers"][0]
    c["resources"]["limits"]["nvidia.com/gpu"] = gpus
    c["resources"]["requests"]["nvidia.com/gpu"] = gpus
    return resource(DEPLOYMENT_TYPE, props, "gpu-job")


def test_s20_surge_without_headroom():
    # The InferenceService holds 8 x 1 GPU; the Deployment 1 x 4: the pool's 12 are all taken.
    assert messages(
        rollout_surge.POLICY,
        *stack(_gpu_deployment({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}})),
    ) == [
        "spec.strategy: maxSurge 1 needs 4 more GPUs but NodePool l40s has 0 left under its limit of 12 (12 held by its "
        "workloads); use maxSurge 0 with maxUnavailable 1, or Recreate"
    ]


def test_s20_surge_and_unavailable_both_zero():
    assert messages(
        rollout_surge.POLICY,
        *stack(_gpu_deployment({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 0}})),
    ) == [
        "spec.strategy: maxSurge 0 and maxUnavailable 0 on a GPU Deployment; the API server refuses it and no rollout "
        "could ever replace a pod"
    ]
    # "0%" is a zero for the API server's validation too (getIntOrPercentValue).
    assert (
        len(rollout_surge.POLICY.check_stack([_gpu_deployment({"rollingUpdate": {"maxSurge": "0%", "maxUnavailable": 0}})], {}))
        == 1
    )


def test_s20_fenceposts_that_only_round_to_zero_take_one_pod_unavailable():
    """Kubernetes' 25%/25% default on ``replicas: 0`` (a Deployment an autoscaler scales from zero) rounds both
    fenceposts to 0; the deployment controller then takes one pod unavailable instead of stalling (kubernetes/kubernetes
    277391ee pkg/controller/deployment/util/deployment_util.go ResolveFenceposts). Shape of set 6's
    adityonugrohoid/gpu-autoscale-inference k8s/vllm-deployment.yaml @ 84410476 (replicas 0, no strategy, one GPU)."""
    assert rollout_surge.POLICY.check_stack([_gpu_deployment(None, replicas=0.0)], {}) == []
    # 1% of one replica: surge rounds up to 1 (a surge-only rollout, advisory without the pool), not a stuck one.
    one_percent = _gpu_deployment({"rollingUpdate": {"maxSurge": "1%", "maxUnavailable": "1%"}}, replicas=1.0)
    (found,) = rollout_surge.POLICY.check_stack([one_percent], {})
    assert "maxUnavailable rounds to 0 for 1 replica(s)" in found[1]
    zero_surge = _gpu_deployment({"rollingUpdate": {"maxSurge": 0, "maxUnavailable": "25%"}}, replicas=1.0)
    assert rollout_surge.POLICY.check_stack([zero_surge], {}) == []


def test_s20_recreate_and_zero_surge_pass():
    assert messages(rollout_surge.POLICY, *stack(_gpu_deployment({"type": "Recreate"}))) == []
    assert (
        messages(
            rollout_surge.POLICY,
            *stack(_gpu_deployment({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}})),
        )
        == []
    )


def test_pool_fit_counts_the_buffer_and_names_the_pool():
    priority = resource(
        "kubernetes:scheduling.k8s.io/v1:PriorityClass",
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "buffer"}, "value": -10.0},
        "buffer-pc",
    )
    buffer = _gpu_deployment({"type": "Recreate"}, replicas=1.0, gpus="8")
    buffer.props["spec"]["template"]["spec"]["priorityClassName"] = "buffer"
    assert messages(pool_fits_models.POLICY, *stack(priority, buffer)) == [
        "pool l40s: chat-8b needs 8 replicas x 1 GPUs + 8 buffer GPUs = 16 GPUs, above the NodePool's "
        'limits["nvidia.com/gpu"] = 12; raise the limit or lower the replicas'
    ]


def _untolerated_deployment(selector: dict) -> list:
    """A GPU Deployment with no NodePool in the set, no toleration and ``selector`` as its nodeSelector."""
    props = deployment_props()
    pod = props["spec"]["template"]["spec"]
    pod.pop("tolerations")
    pod["nodeSelector"] = selector
    return [resource(DEPLOYMENT_TYPE, props)]


def test_s15_assumes_tainted_gpu_nodes_and_says_so():
    assert messages(
        tolerates_and_targets.POLICY, *_untolerated_deployment({"node.kubernetes.io/instance-type": "g6e.xlarge"})
    ) == [
        "spec.template.spec: requests GPUs but does not tolerate the nvidia.com/gpu:NoSchedule taint of GPU nodes (setting "
        "gpuNodesTainted: true, no NodePool in this set says otherwise); it stays Pending" + tolerates_and_targets.ADMITTED
    ]


def test_s15_untainted_gpu_nodes_setting_keeps_it_quiet():
    careful = _untolerated_deployment({"node.kubernetes.io/instance-type": "g6e.xlarge"})
    assert messages(tolerates_and_targets.POLICY, *careful, config={"gpuNodesTainted": False}) == []


def test_s15_gke_adds_the_toleration_itself():
    # GKE's ExtendedResourceToleration admission adds the nvidia.com/gpu toleration to GPU pods.
    assert (
        messages(tolerates_and_targets.POLICY, *_untolerated_deployment({"cloud.google.com/gke-accelerator": "nvidia-l4"})) == []
    )


def test_s20_a_surge_only_rollout_with_no_pool_in_the_set_is_unproven():
    """A single-replica GPU Deployment at Kubernetes' default strategy (25% surge rounds up to 1, 25% unavailable
    down to 0) needs a spare GPU at every rollout; with no NodePool in the set the headroom is unknown, so the finding
    is advisory (unproven), like rh-aiservices-bu/llm-on-openshift llm-servers/hf_tgi/deployment.yaml
    (manifests-v2: maxSurge 1, maxUnavailable 25%, one replica, one GPU)."""
    from policies.framework import Unproven

    lone = _gpu_deployment({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": "25%"}}, replicas=1.0)
    found = rollout_surge.POLICY.check_stack([lone], {})
    assert len(found) == 1 and isinstance(found[0][1], Unproven)
    assert "maxUnavailable rounds to 0 for 1 replica(s)" in found[0][1]
    default = _gpu_deployment(None, replicas=1.0)
    assert len(rollout_surge.POLICY.check_stack([default], {})) == 1
    # Careful forms: Recreate, maxSurge 0 / maxUnavailable 1, and four replicas (25% unavailable = 1) all progress.
    for careful in (
        _gpu_deployment({"type": "Recreate"}, replicas=1.0),
        _gpu_deployment({"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}}, replicas=1.0),
        _gpu_deployment(None, replicas=4.0),
    ):
        assert rollout_surge.POLICY.check_stack([careful], {}) == []


def _dedicated_pool_stack(tolerations: list, selector: dict) -> list:
    """Spent set 123b, pulumi/example-ai.cluster (infra/eks-karpenter-gpu-nodes, infra/app-llms) as YAML: GPU NodePools
    tainted eks.pulumi.com/gpu-workload-taint, a vLLM pod selecting karpenter.k8s.aws/instance-gpu-manufacturer."""
    pool = copy.deepcopy(NODEPOOL)
    pool["spec"]["template"]["spec"]["taints"] = [
        {"key": "eks.pulumi.com/gpu-workload-taint", "value": "nvidia", "effect": "NoSchedule"}
    ]
    props = deployment_props()
    pod = props["spec"]["template"]["spec"]
    pod["tolerations"] = tolerations
    pod["nodeSelector"] = selector
    return [resource("kubernetes:karpenter.sh/v1:NodePool", pool, "gpu-pool"), resource(DEPLOYMENT_TYPE, props)]


def test_s15_a_gpu_vendor_selector_and_the_pools_own_taint_tolerated_place_the_pod():
    vendor = {"karpenter.k8s.aws/instance-gpu-manufacturer": "nvidia"}
    own = [{"key": "eks.pulumi.com/gpu-workload-taint", "operator": "Exists"}]
    assert messages(tolerates_and_targets.POLICY, *_dedicated_pool_stack(own, vendor)) == []
    assert messages(tolerates_and_targets.POLICY, *_dedicated_pool_stack(own, {})) == []  # the toleration picks the pool
    # Firing: neither the pool's taint tolerated nor a GPU selected (the pool's labels are its requirements' only).
    found = messages(tolerates_and_targets.POLICY, *_dedicated_pool_stack([], {}))
    assert [m.split(";")[0] for m in found] == [
        "spec.template.spec: requests GPUs but does not tolerate the nvidia.com/gpu:NoSchedule taint of GPU nodes (setting "
        "gpuNodesTainted: true, no NodePool in this set says otherwise)",
        "spec.template.spec: requests GPUs without a nodeSelector or required affinity on a GPU type or pool label "
        "(karpenter.sh/nodepool, karpenter.k8s.aws/instance-gpu-name, karpenter.k8s.aws/instance-family, ...)",
    ]
