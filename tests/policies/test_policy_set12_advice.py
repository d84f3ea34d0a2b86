"""Advice drawn from held-out set 12's misses, each general, with the careful form that stays silent.

Fixtures follow (reduced to the fields read): g-rabah/namla-usecases- nim-deployment.yaml at 3f71b9a048b052ed6b3b318cf3fdbcfa4929ea88
(NIM as user 1000 on a DirectoryOrCreate hostPath, no imagePullSecrets), kmjayadeep/llm-k8s-lab k8s/kserve-llm/
inference-service.yaml at 722aacf10a3b1b2248d235ab7579148e35f8102e (amd.com/gpu predictor, memory 4Gi/8Gi),
PhenixForge/vllm-serving-kubernetes-platform kubernetes-eks/deployment.yaml at 4f4be0455dd27441f40856aac72f390a7c0362ce
(--trust-request-chat-template), spangreen/K8s-Ollama-Setup manifests/ollama-with-gpu.yaml at
e26692fd1870e2136dacf46553cf731717b2900a (ollama pull beside ollama serve, readiness on /api/tags).
"""

import copy

import pytest
from policy_fixtures import RAISED
from policy_fixtures import found_by as _pack_found_by


def found_by(objs: list[dict], policy: str, config: dict | None = None) -> list[tuple[str, str]]:
    """The pack's findings with the advisory hygiene rows raised (policy_fixtures.RAISED), so this file's
    proven-blocks / unproven-advises pairs stay told apart."""
    return _pack_found_by(objs, policy, RAISED if config is None else config)


def deployment(container: dict, **spec) -> dict:
    name = container["name"]
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container], **spec}},
        },
    }


NIM = {
    "name": "llama3-8b-instruct",
    "image": "nvcr.io/nim/meta/llama3-8b-instruct:1.0.3",
    "resources": {"limits": {"nvidia.com/gpu": "1"}},
    "securityContext": {"runAsUser": 1000},
    "volumeMounts": [{"name": "nim-cache", "mountPath": "/opt/nim/.cache"}],
}
CACHE = [{"name": "nim-cache", "hostPath": {"path": "/opt/namla/nim/models", "type": "DirectoryOrCreate"}}]


def test_a_nim_image_without_pull_credentials_is_advice():
    assert found_by([deployment(NIM, volumes=CACHE)], "registry-pull-auth") == [
        (
            "advisory",
            "spec.template.spec: image nvcr.io/nim/meta/llama3-8b-instruct:1.0.3 comes from NGC, which refuses an "
            "anonymous pull, and the pod has neither imagePullSecrets nor a serviceAccountName that could carry them, "
            "so the pull fails (ImagePullBackOff) unless the nodes log in to nvcr.io themselves; reference a "
            "docker-registry Secret for nvcr.io (user $oauthtoken, password the NGC API key) in imagePullSecrets",
        )
    ]


@pytest.mark.parametrize(
    "spec",
    [{"imagePullSecrets": [{"name": "ngc-secret"}]}, {"serviceAccountName": "nim"}],
)
def test_pull_credentials_or_a_service_account_are_silent(spec):
    assert found_by([deployment(NIM, volumes=CACHE, **spec)], "registry-pull-auth") == []


def test_a_public_nvcr_image_needs_no_login():
    triton = {"name": "triton", "image": "nvcr.io/nvidia/tritonserver:24.08-py3"}
    assert found_by([deployment(triton)], "registry-pull-auth") == []


def test_a_non_root_writer_on_a_created_host_path_is_advice():
    found = [m for e, m in found_by([deployment(NIM, volumes=CACHE)], "host-path-read-only") if e == "advisory"]
    assert found == [
        "container llama3-8b-instruct: runs as user 1000 and writes to hostPath /opt/namla/nim/models (DirectoryOrCreate) "
        "at /opt/nim/.cache, which the kubelet creates owned by root with mode 0755 (fsGroup does not apply to "
        "hostPath), so its writes fail with permission denied; create the directory with the right owner on the node, "
        "or use a PVC"
    ]


@pytest.mark.parametrize(
    "edit",
    [
        lambda c, v: c["securityContext"].update(runAsUser=0),
        lambda c, v: c.pop("securityContext"),
        lambda c, v: c["volumeMounts"][0].update(readOnly=True),
        lambda c, v: v[0]["hostPath"].update(type="Directory"),
    ],
)
def test_root_a_read_only_mount_or_an_existing_directory_is_silent(edit):
    container, volumes = copy.deepcopy(NIM), copy.deepcopy(CACHE)
    edit(container, volumes)
    found = found_by([deployment(container, volumes=volumes)], "host-path-read-only")
    assert not any("permission denied" in m for _, m in found)


