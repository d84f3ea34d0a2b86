"""Custom Ray Serve applications that run vLLM, read in vLLM's names (policies/reading/serve_apps.py), by S48, S23,
G13, S17, S36 and S15.

Firing forms, cut down from spent held-out sets (their labels.yaml ``files:`` entries):
- set 15 taigetco/ray-worker ray-vllm.yaml@bb82c60c7713fc295637b29b611f4ee76a1b2f85: ``args: tensor-parallel-size: 2``
  (the app parses them with vLLM's parser and sets worker_use_ray) on one 1-GPU worker, autoscaling off;
- set 14 datvodinh/serve-llm k8s/ray-service.yaml@c779392e2fe1bafc69eb279308bdee1603a7a871: the only worker group's
  nvidia.com/gpu commented out, the VLLMDeployment asks num_gpus 0.05, ``user_config.engine_args`` with
  trust_remote_code and no revision;
- set 15 usman0491/vllm-demo simple_ray_vllm/vllm-ray-service.yaml@8d2a879a098ea29780845fab9e0144b5207aee56:
  runtime_env env_vars MAX_MODEL_LEN 64000 for Meta-Llama-3-8B-Instruct (8,192 positions), RAY_SERVE_LOGGING_LEVEL DEBUG;
- set 15 blublinsky/vllm-ray-serve pure_vllm/ray-service.vllm.yaml@ec92c0f2c84703892da1af3423e5a597b860a0fd: the GPU
  worker group selects A100 nodes with no nvidia.com/gpu toleration.
Careful forms: KubeRay v1.3.0's own vLLM sample (ray-operator/config/samples/vllm/ray-service.vllm.yaml: TENSOR_PARALLELISM
2 on a worker with nvidia.com/gpu 2 and the toleration), and the same files fixed.
"""

from __future__ import annotations

import copy

import yaml
from policy_fixtures import found_by

TAIGETCO_SERVE = """applications:
  - name: vllm_app
    route_prefix: /vllm
    import_path: llm.build_llm_app
    runtime_env:
      working_dir: "https://github.com/taigetco/ray-worker/raw/main/llm.zip"
    args:
      model: '/data/model/Mistral-7B-Instruct-v02-AWQ'
      tensor-parallel-size: 2
"""


def _ray_service(name: str, serve: str, worker: dict, head_env: list | None = None, autoscaling: bool = False) -> dict:
    cluster: dict = {
        "headGroupSpec": {
            "rayStartParams": {"dashboard-host": "0.0.0.0"},
            "template": {
                "spec": {"containers": [{"name": "ray-head", "image": "rayproject/ray-ml:2.40.0-py311", "env": head_env or []}]}
            },
        },
        "workerGroupSpecs": [worker],
    }
    if autoscaling:
        cluster["enableInTreeAutoscaling"] = True
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayService",
        "metadata": {"name": name},
        "spec": {"serveConfigV2": serve, "rayClusterConfig": cluster},
    }


def _worker(gpus: int | None, replicas: int = 1, max_replicas: int = 5, **pod) -> dict:
    resources: dict = {"limits": {"cpu": "2", "memory": "4Gi"}, "requests": {"cpu": "2", "memory": "4Gi"}}
    if gpus is not None:
        resources["limits"]["nvidia.com/gpu"] = str(gpus)
        resources["requests"]["nvidia.com/gpu"] = str(gpus)
    container = {"name": "ray-worker", "image": "rayproject/ray-ml:2.40.0-py311", "resources": resources}
    return {
        "groupName": "gpu-group",
        "replicas": replicas,
        "minReplicas": replicas,
        "maxReplicas": max_replicas,
        "rayStartParams": {},
        "template": {"spec": {"containers": [container], **pod}},
    }


def _levels(found: list[tuple[str, str]]) -> list[str]:
    return [level for level, _ in found]


# --- S48: the GPUs a replica needs, from the engine's parallel settings and ray_actor_options


