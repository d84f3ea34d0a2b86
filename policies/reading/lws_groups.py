"""LeaderWorkerSet containers no engine row recognises, presumed model servers by the generic serving rows (advice).

A LeaderWorkerSet is "an API for deploying a group of pods as a unit of replication. It aims to address common
deployment patterns of AI/ML inference workloads" (kubernetes-sigs/lws README.md), so the long-running containers of its leader and worker templates
serve a model even where the manifest shows only an in-house image started by its own entrypoint (set 12:
wewang58/llama-cpp-example lws.yaml at 8454f9b, quay.io/wewang58/llm-cpu-image running llama.cpp on CPU, with
resources {} and no probes). The generic rows held to model servers (G4 readiness, G8 requests, G10 memory limit)
judge them too, as advice: that the image serves a model is presumed, not read.
"""

from __future__ import annotations

from typing import Any

from policies.framework import unproven
from policies.kube import containers, pod_specs, split_type
from policies.reading.serving import ModelServer, container_argv, model_servers

PRESUMED = "model"
NOTE = (
    " (advisory: no engine row recognises this LeaderWorkerSet's container; a LeaderWorkerSet runs model-serving "
    "groups, so it is presumed a model server)"
)
_IDLE = ("sleep", "pause", "tail")


def presumed_servers(resource: Any) -> list[ModelServer]:
    """The main containers of a LeaderWorkerSet none of whose containers an engine row recognises."""
    if split_type(resource.type) != ("leaderworkerset.x-k8s.io", "LeaderWorkerSet") or model_servers(resource):
        return []
    found = []
    for path, podspec in pod_specs(resource):
        for container in containers(podspec):
            argv = container_argv(container)
            image = str(container.get("image") or "")
            if not image or (argv and argv[0].rsplit("/", 1)[-1] in _IDLE) or "/pause:" in f"/{image}:":
                continue
            found.append(ModelServer(path, podspec, container, PRESUMED))
    return found


def weighed_presumed(server: ModelServer, message: str) -> str:
    """A generic row's message about ``server``, advisory (and said so) when the server is only presumed."""
    return unproven(message + NOTE) if server.engine == PRESUMED else message


__all__ = ["NOTE", "PRESUMED", "presumed_servers", "weighed_presumed"]
