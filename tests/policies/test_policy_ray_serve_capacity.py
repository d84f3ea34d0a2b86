"""S48 ray-serve-replicas-fit-cluster: Ray Serve LLM's replica floor against the GPUs the Ray cluster can have.

Third-party form (held-out set 10, now development material, /work/eval10/PROVENANCE.md): askulkarni2/ray-serve-with-
eks-auto app/ray-serve-vllm.yaml@534ddcc: a RayService (in-tree autoscaling off, one GPU worker group fixed at one
1-GPU pod) whose application is LLMConfig(...) code in the ConfigMap ray-serve-code (min_replicas = max_replicas = 2,
tensor_parallel_size 1). Minimal hand-written forms below.
"""

import copy

from policy_fixtures import manifest

from policies.ray.serve_capacity import POLICY
from policies.registry import evaluate

CODE = """from ray import serve
from ray.serve.llm import LLMConfig, build_openai_app

llm_config = LLMConfig(
    model_loading_config={"model_id": "qwen-0.5b", "model_source": "/s3/models/Qwen/Qwen2.5-0.5B-Instruct"},
    deployment_config={"autoscaling_config": {"min_replicas": 2, "max_replicas": 2}},
    accelerator_type="A10G",
    engine_kwargs=dict(tensor_parallel_size=1, max_model_len=2048),
)
app = build_openai_app({"llm_configs": [llm_config]})
"""

CONFIG_MAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "ray-serve-code", "namespace": "default"},
    "data": {"vllm_serve.py": CODE},
}

_POD = {
    "containers": [{"name": "ray", "image": "rayproject/ray:2.50.0-py311-gpu"}],
    "volumes": [{"name": "ray-code", "configMap": {"name": "ray-serve-code"}}],
}
RAY_SERVICE = {
    "apiVersion": "ray.io/v1",
    "kind": "RayService",
    "metadata": {"name": "vllm-serve", "namespace": "default"},
    "spec": {
        "serveConfigV2": "applications:\n- name: vllm-app\n  import_path: serve_app.vllm_serve:app\n",
        "rayClusterConfig": {
            "rayVersion": "2.50.0",
            "enableInTreeAutoscaling": False,
            "headGroupSpec": {"rayStartParams": {"num-cpus": "0"}, "template": {"spec": copy.deepcopy(_POD)}},
            "workerGroupSpecs": [
                {
                    "replicas": 1,
                    "minReplicas": 1,
                    "maxReplicas": 1,
                    "groupName": "gpu-workers",
                    "rayStartParams": {"num-gpus": "1"},
                    "template": {"spec": copy.deepcopy(_POD)},
                }
            ],
        },
    },
}


def _found(*objs):
    return [(v.enforcement, v.message) for v in evaluate([manifest(o) for o in objs], None, policies=[POLICY])]


def test_python_llm_config_floor_above_the_fixed_gpu_group_blocks():
    ((level, message),) = _found(RAY_SERVICE, CONFIG_MAP)
    assert level == "mandatory"
    assert "needs at least 2 GPU(s)" in message and "at most 1 (gpu-workers 1 pod(s) x 1 GPU)" in message


def test_serve_config_llm_configs_are_read_too():
    ray = copy.deepcopy(RAY_SERVICE)
    ray["spec"]["serveConfigV2"] = (
        "applications:\n- name: llms\n  import_path: ray.serve.llm:build_openai_app\n  args:\n    llm_configs:\n"
        "    - model_loading_config: {model_id: qwen, model_source: Qwen/Qwen2.5-7B-Instruct}\n"
        "      deployment_config: {num_replicas: 1}\n"
        "      engine_kwargs: {tensor_parallel_size: 2}\n"
    )
    ((level, message),) = _found(ray)
    assert level == "mandatory" and "1 replica(s) x 2 GPU" in message


def test_a_floor_under_a_condition_is_advice():
    # Review 54a: a config an `if` guards (a local run under __main__, one branch per environment) may never be built.
    guarded = copy.deepcopy(CONFIG_MAP)
    guarded["data"]["vllm_serve.py"] = CODE.replace("llm_config = LLMConfig(", "if BIG:\n  llm_config = LLMConfig(", 1)
    ((level, message),) = _found(RAY_SERVICE, guarded)
    assert level == "advisory"
    assert "ConfigMap ray-serve-code vllm_serve.py LLMConfig #1 (under a condition): 2 replica(s) x 1 GPU" in message


