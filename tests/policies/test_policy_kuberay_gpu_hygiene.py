"""S18 kuberay-gpu-hygiene: one compliant RayCluster (and autoscaler), one mutation per case."""

import copy

import pytest
from policy_fixtures import HPA_TYPE, RAY_CLUSTER_TYPE, SCALED_OBJECT_TYPE, hpa_props, messages, resource, scaled_object_props

from policies.ray.kuberay_gpu_hygiene import POLICY

TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
_CLUSTER = {
    "apiVersion": "ray.io/v1",
    "kind": "RayCluster",
    "metadata": {"name": "llama-405b", "namespace": "llm"},
    "spec": {
        "enableInTreeAutoscaling": False,
        "headGroupSpec": {
            "rayStartParams": {"num-gpus": "0", "dashboard-host": "0.0.0.0"},
            "template": {
                "spec": {
                    "tolerations": [TOLERATION],
                    "containers": [
                        {
                            "name": "ray-head",
                            "image": "vllm/vllm-openai:v0.33.0",
                            "resources": {"requests": {"cpu": "8", "memory": "64Gi"}, "limits": {"memory": "64Gi"}},
                        }
                    ],
                }
            },
        },
        "workerGroupSpecs": [
            {
                "groupName": "gpu-workers",
                "replicas": 2.0,
                "minReplicas": 2.0,
                "maxReplicas": 2.0,
                "numOfHosts": 1.0,
                "rayStartParams": {"num-gpus": "8"},
                "template": {
                    "spec": {
                        "tolerations": [TOLERATION],
                        "containers": [
                            {
                                "name": "ray-worker",
                                "image": "vllm/vllm-openai:v0.33.0",
                                "resources": {"requests": {"nvidia.com/gpu": "8"}, "limits": {"nvidia.com/gpu": "8"}},
                            }
                        ],
                    }
                },
            }
        ],
    },
}
HEAD = "spec.headGroupSpec"
WORKERS = "spec.workerGroupSpecs[0] (gpu-workers)"


def cluster(mutate=None, type_=RAY_CLUSTER_TYPE):
    props = copy.deepcopy(_CLUSTER)
    if mutate:
        mutate(props["spec"])
    return resource(type_, props)


def head(spec):
    return spec["headGroupSpec"]


def worker(spec):
    return spec["workerGroupSpecs"][0]


def test_compliant_cluster_passes():
    assert messages(POLICY, cluster()) == []


