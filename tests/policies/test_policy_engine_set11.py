"""Set 11 (spent) causes in the engine rows: each with the third-party form that fires (a minimal hand-written shape
of the cited file, not a copy) and a careful form that stays silent or only advises."""

from __future__ import annotations

import yaml
from policy_fixtures import RAISED
from policy_fixtures import found_by as _pack_found_by


def found_by(objs: list[dict], policy: str, config: dict | None = None) -> list[tuple[str, str]]:
    """The pack's findings with the advisory hygiene rows raised (policy_fixtures.RAISED), so this file's
    proven-blocks / unproven-advises pairs stay told apart."""
    return _pack_found_by(objs, policy, RAISED if config is None else config)


def deployment(name: str, container: dict, labels: dict | None = None) -> dict:
    labels = labels or {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "llm"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": labels},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [container]}},
        },
    }


def _rhaiis(env: list[dict], args: list[str] | None = None) -> dict:
    # redhat-ai-americas/kserve-workshop configs/samples/rhaiis-deploy/deployment-granite.yaml at
    # aa604f9c15dac688b54430e91e35185781820007 (set 11): Red Hat AI Inference Server (vLLM) with VLLM_SERVER_DEV_MODE=1.
    return {
        "name": "vllm",
        "image": "registry.redhat.io/rhaiis/vllm-cuda-rhel9@sha256:" + "e" * 64,
        "command": ["python", "-m", "vllm.entrypoints.openai.api_server"],
        "args": ["--model", "/models/granite", "--port", "8000", *(args or [])],
        "env": env,
        "resources": {"limits": {"nvidia.com/gpu": "1"}},
    }


DEV_MODE = [{"name": "VLLM_SERVER_DEV_MODE", "value": "1"}]


def _dev_mode_findings(manifest: dict) -> list[tuple[str, str]]:
    return [f for f in found_by([manifest], "debug-switches-off") if "VLLM_SERVER_DEV_MODE" in f[1]]


def test_vllm_dev_mode_blocks_in_a_serving_pod():
    ((level, message),) = _dev_mode_findings(deployment("granite-rhaiis", _rhaiis(DEV_MODE)))
    assert level == "mandatory"
    assert "/sleep, /wake_up, /reset_prefix_cache, /collective_rpc" in message


def test_vllm_dev_mode_off_or_driven_by_a_platform_is_not_blocking():
    assert _dev_mode_findings(deployment("granite", _rhaiis([{"name": "VLLM_SERVER_DEV_MODE", "value": "0"}]))) == []
    # Sleep mode is only reachable through the dev endpoints (AIBrix's runtime sets both:
    # vllm-project/aibrix python/aibrix/aibrix/runtime/model_runtime.py:643-646 at e3e10f9e4aebe9aac5e7d992fb87d2648e01628b).
    sleeping = deployment("granite", _rhaiis(DEV_MODE, ["--enable-sleep-mode"]))
    assert [level for level, _ in _dev_mode_findings(sleeping)] == ["advisory"]
    # vllm-project/aibrix samples/disaggregation/vllm/1p1d.yaml (corpus manifests-v2): AIBrix's pods, labelled
    # model.aibrix.ai/*, set it for the platform.
    aibrix = deployment("qwen3", _rhaiis(DEV_MODE), labels={"model.aibrix.ai/name": "qwen3-8B"})
    assert [level for level, _ in _dev_mode_findings(aibrix)] == ["advisory"]


def _sglang(args: list[str], gpu: str = "nvidia.com/gpu") -> dict:
    # elotl/skyray deploy-scripts/lws.yaml at 8da06aa38aee6619b3500235a281ce51b7917226 (set 11): SGLang v0.5.12 with
    # --disable-cuda-graph, --attention-backend triton and --sampling-backend pytorch.
    return {
        "name": "sglang-leader",
        "image": "lmsysorg/sglang:v0.5.12",
        "command": ["python3", "-m", "sglang.launch_server", "--model-path", "microsoft/Phi-3-mini-4k-instruct", *args],
        "resources": {"limits": {gpu: "1"}},
    }


FALLBACKS = ["--disable-cuda-graph", "--attention-backend", "triton", "--sampling-backend", "pytorch"]


def _fallback_findings(manifest: dict) -> list[tuple[str, str]]:
    return [f for f in found_by([manifest], "debug-switches-off") if "fallback kernels" in f[1]]


