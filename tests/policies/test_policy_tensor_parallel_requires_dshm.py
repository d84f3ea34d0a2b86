"""S4 tensor-parallel-requires-dshm: one compliant fixture, one mutation per case."""

from policy_fixtures import RAY_CLUSTER_TYPE, isvc, isvc_props, messages, resource, set_arg, vllm_container

from policies.k8s_generic.memory_emptydir_size_limit import POLICY as SIZE_LIMIT
from policies.registry import evaluate
from policies.vllm.tensor_parallel_requires_dshm import POLICY

FIX = "mount an emptyDir {medium: Memory, sizeLimit: ...} at /dev/shm"
LABEL = "container kserve-container"
TP2 = "runs 2 ranks (tensor parallel 2 × pipeline parallel 1)"


def tp2_props():
    """The fixture with tensor parallel 2 on 2 GPUs: the case that needs /dev/shm."""
    props = isvc_props()
    container = vllm_container(props)
    set_arg(container, "tensor-parallel-size", "2")
    for section in ("limits", "requests"):
        container["resources"][section]["nvidia.com/gpu"] = "2"
    return props


def test_compliant_tensor_parallel_service_passes():
    assert messages(POLICY, isvc(tp2_props())) == []


def test_single_gpu_service_needs_no_shm():
    props = isvc_props()
    vllm_container(props).pop("volumeMounts")
    props["spec"]["predictor"].pop("volumes")
    assert messages(POLICY, isvc(props)) == []


def test_missing_mount():
    props = tp2_props()
    vllm_container(props).pop("volumeMounts")
    assert messages(POLICY, isvc(props)) == [
        f"{LABEL}: {TP2} but nothing is mounted at /dev/shm, where NCCL runs out of the runtime's 64Mi "
        f"(vllm-project/vllm#1710); {FIX}"
    ]


def test_gpu_limit_above_one_needs_shm_even_without_tp_flags():
    props = isvc_props()
    container = vllm_container(props)
    container.pop("volumeMounts")
    for section in ("limits", "requests"):
        container["resources"][section]["nvidia.com/gpu"] = 4.0
    assert messages(POLICY, isvc(props)) == [
        f"{LABEL}: has 4 GPUs (resources.limits nvidia.com/gpu) but nothing is mounted at /dev/shm, where "
        f"NCCL runs out of the runtime's 64Mi (vllm-project/vllm#1710); {FIX}"
    ]


def test_host_ipc_is_no_substitute():
    # hostIPC itself is no-host-namespaces' finding; here the missing /dev/shm still is one.
    props = tp2_props()
    vllm_container(props).pop("volumeMounts")
    props["spec"]["predictor"]["hostIPC"] = True
    assert messages(POLICY, isvc(props)) == [
        f"{LABEL}: {TP2} but nothing is mounted at /dev/shm, where NCCL runs out of the runtime's 64Mi "
        f"(vllm-project/vllm#1710); {FIX}"
    ]


def test_mount_of_undefined_volume():
    props = tp2_props()
    props["spec"]["predictor"]["volumes"] = []
    assert messages(POLICY, isvc(props)) == [f"{LABEL}: /dev/shm mounts volume dshm, which the pod spec does not define"]


def test_disk_backed_emptydir():
    props = tp2_props()
    props["spec"]["predictor"]["volumes"][0]["emptyDir"].pop("medium")
    assert messages(POLICY, isvc(props)) == [
        f"{LABEL}: /dev/shm is volume dshm, which is not an emptyDir with medium Memory; {FIX}"
    ]


def test_missing_size_limit_is_left_to_memory_emptydir_size_limit():
    # The /dev/shm is there and memory-backed (S4's concern); its missing bound is G36's (spent set 13,
    # andrewaddo/gke-vllm-hdml: S4 a trap, G36 the label).
    props = tp2_props()
    props["spec"]["predictor"]["volumes"][0]["emptyDir"].pop("sizeLimit")
    assert messages(POLICY, isvc(props)) == []
    assert [m.split(":")[0] for m in messages(SIZE_LIMIT, isvc(props))] == ["spec.predictor.volumes dshm"]


def test_size_limit_above_memory_limit():
    props = tp2_props()
    props["spec"]["predictor"]["volumes"][0]["emptyDir"]["sizeLimit"] = "64Gi"
    assert messages(POLICY, isvc(props)) == [
        f"{LABEL}: the /dev/shm emptyDir dshm sizeLimit 64Gi exceeds the container's memory limit 48Gi; "
        f"shared-memory pages count against that limit, so the container is OOM-killed before /dev/shm fills"
    ]
    # A risk, not a refusal: the pod serves until shared memory grows past the limit (fresh set 36: advice).
    assert [v.enforcement for v in evaluate([isvc(props)], None, policies=[POLICY])] == ["advisory"]


