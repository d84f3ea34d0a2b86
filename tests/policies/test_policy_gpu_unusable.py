"""G102 gpu-container-can-use-it: a GPU held by a container that cannot use it (advice).

Firing forms, cut down from spent sets labelled none (advisory):
- set 96 nextvirus/fake-gpu@e92e064852e15f3ebf84b45c8ba0960fe008461d deploy/k8s/vllm-cpu-run.yaml: vLLM's CPU image
  vllm/vllm-openai-cpu:v0.19.1 with nvidia.com/gpu: 1 (docker/Dockerfile.cpu's vllm-openai stage: no CUDA);
- set 93 dios07022004-coder/ai-generation-api@a04e7cf3743a09e238101e97ed0ed0a9a70275e0 k8s/worker-deployment.yaml and
  k8s/configmap.yaml: a Celery worker holding nvidia.com/gpu: 1 whose ConfigMap gives COMFYUI_URL http://comfyui:8188;
- set 96 simardeep1792/Knative-DAPR-GPU-K8s@02ba41902abe1589b5847099288fc99db4d43369 knative/inference-service.yaml: a
  Knative Service (a Flask proxy) with OLLAMA_HOST and limits nvidia.com/gpu: 1.
The CPU builds are components/device_fit.toml [cpu_builds], each read at the publisher's release.
"""

from __future__ import annotations

import copy

import pytest
from policy_fixtures import found_by

from components.device_fit import CPU_BUILDS, MODEL_CLIENTS, cpu_build, load, names_itself_cpu
from components.serving_apps import APPS

POLICY = "gpu-container-can-use-it"


def deployment(container: dict, kind: str = "Deployment", api: str = "apps/v1") -> dict:
    return {
        "apiVersion": api,
        "kind": kind,
        "metadata": {"name": "app", "namespace": "ai"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "app"}},
            "template": {"metadata": {"labels": {"app": "app"}}, "spec": {"containers": [container]}},
        },
    }


GPU = {"limits": {"nvidia.com/gpu": "1"}, "requests": {"nvidia.com/gpu": "1"}}
NEXTVIRUS_CPU = {
    "name": "vllm-openai",
    "image": "vllm/vllm-openai-cpu:v0.19.1",
    "command": ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "Qwen/Qwen2.5-0.5B-Instruct"],
    "ports": [{"containerPort": 8000}],
    "resources": GPU,
}
DIOS_CONFIG = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "app-config", "namespace": "aigen"},
    "data": {"GENERATION_PROVIDER": "comfyui", "COMFYUI_URL": "http://comfyui:8188", "MODELS_CONFIG": "/app/config/models.yaml"},
}
DIOS_WORKER = {
    "name": "worker",
    "image": "ghcr.io/owner/ai-generation-api:latest",
    "command": ["celery", "-A", "app.queues.celery_app", "worker", "-l", "info", "--concurrency=1"],
    "envFrom": [{"configMapRef": {"name": "app-config"}}, {"secretRef": {"name": "app-secrets"}}],
    "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"cpu": "2", "memory": "4Gi", "nvidia.com/gpu": 1}},
}
SIMARDEEP = {
    "image": "artifact-registry/inference-service",
    "env": [{"name": "GPU_ENABLED", "value": "true"}, {"name": "OLLAMA_HOST", "value": "http://ollama.example.nip.io"}],
    "resources": {"limits": {"nvidia.com/gpu": "1", "memory": "4Gi"}},
    "ports": [{"containerPort": 8080}],
}


def _knative(container: dict) -> dict:
    return {
        "apiVersion": "serving.knative.dev/v1",
        "kind": "Service",
        "metadata": {"name": "inference-service", "namespace": "ollama"},
        "spec": {"template": {"spec": {"containers": [container]}}},
    }


def _worker_in(namespace: str) -> dict:
    worker = deployment(DIOS_WORKER)
    worker["metadata"]["namespace"] = namespace
    return worker


def test_a_cpu_build_holding_a_gpu_is_advice():
    ((level, message),) = found_by([deployment(NEXTVIRUS_CPU)], POLICY)
    assert level == "advisory"
    assert "image vllm/vllm-openai-cpu:v0.19.1 is vLLM's CPU image, a build with no CUDA" in message
    assert "holds nvidia.com/gpu: 1" in message


@pytest.mark.parametrize(
    "image",
    [
        "public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo:v0.10.2",
        "ghcr.io/huggingface/text-embeddings-inference:cpu-1.5",
        "ghcr.io/huggingface/text-generation-inference:3.3.5-intel-cpu",
        "ghcr.io/ggml-org/llama.cpp:server",
        "ghcr.io/ggml-org/llama.cpp:server-b4719",
        "ghcr.io/ggml-org/llama.cpp:server-s390x-b4719",  # docker.yml L399-438 @f5357743: s390x alias of cpu
        "localai/localai:latest-aio-cpu",
        "quay.io/someone/vllm-cpu-only:latest",
    ],
)
def test_every_cpu_build_of_the_table_fires(image):
    container = dict(NEXTVIRUS_CPU, image=image, command=[])
    assert [lvl for lvl, _ in found_by([deployment(container)], POLICY)] == ["advisory"]


@pytest.mark.parametrize(
    "image",
    [
        "vllm/vllm-openai:v0.19.1",
        "ghcr.io/huggingface/text-embeddings-inference:1.5",
        "ghcr.io/huggingface/text-generation-inference:3.3.7",
        "ghcr.io/ggml-org/llama.cpp:server-cuda",
        "ghcr.io/ggml-org/llama.cpp:server-cuda-b4719",
        "localai/localai:latest-gpu-nvidia-cuda-12",
    ],
)
def test_a_cuda_build_with_a_gpu_stays_silent(image):
    assert cpu_build(image) is None and not names_itself_cpu(image)
    assert found_by([deployment(dict(NEXTVIRUS_CPU, image=image))], POLICY) == []


