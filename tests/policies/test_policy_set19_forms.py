"""Forms of dev set 19 (/work/eval19/labels.yaml, PROVENANCE.md) the pack did not read, each cut down from the real file,
with the careful form an author writes beside it that must stay silent:

- S17: jingggg-wenn/llmops-demo llmops-via-argocd/deploy_model/base/inferenceservice.yaml
  @c9013b86d69f1c3c873a6452fe5ed44ec08eaed6: a model from an OCI modelcar by tag
  (``oci://quay.io/redhat-ai-services/modelcar-catalog:qwen2.5-0.5b-instruct``);
- G32: the same file: ``networking.kserve.io/visibility: exposed`` without ``security.opendatahub.io/enable-auth``;
- S5: andrewdeweever/eks_llm ray-service.yaml @310be0532318ee6abedf63eb4222745427e88675: a Ray Serve LLM model whose
  ``autoscaling_config.min_replicas`` is 0;
- S19: antonios-nokia/games ray.yaml @a2da0845362ee32270408ef52812e16a53edb946: a Ray GPU worker's ``model-cache``
  emptyDir without sizeLimit and no ephemeral-storage request;
- S50: mramirm/ai-summit26 vllm-deployment.yaml @fc022f9964562e3e687190c13033859dd0a23e3f: a vLLM Deployment that
  tolerates ``cloud.google.com/gke-spot``.
"""

import copy

import yaml
from policy_fixtures import found_by

# jingggg-wenn/llmops-demo inferenceservice.yaml @c9013b8, cut down (annotations and resources trimmed).
ODH_ISVC = yaml.safe_load(
    """
apiVersion: serving.kserve.io/v1beta1
kind: InferenceService
metadata:
  name: qwen25-05b-instruct
  annotations:
    serving.kserve.io/deploymentMode: Standard
    opendatahub.io/model-type: generative
  labels:
    opendatahub.io/dashboard: 'true'
    networking.kserve.io/visibility: exposed
spec:
  predictor:
    maxReplicas: 1
    minReplicas: 1
    model:
      modelFormat: {name: vLLM}
      resources:
        limits: {cpu: '2', memory: 8Gi, nvidia.com/gpu: '1'}
        requests: {cpu: '1', memory: 4Gi, nvidia.com/gpu: '1'}
      runtime: qwen25-05b-instruct
      storageUri: 'oci://quay.io/redhat-ai-services/modelcar-catalog:qwen2.5-0.5b-instruct'
    tolerations:
    - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
"""
)

DIGEST = "sha256:" + "e20441c23be795838409137576b9016e6bc941eec79e5765cf9de6319c0ec769"


def test_s17_an_oci_modelcar_by_tag_is_advice():
    found = found_by([ODH_ISVC], "model-source-pinned")
    assert [level for level, _ in found] == ["advisory"]
    assert "by its tag 'qwen2.5-0.5b-instruct', not a digest" in found[0][1]
    assert found[0][1].startswith("spec.predictor.model.storageUri")


def test_s17_an_oci_modelcar_by_digest_is_silent():
    pinned = copy.deepcopy(ODH_ISVC)
    pinned["spec"]["predictor"]["model"]["storageUri"] = f"oci://quay.io/redhat-ai-services/modelcar-catalog@{DIGEST}"
    assert found_by([pinned], "model-source-pinned") == []


def test_s17_an_untagged_oci_image_is_latest_and_a_framework_block_is_read():
    isvc = copy.deepcopy(ODH_ISVC)
    model = isvc["spec"]["predictor"].pop("model")
    model["storageUri"] = "oci://registry.example.com/models/granite"
    isvc["spec"]["predictor"]["huggingface"] = model
    ((level, message),) = found_by([isvc], "model-source-pinned")
    assert level == "advisory" and "spec.predictor.huggingface.storageUri" in message and "'latest'" in message


def test_g32_an_exposed_odh_model_without_auth_is_advice():
    found = found_by([ODH_ISVC], "public-model-endpoint-guarded")
    assert [level for level, _ in found] == ["advisory"]
    assert "visibility: exposed" in found[0][1] and "security.opendatahub.io/enable-auth" in found[0][1]


def test_g32_an_exposed_odh_model_with_auth_or_kept_internal_is_silent():
    guarded = copy.deepcopy(ODH_ISVC)
    guarded["metadata"]["annotations"]["security.opendatahub.io/enable-auth"] = "True"
    internal = copy.deepcopy(ODH_ISVC)
    del internal["metadata"]["labels"]["networking.kserve.io/visibility"]
    assert found_by([guarded], "public-model-endpoint-guarded") == []
    assert found_by([internal], "public-model-endpoint-guarded") == []


