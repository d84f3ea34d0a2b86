"""G13 gpu-engine-has-gpu-limit: a vLLM container with no nvidia.com/gpu limit at all.

Fixtures cut down from spent held-out sets 13 and 14 (labelled G13 blocking, or "none" blocking before row 13 named it):
- skytin1004/k8s-vllm-inference-poc k8s/vllm-deployment.yaml at 009aeea1b9d18bf3a6238a1958a32b6b3352653d
  (vllm/vllm-openai:latest, the nvidia.com/gpu key commented out, no GPU node selection);
- ambideXtrous9/LLMOps-Production-Platform k8s/vllm-deployment.yaml at 10ed2db790264895204f3f15e13fea961471c7f2
  (vllm/vllm-openai:v0.6.6, no resources at all);
- marcin119a/bielik_vllm k8s/vllm-deployment.yaml at 3ab69d3b89dc5bdbecf13afd6e244275810a138a (vllm/vllm-openai:latest
  with --device cpu and CPU/memory resources only).
"""

import copy

import pytest
from policy_fixtures import found_by

POLICY = "gpu-engine-has-gpu-limit"
S3 = "vllm-tp-matches-gpu-limit"


def deployment(container: dict, **pod) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "vllm", "namespace": "llm-inference-poc"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "vllm"}},
            "template": {"metadata": {"labels": {"app": "vllm"}}, "spec": {"containers": [container], **pod}},
        },
    }


SKYTIN = {
    "name": "vllm",
    "image": "vllm/vllm-openai:latest",
    "args": ["--host", "0.0.0.0", "--port", "8000", "--model", "Qwen/Qwen2.5-0.5B-Instruct", "--max-model-len", "1024"],
    "resources": {"requests": {"cpu": "1", "memory": "3Gi"}, "limits": {"cpu": "2", "memory": "6Gi"}},
}
AMBIDEXTROUS = {
    "name": "vllm",
    "image": "vllm/vllm-openai:v0.6.6",
    "args": ["--model", "HuggingFaceTB/SmolLM2-360M-Instruct", "--dtype", "half", "--gpu-memory-utilization", "0.60"],
}
BIELIK = {
    "name": "vllm-server",
    "image": "vllm/vllm-openai:latest",
    "args": ["--model", "speakleash/Bielik-4.5B-v3.0-Instruct", "--device", "cpu", "--dtype", "bfloat16"],
    "resources": {"requests": {"memory": "8Gi", "cpu": "2"}, "limits": {"memory": "16Gi", "cpu": "4"}},
}
FIX = "set resources.limits nvidia.com/gpu to tensor x pipeline parallel size, 1"
NO_GPU = (
    "is vLLM's CUDA build, but the container has no nvidia.com/gpu limit, so the scheduler may place it on a node "
    'without a GPU, where vLLM finds no platform and exits ("Failed to infer device type")'
)


def test_the_cuda_image_with_no_gpu_blocks():
    assert found_by([deployment(SKYTIN)], POLICY) == [
        (
            "mandatory",
            f"container vllm: image vllm/vllm-openai:latest {NO_GPU}, or on a GPU node where it uses devices nobody "
            f"allocated to it; {FIX}",
        )
    ]
    # S3 no longer reports it (it judges a written size against a present limit).
    assert found_by([deployment(SKYTIN)], S3) == []


def test_a_release_tag_and_no_resources_at_all_block():
    assert [e for e, _ in found_by([deployment(AMBIDEXTROUS)], POLICY)] == ["mandatory"]


def test_device_cpu_does_not_make_the_cuda_build_a_cpu_server():
    ((level, message),) = found_by([deployment(BIELIK)], POLICY)
    assert level == "mandatory"
    assert "(--device cpu does not switch the CUDA build to vLLM's CPU platform" in message


