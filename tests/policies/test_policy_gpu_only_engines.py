"""G13 gpu-engine-has-gpu-limit on engines the table marks GPU-only (components/serving_engines.toml ``needs_gpu``,
``gpu_only_images``: NVIDIA NIM, TensorRT-LLM), so a new GPU-only engine is a row.

Fixtures:

- spent set 33 funtastic1234/SkyGuardian k8s/nim.yaml@e620a00fa0b399c767a73eef6537c40a943cd7f8: embedding-nim
  (nvcr.io/nim/nvidia/nv-embedqa-e5-v5:1.0.0, no GPU limit, no toleration, no node selection: labelled G13 blocking)
  and nemotron-8b-reasoning (no GPU limit, tolerates nvidia.com/gpu and selects node-type=gpu-inference: labelled G13
  advisory);
- careful: MohammadB88/rag-anythingllm model_nvidia_nim/llama3-2-1b_all_resources.yaml@5200b50 (nvidia.com/gpu 1).
"""

from __future__ import annotations

import copy

from policy_fixtures import found_by

G13 = "gpu-engine-has-gpu-limit"


def _deployment(name: str, container: dict, **pod: object) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "skyguardian"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [container], **pod}},
        },
    }


EMBEDDING = _deployment(
    "embedding-nim",
    {"name": "embedding-nim", "image": "nvcr.io/nim/nvidia/nv-embedqa-e5-v5:1.0.0", "ports": [{"containerPort": 8000}]},
)
NEMOTRON = _deployment(
    "nemotron-8b-reasoning",
    {
        "name": "nemotron-nim",
        "image": "nvcr.io/nim/meta/llama-3.1-nemotron-nano-8b-instruct:1.0.0",
        "env": [{"name": "NGC_API_KEY", "valueFrom": {"secretKeyRef": {"name": "ngc-secret", "key": "api-key"}}}],
        "ports": [{"containerPort": 8000}],
    },
    nodeSelector={"node-type": "gpu-inference"},
    tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
)
# MohammadB88/rag-anythingllm model_nvidia_nim/llama3-2-1b_all_resources.yaml@5200b50 (cut down).
CAREFUL = _deployment(
    "llama3-2-1b-instruct",
    {
        "name": "llama3-2-1b-instruct",
        "image": "nvcr.io/nim/meta/llama-3.2-1b-instruct:1.12.0",
        "env": [{"name": "NGC_API_KEY", "valueFrom": {"secretKeyRef": {"name": "ngc-api-key", "key": "api-key"}}}],
        "volumeMounts": [{"name": "cache", "mountPath": "/opt/nim/.cache"}],
        "resources": {"limits": {"cpu": "8", "memory": "24Gi", "nvidia.com/gpu": "1"}, "requests": {"cpu": "6"}},
    },
    volumes=[{"name": "cache", "persistentVolumeClaim": {"claimName": "llama3-2-1b-nim-cache"}}],
    tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
)


def _container(manifest: dict) -> dict:
    return manifest["spec"]["template"]["spec"]["containers"][0]


def test_a_nim_with_no_gpu_limit_and_no_gpu_nodes_cannot_start():
    assert found_by([EMBEDDING], G13) == [
        (
            "mandatory",
            "container embedding-nim: image nvcr.io/nim/nvidia/nv-embedqa-e5-v5:1.0.0 is NVIDIA NIM, which serves only "
            "on an NVIDIA GPU, but the container has no nvidia.com/gpu limit and nothing points the pod at GPU nodes, so "
            "the scheduler may place it on a node without a GPU, where it cannot start (or on a GPU node, using a device "
            "nobody allocated to it); set resources.limits nvidia.com/gpu to the GPUs the model needs, with the GPU "
            "pool's toleration and node selection",
        )
    ]


def test_a_nim_that_points_at_gpu_nodes_without_a_limit_is_advice():
    [(level, message)] = found_by([NEMOTRON], G13)
    assert level == "advisory"
    assert message.startswith(
        "container nemotron-nim: runs NVIDIA NIM, which serves only on an NVIDIA GPU, with no nvidia.com/gpu limit; it "
        "selects nodes by node-type=gpu-inference"
    )