# andrewdeweever/eks_llm ray-service.yaml @310be05, cut down (the worker group and head ports trimmed).
RAY_SERVE_LLM = yaml.safe_load(
    """
apiVersion: ray.io/v1
kind: RayService
metadata:
  name: ray-neuron-llama-70b-pp3
spec:
  serveConfigV2: |
    applications:
    - name: llama-70b
      import_path: ray.serve.llm:build_openai_app
      route_prefix: /v1/llama
      args:
        llm_configs:
        - model_loading_config:
            model_id: llama-3.3-70b
            model_source: meta-llama/Llama-3.3-70B-Instruct
            accelerator_type: aws-neuron-core
          engine_kwargs:
            tensor_parallel_size: 2
            pipeline_parallel_size: 3
          deployment_config:
            autoscaling_config:
              min_replicas: 0
              max_replicas: 1
              target_ongoing_requests: 8
  rayClusterConfig:
    rayVersion: "2.54.0"
    headGroupSpec:
      rayStartParams: {num-cpus: "2"}
      template:
        spec:
          containers:
          - name: ray-head
            image: public.ecr.aws/r0g5z1n1/my-public-repo:latest
"""
)


def _s5(obj):
    return [(level, m) for level, m in found_by([obj], "llm-no-scale-to-zero")]


def test_s5_a_ray_serve_model_with_min_replicas_0_is_advice():
    ((level, message),) = _s5(RAY_SERVE_LLM)
    assert level == "advisory"
    assert "application llama-70b llm_configs[0].deployment_config autoscaling_config.min_replicas is 0" in message


def test_s5_a_ray_serve_model_with_a_floor_of_1_or_fixed_replicas_is_silent():
    floor = copy.deepcopy(RAY_SERVE_LLM)
    floor["spec"]["serveConfigV2"] = floor["spec"]["serveConfigV2"].replace("min_replicas: 0", "min_replicas: 1")
    unset = copy.deepcopy(RAY_SERVE_LLM)
    unset["spec"]["serveConfigV2"] = unset["spec"]["serveConfigV2"].replace("min_replicas: 0\n", "")
    assert _s5(floor) == [] and _s5(unset) == []


def test_s5_a_cpu_deployment_of_a_custom_app_may_scale_to_zero():
    """A custom app's deployment that holds no GPU or other accelerator and runs no vLLM (a router, an ingress) is
    not a model: its floor of 0 is not read."""
    obj = copy.deepcopy(RAY_SERVE_LLM)
    obj["spec"]["serveConfigV2"] = (
        "applications:\n- name: router\n  import_path: app:router\n  deployments:\n  - name: Router\n"
        "    autoscaling_config: {min_replicas: 0, max_replicas: 2}\n"
    )
    assert _s5(obj) == []
    obj["spec"]["serveConfigV2"] = obj["spec"]["serveConfigV2"].replace(
        "  - name: Router\n", "  - name: Router\n    ray_actor_options: {num_gpus: 1}\n"
    )
    assert [level for level, _ in _s5(obj)] == ["advisory"]


# antonios-nokia/games ray.yaml @a2da084, cut down (head ports and NCCL env trimmed).
RAY_CLUSTER = yaml.safe_load(
    """
apiVersion: ray.io/v1
kind: RayCluster
metadata:
  name: qwen3-rc-scale
spec:
  headGroupSpec:
    rayStartParams: {num-cpus: "0", num-gpus: "0"}
    template:
      spec:
        containers:
        - name: ray-head
          image: rayproject/ray-llm:2.46.0-py311-cu124
          volumeMounts:
          - {name: model-cache, mountPath: /model-cache}
        volumes:
        - name: model-cache
          emptyDir: {}
  workerGroupSpecs:
  - replicas: 1
    minReplicas: 1
    maxReplicas: 1
    groupName: number-0
    rayStartParams: {num-gpus: "1"}
    template:
      spec:
        containers:
        - name: ray-worker
          image: rayproject/ray-llm:2.46.0-py311-cu124
          resources:
            limits: {nvidia.com/gpu: "1"}
            requests: {nvidia.com/gpu: "1"}
          volumeMounts:
          - {name: model-cache, mountPath: /model-cache}
        volumes:
        - name: model-cache
          emptyDir: {}
"""
)