def test_vllm_0_4_and_0_5_fail_at_cuda_initialisation_not_platform_inference():
    # Cold review finding 13: before 0.6 DeviceConfig takes "cuda" for a non-CPU build without asking torch
    # (vllm/config.py DeviceConfig, read at HabanaAI/vllm-fork v0.4.2-Gaudi-1.16.0:655-667), and --device cpu selects
    # the CPU worker explicitly.
    old = copy.deepcopy(BIELIK)
    old["image"] = "vllm/vllm-openai:v0.5.4"
    ((level, message),) = found_by([deployment(old)], POLICY)
    assert level == "mandatory"
    assert (
        "where vLLM 0.4-0.5 takes the device to be CUDA (DeviceConfig asks no driver) and fails when it initialises CUDA"
        in message
    )
    assert "(--device cpu asks 0.4-0.5 for the CPU worker, whose kernels only a CPU build of vLLM compiles)" in message
    assert "Failed to infer device type" not in message


def test_the_size_written_counts_the_ranks():
    container = copy.deepcopy(SKYTIN)
    container["args"] += ["--tensor-parallel-size", "4"]
    ((_, message),) = found_by([deployment(container)], POLICY)
    assert message.endswith("set resources.limits nvidia.com/gpu to tensor x pipeline parallel size, 4")


