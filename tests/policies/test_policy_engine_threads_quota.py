"""G9 engine-threads-within-cpu-limit: a model server told to run more compute threads than its CPU limit (llama.cpp's
--threads through $(VAR) from a ConfigMap, a llama-swap model's cmd, OMP_NUM_THREADS on a CPU-only server)."""

from __future__ import annotations

import copy

from policy_fixtures import found_by

POLICY = "engine-threads-within-cpu-limit"

# rrumana/k8s-homelab-2@3e8775d58e4833738d973b4b35dc39f77d6a0d2f cluster/apps/ai/llama-backend/
# llama-static-a-deployment.yaml and llama-static-a-configmap.yaml (spent set 111), trimmed to what the rule reads:
# --threads $(N_THREADS), N_THREADS "8" in the ConfigMap, limits.cpu "2".
STATIC_MAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "llama-static-a-config"},
    "data": {"MODEL_PATH": "/models/static-a/model.gguf", "PORT": "8000", "N_THREADS": "8", "N_GPU_LAYERS": "999"},
}
STATIC = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "llama-static-a"},
    "spec": {
        "selector": {"matchLabels": {"app": "llama-static-a"}},
        "template": {
            "metadata": {"labels": {"app": "llama-static-a"}},
            "spec": {
                "containers": [
                    {
                        "name": "llama-server",
                        "image": "harbor.rcrumana.xyz/mirror/mostlygeek/llama-swap:v174-vulkan",
                        "command": ["/app/llama-server"],
                        "envFrom": [{"configMapRef": {"name": "llama-static-a-config"}}],
                        "args": [
                            "--model",
                            "$(MODEL_PATH)",
                            "--host",
                            "0.0.0.0",
                            "--port",
                            "$(PORT)",
                            "--threads",
                            "$(N_THREADS)",
                            "--n-gpu-layers",
                            "$(N_GPU_LAYERS)",
                            "--jinja",
                        ],  # fmt: skip
                        "resources": {
                            "requests": {"cpu": "100m", "memory": "1Gi", "amd.com/gpu": "1"},
                            "limits": {"cpu": "2", "memory": "4Gi", "amd.com/gpu": "1"},
                        },
                    }
                ]
            },
        },
    },
}

# The same repository's llama-swap-deployment.yaml and llama-swap-configmap.yaml: llama-swap --config
# /config/config.yaml, mounted from the ConfigMap, every model's cmd with --threads 8, limits.cpu "2".
SWAP_CONFIG = """healthCheckTimeout: 3600
models:
  GLM-4.7-Flash:
    cmd: >
      /app/llama-server
      --model /models/swap/GLM-4.7-Flash/model.gguf
      --n-gpu-layers 999
      --threads 8
      --port ${PORT}
  gpt-oss-20b:
    cmd: >
      /app/llama-server
      --model /models/swap/gpt-oss-20b/model.gguf
      --threads 8
      --port ${PORT}
"""
SWAP_MAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "llama-swap-config"},
    "data": {"config.yaml": SWAP_CONFIG},
}
SWAP = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "llama-swap"},
    "spec": {
        "selector": {"matchLabels": {"app": "llama-swap"}},
        "template": {
            "metadata": {"labels": {"app": "llama-swap"}},
            "spec": {
                "containers": [
                    {
                        "name": "llama-swap",
                        "image": "harbor.rcrumana.xyz/mirror/mostlygeek/llama-swap:v174-vulkan",
                        "command": ["/app/llama-swap"],
                        "args": ["--config", "/config/config.yaml", "--listen", ":8000", "--watch-config"],
                        "volumeMounts": [{"name": "swap-config", "mountPath": "/config/config.yaml", "subPath": "config.yaml"}],
                        "resources": {
                            "requests": {"cpu": "100m", "amd.com/gpu": "1"},
                            "limits": {"cpu": "2", "amd.com/gpu": "1"},
                        },
                    }
                ],
                "volumes": [{"name": "swap-config", "configMap": {"name": "llama-swap-config"}}],
            },
        },
    },
}

# awslabs/ai-on-eks@6544240f0d0653bc51458c6c62583e44454f191f infra/solutions/
# cost_effective_scalable_inference_agentic_ai_automode/model-hosting/standalone-vllm-reasoning.yaml (corpus
# manifests-v2 row 31), trimmed: OMP_NUM_THREADS "8" under a limit of 22 CPUs on a 4-GPU vLLM.
AWS = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm-reasoning"},
    "spec": {
        "selector": {"matchLabels": {"app": "vllm"}},
        "template": {
            "metadata": {"labels": {"app": "vllm"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai:v0.9.2",
                        "args": ["--model", "Qwen/Qwen3-32B", "--tensor-parallel-size", "4"],
                        "env": [{"name": "OMP_NUM_THREADS", "value": "8"}],
                        "resources": {"limits": {"cpu": "22", "memory": "180Gi", "nvidia.com/gpu": "4"}},
                    }
                ]
            },
        },
    },
}


def test_threads_from_a_config_map_over_the_limit():
    assert found_by([STATIC_MAP, STATIC], POLICY) == [
        (
            "advisory",
            "container llama-server: this llama.cpp server's thread setting runs 8 compute "
            "threads, but resources.limits.cpu is 2: the 8 threads share 2 CPUs of time per scheduling period, so the "
            "part of each token computed on the CPU (every layer not offloaded to a GPU) ends throttled, waiting for the "
            "next period; set the thread count to the limit or below, or raise the limit",
        )
    ]


