"""S48 ray-serve-accelerator-offered: a Ray Serve LLM model's accelerator_type against the GPUs its Ray nodes have.

Firing third-party form (spent set 112): askulkarni2/ray-serve-with-eks-auto@534ddcc0 app/ray-serve-vllm.yaml, an
``LLMConfig(accelerator_type="A10G")`` in the mounted ConfigMap ray-serve-code, the GPU workers on
``karpenter.sh/nodepool: gpu-nodepool``, which cluster/gpu-nodepool.yaml limits to ``eks.amazonaws.com/instance-family
In g6, g6e`` (L4, L40S); app/ray-serve-vllm-v0.11.yaml asks ``L4`` on the same pool (advice: g6e nodes too). Careful
third-party form, silent: ray-project/kuberay@59d663ae (v1.7.0) ray-operator/config/samples/
ray-service.high-throughput-llm.yaml, ``accelerator_type: L4`` with the worker on ``cloud.google.com/gke-accelerator:
nvidia-l4``.
"""

import copy

from policy_fixtures import manifest

from policies.models.model_source_pinned import POLICY as PINNED
from policies.ray.serve_accelerator import POLICY
from policies.registry import evaluate
from policies.vllm.gpu_memory_utilization_bounds import POLICY as UTILIZATION

CODE = """from ray.serve.llm import LLMConfig, build_openai_app

llm_config = LLMConfig(
    model_loading_config={"model_id": "qwen-0.5b", "model_source": "/s3/models/Qwen/Qwen2.5-0.5B-Instruct"},
    accelerator_type="A10G",
    engine_kwargs={"tensor_parallel_size": 1, "trust_remote_code": True},
)
app = build_openai_app({"llm_configs": [llm_config]})
"""
CONFIG_MAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "ray-serve-code", "namespace": "default"},
    "data": {"vllm_serve.py": CODE},
}
NODEPOOL = {
    "apiVersion": "karpenter.sh/v1",
    "kind": "NodePool",
    "metadata": {"name": "gpu-nodepool"},
    "spec": {
        "template": {
            "spec": {
                "nodeClassRef": {"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "default"},
                "requirements": [
                    {"key": "eks.amazonaws.com/instance-family", "operator": "In", "values": ["g6", "g6e"]},
                    {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
                ],
            }
        }
    },
}
_HEAD = {"containers": [{"name": "ray-head", "image": "rayproject/ray:2.50.0-py311-gpu"}]}
_WORKER = {
    "nodeSelector": {"karpenter.sh/nodepool": "gpu-nodepool"},
    "containers": [
        {"name": "ray-worker", "image": "rayproject/ray:2.50.0-py311-gpu", "resources": {"limits": {"nvidia.com/gpu": "1"}}}
    ],
    "volumes": [{"name": "ray-code", "configMap": {"name": "ray-serve-code"}}],
}
RAY_SERVICE = {
    "apiVersion": "ray.io/v1",
    "kind": "RayService",
    "metadata": {"name": "vllm-serve", "namespace": "default"},
    "spec": {
        "serveConfigV2": "applications:\n- name: vllm-app\n  import_path: serve_app.vllm_serve:app\n",
        "rayClusterConfig": {
            "headGroupSpec": {"rayStartParams": {"num-cpus": "0", "num-gpus": "0"}, "template": {"spec": _HEAD}},
            "workerGroupSpecs": [
                {
                    "replicas": 1,
                    "groupName": "gpu-workers",
                    "rayStartParams": {"num-gpus": "1"},
                    "template": {"spec": copy.deepcopy(_WORKER)},
                }
            ],
        },
    },
}
L4_CONFIG = (
    "applications:\n- name: llm_app\n  import_path: ray.serve.llm:build_openai_app\n  args:\n    llm_configs:\n"
    "    - model_loading_config: {model_id: qwen, model_source: Qwen/Qwen3.5-4b}\n      accelerator_type: L4\n"
)


def _found(*objs, policy=POLICY):
    return [(v.enforcement, v.message) for v in evaluate([manifest(o) for o in objs], None, policies=[policy])]


def _with(config=None, worker=None):
    ray = copy.deepcopy(RAY_SERVICE)
    if config is not None:
        ray["spec"]["serveConfigV2"] = config
    if worker is not None:
        ray["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["template"]["spec"] = worker
    return ray


def test_a10g_asked_of_a_g6_g6e_pool_blocks():
    ((level, message),) = _found(RAY_SERVICE, CONFIG_MAP, NODEPOOL)
    assert level == "mandatory"
    assert message == (
        "RayService vllm-serve: ConfigMap ray-serve-code vllm_serve.py LLMConfig #1 asks accelerator_type A10G, so each "
        "replica's placement bundles need the Ray resource accelerator_type:A10G, but no GPU group can land on a node "
        "with that GPU (gpu-workers on NodePool gpu-nodepool (eks.amazonaws.com/instance-family In g6, g6e): L4, L40S); "
        "Ray advertises only the GPU a node has, so the replicas never place and the application never becomes "
        "healthy; set accelerator_type to the pool's GPU, drop it, or give the workers nodes with A10G GPUs"
    )


def test_a_pool_that_also_admits_another_gpu_is_advice():
    ((level, message),) = _found(_with(config=L4_CONFIG), NODEPOOL)
    assert level == "advisory"
    assert "worker group gpu-workers may also land on nodes with L40S" in message


def test_kuberay_sample_on_its_own_gpu_is_silent():
    worker = copy.deepcopy(_WORKER)
    worker["nodeSelector"] = {"cloud.google.com/gke-accelerator": "nvidia-l4"}
    assert _found(_with(config=L4_CONFIG, worker=worker)) == []


def test_a_pool_of_one_family_is_silent():
    pool = copy.deepcopy(NODEPOOL)
    pool["spec"]["template"]["spec"]["requirements"][0]["values"] = ["g6"]
    assert _found(_with(config=L4_CONFIG), pool) == []


def test_a_pool_outside_the_files_is_not_judged():
    assert _found(RAY_SERVICE, CONFIG_MAP) == []


def test_a_group_that_declares_the_resource_is_silent():
    ray = copy.deepcopy(RAY_SERVICE)
    ray["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["rayStartParams"]["resources"] = '"{\\"accelerator_type:A10G\\": 1}"'
    assert _found(ray, CONFIG_MAP, NODEPOOL) == []


def test_a_sized_a100_name_no_node_detects_blocks():
    config = L4_CONFIG.replace("accelerator_type: L4", "accelerator_type: A100-80G")
    ((level, message),) = _found(_with(config=config))
    assert level == "mandatory" and "a sized name Ray never detects" in message


def test_mounted_llm_config_engine_kwargs_are_read_as_engine_flags():
    ((level, message),) = _found(RAY_SERVICE, CONFIG_MAP, policy=PINNED)
    assert level == "advisory"
    assert message.startswith("ConfigMap ray-serve-code vllm_serve.py LLMConfig #1: engine_kwargs.trust_remote_code imports")


BRANCHED_CODE = """import os
from ray.serve.llm import LLMConfig, build_openai_app

if os.environ.get("GPU_KIND") == "a10g":
    config = LLMConfig(model_loading_config={"model_id": "qwen"}, accelerator_type="A10G")
else:
    config = LLMConfig(model_loading_config={"model_id": "qwen"}, accelerator_type="L4")
app = build_openai_app({"llm_configs": [config]})
"""


def test_a_config_under_a_condition_is_advice():
    # Review 54a: of two branches only one runs; the A10G branch may be the one a g6 pool never takes.
    config_map = copy.deepcopy(CONFIG_MAP)
    config_map["data"]["vllm_serve.py"] = BRANCHED_CODE
    pool = copy.deepcopy(NODEPOOL)
    pool["spec"]["template"]["spec"]["requirements"][0]["values"] = ["g6"]
    ((level, message),) = _found(RAY_SERVICE, config_map, pool)
    assert level == "advisory"
    assert message.startswith(
        "RayService vllm-serve: ConfigMap ray-serve-code vllm_serve.py LLMConfig #1 (under a condition) asks "
        "accelerator_type A10G"
    )


def test_use_cpu_or_cpu_bundles_ask_no_accelerator():
    # Ray Serve LLM's CPU backend and a placement_group_config without GPU bundles add no accelerator_type resource.
    cpu = L4_CONFIG.replace("accelerator_type: L4", "accelerator_type: A100-80G\n      use_cpu: true")
    bundles = L4_CONFIG.replace(
        "accelerator_type: L4", "accelerator_type: A100-80G\n      placement_group_config: {bundles: [{CPU: 4}]}"
    )
    assert _found(_with(config=cpu)) == []
    assert _found(_with(config=bundles)) == []


def test_gpu_bundles_of_a_placement_group_config_still_ask():
    config = L4_CONFIG.replace(
        "accelerator_type: L4", "accelerator_type: A100-80G\n      placement_group_config: {bundles: [{GPU: 1, CPU: 4}]}"
    )
    ((level, _),) = _found(_with(config=config))
    assert level == "mandatory"


def test_engine_rules_on_a_config_under_a_condition_are_advice():
    # Review 54a: mounted LLMConfig(...) code is read as engines (c9afe74e); a branch that may never run proves nothing,
    # so gpu_memory_utilization 1.5 in it is advice (policies/finding_levels.py), and the same call unguarded blocks.
    code = BRANCHED_CODE.replace('accelerator_type="A10G"', 'engine_kwargs={"gpu_memory_utilization": 1.5}')
    config_map = copy.deepcopy(CONFIG_MAP)
    config_map["data"]["vllm_serve.py"] = code
    ((level, message),) = _found(RAY_SERVICE, config_map, policy=UTILIZATION)
    assert level == "advisory" and message.startswith("ConfigMap ray-serve-code vllm_serve.py LLMConfig #1 (under a condition)")
    config_map["data"]["vllm_serve.py"] = CODE.replace('"trust_remote_code": True', '"gpu_memory_utilization": 1.5')
    assert [level for level, _ in _found(RAY_SERVICE, config_map, policy=UTILIZATION)] == ["mandatory"]


def test_a_required_term_naming_no_gpu_leaves_the_nodes_open():
    # Review 54a: nodeSelectorTerms are ORed; a term without a GPU label admits any node (a g5 too), so the g6 of the
    # other term proves nothing (policies/reading/gpu_selection.py allowed_gpus); with every term naming g6, it blocks.
    worker = copy.deepcopy(_WORKER)
    del worker["nodeSelector"]
    family = {"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g6"]}
    arch = {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]}
    terms = [{"matchExpressions": [family]}, {"matchExpressions": [arch]}]
    worker["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}
    assert _found(_with(worker=worker), CONFIG_MAP) == []
    terms[1]["matchExpressions"].append(family)
    ((level, message),) = _found(_with(worker=worker), CONFIG_MAP)
    assert level == "mandatory" and "(gpu-workers on its node selection (L4): L4)" in message
