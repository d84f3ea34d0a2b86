"""G74 on the ConfigMap: a file of engine settings (NAME=VALUE lines) that an env-only engine never reads.

engine-env-known (G74) says on the server's workload that a ConfigMap file of ``OLLAMA_...=`` lines mounted into an
Ollama container sets nothing: Ollama reads its settings with os.Getenv only (ollama/ollama v0.32.15
envconfig/config.go:375-376; components/engine_env.toml ``[env_only]``) and nothing in the container sources the file.
The ConfigMap is as much what to change (its settings belong in the container's env), so this policy says it there
too, once per ConfigMap with the servers that mount it (spent set 82 olafkfreund/SOW-generator@2e78b6f8
deployment/k8s-pod-amd.yaml and k8s-pod-ollama-nvidia.yaml, ollama-amd-config and ollama-nvidia-config with
ollama.conf at /etc/ollama, labelled G74 on the ConfigMaps). Same reading as engine-env-known
(engine_env_known.settings_files), so the two never disagree.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, get, split_type
from policies.models.engine_env_known import rebuild_entrypoint, settings_files
from policies.reading.engines import table_servers
from policies.reading.serving import namespace_of


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    maps = {
        (namespace_of(r), get(r.props, "metadata", "name")): r
        for r in resources
        if split_type(r.type) == ("", "ConfigMap")
        and isinstance(r.props, dict)
        and isinstance(get(r.props, "metadata", "name"), str)
        and isinstance(namespace_of(r), (str, type(None)))
    }
    if not maps:
        return []
    said: dict[str, dict[str, list[str]]] = {}  # ConfigMap resource name -> {file names: [readers]}
    for r in resources:
        if r.type not in WORKLOAD_TYPES or not isinstance(r.props, dict):
            continue
        for server in table_servers(r):
            for path, names, map_name in settings_files(server):
                if not isinstance(map_name, str):
                    continue  # a mistyped configMap.name (a map, a number): no ConfigMap is named so
                cm = maps.get((namespace_of(r), map_name)) or maps.get((None, map_name))
                if cm is None:
                    continue
                display = server.row.display if server.row else server.engine
                hedge = " (unless a rebuilt image's own entrypoint sources it)" if rebuild_entrypoint(server) else ""
                key = f"{path} sets {', '.join(names)}, but {display} reads its settings only from its environment{hedge}"
                reader = f"{server.label} of {split_type(r.type)[1]} {get(r.props, 'metadata', 'name')}"
                said.setdefault(cm.name, {}).setdefault(key, []).append(reader)
    return [
        (
            name,
            f"this ConfigMap's file {what} (components/engine_env.toml env_only) and nothing in "
            f"{', '.join(dict.fromkeys(readers))} sources the file, so these settings never apply; set them in the "
            "container's env",
        )
        for name, files in said.items()
        for what, readers in files.items()
    ]


POLICY = Policy(
    name="engine-env-file-unread",
    description="A ConfigMap file of engine settings (OLLAMA_...= lines) mounted into an engine that reads its settings "
    "only from its environment (components/engine_env.toml env_only) is sourced by the container; unsourced, it sets "
    "nothing (said on the ConfigMap; engine-env-known says it on the server).",
    catalog="G74",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Move the file's settings into the container's env (env or envFrom of a ConfigMap of plain keys), or source "
        "the file in the container's command before the server starts."
    ),
    check_stack=_check,
    rationale=(
        "ollama/ollama v0.32.15 envconfig/config.go:375-376: every setting is read with os.Getenv; the only file the "
        "server reads is ~/.ollama/server.json, so an ollama.conf of NAME=VALUE lines mounted anywhere is never read."
    ),
)