def test_a_cpu_image_holding_no_gpu_stays_silent():
    container = copy.deepcopy(NEXTVIRUS_CPU)
    container["resources"] = {"limits": {"cpu": "4", "memory": "8Gi"}}
    assert found_by([deployment(container)], POLICY) == []


def test_an_http_client_of_comfyui_holding_a_gpu_is_advice():
    ((level, message),) = found_by([DIOS_CONFIG, _worker_in("aigen")], POLICY)
    assert level == "advisory"
    assert "holds nvidia.com/gpu: 1 but runs no model server" in message
    assert "COMFYUI_URL=http://comfyui:8188 calls a model server over HTTP" in message
    # The ConfigMap outside the files: nothing shows what it calls, so it stays silent.
    assert found_by([_worker_in("aigen")], POLICY) == []


def test_a_knative_proxy_to_ollama_holding_a_gpu_is_advice():
    ((level, message),) = found_by([_knative(SIMARDEEP)], POLICY)
    assert level == "advisory" and "OLLAMA_HOST=http://ollama.example.nip.io" in message
    # An address left a fill-in in a variable that names a model server's address still reads as one.
    filled = copy.deepcopy(SIMARDEEP)
    filled["env"][1]["value"] = "http://ollama.<your-ip>.nip.io"
    assert [lvl for lvl, _ in found_by([_knative(filled)], POLICY)] == ["advisory"]


@pytest.mark.parametrize(
    "edit",
    [
        # ComfyUI itself, a torch worker, an engine's rebuild: images that run a model.
        lambda c: c.update(image="ghcr.io/ai-dock/comfyui:latest-cuda"),
        lambda c: c.update(image="myorg/torch-worker:1.0"),
        lambda c: c.update(image="pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime"),
        # A variable or a mount of a local model.
        lambda c: c.setdefault("env", []).append({"name": "HF_HOME", "value": "/cache"}),
        lambda c: c.update(volumeMounts=[{"name": "m", "mountPath": "/app/models"}]),
        # A call to its own pod, or a download of weights, is no model server elsewhere.
        lambda c: c.update(env=[{"name": "OLLAMA_HOST", "value": "http://localhost:11434"}]),
        lambda c: c.update(env=[{"name": "MODEL_URL", "value": "https://huggingface.co/x/y/resolve/main/m.gguf"}]),
        # No GPU held.
        lambda c: c.update(resources={"limits": {"memory": "4Gi"}}),
    ],
)
def test_careful_forms_stay_silent(edit):
    container = copy.deepcopy(SIMARDEEP)
    edit(container)
    assert found_by([_knative(container)], POLICY) == []


def test_an_engine_holding_its_gpu_stays_silent():
    ollama = {"name": "ollama", "image": "ollama/ollama:0.6.2", "env": [{"name": "OLLAMA_HOST", "value": "0.0.0.0:11434"}]}
    ollama["resources"] = GPU
    assert found_by([deployment(ollama)], POLICY) == []


def test_other_pod_templates_get_it():
    sts = deployment(NEXTVIRUS_CPU, kind="StatefulSet")
    sts["spec"]["serviceName"] = "app"
    lws = {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": "vllm"},
        "spec": {"leaderWorkerTemplate": {"size": 1, "leaderTemplate": {"spec": {"containers": [NEXTVIRUS_CPU]}}}},
    }
    release = {
        "apiVersion": "helm.toolkit.fluxcd.io/v2",
        "kind": "HelmRelease",
        "metadata": {"name": "vllm"},
        "spec": {
            "chartRef": {"kind": "OCIRepository", "name": "app-template"},
            "values": {
                "controllers": {
                    "vllm": {
                        "containers": {
                            "app": {
                                "image": {"repository": "vllm/vllm-openai-cpu", "tag": "v0.19.1"},
                                "resources": {"limits": {"nvidia.com/gpu": 1}},
                            }
                        }
                    }
                }
            },
        },
    }
    for obj in (sts, lws, release):
        assert [lvl for lvl, _ in found_by([obj], POLICY)] == ["advisory"], obj["kind"]


def test_the_table_loads_and_refuses_a_bad_row(tmp_path):
    assert {b.name for b in CPU_BUILDS} >= {"vllm-cpu", "tei-cpu", "llama-cpp-cpu", "localai-cpu", "tgi-cpu"}
    bad = tmp_path / "device_fit.toml"
    bad.write_text('[cpu_builds.x]\ndisplay = "x"\nrepositories = ["a/b"]\ntags = "("\nsource = "s"\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"\[cpu_builds.x\]: tags does not compile"):
        load(bad)


def test_a_model_api_proxy_holding_a_gpu_is_advice():
    litellm = {
        "name": "litellm",
        "image": "ghcr.io/berriai/litellm:main-v1.77.7",
        "args": ["--config", "/app/config.yaml"],
        "resources": {"limits": {"nvidia.com/gpu": 1}},
    }
    ((level, message),) = found_by([deployment(litellm)], POLICY)
    assert level == "advisory" and "runs LiteLLM proxy" in message and "runs no model itself" in message
    assert found_by([deployment(dict(litellm, resources={"limits": {"memory": "2Gi"}}))], POLICY) == []


def test_the_gateway_apps_are_rows_of_the_serving_apps_table():
    assert MODEL_CLIENTS.gateway_apps <= {a.name for a in APPS}