def test_tensor_parallel_two_on_one_one_gpu_worker_blocks():
    service = _ray_service("rayservice-vllm", TAIGETCO_SERVE, _worker(1))
    ((level, message),) = found_by([service], "ray-serve-replicas-fit-cluster")
    assert level == "mandatory"
    assert message == (
        "RayService rayservice-vllm: Ray Serve needs at least 2 GPU(s) (serveConfigV2 application vllm_app (args "
        "tensor-parallel-size 2): 1 replica(s) x 2 GPU; one GPU per tensor x pipeline parallel worker) but the Ray "
        "cluster can have at most 1 (gpu-group 1 pod(s) x 1 GPU; enableInTreeAutoscaling is not true, so KubeRay runs "
        "no autoscaler and gpu-group stays at 1 pod(s), its maxReplicas 5 unused); the replicas beyond it never place "
        "and the application never reaches its target; raise the GPU worker group's replicas/maxReplicas or lower "
        "min_replicas"
    )


def test_tensor_parallel_two_that_the_cluster_can_hold_is_silent():
    # Two 1-GPU workers, or autoscaling up to five: the placement group of two GPU bundles fits.
    assert found_by([_ray_service("ok", TAIGETCO_SERVE, _worker(1, replicas=2))], "ray-serve-replicas-fit-cluster") == []
    scaled = _ray_service("ok", TAIGETCO_SERVE, _worker(1, replicas=1, max_replicas=5), autoscaling=True)
    assert found_by([scaled], "ray-serve-replicas-fit-cluster") == []


DATVODINH_SERVE = """applications:
- name: app
  runtime_env:
    env_vars:
      VLLM_TEST_FORCE_FP8_MARLIN: "1"
  route_prefix: /
  import_path: src.main:deployment
  deployments:
    - name: VLLMDeployment
      autoscaling_config:
        target_ongoing_requests: 5
        min_replicas: 1
        max_replicas: 2
        max_ongoing_requests: 10
      ray_actor_options:
        num_cpus: 0.5
        num_gpus: 0.05
      user_config:
        engine_args:
          model: neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8
          served_model_name: Llama-3
          download_dir: models/
          trust_remote_code: true
          tensor_parallel_size: 1
          worker_use_ray: false
          max_model_len: 16384
"""


def test_a_vllm_app_on_a_ray_cluster_without_gpus_blocks_and_g13_advises():
    service = _ray_service("serve", DATVODINH_SERVE, _worker(None))
    ((level, message),) = found_by([service], "ray-serve-replicas-fit-cluster")
    assert level == "mandatory" and "can have at most 0 (no group with GPUs)" in message
    assert "deployments[0].user_config.engine_args.tensor_parallel_size 1" in message
    ((g13, why),) = found_by([service], "gpu-engine-has-gpu-limit")
    assert g13 == "advisory" and why.startswith(
        "spec.rayClusterConfig.workerGroupSpecs[0] (gpu-group): serveConfigV2 application app runs vLLM on this Ray "
        "cluster, but no group sets an nvidia.com/gpu limit"
    )


def test_the_same_app_with_the_gpu_limit_is_silent():
    service = _ray_service("serve", DATVODINH_SERVE, _worker(1))
    assert found_by([service], "ray-serve-replicas-fit-cluster") == []
    assert found_by([service], "gpu-engine-has-gpu-limit") == []
    # A GPU group at replicas 0 that the in-tree autoscaler grows (set 15's usman0491/vllm-demo form) holds GPUs too.
    assert found_by([_usman()], "gpu-engine-has-gpu-limit") == []


def test_ray_actor_gpus_count_where_the_engine_form_is_unknown():
    """An app that names no engine setting still reserves ray_actor_options.num_gpus per replica."""
    serve = """applications:
- name: vllm
  import_path: serve:app
  deployments:
  - name: VLLMDeployment
    num_replicas: 3
    ray_actor_options: {num_gpus: 1}
"""
    ((level, message),) = found_by(
        [_ray_service("three", serve, _worker(1, replicas=2, max_replicas=2))], "ray-serve-replicas-fit-cluster"
    )
    assert level == "mandatory" and "at least 3 GPU(s)" in message and "3 x num_gpus 1" in message