@pytest.mark.parametrize(
    "edit, pod",
    [
        # The careful forms: a GPU limit (the request defaults to it) ...
        (lambda c: c["resources"]["limits"].update({"nvidia.com/gpu": "1"}), {}),
        # ... another vendor's device, HAMi's fractional resource, a DRA claim ...
        (lambda c: c.update({"image": "rocm/vllm:latest", "resources": {"limits": {"amd.com/gpu": "1"}}}), {}),
        (lambda c: c["resources"]["limits"].update({"nvidia.com/gpumem-percentage": "50"}), {}),
        (lambda c: c["resources"].update({"claims": [{"name": "gpu"}]}), {}),
        (lambda c: None, {"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}]}),
        # ... vLLM's CPU build, or the CPU platform asked for by VLLM_TARGET_DEVICE on a build of one's own ...
        (lambda c: c.update({"image": "public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo:v0.10.1"}), {}),
        (
            lambda c: c.update(
                {"image": "registry.example.com/vllm-cpu:0.9.2", "env": [{"name": "VLLM_TARGET_DEVICE", "value": "cpu"}]}
            ),
            {},
        ),
        (
            lambda c: c.update(
                {"image": "vllm/vllm-openai-cpu:v0.12.0", "env": [{"name": "VLLM_TARGET_DEVICE", "value": "cpu"}]}
            ),
            {},
        ),
        # ... NVIDIA's RuntimeClass on nodes picked for their GPU, a shared unified-memory board (set 14
        # Angel-FulFilment-Services/Angel-Intelligence k8s/vllm-deployment.yaml at
        # 04f4b28e07e2af6000f0ff5e8c05cce5c5331c30, a trap of row 13: nodeSelector nvidia.com/gpu.product AGX-Thor) ...
        (lambda c: None, {"runtimeClassName": "nvidia", "nodeSelector": {"nvidia.com/gpu.product": "AGX-Thor"}}),
        (lambda c: None, {"runtimeClassName": "nvidia", "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}]}),
        # ... and a GPU request without a limit, which gpu-request-equals-limit reports.
        (lambda c: c["resources"]["requests"].update({"nvidia.com/gpu": "1"}), {}),
    ],
)
def test_a_device_from_elsewhere_is_silent(edit, pod):
    container = copy.deepcopy(SKYTIN)
    edit(container)
    assert found_by([deployment(container, **pod)], POLICY) == []


def test_kserve_model_spec_whose_runtime_supplies_the_limit_is_silent():
    isvc = {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "qwen"},
        "spec": {
            "predictor": {
                "model": {
                    "modelFormat": {"name": "huggingface"},
                    "runtime": "vllm-runtime",
                    "args": ["--model", "Qwen/Qwen2.5-0.5B-Instruct"],
                    "resources": {"limits": {"cpu": "2", "memory": "6Gi"}},
                }
            }
        },
    }
    assert found_by([isvc], POLICY) == []


@pytest.mark.parametrize(
    "pod, hint",
    [
        ({"nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-L4"}}, "it requires the node label nvidia.com/gpu.product"),
        ({"nodeSelector": {"eks.amazonaws.com/nodegroup": "gpu"}}, "it selects nodes by eks.amazonaws.com/nodegroup=gpu"),
        ({"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}]}, "it tolerates the nvidia.com/gpu taint"),
    ],
)
def test_a_pod_that_targets_gpu_nodes_is_advice(pod, hint):
    ((level, message),) = found_by([deployment(copy.deepcopy(SKYTIN), **pod)], POLICY)
    assert level == "advisory"
    assert message.startswith(f"container vllm: runs vLLM with no nvidia.com/gpu limit; {hint}, but the scheduler")


def test_the_cuda_image_through_a_pull_through_cache_blocks_and_a_rebuild_is_advice():
    # Harbor's Docker Hub proxy project and ECR's pull-through cache keep the repository path (a form seen in public
    # compose files: harbor.<host>/docker-hub/vllm/vllm-openai:v0.4.0): the same image, so the same finding.
    for image in (
        "harbor.example.com/docker-hub/vllm/vllm-openai:v0.6.6",
        "1234.dkr.ecr.eu-west-1.amazonaws.com/docker-hub/vllm/vllm-openai:v0.6.6",
    ):
        container = copy.deepcopy(AMBIDEXTROUS)
        container["image"] = image
        assert [e for e, _ in found_by([deployment(container)], POLICY)] == ["mandatory"]
    rebuild = copy.deepcopy(AMBIDEXTROUS)
    rebuild["image"] = "harbor.example.com/docker-hub/vllm/vllm-openai-patched:v0.6.6"  # a rebuild, not the image
    assert [e for e, _ in found_by([deployment(rebuild)], POLICY)] == ["advisory"]


def test_an_image_whose_build_is_unknown_is_advice():
    container = copy.deepcopy(SKYTIN)
    container.update({"image": "registry.internal/ml/vllm:0.10.1", "command": ["vllm", "serve"]})
    ((level, message),) = found_by([deployment(container)], POLICY)
    assert level == "advisory"
    assert "the image's build is not known from its name (a CPU build needs no GPU)" in message


def test_the_rocm_tag_of_the_same_repository_is_advice():
    container = copy.deepcopy(SKYTIN)
    container["image"] = "vllm/vllm-openai:v0.10.1-rocm"
    assert [e for e, _ in found_by([deployment(container)], POLICY)] == ["advisory"]


# Ollama (engine table gpu_or_cpu: it runs on the CPU when it finds no GPU, ollama/ollama v0.32.15 discover/types.go
# L47-62), cut from spent sets 16 and 18 (labelled G13 advisory):
# - heissanjay/ollama-eks-depl kubernetes/deployment.yml@0f871508ffb668079fbae8f41851d7a86c755782: tolerates the
#   nvidia.com/gpu taint, limits cpu/memory only;
# - yuxiaojian/ollama-k8s ollama-gpu.yaml@79159968f6c14b53128d14ed2dfe24feaf4c64d2: runtimeClassName nvidia, no
#   resources (the image's NVIDIA_VISIBLE_DEVICES=all reaches every GPU of the node).
HEISSANJAY = {
    "name": "ollama",
    "image": "ollama/ollama:latest",
    "ports": [{"containerPort": 11434}],
    "resources": {"limits": {"cpu": "2000m", "memory": "4Gi"}},
}
_GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}
YUXIAOJIAN = {
    "name": "ollama",
    "image": "ollama/ollama:0.3.5",
    "ports": [{"name": "http", "containerPort": 11434, "protocol": "TCP"}],
    "env": [{"name": "OLLAMA_KEEP_ALIVE", "value": "12h"}],
}


def test_ollama_reaching_for_a_gpu_it_does_not_hold_is_advice():
    ((level, message),) = found_by([deployment(HEISSANJAY, tolerations=[_GPU_TOLERATION])], POLICY)
    assert level == "advisory" and "runs Ollama" in message and "tolerates the nvidia.com/gpu taint" in message
    ((level, message),) = found_by([deployment(YUXIAOJIAN, runtimeClassName="nvidia", nodeName="ollama-gpu")], POLICY)
    assert level == "advisory" and "runtimeClassName nvidia" in message


def test_ollama_careful_forms_stay_silent():
    # CPU on purpose: no toleration, no GPU runtime, no GPU node selection.
    assert found_by([deployment(HEISSANJAY)], POLICY) == []
    # The GPU held: an nvidia.com/gpu limit with the toleration and NVIDIA's runtime.
    held = copy.deepcopy(YUXIAOJIAN)
    held["resources"] = {"limits": {"nvidia.com/gpu": "1"}}
    assert found_by([deployment(held, runtimeClassName="nvidia", tolerations=[_GPU_TOLERATION])], POLICY) == []
    # Another vendor's device (ollama/ollama:rocm on amd.com/gpu).
    amd = dict(HEISSANJAY, image="ollama/ollama:rocm", resources={"limits": {"amd.com/gpu": "1"}})
    assert found_by([deployment(amd, tolerations=[_GPU_TOLERATION])], POLICY) == []


def _limit_range(namespace: str, **item) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": {"name": "gpu-default", "namespace": namespace},
        "spec": {"limits": [{"type": "Container", **item}]},
    }


def test_a_limit_range_that_defaults_the_gpu_is_silent():
    # Review 28 #4 (/tmp/review/g13/lr.yaml): LimitRanger writes a Container LimitRange's defaults into every container
    # lacking them, extended resources included (kubernetes plugin/pkg/admission/limitranger/admission.go
    # mergeContainerResources), so the pod holds the GPU once admitted.
    gpu = {"nvidia.com/gpu": "1"}
    ns = "llm-inference-poc"
    assert found_by([_limit_range(ns, default=gpu, defaultRequest=gpu), deployment(SKYTIN)], POLICY) == []
    assert found_by([_limit_range(ns, defaultRequest=gpu), deployment(SKYTIN)], POLICY) == []
    assert found_by([_limit_range(ns, default={"amd.com/gpu": "1"}), deployment(SKYTIN)], POLICY) == []


def test_a_limit_range_of_another_namespace_or_of_cpu_only_still_blocks():
    gpu = {"nvidia.com/gpu": "1"}
    assert [e for e, _ in found_by([_limit_range("other", default=gpu), deployment(SKYTIN)], POLICY)] == ["mandatory"]
    cpu_only = _limit_range("llm-inference-poc", default={"cpu": "2", "memory": "4Gi", "ephemeral-storage": "10Gi"})
    assert [e for e, _ in found_by([cpu_only, deployment(SKYTIN)], POLICY)] == ["mandatory"]
    pod_item = _limit_range("llm-inference-poc", type="Pod", max=gpu)  # a Pod item defaults nothing
    assert [e for e, _ in found_by([pod_item, deployment(SKYTIN)], POLICY)] == ["mandatory"]


# mo11om/LuminaLocal k8s/vllm-deployment.yaml (spent set 26): vLLM's CUDA image on an AMD GPU node.
LUMINA = {
    "name": "vllm",
    "image": "vllm/vllm-openai:latest",
    "args": ["--model", "Qwen/Qwen2.5-7B-Instruct", "--gpu-memory-utilization", "0.9"],
    "resources": {"requests": {"amd.com/gpu": 1, "memory": "16Gi"}, "limits": {"amd.com/gpu": 1, "memory": "20Gi"}},
}
LUMINA_POD = {"nodeSelector": {"amd.com/gpu": "true"}, "tolerations": [{"key": "amd.com/gpu", "operator": "Exists"}]}


def test_the_cuda_image_on_another_vendors_gpu_blocks():
    # 0.34.0 vllm/platforms/__init__.py:57-105 (NVML only) and :108-125 (amdsmi, not a requirement of the wheel).
    ((level, message),) = found_by([deployment(LUMINA, **LUMINA_POD)], POLICY)
    assert level == "mandatory"
    assert "given amd.com/gpu, not nvidia.com/gpu" in message and "use vLLM's ROCm image" in message
    # A pod that also reaches for NVIDIA nodes or NVIDIA's runtime: advice.
    nvidia = {"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists"}]}
    assert [level for level, _ in found_by([deployment(LUMINA, **nvidia)], POLICY)] == ["advisory"]
    assert [level for level, _ in found_by([deployment(LUMINA, runtimeClassName="nvidia")], POLICY)] == ["advisory"]


