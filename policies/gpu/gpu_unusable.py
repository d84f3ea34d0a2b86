"""G102: a GPU held by a container that cannot use it: a CPU build of an engine, or an app that only calls a model server
over HTTP (advice).

A GPU the scheduler hands a container (an ``nvidia.com/gpu`` or ``amd.com/gpu`` limit or request) is that pod's alone
until it ends (https://kubernetes.io/docs/tasks/manage-gpus/scheduling-gpus/: GPUs are not shared between containers),
so a container that cannot run anything on it keeps a whole device idle per replica, and keeps its pod Pending where
no GPU is free. Two forms, both read in every pod template the pack reads (policies/kube.py pod_specs: core workloads,
Knative Services, LeaderWorkerSets, KServe and operator resources, Flux/Argo chart releases):

* the image is a publisher's CPU build (components/device_fit.toml [cpu_builds]: vLLM's CPU image
  vllm/vllm-openai-cpu and its ECR release repository, TEI's cpu- tags, TGI's -intel-cpu tags, llama.cpp's server/full/
  light tags, LocalAI's -cpu tags), or an image that names itself one (the word cpu in its repository's last segment
  or its tag: quay.io/.../vllm-cpu-only). Such a build carries no CUDA: spent set 96 nextvirus/fake-gpu@e92e0648
  deploy/k8s/vllm-cpu-run.yaml, vllm/vllm-openai-cpu:v0.19.1 with nvidia.com/gpu: 1 (labelled none, advisory);
* the container runs a proxy of the model API (components/serving_apps.toml rows named in device_fit.toml
  [model_clients] gateway_apps: LiteLLM's proxy, vLLM's production-stack router, AIBrix's gateway plugins);
* the container runs no engine (policies/reading/serving.py model_server_engine finds none), its image's words name
  nothing that runs a model (device_fit.toml [model_clients] model_words: an engine, ComfyUI, a torch/CUDA base, a
  notebook, a trainer), it sets no variable of a local model (a Hugging Face or torch cache, CUDA_VISIBLE_DEVICES, a
  model path) and mounts no model or cache folder, and its environment (literal or from a ConfigMap of the files:
  policies/reading/container_env.py) addresses a model server over HTTP (a URL or host:port in a variable whose name,
  or whose host, is a model server's word: COMFYUI_URL, OLLAMA_HOST). Spent set 93 dios07022004-coder/ai-generation-api
  @a04e7cf3 k8s/worker-deployment.yaml (a Celery worker posting to ComfyUI, COMFYUI_URL from ConfigMap app-config) and
  set 96 simardeep1792/Knative-DAPR-GPU-K8s@02ba4190 knative/inference-service.yaml (a Flask proxy to Ollama), both
  labelled none, advisory.

Advice: a private image may still run a model the files do not show. Silent for a container that runs an engine on a
GPU build, a CPU image holding no GPU, and an app whose image embeds a model (ComfyUI itself, a torch worker).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from components.device_fit import MODEL_CLIENTS, cpu_build, names_itself_cpu, repository_words
from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, as_quantity, container_label, containers, is_ray, pod_specs
from policies.reading.container_env import env_values
from policies.reading.gateway_apps import app_of
from policies.reading.serving import container_argv, model_server_engine

_GPUS = ("nvidia.com/gpu", "amd.com/gpu")
_LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "0.0.0.0", "::", "[::]", "::1", "[::1]"})
_URL = re.compile(r"^\s*(?:https?|grpc|ws)://([^/:?#\s]+)", re.IGNORECASE)
_HOST_PORT = re.compile(r"^\s*([a-z0-9][-a-z0-9.]*):\d{1,5}(?:/\S*)?\s*$", re.IGNORECASE)
# A URL of a file to download (a model's weights, a Hub page), not a server to call.
_FILE_HOSTS = ("huggingface.co", "hf.co", "github.com", "githubusercontent.com", "amazonaws.com", "ollama.com")
_WEIGHT_FILE = re.compile(r"\.(?:gguf|safetensors|bin|pt|pth|onnx|ckpt|tar|gz|zip)(?:[?#]|$)", re.IGNORECASE)
_MOUNT_WORDS = ("model", "huggingface", "/.cache", "ollama", "comfy", "checkpoint", "weights")
_NAME_SPLIT = re.compile(r"[_\-.]+")
_FILL_IN = "(a fill-in)"
# Last words of a variable name that holds an address (OLLAMA_HOST, COMFYUI_URL, OPENAI_API_BASE).
_ADDRESS_WORDS = frozenset({"url", "host", "endpoint", "addr", "address", "base", "uri", "server"})


def _held(container: Mapping) -> tuple[str, str] | None:
    """(resource, amount) of the first GPU the container holds (a limit, else a request, above 0), or None."""
    resources = as_dict(container.get("resources"))
    for section in ("limits", "requests"):
        for name, value in as_dict(resources.get(section)).items():
            gpu = name in _GPUS or (isinstance(name, str) and name.startswith("nvidia.com/mig-"))
            if gpu and (as_quantity(value) or 0) > 0:
                return str(name), str(value)
    return None


def _server_address(name: str, value: str) -> str | None:
    """The host a variable addresses as a model server: a URL's or host:port's host, not the pod's own address nor a
    file to download, when the variable's name or the host's first label holds a model server's word."""
    match = _URL.match(value) or _HOST_PORT.match(value)
    if match is None:
        return None
    host = match.group(1).lower()
    if host in _LOCAL_HOSTS or host.endswith(_FILE_HOSTS) or _WEIGHT_FILE.search(value.strip()):
        return None
    words = set(_NAME_SPLIT.split(name.lower())) | set(_NAME_SPLIT.split(host.split(".", 1)[0]))
    return host if words & MODEL_CLIENTS.server_words else None


