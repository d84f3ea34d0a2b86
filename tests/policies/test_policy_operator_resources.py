"""Operator custom resources with no pod template (policies/operators.py): NVIDIA NIMService and production-stack
VLLMRuntime. Each fixture is written from the public docs/samples of its shape; the careful form stays quiet and
each mutation fires its policy.

What the operators do with the fields (read at their pinned tags, cited in policies/operators.py):
- k8s-nim-operator v3.1.2 api/apps/v1alpha1/nimservice_types.go: spec.image {repository, tag}, spec.resources,
  spec.nodeSelector, spec.tolerations, spec.scale.hpa.minReplicas;
- production-stack vllm-stack-0.1.12 operator/internal/controller/vllmruntime_controller.go: the image is
  registry + "/" + name (L653), memory request/limit only when resources.memory is set (L631-637), --max_model_len
  only when maxModelLen > 0 (L473-477), toleration onto the pod (L802), nodeSelectorTerms into a required node
  affinity (L743-747), KEDA minReplicaCount = autoscalingConfig.minReplicas (L1168).
"""

from __future__ import annotations

import copy

import pytest
from policy_fixtures import messages, resource

from policies.autoscaling import no_scale_to_zero
from policies.gpu import tolerates_and_targets
from policies.k8s_generic import image_tag_pinned, serving_memory_limit
from policies.vllm import max_model_len_unset

NIM_TYPE = "kubernetes:apps.nvidia.com/v1alpha1:NIMService"
VLLM_RUNTIME_TYPE = "kubernetes:production-stack.vllm.ai/v1alpha1:VLLMRuntime"
GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}

# NIM operator docs' NIMService, made careful: pinned tag, memory limit, GPU toleration and selector, HPA floor 1.
NIM = {
    "apiVersion": "apps.nvidia.com/v1alpha1",
    "kind": "NIMService",
    "metadata": {"name": "llama-3-8b", "namespace": "nim"},
    "spec": {
        "image": {
            "repository": "nvcr.io/nim/meta/llama-3.1-8b-instruct",
            "tag": "1.3.3",
            "pullPolicy": "IfNotPresent",
            "pullSecrets": ["ngc-secret"],
        },
        "authSecret": "ngc-api-secret",
        "storage": {"nimCache": {"name": "llama-3-8b", "profile": ""}},
        "replicas": 1,
        "resources": {"limits": {"nvidia.com/gpu": 1, "memory": "48Gi"}, "requests": {"cpu": "8", "memory": "48Gi"}},
        "nodeSelector": {"karpenter.k8s.aws/instance-gpu-name": "l40s"},
        "tolerations": [GPU_TOLERATION],
        "expose": {"service": {"type": "ClusterIP", "port": 8000}},
        "scale": {"enabled": True, "hpa": {"minReplicas": 1, "maxReplicas": 2}},
    },
}