def test_sglang_fallback_kernels_are_advice():
    ((level, message),) = _fallback_findings(deployment("sglang", _sglang(FALLBACKS)))
    assert level == "advisory"
    assert "--disable-cuda-graph, --attention-backend triton, --sampling-backend pytorch" in message


def test_sglang_default_kernels_or_amd_gpus_stay_silent():
    assert _fallback_findings(deployment("sglang", _sglang(["--attention-backend", "flashinfer"]))) == []
    assert _fallback_findings(deployment("sglang", _sglang(FALLBACKS, gpu="amd.com/gpu"))) == []


def _ray_service(app_args: dict, pip: list[str] | None = None, deployment_name: str = "VLLMDeployment") -> dict:
    # elotl/skyray luna-llm-serve/ray-service.llm.Phi-3-mini-4k-instruct.autoscale.yaml at
    # d3199b1ef858b1e48df46a8877b7ca5706494305 (set 11; derived from GoogleCloudPlatform/kubernetes-engine-samples
    # ai-ml/gke-ray/rayserve/llm, whose build_app passes every arg to vLLM's CLI parser, serve_chat_completion.py:102-127
    # at 2b5036514162a489145c5e5570bc320efbcb37bf): a custom app with gpu-memory-utilization "0.7" and pip vllm==0.5.4.
    serve = {
        "applications": [
            {
                "name": "llm",
                "route_prefix": "/",
                "import_path": "luna-llm-serve.llm:build_app",
                "args": app_args,
                "deployments": [{"name": deployment_name, "num_replicas": 1}],
                "runtime_env": {"pip": pip if pip is not None else ["vllm==0.5.4"]},
            }
        ]
    }
    worker = {
        "containers": [
            {"name": "llm", "image": "rayproject/ray-ml:2.33.0.914af0-py311", "resources": {"limits": {"nvidia.com/gpu": "1"}}}
        ]
    }
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayService",
        "metadata": {"name": "llm-model-serve"},
        "spec": {
            "serveConfigV2": yaml.safe_dump(serve),
            "rayClusterConfig": {
                "headGroupSpec": {
                    "template": {"spec": {"containers": [{"name": "ray-head", "image": "rayproject/ray-ml:2.33.0"}]}}
                },
                "workerGroupSpecs": [{"groupName": "gpu", "replicas": 1, "template": {"spec": worker}}],
            },
        },
    }


PHI3 = {"model": "microsoft/Phi-3-mini-4k-instruct", "tensor-parallel-size": "1"}


def test_custom_vllm_serve_app_args_are_read_as_vllm_flags():
    ((level, message),) = found_by(
        [_ray_service({**PHI3, "gpu-memory-utilization": "0.7"})], "vllm-gpu-memory-utilization-bounds"
    )
    assert level == "advisory"
    assert message.startswith("serveConfigV2 application llm args: gpu-memory-utilization=0.7")
    (level, message), *_ = found_by(
        [_ray_service({**PHI3, "gpu-memory-utilization": "0.99"})], "vllm-gpu-memory-utilization-bounds"
    )
    assert level == "mandatory" and "above the maximum 0.95" in message


def test_custom_serve_app_in_band_or_not_vllm_stays_silent():
    assert found_by([_ray_service({**PHI3, "gpu-memory-utilization": "0.9"})], "vllm-gpu-memory-utilization-bounds") == []
    # An app that runs no vLLM (no vllm in pip, deployments or import path): its args are its own.
    other = _ray_service({**PHI3, "gpu-memory-utilization": "0.5"}, pip=["transformers"], deployment_name="Chat")
    assert found_by([other], "vllm-gpu-memory-utilization-bounds") == []


def _knative_vllm(image: str, args: str) -> dict:
    # coreweave/kubernetes-cloud online-inference/vllm/02-inference-service.yaml at 0a16e3b7dfb93fa5bc17c66ac715ebadc3327af9
    # (set 11): a Knative Service running vLLM from rtalaricw/vllm:0.1 with --load-format tensorizer from S3.
    return {
        "apiVersion": "serving.knative.dev/v1",
        "kind": "Service",
        "metadata": {"name": "vllm-inference-service"},
        "spec": {
            "template": {
                "spec": {
                    "containers": [
                        {
                            "name": "kfserving-container",
                            "image": image,
                            "command": ["/bin/sh", "-c", f"python -m vllm.entrypoints.openai.api_server {args} --port 80"],
                            "resources": {"limits": {"nvidia.com/gpu": 1}},
                        }
                    ]
                }
            }
        },
    }


PYTHIA = "--model EleutherAI/pythia-70m"