def test_llama_swap_model_commands_over_the_limit():
    [(level, message)] = found_by([SWAP_MAP, SWAP], POLICY)
    assert level == "advisory"
    assert message.startswith(
        "container llama-swap: every llama-server llama-swap starts from /config/config.yaml for "
        "the models GLM-4.7-Flash (8), gpt-oss-20b (8) runs 8 compute threads, but resources.limits.cpu is 2:"
    )


def test_omp_threads_on_a_cpu_only_server():
    obj = copy.deepcopy(AWS)
    container = obj["spec"]["template"]["spec"]["containers"][0]
    container["resources"] = {"limits": {"cpu": "4", "memory": "32Gi"}}
    container["args"] = ["--model", "Qwen/Qwen3-0.6B"]
    container["image"] = "public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo:v0.9.2"
    [(level, message)] = found_by([obj], POLICY)
    assert level == "advisory"
    assert "this CPU-only model server's OMP_NUM_THREADS runs 8 compute threads, but resources.limits.cpu is 4" in message


def test_careful_forms_stay_silent():
    assert found_by([AWS], POLICY) == []  # 8 OpenMP threads under 22 CPUs, on GPUs
    fitting = copy.deepcopy(STATIC_MAP)
    fitting["data"]["N_THREADS"] = "2"
    assert found_by([fitting, STATIC], POLICY) == []
    # the value is not in the files (a ConfigMap applied elsewhere): decided at run time
    assert found_by([STATIC], POLICY) == []
    unlimited = copy.deepcopy(SWAP)
    del unlimited["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["cpu"]
    assert found_by([SWAP_MAP, unlimited], POLICY) == []


# rajinikanthvadla-ai/kserve-triton-ray-llm-stack@a0996a6fa133628c46738c8eabd503604d07686c
# 03-vllm-cpu-lab/manifests/vllm-cpu.yaml (spent set 112), trimmed: vLLM's CPU image with VLLM_CPU_OMP_THREADS_BIND=auto,
# requests.cpu 500m, limits.cpu 2.
CPU_VLLM = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "vllm-opt125m-cpu"},
    "spec": {
        "selector": {"matchLabels": {"app": "vllm-opt125m-cpu"}},
        "template": {
            "metadata": {"labels": {"app": "vllm-opt125m-cpu"}},
            "spec": {
                "containers": [
                    {
                        "name": "vllm",
                        "image": "vllm/vllm-openai-cpu:latest-x86_64",
                        "command": ["python3", "-m", "vllm.entrypoints.openai.api_server"],
                        "args": ["--model", "HuggingFaceTB/SmolLM2-135M-Instruct", "--dtype", "float32"],
                        "env": [
                            {"name": "VLLM_CPU_KVCACHE_SPACE", "value": "1"},
                            {"name": "VLLM_CPU_OMP_THREADS_BIND", "value": "auto"},
                        ],
                        "resources": {"requests": {"cpu": "500m", "memory": "2Gi"}, "limits": {"cpu": "2", "memory": "3800Mi"}},
                    }
                ]
            },
        },
    },
}


def test_vllm_auto_binding_under_a_quota():
    [(level, message)] = found_by([CPU_VLLM], POLICY)
    assert level == "advisory"
    assert message == (
        "container vllm: VLLM_CPU_OMP_THREADS_BIND=auto makes vLLM's CPU backend run one OpenMP thread per physical "
        "core of a NUMA node the process may run on, and a CPU limit (2) is a quota, not a CPU set: the process may run "
        "on every CPU of the node, so on any node with more than 2 cores per NUMA node the threads outnumber the quota "
        "and every forward pass ends throttled; set VLLM_CPU_OMP_THREADS_BIND to as many CPU ids as the limit (0-1), or "
        "give the pod whole CPUs with requests equal to limits under the static CPU manager"
    )


def test_vllm_binding_written_or_whole_cpus_stay_silent():
    listed = copy.deepcopy(CPU_VLLM)
    listed["spec"]["template"]["spec"]["containers"][0]["env"][1]["value"] = "0-1"
    assert found_by([listed], POLICY) == []
    whole = copy.deepcopy(CPU_VLLM)
    whole["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "2"
    assert found_by([whole], POLICY) == []


def test_omp_threads_on_a_ggml_server_stay_silent():
    """ggml opens its OpenMP regions with num_threads(n_threads) (ggml/src/ggml-cpu/ggml-cpu.c ggml_graph_compute),
    which overrides OMP_NUM_THREADS: on llama.cpp, Ollama and LocalAI the variable is not the thread count."""
    for image, args in (("ollama/ollama:0.6.8", []), ("ghcr.io/ggml-org/llama.cpp:server-b4500", ["-m", "/m/q.gguf"])):
        obj = copy.deepcopy(AWS)
        container = obj["spec"]["template"]["spec"]["containers"][0]
        container.update(image=image, args=args, resources={"limits": {"cpu": "2", "memory": "8Gi"}})
        assert found_by([obj], POLICY) == [], image