def test_head_requesting_a_gpu():
    def mutate(spec):
        head(spec)["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = 1.0

    assert messages(POLICY, cluster(mutate)) == [
        f"{HEAD}: the head requests nvidia.com/gpu; the head runs Ray's control plane and vLLM's API server, so "
        f"its GPU sits idle (give the GPUs to a worker group)"
    ]


def test_head_without_num_gpus():
    assert messages(POLICY, cluster(lambda s: head(s)["rayStartParams"].pop("num-gpus"))) == [
        f'{HEAD}.rayStartParams num-gpus is not set; set it to "0" so Ray schedules no GPU work on the head (on a '
        f"GPU node the vLLM image sees the node's GPUs unrequested)"
    ]


def test_head_advertising_gpus():
    assert messages(POLICY, cluster(lambda s: head(s)["rayStartParams"].update({"num-gpus": "1"}))) == [
        f"{HEAD}.rayStartParams num-gpus is '1'; set it to \"0\" so Ray schedules no GPU work on the head (on a "
        f"GPU node the vLLM image sees the node's GPUs unrequested)"
    ]


def _autoscaled(spec: dict) -> dict:
    spec.update({"enableInTreeAutoscaling": True, "autoscalerOptions": {"idleTimeoutSeconds": 600}})
    return spec


def test_unbounded_worker_group():
    assert messages(POLICY, cluster(lambda s: _autoscaled(s) and worker(s).pop("maxReplicas"))) == [
        f"{WORKERS}: maxReplicas is not set, so the group is unbounded; set it to the most nodes the engine needs"
    ]


def test_crd_default_max_replicas_is_unbounded():
    assert messages(POLICY, cluster(lambda s: _autoscaled(s) and worker(s).update({"maxReplicas": 2147483647.0}))) == [
        f"{WORKERS}: maxReplicas is not set, so the group is unbounded; set it to the most nodes the engine needs"
    ]


def test_an_unset_max_replicas_without_an_autoscaler_bounds_nothing_that_moves():
    # KubeRay v1.7.0 utils/util.go:389-407 GetWorkerGroupDesiredReplicas: the group runs `replicas` (clamped to
    # [minReplicas, maxReplicas]); only the in-tree autoscaler changes it (ray-project/kuberay
    # ray-operator/config/samples/ray-service.high-throughput-llm.yaml, corpus 1, sets replicas 4 and no maxReplicas).
    assert messages(POLICY, cluster(lambda s: worker(s).pop("maxReplicas"))) == []


def test_max_replicas_above_the_configured_bound():
    assert messages(POLICY, cluster(lambda s: worker(s).update({"maxReplicas": 8.0})), config={"maxWorkerReplicas": 4}) == [
        f"{WORKERS}: maxReplicas 8 is above the bound 4; a GPU worker group that large is almost certainly a mistake"
    ]


def test_max_below_min_replicas():
    assert messages(POLICY, cluster(lambda s: worker(s).update({"minReplicas": 3.0}))) == [
        f"{WORKERS}: maxReplicas 2 is below minReplicas 3"
    ]


def test_gpu_worker_without_the_gpu_toleration_is_s15s_not_s18s():
    """A GPU worker group without the nvidia.com/gpu toleration is reported once, by gpu-pod-tolerates-and-targets
    (S15, which checks every GPU pod's tolerations: set 15's blublinsky/vllm-ray-serve RayService was labelled S15)."""
    from policies.gpu import tolerates_and_targets

    untolerated = cluster(lambda s: worker(s)["template"]["spec"].pop("tolerations"))
    assert messages(POLICY, untolerated) == []
    assert [m for m in messages(tolerates_and_targets.POLICY, untolerated) if "does not tolerate" in m] == [
        "spec.workerGroupSpecs[0].template.spec: a Ray worker group requests GPUs but does not tolerate the nvidia.com/gpu:NoSchedule "
        "taint of GPU nodes (setting gpuNodesTainted: true, no NodePool in this set says otherwise); its pods stay "
        "Pending and Ray Serve never gets their GPUs" + tolerates_and_targets.ADMITTED
    ]


def test_untainted_gpu_nodes_setting_keeps_the_toleration_check_quiet():
    from policies.gpu import tolerates_and_targets

    untolerated = cluster(lambda s: worker(s)["template"]["spec"].pop("tolerations"))
    found = messages(tolerates_and_targets.POLICY, untolerated, config={"gpuNodesTainted": False})
    assert [m for m in found if "does not tolerate" in m] == []


def test_tolerate_everything_counts():
    tolerate_all = [{"operator": "Exists"}]
    assert messages(POLICY, cluster(lambda s: worker(s)["template"]["spec"].update({"tolerations": tolerate_all}))) == []


def test_in_tree_autoscaler_without_idle_timeout():
    assert messages(POLICY, cluster(lambda s: s.update({"enableInTreeAutoscaling": True}))) == [
        "spec.autoscalerOptions.idleTimeoutSeconds is not set while enableInTreeAutoscaling is true; set it so idle "
        "GPU workers are released on purpose, not on the autoscaler's default"
    ]


def test_in_tree_autoscaler_with_idle_timeout_passes():
    assert (
        messages(
            POLICY,
            cluster(lambda s: s.update({"enableInTreeAutoscaling": True, "autoscalerOptions": {"idleTimeoutSeconds": 300.0}})),
        )
        == []
    )


@pytest.mark.parametrize("kind,path", [("RayService", "rayClusterConfig"), ("RayJob", "rayClusterSpec")])
def test_ray_service_and_job_clusters_are_read(kind, path):
    props = {"apiVersion": "ray.io/v1", "kind": kind, "metadata": {"name": "x"}, "spec": {path: copy.deepcopy(_CLUSTER["spec"])}}
    props["spec"][path]["headGroupSpec"]["rayStartParams"].pop("num-gpus")
    assert messages(POLICY, resource(f"kubernetes:ray.io/v1:{kind}", props)) == [
        f'spec.{path}.headGroupSpec.rayStartParams num-gpus is not set; set it to "0" so Ray schedules no GPU work '
        f"on the head (on a GPU node the vLLM image sees the node's GPUs unrequested)"
    ]


AIMED = (
    "a multi-node engine's workers are fixed by tensor x pipeline parallelism and KubeRay has no scale "
    "subresource, so autoscaling it is out of scope: remove the autoscaler and size the Ray cluster in the "
    "capacity plan"
)


def test_hpa_on_a_deployment_passes():
    assert messages(POLICY, resource(HPA_TYPE, hpa_props())) == []


def test_hpa_aimed_at_a_ray_cluster():
    props = hpa_props()
    props["spec"]["scaleTargetRef"] = {"apiVersion": "ray.io/v1", "kind": "RayCluster", "name": "llama-405b"}
    assert messages(POLICY, resource(HPA_TYPE, props)) == [
        f"spec.scaleTargetRef: aims at RayCluster 'llama-405b' (ray.io/v1); {AIMED}"
    ]


def test_scaled_object_aimed_at_a_ray_service():
    props = scaled_object_props()
    props["spec"]["scaleTargetRef"] = {"apiVersion": "ray.io/v1", "kind": "RayService", "name": "llm"}
    assert messages(POLICY, resource(SCALED_OBJECT_TYPE, props)) == [
        f"spec.scaleTargetRef: aims at RayService 'llm' (ray.io/v1); {AIMED}"
    ]


def test_exemption_with_a_reason_skips_the_cluster():
    def mutate(spec):
        head(spec)["rayStartParams"].pop("num-gpus")

    r = cluster(mutate)
    r.props["metadata"]["annotations"] = {POLICY.exemption_annotation: "head runs on a CPU-only pool"}
    assert messages(POLICY, r) == []