@pytest.mark.parametrize(
    "image",
    [
        # kmjayadeep/llm-serving-lab kubernetes/base/deployment.yaml (spent set 24): AMD's vLLM build on amd.com/gpu
        "rocm/vllm-dev:rocm7.2.1_navi_ubuntu24.04_py3.12_pytorch_2.9_vllm_0.16.0",
        "vllm/vllm-openai-rocm:latest",
        "vllm/vllm-openai:v0.10.1-rocm",
        # a private image: its build is not known from the name
        "registry.example.com/ml/vllm:latest",
    ],
)
def test_a_non_cuda_build_on_another_vendors_gpu_is_silent(image):
    assert found_by([deployment(dict(LUMINA, image=image), **LUMINA_POD)], POLICY) == []


# Fresh set 46 (G13 blocking): lionelmarcus10/aipaas apps/vllm/deployment.yaml, vllm/vllm-openai:latest in "k3d CPU
# mode" with env VLLM_TARGET_DEVICE=cpu and no GPU. The variable selects the kernels a build compiles; whether the
# release the tag pulls also reads it at run time the files do not show: advice, never silence.
AIPAAS = {
    "name": "vllm",
    "image": "vllm/vllm-openai:latest",
    "env": [{"name": "VLLM_TARGET_DEVICE", "value": "cpu"}],
    "command": ["vllm", "serve", "facebook/opt-125m", "--host", "0.0.0.0", "--port", "8000"],
    "resources": {"limits": {"cpu": 2, "memory": "4Gi"}, "requests": {"cpu": 1, "memory": "2Gi"}},
}


