"""Engine settings as third parties write them (brief engines50b): S36 and G4 rows read from the engine and app tables.

Firing forms, from spent sets 80 and 82:
- S36: LiteLLM's ``LITELLM_LOG=DEBUG`` (litellm 1.55.0 wheel litellm/proxy/proxy_server.py:2530-2550; set 80
  theepicsaxguy/homelab k8s/applications/ai/litellm/deployment.yaml), LocalAI's ``run --debug`` (mudler/LocalAI
  v4.9.0 core/cli/context/context.go:4; set 82 sozercan/k8s-distributed-inference configs/k8s/localai-main.yaml),
  tgi-gaudi's ``TEXT_GENERATION_SERVER_IGNORE_EOS_TOKEN=true`` (huggingface/text-generation-inference v3.3.7
  backends/gaudi/server/text_generation_server/utils/tokens.py:169-172; set 82 dell-examples/generative-ai
  intel-XE9680-gaudi3/TGI/deployment.yml).
- G4: a LiteLLM readinessProbe on ``/``, its Swagger docs page (litellm 1.55.0 proxy/utils.py:2869-2885; set 80
  theepicsaxguy/homelab, the same file).

Careful forms that stay silent: LITELLM_LOG=INFO; LocalAI with no --debug; the EOS switch at "false"; a LiteLLM
readinessProbe on /health/readiness.
"""

from __future__ import annotations

from policy_fixtures import config_map, found_by, workload

S36 = "debug-switches-off"
G4 = "serving-readiness-probe"


def _deployment(container: dict) -> dict:
    return workload("s", [container])


def _litellm(log: str = "DEBUG", ready: str = "/") -> dict:
    return {
        "name": "litellm",
        "image": "ghcr.io/berriai/litellm-non_root:v1.88.0",
        "args": ["--config", "/app/proxy_server_config.yaml"],
        "ports": [{"containerPort": 4000}],
        "env": [
            {"name": "DATABASE_URL", "valueFrom": {"secretKeyRef": {"name": "db", "key": "url"}}},
            {"name": "LITELLM_MODE", "value": "PRODUCTION"},
            {"name": "LITELLM_LOG", "value": log},
        ],
        "livenessProbe": {"httpGet": {"path": "/health/liveliness", "port": 4000}},
        "readinessProbe": {"httpGet": {"path": ready, "port": 4000}, "initialDelaySeconds": 10},
        "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"memory": "2Gi"}},
    }


def test_litellm_debug_log_is_advice():
    ((level, message),) = found_by([_deployment(_litellm())], S36)
    assert level == "advisory"
    assert message.startswith("container litellm: env LITELLM_LOG=DEBUG turns the LiteLLM proxy's debug logging on")
    assert found_by([_deployment(_litellm(log="INFO"))], S36) == []


def test_litellm_readiness_on_the_docs_page_is_advice():
    ((level, message),) = found_by([_deployment(_litellm(log="INFO"))], G4)
    assert level == "advisory"
    assert "readinessProbe GETs /, its API docs page, which LiteLLM proxy answers without checking" in message
    assert found_by([_deployment(_litellm(log="INFO", ready="/health/readiness"))], G4) == []


def _localai(args: list) -> dict:
    return {
        "name": "localai",
        "image": "localai/localai:latest-aio-gpu-nvidia-cuda-12",
        "args": args,
        "ports": [{"containerPort": 8080}],
    }


def test_localai_debug_flag_is_advice():
    ((level, message),) = found_by([_deployment(_localai(["run", "--debug", "--p2p", "--address", "0.0.0.0:8080"]))], S36)
    assert level == "advisory" and message.startswith("container localai: --debug turns LocalAI's verbose logging on")
    assert found_by([_deployment(_localai(["run", "--p2p", "--address", "0.0.0.0:8080"]))], S36) == []


def _tgi_gaudi(value: str) -> dict:
    return {
        "name": "tgi",
        "image": "ghcr.io/huggingface/tgi-gaudi:2.0.5",
        "args": ["--model-id", "meta-llama/Meta-Llama-3-8B"],
        "env": [{"name": "TEXT_GENERATION_SERVER_IGNORE_EOS_TOKEN", "value": value}],
        "resources": {"limits": {"habana.ai/gaudi": "1"}},
    }


