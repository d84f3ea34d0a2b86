"""S4 tensor-parallel-requires-dshm: one compliant fixture, one mutation per case."""

from policy_fixtures import RAY_CLUSTER_TYPE, found_by, isvc, isvc_props, messages, resource, set_arg, vllm_container

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


def test_a_gpu_count_without_ranks_is_advice_and_shown_ranks_block():
    """Fresh set 45 (agrawalsnehal327/vllm_deploy vllm-deployment.yaml: 2 GPUs, no --tensor-parallel-size; labelled S3,
    one GPU idle, not S4): vLLM runs one rank, which uses no NCCL between GPUs, unless a setting the files do not show
    asks for more, so the missing /dev/shm is advice there; tensor parallel 2 on its command line still blocks."""
    props = isvc_props()
    container = vllm_container(props)
    container.pop("volumeMounts")
    for section in ("limits", "requests"):
        container["resources"][section]["nvidia.com/gpu"] = 2
    assert [v.enforcement for v in evaluate([isvc(props)]) if v.policy == POLICY.name] == ["advisory"]
    ranks = tp2_props()
    vllm_container(ranks).pop("volumeMounts")
    assert [v.enforcement for v in evaluate([isvc(ranks)]) if v.policy == POLICY.name] == ["mandatory"]


def test_host_ipc_shares_the_nodes_shm_and_is_silent():
    """hostIPC: true gives the pod the node's IPC namespace and /dev/shm (containerd's CRI binds the host's /dev/shm
    under NamespaceMode_NODE, sandbox_run_linux.go): the MPS form, with no comment saying why, stays silent here;
    hostIPC itself is no-host-namespaces' finding."""
    props = tp2_props()
    vllm_container(props).pop("volumeMounts")
    props["spec"]["predictor"]["hostIPC"] = True
    assert messages(POLICY, isvc(props)) == []


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


def test_missing_size_limit_without_memory_limits_is_s4_advice_and_not_g36():
    """S4 owns the /dev/shm of a multi-process server: unbounded and uncounted (some container has no memory limit) is
    its advice, and G36 leaves that volume alone (one problem, one id)."""
    props = tp2_props()
    props["spec"]["predictor"]["volumes"][0]["emptyDir"].pop("sizeLimit")
    for container in props["spec"]["predictor"]["containers"]:
        container["resources"]["limits"].pop("memory", None)
    found = evaluate([isvc(props)])
    assert [(v.enforcement, v.message.split(";")[0]) for v in found if v.policy == POLICY.name] == [
        ("advisory", f"{LABEL}: {TP2}")
    ]
    assert "has no sizeLimit and not every container of the pod has a memory limit" in messages(POLICY, isvc(props))[0]
    assert messages(SIZE_LIMIT, isvc(props)) == []


def test_missing_size_limit_under_memory_limits_is_silent():
    """Every container with a memory limit bounds a memory emptyDir and counts it against the pod (k8s.io/api
    EmptyDirVolumeSource.sizeLimit): the careful form, silent in S4 and, being S4's volume, in G36."""
    props = tp2_props()
    props["spec"]["predictor"]["volumes"][0]["emptyDir"].pop("sizeLimit")
    assert all(c["resources"]["limits"].get("memory") for c in props["spec"]["predictor"]["containers"])
    assert messages(POLICY, isvc(props)) == []
    assert messages(SIZE_LIMIT, isvc(props)) == []


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


def test_ray_gpu_pod_own_shm_without_size_limit_is_bounded_by_its_memory_limit():
    """The Ray GPU worker's memory emptyDir has no sizeLimit but its container a memory limit: bounded and counted,
    silent in S4, and G36 leaves S4's volume alone."""
    cluster = resource(RAY_CLUSTER_TYPE, ray_props({"emptyDir": {"medium": "Memory"}}))
    assert messages(POLICY, cluster) == []
    assert messages(SIZE_LIMIT, cluster) == []


def test_ray_gpu_pod_own_shm_unbounded_and_uncounted_is_s4_advice():
    """KubeRay's own sample writes this form (ray-project/kuberay@59d663ae ray-operator/config/samples/
    ray-service.high-throughput-gemma4.yaml:101-121: an 8-GPU worker, a memory request and no limit, a memory emptyDir
    at /dev/shm without sizeLimit): Ray's object store and NCCL grow into the node's RAM uncounted. S4 advice, once."""
    props = ray_props({"emptyDir": {"medium": "Memory"}})
    worker = props["spec"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]
    worker["resources"] = {"limits": {"nvidia.com/gpu": "8"}, "requests": {"nvidia.com/gpu": "8", "memory": "512Gi"}}
    cluster = resource(RAY_CLUSTER_TYPE, props)
    found = [(v.enforcement, v.message) for v in evaluate([cluster]) if v.policy in (POLICY.name, SIZE_LIMIT.name)]
    assert len(found) == 1 and found[0][0] == "advisory"
    assert "is a Ray pod with GPUs" in found[0][1] and "has no sizeLimit" in found[0][1]


