"""S40: the local model path a server reads is the folder its pod's loader writes.

Where a loader fills a fresh volume for the server (kthena's downloader ``--output-dir``, ``hf download --local-dir``,
llmaz's model-loader: policies/reading/downloaders.py), that volume starts empty (an emptyDir or a generic ephemeral
volume), so the only model on it is the one the loader writes. A server that reads another path on that volume finds
no config.json and exits at start, after the GPU node was bought and the download made: a copy-paste slip such as
llmaz's multi-node sample, whose SGLang reads /workspace/models/models--meta-llama--Meta-Llama-3.1-8B-Instruct while
the loader writes the claimed meta-llama/Llama-3.1-405B to /workspace/models/models--meta-llama--Llama-3.1-405B
(InftyAI/llmaz v0.1.4 pkg/controller_helper/modelsource/modelhub.go:44-64 ModelPath; the volume is an emptyDir that
only the loaders write and the server mounts read-only, modelsource.go:105-127).

Blocking when every writer of the volume is a whole-container loader (kthena's downloader image, llmaz's loader);
advice when a shell script runs the download (another command of it may move the files) or another container mounts
the volume writable. A path under a loader's folder, or a folder that holds a loader's (a parent path), is not judged.
"""

from __future__ import annotations

import posixpath
from typing import Mapping, Optional

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, containers
from policies.models.group_model_copies import group_findings
from policies.reading.downloaders import LLMAZ_MODEL_DIR, LLMAZ_TOOL, Fetch, fetches
from policies.reading.engines import path_under, table_servers, volume_at
from policies.reading.vllm_args import served_model, vllm_servers

_FRESH = ("emptyDir", "ephemeral")


def _mount_of(container: Mapping, volume: str) -> Optional[str]:
    for mount in as_list(container.get("volumeMounts")):
        if as_dict(mount).get("name") == volume and isinstance(as_dict(mount).get("mountPath"), str):
            return str(mount["mountPath"])
    return None


def _root(fetch: Fetch) -> Optional[tuple[str, str]]:
    """(volume name, its mount path in the loader) of the fresh volume a loader writes, or None."""
    if fetch.tool == LLMAZ_TOOL:
        return "model-volume", LLMAZ_MODEL_DIR
    if not fetch.into:
        return None
    volume = volume_at(fetch.podspec, fetch.container, fetch.into)
    if volume is None or not any(kind in volume for kind in _FRESH):
        return None
    name = volume.get("name")
    mount = _mount_of(fetch.container, name) if isinstance(name, str) else None
    return (name, mount) if isinstance(name, str) and mount else None


def _servers(resource: Resource) -> list[tuple[str, dict, dict, str]]:
    """(label, podspec, container, local model path) of every server that reads a local path."""
    found = []
    for server in vllm_servers(resource):
        model = served_model(server)
        if not server.runtime_merged and isinstance(model, str) and model.startswith("/"):
            found.append((server.label, server.podspec, server.container, model))
    for engine in table_servers(resource):
        if isinstance(engine.model, str) and engine.model.startswith("/"):
            found.append((engine.label, engine.podspec, engine.container, engine.model))
    return found


def _finding(resource: Resource, label: str, podspec: dict, container: dict, path: str) -> Optional[str]:
    loaders = [(f, _root(f)) for f in fetches(resource) if f.podspec is podspec]
    # The loaders' (volume, folder) pairs in the order the pod lists them (dict.fromkeys, not a set: a set of strings
    # iterates in an order that changes between runs, and the first volume that matches gives the message).
    for volume, _ in dict.fromkeys(root for _, root in loaders if root is not None):
        mine = [(f, root) for f, root in loaders if root is not None and root[0] == volume]
        server_mount = LLMAZ_MODEL_DIR if mine[0][0].tool == LLMAZ_TOOL else _mount_of(container, volume)
        if server_mount is None or not path_under(path, server_mount):
            continue
        # The folders the loaders write, as the server sees them.
        folders = [posixpath.join(server_mount, posixpath.relpath(f.into or root[1], root[1])) for f, root in mine]
        if any(path_under(path, folder) or path_under(folder, path) for folder in folders):
            return None
        message = (
            f"{label}: reads the model from {path}, but the volume {volume} starts empty and its loader writes only "
            f"{', '.join(sorted(set(folders)))} ({', '.join(sorted({f.source for f, _ in mine}))}), so the server finds "
            f"no model there and exits at start; point the server at the folder the loader writes, or the loader at "
            f"the model the server serves"
        )
        whole = all(f.tool == LLMAZ_TOOL or not f.container.get("command") for f, _ in mine)
        writers = [
            c
            for c in containers(podspec, init=True)
            if c is not container
            and not any(c is f.container for f, _ in mine)
            and any(as_dict(m).get("name") == volume and not as_dict(m).get("readOnly") for m in as_list(c.get("volumeMounts")))
        ]
        return message if whole and not writers else unproven(message)
    return None


def _check(resource: Resource, config: dict) -> list[str]:
    messages = []
    for label, podspec, container, path in _servers(resource):
        if (message := _finding(resource, label, podspec, container, path)) is not None:
            messages.append(message)
    return messages + group_findings(resource)


POLICY = Policy(
    name="model-path-downloaded",
    description=(
        "The local model path a server reads is the folder its pod's loader writes (kthena's downloader, hf download "
        "--local-dir, llmaz's model-loader), where that loader fills a volume that starts empty."
    ),
    rationale=(
        "An emptyDir (or generic ephemeral volume) holds only what the pod writes: a server pointed at another folder "
        "of it finds no config.json and exits at start, after the node, the image pull and the download "
        "(llmaz v0.1.4 modelhub.go:44-64 names the folder its loader writes)."
    ),
    catalog="S40",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Make the server's model path the loader's output folder (kthena --output-dir, hf download --local-dir, "
        "llmaz's /workspace/models/models--<org>--<name>), or claim the model the server serves."
    ),
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    operator_fills="",
)