def test_tgi_ignore_eos_is_advice():
    ((level, message),) = found_by([_deployment(_tgi_gaudi("true"))], S36)
    assert level == "advisory" and "env TEXT_GENERATION_SERVER_IGNORE_EOS_TOKEN=true" in message
    assert found_by([_deployment(_tgi_gaudi("false"))], S36) == []


# G74: spent set 82 olafkfreund/SOW-generator deployment/k8s-pod-amd.yaml and k8s-pod.yaml (an Ollama rebuild,
# ollama-amd:latest, with a ConfigMap ollama.conf mounted at /etc/ollama; OLLAMA_GPU in env). Ollama reads its settings
# with os.Getenv only (ollama/ollama v0.32.15 envconfig/config.go:375-376; components/engine_env.toml env_only).
G74 = "engine-env-known"
OLLAMA_CONF = config_map(
    "ollama-amd-config",
    {
        "ollama.conf": "# Ollama configuration\nOLLAMA_HOST=0.0.0.0:11434\nOLLAMA_FLASH_ATTENTION=1\n"
        "OLLAMA_TENSOR_PARALLEL_SIZE=1\nOLLAMA_MAX_BATCH_SIZE=32\n",
        "gpu-info.sh": "#!/bin/bash\nrocm-smi --showallinfo\n",
    },
)


def _ollama(image: str = "ollama-amd:latest", **extra) -> dict:
    return {
        "name": "ollama",
        "image": image,
        "ports": [{"containerPort": 11434}],
        "env": [{"name": "OLLAMA_HOST", "value": "0.0.0.0:11434"}],
        "volumeMounts": [{"name": "ollama-config", "mountPath": "/etc/ollama", "readOnly": True}],
        "resources": {"limits": {"amd.com/gpu": 1}},
        **extra,
    }


def _with_config(container: dict) -> list:
    volumes = [{"name": "ollama-config", "configMap": {"name": "ollama-amd-config"}}]
    return [workload("s", [container], volumes=volumes), OLLAMA_CONF]


def test_a_mounted_ollama_conf_sets_nothing():
    ((level, message),) = found_by(_with_config(_ollama()), G74)
    assert level == "advisory"
    assert message.startswith(
        "container ollama: /etc/ollama/ollama.conf sets OLLAMA_FLASH_ATTENTION, OLLAMA_MAX_BATCH_SIZE, "
        "OLLAMA_TENSOR_PARALLEL_SIZE (OLLAMA_MAX_BATCH_SIZE, OLLAMA_TENSOR_PARALLEL_SIZE no release of it reads at all), "
        "but Ollama reads its settings only from its environment"
    )
    assert message.endswith("(unless this rebuilt image's own entrypoint sources the file); set them in the container's env")
    ((_, published),) = found_by(_with_config(_ollama("ollama/ollama:0.6.2")), G74)
    assert "unless this rebuilt" not in published


def test_a_sourced_or_env_set_ollama_conf_is_silent():
    sourced = _ollama(command=["sh", "-c", "set -a; . /etc/ollama/ollama.conf; exec ollama serve"])
    assert found_by(_with_config(sourced), G74) == []
    in_env = _ollama("ollama/ollama:0.6.2")
    in_env["env"] = [
        {"name": n, "value": "1"}
        for n in ("OLLAMA_HOST", "OLLAMA_FLASH_ATTENTION", "OLLAMA_TENSOR_PARALLEL_SIZE", "OLLAMA_MAX_BATCH_SIZE")
    ]
    assert [m for _, m in found_by(_with_config(in_env), G74) if "ollama.conf" in m] == []