def test_cpu_only_ray_pod_shm_is_g36s_not_s4s():
    """A CPU-only Ray worker runs no GPU ranks: S4 stays silent and its unbounded memory emptyDir stays G36's."""
    props = ray_props({"emptyDir": {"medium": "Memory"}})
    worker = props["spec"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]
    worker["resources"] = {"requests": {"cpu": "4"}}
    props["spec"]["headGroupSpec"]["template"]["spec"]["containers"][0]["args"] = ["ray start --head"]
    cluster = resource(RAY_CLUSTER_TYPE, props)
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


# An InferenceService and its ServingRuntime read as the pod KServe renders from them (reading/kserve_runtime.
# merged_predictor). The firing form is rrbanda/rhoai-deploy-gitops usecases/models/gpt-oss-120b/manifests/
# inference-service.yaml and serving-runtime.yaml @4fc6f52adfac8dfdc0dfba3a6bd3b1434779620d (spent set 36, labelled S4
# blocking): --tensor-parallel-size=4 in the model's args, a vLLM runtime with neither a /dev/shm mount nor a volume.
def _gpt_oss_isvc(args=("--tensor-parallel-size=4",), gpus="4"):
    return {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "gpt-oss-120b", "annotations": {"serving.kserve.io/deploymentMode": "RawDeployment"}},
        "spec": {
            "predictor": {
                "minReplicas": 1,
                "model": {
                    "modelFormat": {"name": "vLLM"},
                    "runtime": "gpt-oss-120b",
                    "storageUri": "oci://registry.redhat.io/rhelai1/modelcar-gpt-oss-120b:1.5",
                    "args": ["--max-model-len=65536", *args],
                    "resources": {
                        "requests": {"cpu": "8", "memory": "96Gi", "nvidia.com/gpu": gpus},
                        "limits": {"cpu": "16", "memory": "192Gi", "nvidia.com/gpu": gpus},
                    },
                },
            }
        },
    }


def _rhaiis_runtime(extra_args=(), shm=False):
    container = {
        "name": "kserve-container",
        "image": "registry.redhat.io/rhaiis/vllm-cuda-rhel9:3.3.0",
        "command": ["python", "-m", "vllm.entrypoints.openai.api_server"],
        "args": ["--port=8080", "--model=/mnt/models", "--served-model-name={{.Name}}", *extra_args],
        "ports": [{"containerPort": 8080, "protocol": "TCP", "name": "http"}],
    }
    spec = {"supportedModelFormats": [{"name": "vLLM", "autoSelect": True}], "containers": [container]}
    if shm:
        # The form of KServe's own kserve-vllmserver (kserve v0.20.0 config/runtimes/kserve-vllmserver.yaml:71-77):
        # a memory emptyDir volume of the runtime, mounted at /dev/shm in its kserve-container.
        container["volumeMounts"] = [{"name": "devshm", "mountPath": "/dev/shm"}]
        spec["volumes"] = [{"name": "devshm", "emptyDir": {"medium": "Memory"}}]
    return {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "ServingRuntime",
        "metadata": {"name": "gpt-oss-120b"},
        "spec": spec,
    }


KSERVE_LABEL = "spec.predictor.model (with ServingRuntime/gpt-oss-120b merged in, as KServe does)"


def test_kserve_predictor_with_tensor_parallel_and_no_shm_in_runtime_or_service():
    assert found_by([_gpt_oss_isvc(), _rhaiis_runtime()], POLICY.name) == [
        (
            "mandatory",
            f"{KSERVE_LABEL}: runs 4 ranks (tensor parallel 4 × pipeline parallel 1) but nothing is mounted at "
            f"/dev/shm, where NCCL runs out of the runtime's 64Mi (vllm-project/vllm#1710); {FIX}",
        )
    ]


def test_kserve_predictor_gpus_without_tp_flag_need_shm_too():
    found = found_by([_gpt_oss_isvc(args=(), gpus="2"), _rhaiis_runtime()], POLICY.name)
    assert [m.split(" but ")[0] for _, m in found] == [f"{KSERVE_LABEL}: has 2 GPUs (resources.limits nvidia.com/gpu)"]


def test_kserve_runtime_mounting_shm_passes():
    assert found_by([_gpt_oss_isvc(), _rhaiis_runtime(shm=True)], POLICY.name) == []


def test_kserve_service_mounting_shm_itself_passes():
    isvc_obj = _gpt_oss_isvc()
    predictor = isvc_obj["spec"]["predictor"]
    predictor["volumes"] = [{"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}}]
    predictor["model"]["volumeMounts"] = [{"name": "shm", "mountPath": "/dev/shm"}]
    assert found_by([isvc_obj, _rhaiis_runtime()], POLICY.name) == []


def test_kserve_runtime_not_among_the_files_is_not_judged():
    assert found_by([_gpt_oss_isvc()], POLICY.name) == []


def test_kserve_runtime_needing_shm_on_its_own_is_reported_once_on_the_runtime():
    runtime = _rhaiis_runtime(extra_args=("--tensor-parallel-size=4",))
    found = found_by([_gpt_oss_isvc(args=()), runtime], POLICY.name)
    assert [m.split(":")[0] for _, m in found] == ["container kserve-container"]
