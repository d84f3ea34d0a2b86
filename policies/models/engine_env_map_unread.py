"""G74 on a ConfigMap a vLLM server takes its environment from: a VLLM_ key that the image's vLLM never reads.

engine-env-known (G74) judges the names of a vLLM container's own ``env`` against every VLLM_ name vLLM's wheels read
(components/engine_env_names.json settings.vllm, per release; vllm 0.34.0 vllm/envs.py:662 environment_variables), and
leaves out what an ``envFrom`` ConfigMap gives, which may be shared with clients that read the same names their own way.
A ConfigMap that only vLLM servers take as their environment is vLLM's settings file, and its key is the line to edit:
spent set 114 SecureCloudOps/llm-rag-infra-platform k8s/vllm/configmap.yaml ``VLLM_LOG_LEVEL: "info"``, taken by
k8s/vllm/deployment.yaml's ``envFrom``: vLLM reads VLLM_LOGGING_LEVEL (vllm 0.34.0 vllm/envs.py), so the level meant
never applies, and vLLM only warns "Unknown vLLM environment variable detected" (vllm/platforms/interface.py:1494-1502).

Judged where every container of the files that takes the ConfigMap through ``envFrom`` is a vLLM server whose own binary
reads its environment (engine_env_known.runs_engine_binary: the publisher's image, ``vllm serve``, ``python -m
vllm.entrypoints...``), at the release its image names (the newest read for ``latest``, any release read otherwise).
Silent: a key the container's command, args, hooks or probes name (``--host $(VLLM_HOST)``: the kubelet's expansion
reads it), a key the container's own ``env`` sets again (engine-env-known's), a ConfigMap a client shares.
"""

from __future__ import annotations

from typing import Optional

from components.engine_env import ENV_SETTINGS
from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, containers, get, name_of, pod_specs, split_type
from policies.models.engine_env_known import judged_servers, runs_engine_binary, unread_among
from policies.reading.engines import EngineServer
from policies.reading.serving import namespace_of


def _env_maps(container: dict) -> list[tuple[str, str]]:
    """(ConfigMap name, prefix) of each ``envFrom`` configMapRef of a container."""
    found = []
    for source in map(as_dict, as_list(container.get("envFrom"))):
        name = name_of(source.get("configMapRef"))
        prefix = source.get("prefix")
        if isinstance(name, str):
            found.append((name, prefix if isinstance(prefix, str) else ""))
    return found


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    settings = ENV_SETTINGS.get("vllm")
    if settings is None:
        return []
    # Only a text name keys the maps: a mistyped metadata.name (a map, a list) names no ConfigMap (and is unhashable).
    maps = {
        (namespace_of(r), get(r.props, "metadata", "name")): r
        for r in resources
        if split_type(r.type) == ("", "ConfigMap")
        and isinstance(r.props, dict)
        and isinstance(get(r.props, "metadata", "name"), str)
    }
    if not maps:
        return []
    # ConfigMap resource name -> (workload, its vLLM server or None for another container, the envFrom prefix)
    readers: dict[str, list[tuple[Resource, Optional[EngineServer], str]]] = {}
    for r in resources:
        if r.type not in WORKLOAD_TYPES or not isinstance(r.props, dict):
            continue
        servers = {id(s.container): s for s in judged_servers(r) if s.engine == "vllm" and runs_engine_binary(s)}
        for _path, podspec in pod_specs(r):
            for container in containers(podspec, init=True):
                for map_name, prefix in _env_maps(container):
                    cm = maps.get((namespace_of(r), map_name)) or maps.get((None, map_name))
                    if cm is not None:
                        readers.setdefault(cm.name, []).append((r, servers.get(id(container)), prefix))
    found = []
    for cm in maps.values():
        taken = readers.get(cm.name, [])
        if not taken or any(server is None for _r, server, _p in taken):
            continue  # no reader, or a container other than a vLLM server takes it too
        data = as_dict(get(cm.props, "data"))
        said: dict[str, list[str]] = {}
        hints: dict[str, str] = {}
        for workload, server, prefix in taken:
            if server is None:
                continue
            own = {n for n in (as_dict(e).get("name") for e in as_list(server.container.get("env"))) if isinstance(n, str)}
            names = {f"{prefix}{k}" for k in data if isinstance(k, str)} - own
            for name, closest, at in unread_among(server, names, settings):
                key = name[len(prefix) :]
                said.setdefault(key, []).append(
                    f"{split_type(workload.type)[1]}/{get(workload.props, 'metadata', 'name')} {server.label}"
                )
                release = f"vLLM {at}" if at else "any vLLM release read"
                hints[key] = f"is no setting {release} reads (components/engine_env_names.json settings.vllm)" + (
                    f"; the closest variable it reads is {closest[0]}" if closest else ""
                )
        for key, who in sorted(said.items()):
            found.append(
                (
                    cm.name,
                    f"data.{key}: {', '.join(dict.fromkeys(who))} takes this ConfigMap as its environment (envFrom), but "
                    f"{key} {hints[key]}, so "
                    "the value is silently ignored and the setting meant never applies; use vLLM's own name for it, or "
                    "drop the key",
                )
            )
    return found


POLICY = Policy(
    name="engine-env-map-known",
    description="A ConfigMap that only vLLM servers take as their environment (envFrom) holds no VLLM_ key the image's "
    "vLLM never reads (VLLM_LOG_LEVEL for VLLM_LOGGING_LEVEL); said on the ConfigMap.",
    catalog="G74",
    severity="medium",
    enforcement="advisory",
    remediation_steps=("Spell the key as vLLM reads it (VLLM_LOGGING_LEVEL: vllm/envs.py at the image's release), or drop it."),
    check_stack=_check,
    rationale=(
        "vLLM reads its settings by name (vllm 0.34.0 vllm/envs.py:662 environment_variables) and only warns on any "
        "other VLLM_ variable (vllm/platforms/interface.py:1494-1502), so a misspelt name leaves the setting at its "
        "default."
    ),
)