def test_an_ollama_rebuild_with_an_unread_variable_is_advice():
    container = _ollama(env=[{"name": "OLLAMA_GPU", "value": "amd"}])
    del container["volumeMounts"]
    ((level, message),) = found_by([_deployment(container)], G74)
    assert level == "advisory" and message.startswith("container ollama: env OLLAMA_GPU is no setting Ollama reads")
    # A client image that only names Ollama and serves elsewhere is no rebuild (engine_flags.rebuilt_image).
    client = {"name": "ollama-webui", "image": "ollama-webui:latest", "env": [{"name": "OLLAMA_GPU", "value": "amd"}]}
    assert found_by([_deployment(client)], G74) == []


# G53 and G13 on AMD GPU pods: spent set 82 olafkfreund/SOW-generator deployment/k8s-pod-amd.yaml (HIP_VISIBLE_DEVICES=all
# beside amd.com/gpu: 1; HIP ends its device list at the first token that is no index or UUID, ROCm/clr rocm-6.2.2
# rocclr/device/rocm/rocdevice.cpp:501-550) and deployment/k8s-pod.yaml (ollama-amd:latest with no amd.com/gpu).
G53 = "gpu-visible-devices-left-to-plugin"
G13 = "gpu-engine-has-gpu-limit"


def _amd(value: str, gpus: int = 1) -> dict:
    container = _ollama("ollama/ollama:rocm")
    del container["volumeMounts"]
    container["env"] = [{"name": "HIP_VISIBLE_DEVICES", "value": value}, {"name": "ROCR_VISIBLE_DEVICES", "value": "0"}]
    container["resources"] = {"limits": {"amd.com/gpu": gpus}} if gpus else {}
    return container


def test_hip_visible_devices_all_hides_the_amd_gpu():
    ((level, message),) = found_by([_deployment(_amd("all"))], G53)
    assert level == "advisory"
    assert message.startswith(
        "container ollama: env HIP_VISIBLE_DEVICES=all beside a claim of amd.com/gpu: that value hides every device"
    )
    assert found_by([_deployment(_amd("0"))], G53) == []  # an index within the claim
    assert found_by([_deployment(_amd("all", gpus=0))], G53) == []  # no AMD claim: not this rule's


def test_an_amd_rebuild_with_no_amd_gpu_is_advice():
    container = _ollama()
    del container["volumeMounts"], container["resources"]
    ((level, message),) = found_by([_deployment(container)], G13)
    assert level == "advisory" and message.startswith("container ollama: image ollama-amd:latest is a ROCm build")
    assert found_by([_deployment(_ollama("ollama-amd:latest") | {"volumeMounts": []})], G13) == []  # holds amd.com/gpu
    amd64 = _ollama("example.com/ollama-amd64:0.6.2")
    del amd64["volumeMounts"], amd64["resources"]
    assert found_by([_deployment(amd64)], G13) == []  # an architecture, no vendor mark


# G9 on CPU-computing servers: spent set 80 josevictorferreira/homelab .k8s/apps/llama-cpp.yaml (llama-server
# --n-gpu-layers 0 on a ROCm image, cpu limit 500m) and set 81 TrainWithShubham/AI-BankApp-DevOps
# k8s/ollama-deployment.yaml (CPU-only Ollama, cpu limit 1000m, threads left to one per physical core).
G9 = "serving-cpu-limit-floor"


def _llama(cpu: str, *extra: str) -> dict:
    return {
        "name": "embeddings",
        "image": "ghcr.io/ggml-org/llama.cpp:server-rocm",
        "command": ["/app/llama-server"],
        "args": ["--model", "/models/e5.gguf", "--host", "0.0.0.0", "--port", "8081", "--embedding", *extra],
        "resources": {"limits": {"cpu": cpu, "memory": "2Gi"}, "requests": {"cpu": "50m", "memory": "64Mi"}},
    }


def test_a_server_told_to_offload_no_layer_is_cpu_computed():
    ((level, message),) = found_by([_deployment(_llama("500m", "--n-gpu-layers", "0"))], G9)
    assert level == "advisory"
    assert message.startswith(
        "container embeddings: resources.limits.cpu 500m on this llama.cpp server, which is told to offload no layer to "
        "a GPU (gpu layers 0)"
    )
    assert found_by([_deployment(_llama("4", "--n-gpu-layers", "0"))], G9) == []