def predictor(requests_memory: str) -> dict:
    return {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "qwen", "namespace": "inference"},
        "spec": {
            "predictor": {
                "containers": [
                    {
                        "name": "kserve-container",
                        "image": "rocm/vllm:rocm7.14.1_vllm_0.23.0",
                        "command": ["/bin/bash", "-lc"],
                        "args": ["exec vllm serve Qwen/Qwen2.5-0.5B-Instruct --port 8080"],
                        "resources": {
                            "requests": {"cpu": "1", "memory": requests_memory, "amd.com/gpu": "1"},
                            "limits": {"cpu": "4", "memory": "8Gi", "amd.com/gpu": "1"},
                        },
                    }
                ]
            }
        },
    }


def test_memory_request_below_limit_on_an_amd_gpu_predictor():
    assert found_by([predictor("4Gi")], "gpu-memory-request-equals-limit") == [
        (
            "advisory",
            "container kserve-container: memory request 4Gi differs from its limit 8Gi in a GPU pod, which makes it "
            "Burstable and an early eviction candidate under node memory pressure; request what you limit",
        )
    ]
    assert found_by([predictor("8Gi")], "gpu-memory-request-equals-limit") == []


VLLM = {"name": "vllm", "image": "vllm/vllm-openai:v0.11.0", "args": ["--model", "TheBloke/Mistral-7B-Instruct-v0.1-AWQ"]}


def test_trusting_request_chat_templates_is_advice():
    container = copy.deepcopy(VLLM)
    container["args"].append("--trust-request-chat-template")
    assert found_by([deployment(container)], "debug-switches-off") == [
        (
            "advisory",
            "container vllm: --trust-request-chat-template makes vLLM render the Jinja chat template any client sends "
            "with its request instead of the model's (vLLM keeps it off by default), so whoever reaches the server "
            "decides how prompts are built; remove it unless every client is trusted",
        )
    ]
    container["args"][-1:] = ["--chat-template", "/templates/chat.jinja"]
    assert found_by([deployment(container)], "debug-switches-off") == []


def ollama(script: str, path: str = "/api/tags") -> dict:
    return {
        "name": "ollama",
        "image": "ollama/ollama:0.6.5",
        "command": ["/bin/sh", "-c"],
        "args": [script],
        "env": [{"name": "OLLAMA_HOST", "value": "0.0.0.0"}],
        "resources": {"limits": {"nvidia.com/gpu": 1}},
        "readinessProbe": {"httpGet": {"path": path, "port": 11434}},
    }


PULL = "ollama serve &\nsleep 5\nollama pull qwen2.5:0.5b\nwait\n"


def test_ollama_ready_before_its_pull_ends_is_advice():
    assert found_by([deployment(ollama(PULL))], "serving-readiness-probe") == [
        (
            "advisory",
            "container ollama: readinessProbe GET /api/tags answers 200 as soon as ollama serve listens, but the "
            "container pulls qwen2.5:0.5b beside it, so the pod is Ready and receives requests that fail with 'model "
            "not found' until the pull ends; probe with an exec command that checks the model (ollama show MODEL), or "
            "pull in an init container",
        )
    ]


def test_ollama_that_pulls_nothing_at_start_or_pulls_first_is_silent():
    assert found_by([deployment(ollama("ollama serve"))], "serving-readiness-probe") == []
    init = {"name": "pull", "image": "ollama/ollama:0.6.5", "command": ["/bin/sh", "-c", "ollama pull qwen2.5:0.5b"]}
    assert found_by([deployment(ollama("ollama serve"), initContainers=[init])], "serving-readiness-probe") == []


def test_an_exec_probe_that_checks_the_model_is_silent():
    container = ollama(PULL)
    container["readinessProbe"] = {"exec": {"command": ["ollama", "show", "qwen2.5:0.5b"]}}
    assert found_by([deployment(container)], "serving-readiness-probe") == []


LLAMA = {
    "name": "llama-server",
    "image": "ghcr.io/ggml-org/llama.cpp:server-cuda-b6000",
    "args": ["--model", "/models/gemma-2-9b-it-Q4_K_M.gguf", "--host", "0.0.0.0", "-ngl", "99"],
    "resources": {"requests": {"memory": "8Gi"}, "limits": {"memory": "16Gi"}},
}


def test_llama_cpp_offloading_to_a_gpu_it_does_not_request_is_advice():
    # Set 12: raphideb/llm-k8s setup-llama-k8s/manifests/models/gemma-2-9b-it-q4-k-m-deployment.yaml at 9c804d5.
    assert found_by([deployment(LLAMA)], "gpu-request-equals-limit") == [
        (
            "advisory",
            "container llama-server: offloads 99 layers to the GPU (--n-gpu-layers 99) but the pod requests no GPU: the "
            "scheduler counts none, so it either reaches the node's GPUs unaccounted through the default runtime (several such "
            "pods share one GPU and can run out of VRAM at load) or sees none and serves from the CPU; request "
            "nvidia.com/gpu: 1",
        )
    ]
    by_env = copy.deepcopy(LLAMA)
    by_env["args"] = by_env["args"][:4]
    by_env["env"] = [{"name": "LLAMA_ARG_N_GPU_LAYERS", "value": "35"}]
    assert [e for e, _ in found_by([deployment(by_env)], "gpu-request-equals-limit")] == ["advisory"]


