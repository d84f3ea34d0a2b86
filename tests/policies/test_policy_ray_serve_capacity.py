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
    assert _found(RAY_SERVICE, computed) == []
    other = copy.deepcopy(CONFIG_MAP)
    other["metadata"]["name"] = "someone-else"
    assert _found(RAY_SERVICE, other) == []