def test_trtllm_serve_on_its_release_image_needs_a_gpu_and_a_private_copy_is_advice():
    container = {
        "name": "trtllm",
        "image": "nvcr.io/nvidia/tensorrt-llm/release:0.20.0",
        "command": ["trtllm-serve"],
        "args": ["Qwen/Qwen2.5-7B-Instruct", "--host", "0.0.0.0", "--port", "8000"],
    }
    [(level, _)] = found_by([_deployment("trtllm", container)], G13)
    assert level == "mandatory"
    private = copy.deepcopy(container)
    private["image"] = "registry.example.com/serving/trtllm:0.20.0"
    [(level, message)] = found_by([_deployment("trtllm", private)], G13)
    assert level == "advisory" and "runs TensorRT-LLM (trtllm-serve), which serves only on an NVIDIA GPU" in message


def test_a_nim_holding_a_gpu_or_another_device_source_is_silent():
    assert found_by([CAREFUL], G13) == []
    runtime = copy.deepcopy(EMBEDDING)
    runtime["spec"]["template"]["spec"]["runtimeClassName"] = "nvidia"
    # NVIDIA's runtime alone hands over the node's GPUs but sends the pod to no GPU node: advice (fresh set 54) ...
    assert [level for level, _ in found_by([runtime], G13)] == ["advisory"]
    # ... and with the pod sent to GPU nodes, a deliberate sharing: silent.
    runtime["spec"]["template"]["spec"]["nodeSelector"] = {"nvidia.com/gpu.present": "true"}
    assert found_by([runtime], G13) == []
    requested = copy.deepcopy(EMBEDDING)
    _container(requested)["resources"] = {"requests": {"nvidia.com/gpu": 1}}  # gpu-request-equals-limit's finding
    assert found_by([requested], G13) == []


def test_an_engine_the_table_does_not_mark_gpu_only_is_not_judged():
    # Triton serves CPU models too (its -cpu-only images, a model repository of ONNX or Python models).
    container = {"name": "triton", "image": "nvcr.io/nvidia/tritonserver:24.12-py3", "command": ["tritonserver"]}
    assert found_by([_deployment("triton", container)], G13) == []


def test_a_utility_run_in_the_engine_image_is_not_the_server():
    # Review 41 item 14. TensorRT-LLM's checkpoint converters (examples/models/core/*/convert_checkpoint.py, which take
    # --load_model_on_cpu) and NIM's `download-to-cache --profile <id>` utility (NIM LLM docs "Utilities": "Downloads
    # selected or default model profile(s) to NIM cache") run in the engine's image but are not its server: advice.
    convert = {
        "name": "convert",
        "image": "nvcr.io/nvidia/tensorrt-llm/release:1.2.0",
        "command": ["python3", "/app/tensorrt_llm/examples/models/core/qwen/convert_checkpoint.py"],
        "args": ["--model_dir", "/models/qwen", "--output_dir", "/models/ckpt"],
    }
    cache = {"name": "cache", "image": "nvcr.io/nim/meta/llama-3.1-8b-instruct:1.3.3", "command": ["download-to-cache"]}
    for container in (convert, cache):
        [(level, _)] = found_by([_deployment(container["name"], container)], G13)
        assert level == "advisory", container
    # The server started from a shell script, or the image's own entrypoint given args, still blocks.
    script = {
        "name": "trtllm",
        "image": "nvcr.io/nvidia/tensorrt-llm/release:1.2.0",
        "command": ["/bin/bash", "-c"],
        "args": ["pip list && trtllm-serve Qwen/Qwen2.5-7B-Instruct --host 0.0.0.0 --port 8000"],
    }
    entry = {"name": "nim", "image": "nvcr.io/nim/meta/llama-3.1-8b-instruct:1.3.3", "args": ["--help"]}
    for container in (script, entry):
        [(level, _)] = found_by([_deployment(container["name"], container)], G13)
        assert level == "mandatory", container


