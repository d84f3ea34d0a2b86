"""S65: a client's URL asks its model server for a path that server has (client-path-served, advice).

A model server answers only its own routes (components/engine_routes.toml, read per release: vLLM's OpenAI server,
vllm 0.19.1 vllm/entrypoints/*/api_router.py; Ollama, ollama/ollama@v0.32.15 server/routes.go:1877-1926; TGI,
huggingface/text-generation-inference@v3.3.7 router/src/server.rs:2200-2288; llama.cpp's server, ggml-org/llama.cpp
b8914 tools/server/server.cpp:168-224); any other path is answered 404. A client
container of the files (any pod that is not the server) whose environment holds a URL (literal or from a ConfigMap of
the files) whose host is a Service of the files in front of one such server, and whose path neither starts a route (a
base URL the client adds to: ``/v1``, ``/api``) nor continues one (``/v1/chat/completions``), sends its requests to a
path the server does not have: ``${OLLAMA}/inference`` (the class of spent set 96
simardeep1792/Knative-DAPR-GPU-K8s@02ba4190 knative/inference-service.yaml, where the path sat in the app's code),
``/v2/models/<name>/infer`` (KServe's v2 protocol) on vLLM's OpenAI server (spent set 96
sudsho/model-serving-autoscaler@adf351f8 kserve/llm-llama3.yaml's transformer, the same).

Advice: the files do not show that the client sends every request to that path (a client may take only the host).
Silent where a command-line word changes the routes (the table's ``unless``: vLLM's demo ``vllm.entrypoints.api_server``,
``--root-path``, ``--middleware``; llama.cpp's ``--api-prefix``/``--path`` or their variables), the Service fronts workloads of several engines or another container of the pod
declares a port (a proxy beside the server), the URL holds a variable, and for KServe predictors (KServe's servers add
the v2 protocol and ``/openai`` routes).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Optional

from components.engine_routes import ENGINE_ROUTES, EngineRoutes
from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, container_label, containers, get, pod_specs, split_type
from policies.reading import route_path as path
from policies.reading.engines import env_values
from policies.reading.serving import container_argv, model_servers, namespace_of
from policies.reading.urls import cluster_service

_URL = re.compile(r"^\s*https?://([^/\s?#]+)(/[^\s?#]*)?", re.IGNORECASE)
_VARIABLE = re.compile(r"[$<>{}]")

Reached = tuple[Resource, EngineRoutes]


def _server_routes(resource: Resource) -> Optional[EngineRoutes]:
    """The routes of a workload's one model server, None where the files do not show them."""
    kind = split_type(resource.type)[1]
    if kind in ("InferenceService", "ServingRuntime", "ClusterServingRuntime", "LLMInferenceService"):
        return None
    servers = model_servers(resource)
    if len(servers) != 1 or servers[0].path.endswith(".model"):
        return None
    server = servers[0]
    routes = ENGINE_ROUTES.get(server.engine)
    if routes is None:
        return None
    words = [*container_argv(server.container), *env_values(server.container)]
    if any(word in token for token in words for word in routes.unless):
        return None
    if any(c is not server.container and get(c, "ports") for c in containers(server.podspec)):
        return None  # a proxy or sidecar with its own port may be what the Service reaches
    return routes


def _hosts(resources: list[Resource]) -> dict[tuple[str, Optional[str]], Optional[Reached]]:
    selectors = path.service_selectors(resources)
    behind: dict[tuple[str, Optional[str]], list[Optional[Reached]]] = {}
    for r in resources:
        if r.type not in WORKLOAD_TYPES or not isinstance(r.props, dict) or not model_servers(r):
            continue
        routes = _server_routes(r)
        entry = (r, routes) if routes is not None else None
        for host in path.workload_services(r, selectors):
            behind.setdefault((host.lower(), namespace_of(r)), []).append(entry)
    return {
        key: (first if (first := entries[0]) is not None and all(e is not None and e[1] is first[1] for e in entries) else None)
        for key, entries in behind.items()
    }


def _reached(
    host: str, namespace: Optional[str], hosts: Mapping[tuple[str, Optional[str]], Optional[Reached]]
) -> Optional[Reached]:
    name, url_ns = cluster_service(host)
    if not name:
        return None
    want = url_ns or namespace
    found = [v for (svc, ns), v in hosts.items() if svc == name and (want is None or ns is None or ns == want)]
    return found[0] if len(found) == 1 else None


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    if not any(r.type in WORKLOAD_TYPES and isinstance(r.props, dict) and model_servers(r) for r in resources):
        return []
    hosts = _hosts(resources)
    if not any(hosts.values()):
        return []
    out: list[tuple[str, str]] = []
    for r in resources:
        if r.type not in WORKLOAD_TYPES or not isinstance(r.props, dict):
            continue
        own = {id(s.container) for s in model_servers(r)}
        namespace = namespace_of(r)
        for cpath, podspec in pod_specs(r):
            for container in containers(podspec):
                if id(container) in own:
                    continue
                for variable, value in sorted(env_values(container).items()):
                    m = _URL.match(value) if isinstance(value, str) else None
                    if m is None or not m.group(2) or _VARIABLE.search(value):
                        continue
                    reached = _reached(m.group(1), namespace, hosts)
                    if reached is None or reached[1].answers(m.group(2)):
                        continue
                    server, routes = reached
                    kind, name = split_type(server.type)[1], get(server.props, "metadata", "name")
                    out.append(
                        (
                            r.name,
                            f"{container_label(cpath, container)}: {variable}={value.strip()} reaches the {routes.engine} "
                            f"server of {kind} {name} on path {m.group(2)}, which it has no route for (its routes: "
                            f"{_sample(routes)}): every request to it is answered 404; use the server's API path",
                        )
                    )
    return out


def _sample(routes: EngineRoutes) -> str:
    shown = ["/" + "/".join(r) for r in routes.routes if r and not r[0].startswith(("is_", "reset_", "docs", "redoc", "static"))]
    return ", ".join(shown[:6]) + ", ..."


POLICY = Policy(
    name="client-path-served",
    description=(
        "A client in the files whose URL reaches a vLLM, Ollama, TGI or llama.cpp server of the files through a Service asks for "
        "a path that server has a route for (components/engine_routes.toml); another path is answered 404 (advice)."
    ),
    catalog="S65",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Point the client at the server's API path (vLLM and TGI: /v1/chat/completions, /v1/completions; Ollama: "
        "/api/generate, /api/chat or /v1/...), or put a router that serves the client's path in between."
    ),
    check_stack=_check,
    rationale=(
        "vllm 0.19.1 vllm/entrypoints/*/api_router.py (the OpenAI server's routes); ollama/ollama@v0.32.15 "
        "server/routes.go:1877-1926; huggingface/text-generation-inference@v3.3.7 router/src/server.rs:2200-2288; "
        "ggml-org/llama.cpp b8914 tools/server/server.cpp:168-224. "
        "A path with no route is answered 404 by each server's router."
    ),
)