def _runs_a_model(container: Mapping, env: Mapping[str, str]) -> bool:
    """True when the container shows it may run a model itself: its image's or its own name's words, its program,
    a variable of a local model, or a mount of a model or cache folder."""
    image = container.get("image")
    words = repository_words(image) if isinstance(image, str) else set()
    name = container.get("name")
    if isinstance(name, str):
        words |= set(_NAME_SPLIT.split(name.lower()))
    argv = container_argv(container)
    if argv:
        words |= set(_NAME_SPLIT.split(str(argv[0]).rsplit("/", 1)[-1].lower()))
        if "-m" in argv[:-1]:
            words |= set(_NAME_SPLIT.split(str(argv[argv.index("-m") + 1]).lower()))
    if words & MODEL_CLIENTS.model_words:
        return True
    if any(n in MODEL_CLIENTS.local_model_env for n in env):
        return True
    named = {e.get("name") for e in (as_dict(x) for x in as_list(container.get("env"))) if isinstance(e.get("name"), str)}
    if named & MODEL_CLIENTS.local_model_env:
        return True  # (a variable from a Secret or a field: its name is enough)
    mounts = [str(as_dict(m).get("mountPath", "")).lower() for m in as_list(container.get("volumeMounts"))]
    return any(w in m for m in mounts for w in _MOUNT_WORDS)


def _client_of(container: Mapping) -> tuple[str, str] | None:
    """(variable, value) of the model server an app that runs no model calls over HTTP, or None."""
    env = env_values(container)
    if _runs_a_model(container, env):
        return None
    for name, value in env.items():
        if isinstance(value, str) and _server_address(name, value) is not None:
            return name, value
    for e in (as_dict(x) for x in as_list(container.get("env"))):
        # A value the file leaves a fill-in (http://ollama.<your-ip>.nip.io reads as unknown: S27 reports it) in a
        # variable whose name says it is a model server's address.
        variable, written = e.get("name"), e.get("value")
        if isinstance(variable, str) and written is not None and not isinstance(written, (str, int, float, bool, dict, list)):
            words = _NAME_SPLIT.split(variable.lower())
            if words[-1] in _ADDRESS_WORDS and set(words) & MODEL_CLIENTS.server_words:
                return variable, _FILL_IN
    return None


def _judge(label: str, container: dict, gpu: tuple[str, str]) -> str | None:
    resource, amount = gpu
    image = container.get("image")
    held = f"holds {resource}: {amount}"
    build = cpu_build(image)
    if build is not None:
        return unproven(
            f"{label}: image {image} is {build.display}, a build with no CUDA, yet the container {held}: the GPU sits "
            f"idle on every replica (and the pod waits for a free one); drop the GPU request, or use the engine's GPU "
            f"image if the model should run on the GPU"
        )
    if names_itself_cpu(image):
        return unproven(
            f"{label}: image {image} names itself a CPU build, yet the container {held}: a CPU build runs nothing on "
            f"the GPU, which sits idle on every replica; drop the GPU request, or use a GPU build of the image"
        )
    if model_server_engine(container) is not None:
        return None
    app = app_of(container)
    if app is not None and app.name in MODEL_CLIENTS.gateway_apps:
        return unproven(
            f"{label}: runs {app.display} (image {image}), a proxy of the model API that forwards requests to model "
            f"servers and runs no model itself, yet the container {held}: the GPU sits idle on every replica (and the "
            f"pod waits for a free one); drop the GPU request and give it to the model servers"
        )
    client = _client_of(container)
    if client is None:
        return None
    name, value = client
    env = f"{name} (an address left a fill-in)" if value == _FILL_IN else f"{name}={value}"
    return unproven(
        f"{label}: {held} but runs no model server and no model of its own that the files show (image {image}); its "
        f"env {env} calls a model server over HTTP, which does the GPU work: the GPU sits idle on every "
        f"replica (and the pod waits for a free one); drop the GPU request (or give it to the model server) unless "
        f"this image runs a model itself"
    )


def _check(resource: Resource, config: dict) -> list[str]:
    if is_ray(resource.type):
        return []  # a Ray worker's GPU is Ray's to give to tasks and actors
    found = []
    for path, podspec in pod_specs(resource):
        for container in containers(podspec, init=True, model=True):
            gpu = _held(container)
            if gpu is None:
                continue
            message = _judge(container_label(path, container), container, gpu)
            if message is not None:
                found.append(message)
    return found


POLICY = Policy(
    name="gpu-container-can-use-it",
    description=(
        "A container that holds a GPU can use it: not a CPU build of an engine (vLLM's CPU image, TEI cpu- tags, "
        "llama.cpp server, LocalAI -cpu), nor an app that runs no model and only calls a model server over HTTP "
        "(advice)."
    ),
    catalog="G102",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Drop the nvidia.com/gpu request from a container that runs nothing on the GPU (a CPU build, an HTTP client of "
        "a model server), or switch to the engine's GPU image when the model should run on the GPU."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "A GPU the device plugin allocates belongs to one container until it ends "
        "(https://kubernetes.io/docs/tasks/manage-gpus/scheduling-gpus/); a CPU build has no CUDA to run on it "
        "(components/device_fit.toml [cpu_builds], each read at the publisher's release), and an app that only calls "
        "a model server over HTTP leaves it idle."
    ),
)