def test_args_alone_replace_the_images_command():
    # Review 41 item 24: NIM's ENTRYPOINT is NVIDIA's wrapper and the server is the CMD, which `args` replaces, so
    # `args: [download-to-cache, --profile, <id>]` runs the utility (advice); `args: [trtllm-serve, ...]` the server.
    cache = {
        "name": "cache",
        "image": "nvcr.io/nim/meta/llama-3.1-8b-instruct:1.3.3",
        "args": ["download-to-cache", "--profile", "abc"],
    }
    [(level, _)] = found_by([_deployment("nim-cache", cache)], G13)
    assert level == "advisory"
    serve = {
        "name": "trtllm",
        "image": "nvcr.io/nvidia/tensorrt-llm/release:1.2.0",
        "args": ["trtllm-serve", "Qwen/Qwen2.5-7B-Instruct", "--port", "8000"],
    }
    [(level, _)] = found_by([_deployment("trtllm", serve)], G13)
    assert level == "mandatory"


def test_a_nim_pulled_through_a_mirror_is_still_nim():
    """A pull-through cache keeps the repository path and changes the host (Harbor's proxy projects,
    harbor.example/<project>/<path>; ECR's <account>.dkr.ecr.<region>.amazonaws.com/<prefix>/<path>): the image is the
    same NIM build, so the finding stays (components.images.names_image; tools/form_variants.py mirror-registry)."""
    for host in ("harbor.corp.example/nvcr-proxy", "123456789012.dkr.ecr.us-east-1.amazonaws.com/ngc"):
        mirrored = copy.deepcopy(EMBEDDING)
        _container(mirrored)["image"] = f"{host}/nim/nvidia/nv-embedqa-e5-v5:1.0.0"
        # Through a mirror the block needs the NIM's own settings beside the path (review 45 #21): its NGC key here.
        _container(mirrored)["env"] = [{"name": "NGC_API_KEY", "valueFrom": {"secretKeyRef": {"name": "n", "key": "k"}}}]
        [(level, message)] = found_by([mirrored], G13)
        assert level == "mandatory" and f"image {host}/nim/nvidia/nv-embedqa-e5-v5:1.0.0 is NVIDIA NIM" in message
        _container(mirrored).pop("env")
        assert [lv for lv, _ in found_by([mirrored], G13)] == ["advisory"]


def test_a_docker_hub_account_named_nim_is_not_nim():
    # docker.io/nim/... and an image whose path merely starts like one (nimble) are no NVIDIA registry path.
    for image in ("nim/nv-embedqa-e5-v5:1.0.0", "harbor.corp.example/acme/nimble-server:1.0"):
        other = copy.deepcopy(EMBEDDING)
        _container(other)["image"] = image
        assert found_by([other], G13) == []


def test_a_nim_path_segment_under_another_publisher_is_not_nim():
    # Review 45 #13 (/tmp/review45/m/nim): a CPU web UI whose repository merely holds a `nim` segment is no NVIDIA NIM:
    # a mirror keeps NIM's whole path at its end (nim/<team>/<image>), this one is <owner>/nim/<image>. Silent; the
    # mirrored NIM (test above) and NIM's own registry still block.
    for image in ("ghcr.io/acme-labs/nim/chat-ui:1.2.0", "harbor.corp.example/nim/chat-ui:1.2.0"):
        other = copy.deepcopy(EMBEDDING)
        _container(other)["image"] = image
        assert found_by([other], G13) == [], image


def test_a_nested_nim_project_in_another_registry_is_advice_at_most():
    # Review 45 #21 (/tmp/review45/m/nim2): a GitLab group project `nim` with image frontend/chat-ui has NIM's path shape
    # (nim/<team>/<image>) but nothing of NIM in the pod (no NGC_API_KEY, NIM_* variable or /opt/nim/.cache): no block.
    other = copy.deepcopy(EMBEDDING)
    _container(other)["image"] = "registry.gitlab.com/acme-labs/nim/frontend/chat-ui:1.2.0"
    assert "mandatory" not in [lv for lv, _ in found_by([other], G13)]