def test_vllm_target_device_cpu_on_the_cuda_image_is_advice():
    ((enforcement, message),) = found_by([deployment(copy.deepcopy(AIPAAS))], POLICY)
    assert enforcement == "advisory"
    assert "VLLM_TARGET_DEVICE=cpu" in message and "Failed to infer device type" in message


def test_vllm_target_device_cpu_through_a_configmap_is_read_the_same():
    # The second form: the variable from an envFrom ConfigMap (as SecureCloudOps/llm-rag-infra-platform, set 47,
    # gives its vLLM container its settings), pinned release tag.
    container = copy.deepcopy(AIPAAS)
    container["image"] = "vllm/vllm-openai:v0.8.5"
    container.pop("env")
    container["envFrom"] = [{"configMapRef": {"name": "vllm-config"}}]
    config = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "vllm-config", "namespace": "llm-inference-poc"},
        "data": {"VLLM_TARGET_DEVICE": "cpu"},
    }
    ((enforcement, _),) = found_by([deployment(container), config], POLICY)
    assert enforcement == "advisory"


# Fresh set 54 (labelled G13 advisory): mshahzeb/k8s-llm-stack vllm.yaml and tgi.yaml, a GPU reached only through
# runtimeClassName nvidia (the images' NVIDIA_VISIBLE_DEVICES=all), nothing that sends the pod to GPU nodes, no
# nvidia.com/gpu; grandiv/fragrance-palette-scalable k8s/tgi.yaml, TGI 2.4.0's CUDA image with no GPU at all (TGI falls
# back to its CPU path: huggingface/text-generation-inference v3.3.7 server/text_generation_server/utils/import_utils.py
# L48-71, models/__init__.py L185).
MSHAHZEB_VLLM = {
    "name": "vllm",
    "image": "vllm/vllm-openai:latest",
    "args": ["--model", "HuggingFaceTB/SmolLM2-135M-Instruct", "--dtype", "half", "--gpu-memory-utilization", "0.25"],
    "resources": {"requests": {"memory": "12Gi"}, "limits": {"memory": "16Gi"}},
}
MSHAHZEB_TGI = {
    "name": "tgi",
    "image": "ghcr.io/huggingface/text-generation-inference:latest",
    "args": ["--model-id", "HuggingFaceTB/SmolLM2-135M-Instruct", "--cuda-memory-fraction", "0.5"],
    "resources": {"requests": {"memory": "4Gi"}, "limits": {"memory": "8Gi"}},
    "ports": [{"name": "http", "containerPort": 80}],
}
GRANDIV_TGI = {
    "name": "tgi",
    "image": "ghcr.io/huggingface/text-generation-inference:2.4.0",
    "ports": [{"containerPort": 80}],
    "env": [{"name": "MODEL_ID", "value": "meta-llama/Llama-3.2-1B"}, {"name": "MAX_TOTAL_TOKENS", "value": "4096"}],
    "resources": {"requests": {"memory": "4Gi", "cpu": "1000m"}, "limits": {"memory": "8Gi", "cpu": "2000m"}},
}