KUBERAY_SAMPLE_SERVE = """applications:
- name: llm
  route_prefix: /
  import_path:  ray-operator.config.samples.vllm.serve:model
  deployments:
  - name: VLLMDeployment
    num_replicas: 1
    ray_actor_options:
      num_cpus: 8
  runtime_env:
    working_dir: "https://github.com/ray-project/kuberay/archive/master.zip"
    pip: ["vllm==0.6.1.post2"]
    env_vars:
      MODEL_ID: "meta-llama/Meta-Llama-3-8B-Instruct"
      TENSOR_PARALLELISM: "2"
      PIPELINE_PARALLELISM: "1"
"""


def test_kuberays_vllm_sample_is_silent_and_its_variables_short_of_gpus_are_advice():
    toleration = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    sample = _ray_service("llama-3-8b", KUBERAY_SAMPLE_SERVE, _worker(2, tolerations=toleration))
    assert found_by([sample], "ray-serve-replicas-fit-cluster") == []
    # The variables reach vLLM through the sample's own code (serve.py:134-135), not through Ray: advice.
    short = _ray_service("llama-3-8b", KUBERAY_SAMPLE_SERVE, _worker(1, tolerations=toleration))
    ((level, message),) = found_by([short], "ray-serve-replicas-fit-cluster")
    assert level == "advisory" and "runtime_env env_vars TENSOR_PARALLELISM 2" in message


# --- S23: engine settings given to the app, against the model's context


USMAN_SERVE = """applications:
- name: vllm_inference
  import_path: vllm-ray-deployments:deployment
  runtime_env:
    env_vars:
      RAY_LOG_TO_STDERR: "1"
      RAY_SERVE_LOGGING_LEVEL: DEBUG
      MODEL_ID: "meta-llama/Meta-Llama-3-8B-Instruct"
      TENSOR_PARALLELISM: "1"
      PIPELINE_PARALLELISM: "1"
      GPU_MEMORY_UTILIZATION: "0.9"
      MAX_MODEL_LEN: "64000"
      MAX_NUM_SEQ: "10"
      MAX_NUM_BATCHED_TOKENS: "32000"
    pip: ["vllm==0.8.4", "typer==0.12.3", "rich==13.3.3", "jinja2>=3.1.0"]
  deployments:
  - name: VLLMDeployment
    num_replicas: 1
  route_prefix: /
"""


def _usman(serve: str = USMAN_SERVE, head_env: list | None = None) -> dict:
    toleration = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    return _ray_service("rayserve-vllm", serve, _worker(1, replicas=0, max_replicas=2, tolerations=toleration), head_env, True)


def test_max_model_len_from_the_apps_variables_above_the_models_context_is_advice():
    ((level, message),) = found_by([_usman()], "vllm-context-within-model-limit")
    assert level == "advisory"
    assert message.startswith(
        "serveConfigV2 application vllm_inference: meta-llama/Meta-Llama-3-8B-Instruct does not start: runtime_env "
        "env_vars MAX_MODEL_LEN 64,000 exceeds the model's maximum of 8,192 tokens"
    )
    assert message.endswith("(if the app's code hands these to vLLM)")


def test_a_context_within_the_model_or_the_long_context_switch_is_silent():
    assert found_by([_usman(USMAN_SERVE.replace('"64000"', '"8192"'))], "vllm-context-within-model-limit") == []
    allowed = USMAN_SERVE.replace("      MODEL_ID:", '      VLLM_ALLOW_LONG_MAX_MODEL_LEN: "1"\n      MODEL_ID:')
    assert found_by([_usman(allowed)], "vllm-context-within-model-limit") == []
    # Set on the Ray containers instead: Ray's workers inherit the raylet's environment.
    on_pods = _usman(head_env=[{"name": "VLLM_ALLOW_LONG_MAX_MODEL_LEN", "value": "1"}])
    assert found_by([on_pods], "vllm-context-within-model-limit") == []