def test_size_limit_equal_to_memory_limit_in_other_units_passes():
    props = tp2_props()
    props["spec"]["predictor"]["volumes"][0]["emptyDir"]["sizeLimit"] = "49152Mi"
    assert messages(POLICY, isvc(props)) == []


def ray_props(volume=None, host_ipc=False):
    """A RayCluster whose 8-GPU worker mounts `volume` at /dev/shm (nothing when None)."""
    worker = {
        "name": "ray-worker",
        "image": "vllm/vllm-openai:v0.33.0",
        "resources": {"limits": {"nvidia.com/gpu": 8.0, "memory": "400Gi"}},
    }
    pod = {"containers": [worker]}
    if volume is not None:
        worker["volumeMounts"] = [{"name": "dshm", "mountPath": "/dev/shm"}]
        pod["volumes"] = [{"name": "dshm", **volume}]
    if host_ipc:
        pod["hostIPC"] = True
    return {
        "metadata": {"name": "big"},
        "spec": {
            "headGroupSpec": {
                "rayStartParams": {"num-gpus": "0"},
                "template": {
                    "spec": {
                        "containers": [
                            {
                                "name": "ray-head",
                                "image": "vllm/vllm-openai:v0.33.0",
                                "command": ["/bin/bash", "-c"],
                                "args": [
                                    "vllm serve m --tensor-parallel-size 8 --pipeline-parallel-size 2 --distributed-executor-backend ray"
                                ],
                            }
                        ]
                    }
                },
            },
            "workerGroupSpecs": [{"groupName": "gpu", "replicas": 2.0, "template": {"spec": pod}}],
        },
    }


RAY_WORKER = "spec.workerGroupSpecs[0].template.spec container ray-worker"


def test_ray_pods_without_their_own_shm_pass_as_kuberay_mounts_one():
    assert messages(POLICY, resource(RAY_CLUSTER_TYPE, ray_props())) == []


def test_ray_pod_with_a_bounded_memory_shm_passes():
    assert messages(POLICY, resource(RAY_CLUSTER_TYPE, ray_props({"emptyDir": {"medium": "Memory", "sizeLimit": "64Gi"}}))) == []


def test_ray_pod_mounting_its_own_shm_without_size_limit_is_left_to_memory_emptydir_size_limit():
    cluster = resource(RAY_CLUSTER_TYPE, ray_props({"emptyDir": {"medium": "Memory"}}))
    assert messages(POLICY, cluster) == []
    assert len(messages(SIZE_LIMIT, cluster)) == 1


def test_ray_pod_shm_above_its_memory_limit():
    assert messages(POLICY, resource(RAY_CLUSTER_TYPE, ray_props({"emptyDir": {"medium": "Memory", "sizeLimit": "500Gi"}}))) == [
        f"{RAY_WORKER}: the /dev/shm emptyDir dshm sizeLimit 500Gi exceeds the container's memory limit 400Gi; "
        f"shared-memory pages count against that limit, so the container is OOM-killed before /dev/shm fills"
    ]


def test_ray_pod_shm_on_disk():
    assert messages(POLICY, resource(RAY_CLUSTER_TYPE, ray_props({"emptyDir": {"sizeLimit": "64Gi"}}))) == [
        f"{RAY_WORKER}: /dev/shm is volume dshm, which is not an emptyDir with medium Memory; {FIX}"
    ]


def test_ray_gpu_pod_with_host_ipc_is_left_to_no_host_namespaces():
    assert messages(POLICY, resource(RAY_CLUSTER_TYPE, ray_props(host_ipc=True))) == []


def test_ray_service_pods_are_read_too():
    props = ray_props({"emptyDir": {"medium": "Memory"}})
    service = {"metadata": {"name": "svc"}, "spec": {"rayClusterConfig": props["spec"]}}
    assert messages(POLICY, resource("kubernetes:ray.io/v1:RayService", service)) == []
    worker = service["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["template"]["spec"]
    worker["volumes"][0]["emptyDir"]["sizeLimit"] = "500Gi"
    assert [m.split(":")[0] for m in messages(POLICY, resource("kubernetes:ray.io/v1:RayService", service))] == [
        "spec.rayClusterConfig.workerGroupSpecs[0].template.spec container ray-worker"
    ]