@pytest.mark.parametrize("container", [MSHAHZEB_VLLM, MSHAHZEB_TGI])
def test_a_gpu_reached_only_through_nvidias_runtime_is_advice(container):
    ((level, message),) = found_by([deployment(container, runtimeClassName="nvidia")], POLICY)
    assert level == "advisory" and "runtimeClassName nvidia" in message


def test_a_nim_reached_only_through_nvidias_runtime_is_advice():
    nim = {"name": "nim", "image": "nvcr.io/nim/meta/llama-3.1-8b-instruct:1.3.3", "ports": [{"containerPort": 8000}]}
    ((level, message),) = found_by([deployment(nim, runtimeClassName="nvidia")], POLICY)
    assert level == "advisory" and "runtimeClassName nvidia" in message
    gpu_nodes = {"nodeSelector": {"nvidia.com/gpu.present": "true"}}
    assert found_by([deployment(nim, runtimeClassName="nvidia", **gpu_nodes)], POLICY) == []


def test_tgis_cuda_image_with_no_gpu_is_advice():
    ((level, message),) = found_by([deployment(GRANDIV_TGI)], POLICY)
    assert level == "advisory" and "TGI's CUDA build" in message and "CPU path" in message


def test_tgi_careful_forms_stay_silent():
    held = copy.deepcopy(GRANDIV_TGI)
    held["resources"]["limits"]["nvidia.com/gpu"] = "1"
    assert found_by([deployment(held)], POLICY) == []
    cpu = dict(GRANDIV_TGI, image="ghcr.io/huggingface/text-generation-inference:3.3.7-intel-cpu")
    assert found_by([deployment(cpu)], POLICY) == []
    # Ollama's one image serves CPU and GPU alike: with no sign of a GPU it stays silent.
    assert found_by([deployment(HEISSANJAY)], POLICY) == []


# Spent set 94 (labelled none, advisory): DArkadich/corp-ai-agent@4863e462c091de48123c48bc49590f410d20194b
# k8s/tei/deployment.yaml, TEI's default tag 1.5 (the CUDA build for Ampere 8.0: huggingface/text-embeddings-inference
# v1.5.0 README.md L312-318; cpu-1.5 is the CPU build) with CPU and memory resources only. A CUDA build that finds no
# compatible device warns "Using CPU instead" (v1.5.0 backends/candle/src/lib.rs L133-151).
DARKADICH_TEI = {
    "name": "tei",
    "image": "ghcr.io/huggingface/text-embeddings-inference:1.5",
    "args": ["--model-id=intfloat/multilingual-e5-base", "--pooling=mean"],
    "ports": [{"containerPort": 80}],
    "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "2Gi"}},
}


def test_teis_cuda_image_with_no_gpu_is_advice():
    ((level, message),) = found_by([deployment(DARKADICH_TEI)], POLICY)
    assert level == "advisory" and "Text Embeddings Inference's CUDA build" in message and "CPU path" in message
    hopper = dict(DARKADICH_TEI, image="ghcr.io/huggingface/text-embeddings-inference:hopper-1.9")
    assert [lvl for lvl, _ in found_by([deployment(hopper)], POLICY)] == ["advisory"]


@pytest.mark.parametrize(
    "image",
    ["ghcr.io/huggingface/text-embeddings-inference:cpu-1.5", "ghcr.io/huggingface/text-embeddings-inference:cpu-ipex-1.9"],
)
def test_teis_cpu_images_stay_silent(image):
    assert found_by([deployment(dict(DARKADICH_TEI, image=image))], POLICY) == []


def test_teis_cuda_image_holding_a_gpu_stays_silent():
    held = copy.deepcopy(DARKADICH_TEI)
    held["resources"]["limits"]["nvidia.com/gpu"] = "1"
    assert found_by([deployment(held)], POLICY) == []