def test_an_image_named_vllm_under_a_personal_account_is_advice():
    ((level, message),) = found_by([_knative_vllm("rtalaricw/vllm:0.1", PYTHIA)], "engine-image-from-publisher")
    assert level == "advisory"
    assert "rtalaricw/vllm:0.1 is vllm as the Docker Hub account rtalaricw publishes it" in message
    assert "(vllm/vllm-openai)" in message


def test_vllm_images_of_its_publishers_stay_silent():
    for image in (
        "rocm/vllm:rocm7.0.0_vllm_0.11.2_20251210",
        "vllm/vllm-openai:v0.11.0",
        "123456789012.dkr.ecr.us-east-1.amazonaws.com/team/vllm:0.1",
    ):
        assert found_by([_knative_vllm(image, PYTHIA)], "engine-image-from-publisher") == []


TENSORIZED = (
    PYTHIA + ' --model-loader-extra-config \'{"tensorizer_uri": "s3://model-store/vllm/EleutherAI/pythia-70m/vllm/'
    "model.tensors\"}' --load-format tensorizer"
)


def test_tensorized_weights_make_an_unpinned_hub_id_advice():
    # The coreweave form (set 11, cited in _knative_vllm): the weights come from the tensorizer URI, so the Hub id only
    # supplies config and tokenizer files: advice, not a block.
    ((level, message),) = found_by([_knative_vllm("vllm/vllm-openai:v0.11.0", TENSORIZED)], "model-source-pinned")
    assert level == "advisory"
    assert "the weights load from s3://model-store/vllm/EleutherAI/pythia-70m/vllm/model.tensors" in message
    # Without the tensorizer URI the Hub supplies the weights too: still blocking.
    ((level, _),) = found_by([_knative_vllm("vllm/vllm-openai:v0.11.0", PYTHIA)], "model-source-pinned")
    assert level == "mandatory"
    plain = PYTHIA + " --load-format tensorizer"
    ((level, _),) = found_by([_knative_vllm("vllm/vllm-openai:v0.11.0", plain)], "model-source-pinned")
    assert level == "mandatory"


def _ollama(container_extra: dict, script: str | None = None) -> list[dict]:
    # Pranav5255/llm-on-kube-cluster-local k8s/base/ollama.yaml at 43dc830704649fe73e9e7e9ddfa3a8e7dd7cb164 (set 11):
    # ollama/ollama runs a mounted entrypoint.sh that pulls "$MODEL", MODEL="${OLLAMA_MODEL:-phi3:mini}".
    container = {
        "name": "ollama",
        "image": "ollama/ollama:0.5.7",
        "env": [{"name": "OLLAMA_MODEL", "value": "phi3:mini"}],
        "volumeMounts": [{"name": "startup", "mountPath": "/config"}],
        **container_extra,
    }
    workload = deployment("ollama", container)
    workload["spec"]["template"]["spec"]["volumes"] = [{"name": "startup", "configMap": {"name": "ollama-startup"}}]
    found = [workload]
    if script is not None:
        found.append(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "ollama-startup", "namespace": "llm"},
                "data": {"entrypoint.sh": script},
            }
        )
    return found


ENTRYPOINT = 'ollama serve &\nMODEL="${OLLAMA_MODEL:-phi3:mini}"\nollama pull "$MODEL" || exit 1\nwait\n'


def _ollama_findings(manifests: list[dict]) -> list[tuple[str, str]]:
    return [f for f in found_by(manifests, "model-source-pinned") if "Ollama model" in f[1]]


def test_an_ollama_model_pulled_by_tag_at_start_is_advice():
    ((level, message),) = _ollama_findings(_ollama({"command": ["/bin/sh", "/config/entrypoint.sh"]}, ENTRYPOINT))
    assert level == "advisory" and "pulls the Ollama model phi3:mini by its tag" in message
    hook = {"lifecycle": {"postStart": {"exec": {"command": ["/bin/sh", "-c", "ollama run llama3.2:1b"]}}}}
    ((level, message),) = _ollama_findings(_ollama(hook))
    assert level == "advisory" and "llama3.2:1b" in message


def test_ollama_serving_what_the_volume_holds_stays_silent():
    # The mounted script only serves (no pull), and a script the container does not run is not read.
    assert _ollama_findings(_ollama({"command": ["/bin/sh", "/config/entrypoint.sh"]}, "ollama serve\n")) == []
    assert _ollama_findings(_ollama({"command": ["ollama", "serve"]}, ENTRYPOINT)) == []