def test_careful_forms_stay_silent():
    # Autoscaling on with room for the floor.
    ray = copy.deepcopy(RAY_SERVICE)
    ray["spec"]["rayClusterConfig"]["enableInTreeAutoscaling"] = True
    ray["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["maxReplicas"] = 4
    assert _found(ray, CONFIG_MAP) == []
    # A fixed group of two 1-GPU pods.
    ray = copy.deepcopy(RAY_SERVICE)
    ray["spec"]["rayClusterConfig"]["workerGroupSpecs"][0].update({"replicas": 2, "minReplicas": 2, "maxReplicas": 2})
    assert _found(ray, CONFIG_MAP) == []
    # A floor the code computes is not read; nor a ConfigMap the pods do not mount.
    computed = copy.deepcopy(CONFIG_MAP)
    computed["data"]["vllm_serve.py"] = CODE.replace('"min_replicas": 2', '"min_replicas": N')
    # (its literal max_replicas 2 on the one 1-GPU pod is still advice: the scale-up never places)
    assert [level for level, _ in _found(RAY_SERVICE, computed)] == ["advisory"]
    other = copy.deepcopy(CONFIG_MAP)
    other["metadata"]["name"] = "someone-else"
    assert _found(RAY_SERVICE, other) == []


def test_a_group_with_no_gpu_limit_on_gpu_nodes_is_advice():
    """A worker group with no GPU limit and no num-gpus that tolerates a GPU node taint may see the node's GPUs through
    an NVIDIA default runtime, which Ray detects (KubeRay passes --num-gpus only from a limit): the shortfall is not
    proven (sealed set 74 vilovnok/ray_vllm k8s/ray-service.yaml, GPU limits commented out, a gpunode toleration)."""
    ray = copy.deepcopy(RAY_SERVICE)
    group = ray["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]
    group["rayStartParams"] = {}
    group["template"]["spec"]["tolerations"] = [{"key": "gpunode", "operator": "Equal", "value": "true", "effect": "NoExecute"}]
    ((level, message),) = _found(ray, CONFIG_MAP)
    assert level == "advisory" and "at most 0 (no group with GPUs)" in message
    # Without the toleration nothing hands the pod a GPU: the block stands.
    del group["template"]["spec"]["tolerations"]
    assert [level for level, _ in _found(ray, CONFIG_MAP)] == ["mandatory"]


# Cut from akamai-developers/kuberay-gpu-llm-quickstart manifests/rayservice.yaml@2622d85 (set 17; the same shape as
# jimmyshah83/gpt-oss-k8s-gpu-inferencing k8s/gpt-oss-20b-deploy.yaml@8ddfda7, set 16): Ray Serve LLM autoscales
# Qwen2.5-Coder-14B from 1 to 4 replicas at tensor_parallel_size 2, on one worker group fixed at one 2-GPU pod
# (replicas = minReplicas = maxReplicas 1, enableInTreeAutoscaling unset).
_QUICKSTART_APP = (
    "applications:\n- name: llms\n  import_path: ray.serve.llm:build_openai_app\n  route_prefix: /\n  args:\n"
    "    llm_configs:\n"
    "    - model_loading_config: {model_id: qwen2.5-coder-14b-instruct, model_source: Qwen/Qwen2.5-Coder-14B-Instruct}\n"
    "      engine_kwargs: {dtype: bfloat16, max_model_len: 16384, tensor_parallel_size: 2}\n"
    "      deployment_config:\n"
    "        autoscaling_config: {min_replicas: 1, max_replicas: 4, target_ongoing_requests: 64}\n"
)
_QUICKSTART_WORKER = {"name": "ray-worker", "image": "rayproject/ray-llm:2.52.0-py311-cu128"}
QUICKSTART = {
    "apiVersion": "ray.io/v1",
    "kind": "RayService",
    "metadata": {"name": "ray-serve-llm"},
    "spec": {
        "serveConfigV2": _QUICKSTART_APP,
        "rayClusterConfig": {
            "rayVersion": "2.52.0",
            "headGroupSpec": {
                "rayStartParams": {"num-cpus": "0", "num-gpus": "0"},
                "template": {"spec": {"containers": [{"name": "ray-head", "image": _QUICKSTART_WORKER["image"]}]}},
            },
            "workerGroupSpecs": [
                {
                    "replicas": 1,
                    "minReplicas": 1,
                    "maxReplicas": 1,
                    "numOfHosts": 1,
                    "groupName": "gpu-group",
                    "rayStartParams": {"num-gpus": "2"},
                    "template": {
                        "spec": {
                            "containers": [
                                dict(
                                    _QUICKSTART_WORKER,
                                    resources={"limits": {"nvidia.com/gpu": "2"}, "requests": {"nvidia.com/gpu": "2"}},
                                )
                            ]
                        }
                    },
                }
            ],
        },
    },
}


def test_autoscaling_max_replicas_beyond_a_fixed_cluster_is_advice():
    ((level, message),) = _found(QUICKSTART)
    assert level == "advisory"
    assert "may ask for 8 GPU(s)" in message and "max_replicas 4 x 2 GPU" in message
    assert "at most 2 (gpu-group 1 pod(s) x 2 GPU" in message


def test_autoscaling_within_what_the_cluster_can_grow_to_stays_silent():
    # In-tree autoscaling on and maxReplicas 4: the worker group can grow to 8 GPUs, every Serve replica places.
    grows = copy.deepcopy(QUICKSTART)
    grows["spec"]["rayClusterConfig"]["enableInTreeAutoscaling"] = True
    grows["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["maxReplicas"] = 4
    assert _found(grows) == []
    # max_replicas 1: Serve never asks more than the one 2-GPU pod holds.
    capped = copy.deepcopy(QUICKSTART)
    capped["spec"]["serveConfigV2"] = _QUICKSTART_APP.replace("max_replicas: 4", "max_replicas: 1")
    assert _found(capped) == []
    # A fixed group already sized for the top (four 2-GPU pods), autoscaling off.
    sized = copy.deepcopy(QUICKSTART)
    sized["spec"]["rayClusterConfig"]["workerGroupSpecs"][0].update({"replicas": 4, "minReplicas": 4, "maxReplicas": 4})
    assert _found(sized) == []


def test_amd_gpu_limit_counts_as_ray_gpus():
    # Review 28 #1 (/tmp/review/ray/amd.yaml): KubeRay passes the first non-zero limit whose name ends in "gpu" to
    # `ray start --num-gpus` (kuberay v1.3.0 ray-operator/controllers/ray/common/pod.go:835-839), so a worker with
    # amd.com/gpu: 1 gives Ray one GPU and a 1 x 1-GPU app fits.
    amd = copy.deepcopy(RAY_SERVICE)
    amd["spec"]["serveConfigV2"] = (
        "applications:\n- name: llm\n  import_path: serve:model\n  deployments:\n  - name: VLLMDeployment\n"
        "    num_replicas: 1\n    ray_actor_options: {num_cpus: 1, num_gpus: 1}\n"
        "  args: {model: Qwen/Qwen2.5-1.5B-Instruct, tensor-parallel-size: '1'}\n"
    )
    worker = amd["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]
    worker["rayStartParams"] = {}
    worker["template"]["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "8", "amd.com/gpu": "1"}}
    assert _found(amd) == []
    # A zero "...gpu" limit is skipped (pod.go: !IsZero()), so the group still has no GPU and the floor is reported.
    worker["template"]["spec"]["containers"][0]["resources"] = {"limits": {"amd.com/gpu": "0"}}
    ((level, message),) = _found(amd)
    assert level == "mandatory" and "at most 0" in message


def test_a_group_whose_maxreplicas_autoscaling_never_uses_is_named():
    # jimmyshah83/gpt-oss-k8s-gpu-inferencing k8s/gpt-oss-20b-deploy.yaml@8ddfda7 (set 16): the same shape with
    # maxReplicas above replicas and enableInTreeAutoscaling unset: KubeRay runs the group at replicas (kuberay v1.7.0
    # utils/util.go:389-407; the autoscaler is injected only with enableInTreeAutoscaling, common/pod.go:242-243).
    frozen = copy.deepcopy(QUICKSTART)
    frozen["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["maxReplicas"] = 4
    ((level, message),) = _found(frozen)
    assert level == "advisory"
    assert (
        "at most 2 (gpu-group 1 pod(s) x 2 GPU; enableInTreeAutoscaling is not true, so KubeRay runs no autoscaler and "
        "gpu-group stays at 1 pod(s), its maxReplicas 4 unused)"
    ) in message


# Cut from aabhimittal/Ray-serve-multi-model-GPU-autoscaling deploy/kuberay/rayservice.yaml@da11c72 (set 38, labelled S48
# advisory): a custom Serve app (not Ray Serve LLM) whose three GPU deployments autoscale with fractional num_gpus
# (8 x 0.25, 6 x 0.5, 8 x 0.25 = 7 GPUs at their max_replicas) on a worker group of replicas 1, maxReplicas 8 and
# enableInTreeAutoscaling unset: one 1-GPU pod, ever.
_GATEWAY_APP = (
    "applications:\n- name: multi_model_gateway\n  import_path: ray_serve_autoscale.app:app\n  deployments:\n"
    "  - {name: Gateway, num_replicas: 2, ray_actor_options: {num_cpus: 1}}\n"
    "  - name: sentiment\n    autoscaling_config: {min_replicas: 1, max_replicas: 8, target_ongoing_requests: 8}\n"
    "    ray_actor_options: {num_gpus: 0.25, num_cpus: 1}\n"
    "  - name: summarization\n    autoscaling_config: {min_replicas: 1, max_replicas: 6, target_ongoing_requests: 4}\n"
    "    ray_actor_options: {num_gpus: 0.5, num_cpus: 2}\n"
    "  - name: embedding\n    autoscaling_config: {min_replicas: 1, max_replicas: 8, target_ongoing_requests: 16}\n"
    "    ray_actor_options: {num_gpus: 0.25, num_cpus: 1}\n"
)


def _gateway(autoscaling=None, max_replicas=8):
    service = copy.deepcopy(QUICKSTART)
    cluster = service["spec"]["rayClusterConfig"]
    service["spec"]["serveConfigV2"] = _GATEWAY_APP
    cluster["rayVersion"] = "2.9.0"
    group = cluster["workerGroupSpecs"][0]
    group.update({"groupName": "gpu-workers", "maxReplicas": max_replicas, "rayStartParams": {}})
    group["template"]["spec"]["containers"][0]["resources"] = {"limits": {"nvidia.com/gpu": "1"}}
    if autoscaling is not None:
        cluster["enableInTreeAutoscaling"] = autoscaling
    return service


def test_serve_deployments_num_gpus_beyond_a_group_that_cannot_grow_is_advice():
    ((level, message),) = _found(_gateway())
    assert level == "advisory"
    assert message.startswith(
        "RayService ray-serve-llm: Ray Serve autoscaling may ask for 7 GPU(s) (serveConfigV2 application "
        "multi_model_gateway deployments[1] (sentiment): max_replicas 8 x 0.25 GPU; "
    )
    assert (
        "; ray_actor_options.num_gpus per replica) but the Ray cluster can have at most 1 (gpu-workers 1 pod(s) x 1 GPU; "
        "enableInTreeAutoscaling is not true, so KubeRay runs no autoscaler and gpu-workers stays at 1 pod(s), its "
        "maxReplicas 8 unused)"
    ) in message


def test_serve_deployments_the_cluster_can_grow_to_hold_stay_silent():
    # Pradeeptalari14/tp-kuberay manifests/rayservice.yaml@af19dc2 (set 25): in-tree autoscaling on, maxReplicas 4 1-GPU
    # workers, one deployment of max_replicas 4 x num_gpus 1: it fits. Here: the gateway with autoscaling on.
    assert _found(_gateway(autoscaling=True)) == []
    # Autoscaling off but maxReplicas above replicas is no ceiling; seven fixed pods are.
    sized = _gateway(autoscaling=False)
    sized["spec"]["rayClusterConfig"]["workerGroupSpecs"][0].update({"replicas": 7, "minReplicas": 7})
    assert _found(sized) == []
    # num_replicas "auto" without max_replicas, or no num_gpus: nothing to add up.
    auto = _gateway()
    auto["spec"]["serveConfigV2"] = (
        "applications:\n- name: a\n  import_path: m:app\n  deployments:\n"
        "  - {name: d, num_replicas: auto, ray_actor_options: {num_gpus: 1}}\n  - {name: e, num_replicas: 9}\n"
    )
    assert _found(auto) == []