@pytest.mark.parametrize(
    "edit",
    [
        lambda c: c["resources"]["limits"].update({"nvidia.com/gpu": 1}),
        lambda c: c["resources"]["limits"].update({"amd.com/gpu": 1}),
        lambda c: c["args"].__setitem__(-1, "0"),
        lambda c: c["args"].__delitem__(slice(-2, None)),
    ],
)
def test_a_requested_gpu_or_no_offload_is_silent(edit):
    container = copy.deepcopy(LLAMA)
    edit(container)
    assert found_by([deployment(container)], "gpu-request-equals-limit") == []


def lws(image: str, **container) -> dict:
    """Set 12's wewang58/llama-cpp-example lws.yaml at 8454f9b: 2 groups of 4, an in-house image, resources {}."""
    template = {"spec": {"containers": [{"name": "leader", "image": image, "resources": {}, **container}]}}
    return {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": {"name": "test-sample", "namespace": "test-llm"},
        "spec": {
            "replicas": 2,
            "leaderWorkerTemplate": {"size": 4, "leaderTemplate": template, "workerTemplate": copy.deepcopy(template)},
        },
    }


NOTE = (
    " (advisory: no engine row recognises this LeaderWorkerSet's container; a LeaderWorkerSet runs model-serving "
    "groups, so it is presumed a model server)"
)


def test_an_unrecognised_lws_container_is_presumed_a_model_server():
    found = found_by([lws("quay.io/wewang58/llm-cpu-image:latest")], "serving-readiness-probe")
    assert found == [
        (
            "advisory",
            "spec.leaderWorkerTemplate.leaderTemplate.spec container leader: no readinessProbe on this model server, so "
            "it receives requests before the model is loaded and after the engine dies; probe its health endpoint" + NOTE,
        )
    ]
    assert [e for e, _ in found_by([lws("quay.io/wewang58/llm-cpu-image:latest")], "serving-resource-requests")] == [
        "advisory",
        "advisory",
    ]


def test_a_recognised_or_idle_lws_container_is_not_presumed():
    resources = {"requests": {"cpu": "4", "memory": "16Gi"}, "limits": {"memory": "16Gi", "nvidia.com/gpu": 1}}
    vllm = lws("vllm/vllm-openai:v0.8.5", args=["--model", "Qwen/Qwen2-0.5B"], resources=resources)
    assert found_by([vllm], "serving-resource-requests") == []
    assert found_by([lws("busybox:1.36", command=["sleep", "infinity"])], "serving-memory-limit") == []


def test_g11_reads_a_predictor_with_its_serving_runtime_merged_in():
    # Fresh set 31 opendatahub-io/distributed-workloads examples/stable-diffusion-dreambooth/yaml/distributed/
    # (inference-service.yaml + serving-runtime.yaml): the GPU is the predictor's own, memory 8Gi requested and 16Gi
    # limited by the runtime; KServe merges the runtime's resources under the model's key by key, so the pod is
    # Burstable. A runtime that requests what it limits stays silent.
    from policy_fixtures import found_by

    runtime = {
        "apiVersion": "serving.kserve.io/v1alpha1",
        "kind": "ServingRuntime",
        "metadata": {"name": "stable-diffusion", "namespace": "distributed"},
        "spec": {
            "supportedModelFormats": [{"name": "pytorch", "version": "1"}],
            "containers": [
                {
                    "name": "kserve-container",
                    "image": "quay.io/example/sd-server:1.0",
                    "resources": {"limits": {"cpu": "2", "memory": "16Gi"}, "requests": {"cpu": "1", "memory": "8Gi"}},
                }
            ],
        },
    }
    isvc = {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {"name": "stable-diffusion", "namespace": "distributed"},
        "spec": {
            "predictor": {
                "model": {
                    "modelFormat": {"name": "pytorch", "version": "1"},
                    "runtime": "stable-diffusion",
                    "resources": {"limits": {"nvidia.com/gpu": "1"}, "requests": {"nvidia.com/gpu": "1"}},
                }
            }
        },
    }
    ((level, message),) = found_by([runtime, isvc], "gpu-memory-request-equals-limit")
    assert level == "advisory" and "memory request 8Gi differs from its limit 16Gi (with ServingRuntime" in message
    runtime["spec"]["containers"][0]["resources"]["requests"]["memory"] = "16Gi"
    assert found_by([runtime, isvc], "gpu-memory-request-equals-limit") == []