def test_engine_args_in_vllms_own_names_block():
    serve = DATVODINH_SERVE.replace("neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8", "meta-llama/Meta-Llama-3-8B-Instruct")
    ((level, message),) = found_by([_ray_service("serve", serve, _worker(1))], "vllm-context-within-model-limit")
    assert level == "mandatory"
    assert "deployments[0].user_config.engine_args.max_model_len 16,384 exceeds the model's maximum of 8,192" in message


# --- S17 and S36 on the same forms


def test_engine_args_trust_remote_code_on_an_unpinned_hub_model():
    found = found_by([_ray_service("serve", DATVODINH_SERVE, _worker(1))], "model-source-pinned")
    assert any("pin deployments[0].user_config.engine_args.revision to a commit SHA" in m for _, m in found)
    assert any(
        m.startswith("serveConfigV2 application app: deployments[0].user_config.engine_args.trust_remote_code") for _, m in found
    )
    pinned = DATVODINH_SERVE.replace(
        "          trust_remote_code: true\n", "          revision: 0123456789abcdef0123456789abcdef01234567\n"
    )
    assert found_by([_ray_service("serve", pinned, _worker(1))], "model-source-pinned") == []


def test_ray_serve_debug_logging_is_advice():
    found = found_by([_usman()], "debug-switches-off")
    assert found == [
        (
            "advisory",
            "serveConfigV2 application vllm_inference runtime_env env_vars RAY_SERVE_LOGGING_LEVEL=DEBUG: turns debug "
            "logging on for the Serve application, left on in a serving cluster: every request and replica floods the "
            "logs; remove it",
        )
    ]
    serve = yaml.safe_load(USMAN_SERVE)
    del serve["applications"][0]["runtime_env"]["env_vars"]["RAY_SERVE_LOGGING_LEVEL"]
    assert found_by([_usman(yaml.safe_dump(serve))], "debug-switches-off") == []
    # Ray Serve's own LoggingConfig at DEBUG, per deployment.
    serve["applications"][0]["deployments"][0]["logging_config"] = {"log_level": "DEBUG"}
    ((level, message),) = found_by([_usman(yaml.safe_dump(serve))], "debug-switches-off")
    assert level == "advisory" and message.startswith(
        "serveConfigV2 application vllm_inference deployments[0].logging_config.log_level"
    )


# --- S15: a GPU worker group's toleration


def test_a_gpu_worker_group_on_a100s_without_the_gpu_toleration_is_s15_advice():
    worker = _worker(1, nodeSelector={"nvidia.com/gpu.product": "NVIDIA-A100-80GB-PCIe"})
    service = _ray_service("llama-3-8b", KUBERAY_SAMPLE_SERVE.replace('"2"', '"1"'), worker)
    found = [f for f in found_by([service], "gpu-pod-tolerates-and-targets") if "does not tolerate" in f[1]]
    assert _levels(found) == ["advisory"]
    careful = copy.deepcopy(service)
    careful["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["template"]["spec"]["tolerations"] = [
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
    ]
    assert found_by([careful], "gpu-pod-tolerates-and-targets") == []


def test_a_nodepool_in_the_set_proves_the_taint():
    pool = {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": "gpu"},
        "spec": {
            "template": {
                "spec": {
                    "taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}],
                    "requirements": [{"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Gt", "values": ["0"]}],
                    "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
                }
            },
            "limits": {"nvidia.com/gpu": 8},
        },
    }
    worker = _worker(1, nodeSelector={"karpenter.sh/nodepool": "gpu"})
    service = _ray_service("llama-3-8b", KUBERAY_SAMPLE_SERVE.replace('"2"', '"1"'), worker)
    off = {"gpu-pod-tolerates-and-targets": {"extendedResourceToleration": False}}
    found = [f for f in found_by([pool, service], "gpu-pod-tolerates-and-targets", off) if "does not tolerate" in f[1]]
    assert _levels(found) == ["mandatory"] and "taint of NodePool gpu" in found[0][1]
    # Where the API server runs the ExtendedResourceToleration plugin (EKS, AKS, GKE: the default) the worker pods get
    # the toleration at admission: advice to write it.
    found = [f for f in found_by([pool, service], "gpu-pod-tolerates-and-targets") if "does not tolerate" in f[1]]
    assert _levels(found) == ["advisory"] and "ExtendedResourceToleration" in found[0][1]