def test_one_core_with_default_threads_is_advice():
    ollama = {"name": "ollama", "image": "ollama/ollama:latest", "ports": [{"containerPort": 11434}]}
    ollama["resources"] = {"limits": {"cpu": "1000m", "memory": "4Gi"}, "requests": {"cpu": "200m", "memory": "1Gi"}}
    ((level, message),) = found_by([_deployment(ollama)], G9)
    assert level == "advisory" and "threads share 1 CPU per period" in message
    # Threads set to the limit: the server runs within its quota.
    assert found_by([_deployment(_llama("1", "--n-gpu-layers", "0", "--threads", "1"))], G9) == []
    assert found_by([_deployment(_llama("2", "--n-gpu-layers", "0"))], G9) == []


# S19: spent set 82 sozercan/k8s-distributed-inference configs/k8s/localai-main.yaml runs
# localai/localai:latest-aio-gpu-nvidia-cuda-12 with no model argument and no volume: the AIO entrypoint exports MODELS,
# seven model configs the server installs at start (mudler/LocalAI v2.21.0 aio/entrypoint.sh L131-138).
S19 = "gpu-pod-ephemeral-storage"


def test_localai_aio_downloads_its_models_at_start():
    ((level, message),) = found_by([_deployment(_localai(["run", "--p2p", "--address", "0.0.0.0:8080"]))], S19)
    assert level == "advisory"
    assert message.startswith("container localai: downloads the models its all-in-one image's entrypoint names")
    # A volume at the models folder, or an image that is not an AIO build: silent.
    plain = _localai(["run"]) | {"image": "localai/localai:v2.21.0-cublas-cuda12"}
    assert found_by([_deployment(plain)], S19) == []
    kept = _localai(["run"]) | {
        "volumeMounts": [{"name": "m", "mountPath": "/models"}, {"name": "b", "mountPath": "/build/models"}]
    }
    obj = _deployment(kept)
    obj["spec"]["template"]["spec"]["volumes"] = [
        {"name": "m", "persistentVolumeClaim": {"claimName": "models"}},
        {"name": "b", "persistentVolumeClaim": {"claimName": "models"}},
    ]
    assert found_by([obj], S19) == []


# S51: spent set 80 skamalj/azure-terraform stacks/vLLM/vllm-api-deployment.yaml: a bash script that joins a Ray cluster
# and then runs `vllm serve --port 8000`, and a Service port vllm-metrics 9090 -> 9090 (vLLM serves /metrics on its API
# port; nothing in the pod names 9090).
S51 = "service-port-reaches-server"
SCRIPT = "pip install ray[client]==2.51.1 && ray start --address=vllm-head:6379 && sleep 5 && vllm serve /models/q --host 0.0.0.0 --port 8000"


def _vllm_api(script: str = SCRIPT) -> list:
    container = {
        "name": "vllm-api",
        "image": "vllm/vllm-openai:v0.11.0",
        "command": ["/bin/bash", "-c"],
        "args": [script],
        "ports": [{"containerPort": 8000}, {"containerPort": 9090}],
        "resources": {"limits": {"nvidia.com/gpu": 1}},
    }
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "vllm-api"},
        "spec": {
            "selector": {"app": "s"},
            "ports": [
                {"name": "vllm-api", "port": 8000, "targetPort": 8000},
                {"name": "vllm-metrics", "port": 9090, "targetPort": 9090},
            ],
        },
    }
    return [_deployment(container), service]


def test_a_metrics_port_nothing_names_is_advice():
    ((level, message),) = found_by(_vllm_api(), S51)
    assert level == "advisory"
    assert message.startswith("spec.ports: port 9090 targets 9090 on the pods of Deployment/s, a number no command")
    # The script names the port (an exporter started on it), or an envFrom may set one: silent.
    assert found_by(_vllm_api(SCRIPT + " & python -m exporter --port 9090"), S51) == []
    objs = _vllm_api()
    objs[0]["spec"]["template"]["spec"]["containers"][0]["envFrom"] = [{"configMapRef": {"name": "elsewhere"}}]
    assert found_by(objs, S51) == []
