"""Models a server's image fetches at start by its own script, shown only by the container's environment.

Some images wrap the server in a start script that copies the model from object storage to a local path before
starting it: the manifest then shows a local model path (``LLAMA_ARG_MODEL=/mnt/models/l3.1-8B-F16.gguf``,
``--model /models/...``) beside the store's coordinates and credentials (``S3_BUCKET``, ``MODEL_KEY``,
``AWS_ACCESS_KEY_ID``, ``AWS_ENDPOINT_URL``, ``GCS_BUCKET``, ``AZURE_STORAGE_...``, ``MODEL_URL``), and no volume at
that path. The copy then lands in the container's writable layer, on the node's disk (held-out set 3,
nebius/ml-cookbook knative-llamacpp/llamacpp.yml: a 16 GB GGUF from S3). A GPU container of its image's own
entrypoint that mounts no volume at all, whose environment names a checkpoint file by its weight format
(``FILE_NAME=ggml-model-f16.gguf``) beside the store's credentials, fetches it into its own layer too, wherever the
script puts it (spent set 87 brianlechthaler/llama-k8s generator/generator-a100-deployment.yaml). The script is not
in the files, so S19 reports such a download as advice.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any, Optional

from policies.kube import as_dict, as_list, container_label, containers, pod_specs, requests_gpu
from policies.reading.container_env import env_values
from policies.reading.engines import Download, lands_on_ephemeral_storage, table_servers
from policies.reading.vllm_args import served_model, vllm_servers

# Variables that name an object store's bucket, key, endpoint or credentials, or a model URL.
_STORE_ENV = re.compile(
    r"^(S3_\w+|\w*_S3_BUCKET|AWS_ACCESS_KEY_ID|AWS_ENDPOINT_URL\w*|GCS_\w+|GOOGLE_APPLICATION_CREDENTIALS|"
    r"AZURE_STORAGE_\w+|MODEL_(URL|URI|BUCKET|KEY|S3_\w+|OBJECT\w*)|\w*BUCKET(_NAME)?)$"
)


def _store_variable(container: dict) -> Optional[str]:
    """The first variable of the container's environment (its env, and a ConfigMap of the files it reads) that names
    an object store."""
    names = [as_dict(item).get("name") for item in as_list(container.get("env"))] + list(env_values(container))
    return next((n for n in names if isinstance(n, str) and _STORE_ENV.match(n)), None)


# Variables that name the local model path an image's start script serves (its copy's destination).
_MODEL_PATH_ENV = re.compile(r"^(MODEL_(PATH|DIR|DIRECTORY|NAME_OR_PATH)|LOCAL_MODEL_(PATH|DIR))$")


def _env_model_path(container: dict) -> Optional[str]:
    for name, value in env_values(container).items():
        if _MODEL_PATH_ENV.match(name) and value.startswith("/"):
            return value
    return None


# A variable's value that names a checkpoint file by its weight format (FILE_NAME=ggml-model-f16.gguf): the file the
# start script fetches, its folder unknown.
_WEIGHT_FILE = re.compile(r"^[\w./-]+\.(gguf|ggml|safetensors)$", re.IGNORECASE)


def _env_model_file(container: dict) -> Optional[str]:
    """A checkpoint file (by its weight format) a variable of the container's environment names, or None."""
    return next((v for v in env_values(container).values() if _WEIGHT_FILE.match(v.strip())), None)


def _no_volume(container: dict) -> bool:
    """True when the container mounts nothing: whatever its script writes lands in its own writable layer."""
    return not as_list(container.get("volumeMounts"))


def _gpu_wrapped_servers(resource: Any, known: set[int]) -> list[tuple[str, dict, dict, Optional[str]]]:
    """GPU containers no engine reader names, run by their image's own entrypoint (no command), whose environment
    names a local model path (MODEL_PATH=/models/...): a server image built around a start script (spent set 16
    Shivakumar980/QLora-vLLM-EKS-Deployment-NVIDIA-GPUs EKS-MANIFESTS/vllm-deployment.yaml@c8a9cb8, image
    llama-vllm:latest, MODEL_PATH /models/llama-2-7b-merged-vllm beside S3_BUCKET and S3_PREFIX, no volume)."""
    out: list[tuple[str, dict, dict, Optional[str]]] = []
    for path, podspec in pod_specs(resource):
        if not requests_gpu(podspec):
            continue
        for container in containers(podspec):
            if id(container) in known or container.get("command"):
                continue
            model = _env_model_path(container)
            if model is None and _no_volume(container):
                # A checkpoint file named beside the store (spent set 87 brianlechthaler/llama-k8s
                # generator/generator-a100-deployment.yaml: FILE_NAME ggml-model-f16.gguf, AWS keys, no volume).
                model = _env_model_file(container)
            if model is not None:
                out.append((container_label(path, container), podspec, container, model))
    return out


def image_fetches(resource: Any) -> list[Download]:
    """Every model server whose model is a local path on the node's ephemeral storage (its writable layer, or an
    emptyDir without a sizeLimit) while its environment names an object store: its image fetches the model there."""
    servers = [(s.label, s.podspec, s.container, served_model(s)) for s in vllm_servers(resource)]
    servers += [(e.label, e.podspec, e.container, e.model) for e in table_servers(resource)]
    servers += _gpu_wrapped_servers(resource, {id(c) for _, _, c, _ in servers})
    found = []
    for label, podspec, container, model in servers:
        if not isinstance(model, str):
            continue
        layer = not model.startswith("/") and _WEIGHT_FILE.match(model) is not None and _no_volume(container)
        if not model.startswith("/") and not layer:
            continue
        variable = _store_variable(container)
        if variable is None or not (layer or lands_on_ephemeral_storage(podspec, container, model)):
            continue
        folder = "its own writable layer (it mounts no volume)" if layer else posixpath.dirname(model.rstrip("/")) or "/"
        why = f"the image's own start script fetches it, as its environment ({variable}) says; the script is not in the files"
        found.append(Download(label, model, podspec, container, folder, "object storage", True, why))
    return found