def test_a_replica_asking_more_gpus_than_any_pod_holds_never_places():
    """Ray places an actor on one node with all of its resources: num_gpus 2 on 1-GPU pods never starts, however many
    pods the group has (two 1-GPU workers hold the cluster's 2 GPUs, which the total check alone would accept)."""
    serve = """applications:
- name: vllm
  import_path: serve:app
  deployments:
  - name: VLLMDeployment
    num_replicas: 1
    ray_actor_options: {num_gpus: 2}
"""
    ((level, message),) = found_by(
        [_ray_service("wide", serve, _worker(1, replicas=2, max_replicas=2))], "ray-serve-replicas-fit-cluster"
    )
    assert level == "mandatory"
    assert message.startswith(
        "serveConfigV2 application vllm deployments[0] (VLLMDeployment): ray_actor_options.num_gpus 2 but no pod of the "
        "Ray cluster has more than 1 GPU(s)"
    )
    # Pods of two GPUs hold it.
    assert found_by([_ray_service("wide", serve, _worker(2, replicas=1, max_replicas=1))], "ray-serve-replicas-fit-cluster") == []


# Spent set 45: totallylegitco/model-serving serve.yaml (labelled G13 advisory): custom Serve apps
# (import_path model_endpoints.biogpt, transformers on device_map='auto') on a RayService whose head and worker groups
# select node.kubernetes.io/gpu: gpu and hold no nvidia.com/gpu.
TOTALLYLEGIT_SERVE = """applications:
  - name: app1
    route_prefix: /biogpt
    import_path: model_endpoints.biogpt
    deployments:
      - name: BioGPT
        num_replicas: 2
"""


def _pinned(serve: str, toleration: bool = False) -> dict:
    pod = (
        {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]}
        if toleration
        else {"nodeSelector": {"node.kubernetes.io/gpu": "gpu"}}
    )
    obj = _ray_service("model-serve", serve, _worker(None, **pod))
    obj["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"].update(pod)
    return obj


def _g13(obj: dict) -> list[tuple[str, str]]:
    return [f for f in found_by([obj], "gpu-engine-has-gpu-limit") if "sent to GPU nodes" in f[1]]


def test_a_ray_cluster_sent_to_gpu_nodes_without_a_gpu_is_advice():
    assert _levels(_g13(_pinned(TOTALLYLEGIT_SERVE))) == ["advisory"]
    # Same class: the groups reach GPU nodes by tolerating the nvidia.com/gpu taint.
    assert _levels(_g13(_pinned(TOTALLYLEGIT_SERVE, toleration=True))) == ["advisory"]


def test_a_ray_cluster_with_a_gpu_group_or_off_gpu_nodes_is_silent():
    with_gpu = _pinned(TOTALLYLEGIT_SERVE)
    container = with_gpu["spec"]["rayClusterConfig"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]
    container["resources"]["limits"]["nvidia.com/gpu"] = "1"
    assert _g13(with_gpu) == []
    # The head on CPU nodes while the workers go to GPU nodes: not every group is sent there (a CPU-only cluster beside
    # a GPU pool is a design the files may mean).
    mixed = _pinned(TOTALLYLEGIT_SERVE)
    del mixed["spec"]["rayClusterConfig"]["headGroupSpec"]["template"]["spec"]["nodeSelector"]
    assert _g13(mixed) == []
    assert _g13(_ray_service("cpu", TOTALLYLEGIT_SERVE, _worker(None))) == []