def test_s19_a_gpu_workers_unbounded_model_cache_emptydir_is_advice():
    found = found_by([RAY_CLUSTER], "gpu-pod-ephemeral-storage")
    assert [level for level, _ in found] == ["advisory"]  # the GPU worker only: the head requests no GPU
    assert "container ray-worker: mounts the emptyDir model-cache at /model-cache" in found[0][1]


def test_s19_a_bounded_and_requested_model_cache_is_silent():
    bounded = copy.deepcopy(RAY_CLUSTER)
    bounded["spec"]["workerGroupSpecs"][0]["template"]["spec"]["volumes"][0]["emptyDir"] = {"sizeLimit": "100Gi"}
    # A sizeLimit alone bounds the folder but the scheduler counts requests only: still advice (session 48, pods48).
    [(level, message)] = found_by([bounded], "gpu-pod-ephemeral-storage")
    assert level == "advisory" and "with sizeLimit 100Gi on the node's disk" in message
    bounded["spec"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]["resources"]["requests"]["ephemeral-storage"] = (
        "100Gi"
    )
    requested = copy.deepcopy(RAY_CLUSTER)
    worker = requested["spec"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]
    worker["resources"]["requests"]["ephemeral-storage"] = "100Gi"
    other = copy.deepcopy(RAY_CLUSTER)
    other["spec"]["workerGroupSpecs"][0]["template"]["spec"]["volumes"][0]["name"] = "scratch"
    other["spec"]["workerGroupSpecs"][0]["template"]["spec"]["containers"][0]["volumeMounts"] = [
        {"name": "scratch", "mountPath": "/tmp/ray-scratch"}
    ]
    for obj in (bounded, requested, other):
        assert found_by([obj], "gpu-pod-ephemeral-storage") == []


# mramirm/ai-summit26 vllm-deployment.yaml @fc022f9, cut down (gcsfuse annotations and the Service trimmed).
SPOT_TOLERANT = yaml.safe_load(
    """
apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm-deployment
spec:
  replicas: 1
  selector:
    matchLabels: {app: model-server}
  template:
    metadata:
      labels: {app: model-server}
    spec:
      nodeSelector:
        cloud.google.com/compute-class: l4
      tolerations:
      - {key: cloud.google.com/compute-class, operator: Equal, value: l4, effect: NoSchedule}
      - {key: cloud.google.com/gke-spot, operator: Equal, value: "true", effect: NoSchedule}
      - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
      containers:
      - name: inference-server
        image: vllm/vllm-openai:v0.11.1
        command: [sh, -c, "vllm serve '/models/gemma-3-12b-it' --tensor-parallel-size 2 --port 8080"]
        resources:
          limits: {nvidia.com/gpu: "2"}
"""
)


def test_s50_a_gpu_server_tolerating_gke_spot_is_advice():
    ((level, message),) = found_by([SPOT_TOLERANT], "gpu-serving-on-spot")
    assert level == "advisory" and "tolerations[1] cloud.google.com/gke-spot" in message


def test_s50_a_spot_toleration_kept_off_spot_or_absent_is_silent():
    kept_off = copy.deepcopy(SPOT_TOLERANT)
    kept_off["spec"]["template"]["spec"]["affinity"] = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": "cloud.google.com/gke-spot", "operator": "DoesNotExist"}]}]
            }
        }
    }
    absent = copy.deepcopy(SPOT_TOLERANT)
    del absent["spec"]["template"]["spec"]["tolerations"][1]
    assert found_by([kept_off], "gpu-serving-on-spot") == []
    assert found_by([absent], "gpu-serving-on-spot") == []


def test_s50_a_compute_class_that_tries_spot_first_is_advice():
    absent = copy.deepcopy(SPOT_TOLERANT)
    del absent["spec"]["template"]["spec"]["tolerations"][1]
    klass = {
        "apiVersion": "cloud.google.com/v1",
        "kind": "ComputeClass",
        "metadata": {"name": "l4"},
        "spec": {
            "priorities": [{"gpu": {"type": "nvidia-l4", "count": 2}, "spot": True}, {"gpu": {"type": "nvidia-l4", "count": 2}}]
        },
    }
    ((level, message),) = found_by([absent, klass], "gpu-serving-on-spot")
    assert level == "advisory" and "ComputeClass whose first priority is spot" in message
    on_demand = copy.deepcopy(klass)
    on_demand["spec"]["priorities"].reverse()
    assert found_by([absent, on_demand], "gpu-serving-on-spot") == []