# production-stack's VLLMRuntime sample (operator/config/samples), made careful.
VLLM_RUNTIME = {
    "apiVersion": "production-stack.vllm.ai/v1alpha1",
    "kind": "VLLMRuntime",
    "metadata": {"name": "llama-8b", "namespace": "llm"},
    "spec": {
        "model": {"modelURL": "meta-llama/Llama-3.1-8B-Instruct", "maxModelLen": 8192, "dtype": "bfloat16"},
        "vllmConfig": {"tensorParallelSize": 1, "gpuMemoryUtilization": "0.9", "port": 8000},
        "deploymentConfig": {
            "replicas": 1,
            "resources": {"cpu": "8", "memory": "32Gi", "gpu": "1"},
            "image": {"registry": "docker.io", "name": "lmcache/vllm-openai:v0.3.5", "pullPolicy": "IfNotPresent"},
            "toleration": [GPU_TOLERATION],
            "nodeSelectorTerms": [
                {"matchExpressions": [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g6e.xlarge"]}]}
            ],
        },
        "autoscalingConfig": {"enabled": True, "minReplicas": 1, "maxReplicas": 4},
    },
}

POLICIES = (image_tag_pinned, serving_memory_limit, no_scale_to_zero, tolerates_and_targets, max_model_len_unset)


def nim(edit=None):
    props = copy.deepcopy(NIM)
    if edit:
        edit(props["spec"])
    return resource(NIM_TYPE, props)


def runtime(edit=None):
    props = copy.deepcopy(VLLM_RUNTIME)
    if edit:
        edit(props["spec"])
    return resource(VLLM_RUNTIME_TYPE, props)


@pytest.mark.parametrize("careful", [nim, runtime])
@pytest.mark.parametrize("module", POLICIES)
def test_the_careful_forms_stay_quiet(careful, module):
    assert messages(module.POLICY, careful()) == []


def test_an_unpinned_operator_image_fires():
    assert messages(
        image_tag_pinned.POLICY, runtime(lambda s: s["deploymentConfig"]["image"].update(name="lmcache/vllm-openai:latest"))
    ) == [
        "spec.deploymentConfig.image: image docker.io/lmcache/vllm-openai:latest uses the mutable tag latest; pin a version "
        "tag (ideally a digest, image@sha256:...)"
    ]
    assert messages(image_tag_pinned.POLICY, nim(lambda s: s["image"].update(tag="latest"))) == [
        "spec.image: image nvcr.io/nim/meta/llama-3.1-8b-instruct:latest uses the mutable tag latest; pin a version tag "
        "(ideally a digest, image@sha256:...)"
    ]


def test_no_memory_limit_fires():
    assert messages(serving_memory_limit.POLICY, runtime(lambda s: s["deploymentConfig"]["resources"].pop("memory"))) == [
        "spec.deploymentConfig.resources.memory is not set, so the VLLMRuntime operator renders the model server with no "
        "memory limit; host memory for weight loading and /dev/shm is then unbounded and the node's other pods pay for it; "
        "set it"
    ]
    assert len(messages(serving_memory_limit.POLICY, nim(lambda s: s["resources"]["limits"].pop("memory")))) == 1


def test_scale_to_zero_fires():
    assert messages(no_scale_to_zero.POLICY, runtime(lambda s: s["autoscalingConfig"].update(minReplicas=0))) == [
        "spec.autoscalingConfig.minReplicas is 0, so the VLLMRuntime operator scales the model to zero; an LLM replica "
        "takes minutes to return (GPU node, image pull, weight load), so the first request after idling times out; set it "
        "to at least 1"
    ]
    assert len(messages(no_scale_to_zero.POLICY, nim(lambda s: s["scale"]["hpa"].update(minReplicas=0)))) == 1
    # Autoscaling off: the floor is not read (replicas is the count).
    assert messages(no_scale_to_zero.POLICY, runtime(lambda s: s["autoscalingConfig"].update(enabled=False, minReplicas=0))) == []


def test_missing_gpu_toleration_and_selection_fire():
    assert messages(tolerates_and_targets.POLICY, runtime(lambda s: s["deploymentConfig"].pop("toleration"))) == [
        "spec: requests GPUs but does not tolerate the nvidia.com/gpu:NoSchedule taint of GPU nodes (setting "
        "gpuNodesTainted: true, no NodePool in this set says otherwise); it stays Pending" + tolerates_and_targets.ADMITTED
    ]
    (msg,) = messages(tolerates_and_targets.POLICY, nim(lambda s: s.pop("nodeSelector")))
    assert msg.startswith("spec: requests GPUs without a nodeSelector or required affinity on a GPU type or pool label")
    assert messages(tolerates_and_targets.POLICY, nim(lambda s: s.pop("tolerations")), config={"gpuNodesTainted": False}) == []


def test_unset_context_length_fires_for_vllm_runtime():
    assert messages(max_model_len_unset.POLICY, runtime(lambda s: s["model"].pop("maxModelLen"))) == [
        "spec.model.maxModelLen is not set, so the VLLMRuntime operator passes no --max-model-len and vLLM serves the "
        "model's full context (131,072 tokens for meta-llama/Llama-3.1-8B-Instruct); set the length you serve"
    ]


def test_no_cpu_or_memory_request_fires():
    from policies.k8s_generic import serving_resource_requests

    assert messages(serving_resource_requests.POLICY, runtime()) == []
    assert messages(serving_resource_requests.POLICY, nim()) == []
    assert messages(
        serving_resource_requests.POLICY, runtime(lambda s: s["deploymentConfig"].update(resources={"gpu": "1"}))
    ) == [
        "spec.deploymentConfig.resources.cpu and spec.deploymentConfig.resources.memory not set, so the VLLMRuntime "
        "operator renders a model server with no cpu or memory request; Karpenter sizes the node and the scheduler packs "
        "it as if it needed none; request what the engine uses besides the GPU"
    ]
    # A NIMService limit alone counts (Kubernetes defaults the request to the limit).
    only_gpu = nim(lambda s: s.update(resources={"limits": {"nvidia.com/gpu": 1, "cpu": "8"}}))
    assert messages(serving_resource_requests.POLICY, only_gpu) == [
        "spec.resources.requests.memory not set, so the NIMService operator renders a model server with no memory "
        "request; Karpenter sizes the node and the scheduler packs it as if it needed none; request what the engine uses "
        "besides the GPU"
    ]
