"""S57: a client asks the run's Ollama for a model the run pulls (advice).

``ollama serve`` names no model; a request for a model not in its store is answered 404 "model ... not found, try
pulling it first" (ollama/ollama v0.32.15 server/routes.go:3107-3116 handleScheduleError, called by GenerateHandler
L471 and the embed and chat handlers L850-856, L1068-1074). Where the run pulls its
models itself (an ``ollama pull``/``run``/``create`` or a call of ``/api/pull`` in any pod of the files: an init
container, a postStart hook, a Job, a mounted script; ``policies.reading.ollama_pulls.pod_pull_names``), a client of
the run (a gateway, an agent, a chat UI) that asks for a model in its environment (OLLAMA_MODEL, MODEL_NAME,
DEFAULT_MODELS, ... literal or from a ConfigMap of the files) that none of those pulls names gets "model not found" on
every request. Names are compared as the server stores them (``model_key``: ``llama3`` is ``llama3:latest``; the
default host, namespace and tag are registry.ollama.ai, library and latest, types/model/name.go:39-42 at v0.32.15).

Advice, and silent unless every pull of the run names its model (a pull by a variable the files do not resolve, an
API call whose body is not read, may be the one), the run has an Ollama server and pulls at least one model (a run
that pulls nothing leaves the store to S57's server form or to a pull out of band), and the client reaches an Ollama
(an OLLAMA_ variable, or a URL on port 11434 or naming an ollama host).

Where the run pulls nothing at all (every pod read) while a ConfigMap in the server's namespace that names Ollama (the
word, or a Service selecting the server) lists models by a size tag (mistral:7b, qwen2.5:0.5b: a host:port or an
image version is no such name), the app configured there expects models no pull of the files provides: advice on the
Ollama server, whatever its store (a PersistentVolumeClaim starts empty too; spent set 64 AdityaKhari1001/borgos
k8s/ollama-deployment.yaml with borgos-config in k8s/secrets.yaml, brief pods49).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Optional

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, container_label, containers, get, pod_specs, split_type
from policies.reading import route_path
from policies.reading.engines import env_values, table_servers
from policies.reading.ollama_pulls import model_key, pod_pull_names
from policies.reading.serving import namespace_of

# Variables a client names its Ollama model by: the Ollama-specific ones always; the generic ones only in a container
# that also reaches an Ollama (_reaches_ollama). DEFAULT_MODELS is Open WebUI's comma-separated list.
_OLLAMA_NAMES = ("OLLAMA_MODEL", "OLLAMA_CHAT_MODEL", "OLLAMA_MODEL_NAME", "OLLAMA_EMBED_MODEL", "OLLAMA_EMBEDDING_MODEL")
_GENERIC_NAMES = ("MODEL_NAME", "MODEL", "LLM_MODEL", "CHAT_MODEL", "DEFAULT_MODEL", "DEFAULT_MODELS")
# An Ollama library reference: name[:tag], no namespace (a Hub id's slash is not one).
_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]*(?::[a-z0-9][a-z0-9._-]*)?$", re.IGNORECASE)
_OLLAMA_URL = re.compile(r"(?::11434\b|//[^/\s]*ollama)", re.IGNORECASE)


def _reaches_ollama(env: Mapping[str, str]) -> bool:
    return any(k.startswith("OLLAMA_") for k in env) or any(_OLLAMA_URL.search(v) for v in env.values())


def _asked(container: Mapping) -> list[tuple[str, str]]:
    """(variable, model) for each Ollama model the container's environment asks for."""
    env = env_values(container)
    names = list(_OLLAMA_NAMES) + (list(_GENERIC_NAMES) if _reaches_ollama(env) else [])
    found = []
    for name in names:
        value = env.get(name)
        if not isinstance(value, str):
            continue
        for item in value.split(","):
            item = item.strip()
            if _NAME.match(item) and not item.isdigit():
                found.append((name, item))
    return found


def _run_pulls(resources: list[Resource]) -> Optional[list[str]]:
    """Every model the run's pods pull (``model_key`` form), or None when one pull is not resolved or none is made."""
    pulled: list[str] = []
    for r in resources:
        if r.type not in WORKLOAD_TYPES or not isinstance(r.props, dict):
            continue
        for _path, podspec in pod_specs(r):
            models, known = pod_pull_names(podspec)
            if not known:
                return None
            pulled += models
    return pulled or None


# An Ollama model named with a size tag in a configuration text (mistral:7b, qwen2.5:0.5b, llama3.1:8b-instruct-q4_K_M):
# the tag starts with a parameter size, so a host:port (ollama-service:11434) or an image's version is not one.
_SIZED = re.compile(r"(?<![\w./:-])([a-z][a-z0-9._-]{0,80}):(\d{1,4}(?:\.\d{1,3})?[bm](?:-[a-z0-9._-]{1,80})?)(?![\w.:/-])", re.I)
_WORD_OLLAMA = re.compile(r"\bollama\b", re.I)


def _pulls_nothing(workloads: list[Resource]) -> bool:
    """True when no pod of the run pulls, runs or creates a model, every pod read (pod_pull_names known)."""
    for r in workloads:
        for _path, podspec in pod_specs(r):
            models, known = pod_pull_names(podspec)
            if models or not known:
                return False
    return True


def _configured_models(resources: list[Resource], server: Resource) -> list[tuple[str, list[str]]]:
    """(ConfigMap, models) for each ConfigMap of the server's namespace whose data names Ollama (the word, or a Service
    that selects the server) and Ollama models by a size tag."""
    services = route_path.workload_services(server, route_path.service_selectors(resources))
    own = namespace_of(server)
    found = []
    for r in resources:
        if split_type(r.type) != ("", "ConfigMap") or not isinstance(r.props, dict) or namespace_of(r) not in (own, None):
            continue
        data = r.props.get("data")
        text = "\n".join(v for v in (data.values() if isinstance(data, Mapping) else ()) if isinstance(v, str))
        if not text or not (_WORD_OLLAMA.search(text) or any(re.search(rf"\b{re.escape(s)}\b", text) for s in services)):
            continue
        models = list(dict.fromkeys(f"{m.group(1)}:{m.group(2)}" for m in _SIZED.finditer(text[:200_000])))
        if models:
            found.append((str(get(r.props, "metadata", "name")), models))
    return found


def _unpulled_config(resources: list[Resource], workloads: list[Resource], servers: list) -> list[tuple[str, str]]:
    """Advice on each Ollama server when the run pulls no model at all while a ConfigMap of its namespace that names
    Ollama lists the models the app expects (spent set 64 AdityaKhari1001/borgos: borgos-config's config.yaml lists
    mistral:7b, llama2:7b, codellama:7b with `host: ollama-service`, and nothing pulls; the store is a
    PersistentVolumeClaim, which starts empty)."""
    if not _pulls_nothing(workloads):
        return []
    findings: list[tuple[str, str]] = []
    for r in (w for w in workloads if table_servers(w, "ollama")):
        for name, models in _configured_models(resources, r):
            findings.append(
                (
                    r.name,
                    unproven(
                        f"ConfigMap {name} names Ollama and the models {', '.join(models)}, but nothing in the files "
                        f"pulls a model into this Ollama server's store (no `ollama pull`/`run`/`create` or /api/pull "
                        f"in any pod or Job): its store starts empty and every request for them fails with model not "
                        f"found until someone pulls them by hand; pull them in an init container or a Job"
                    ),
                )
            )
    return findings


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    workloads = [r for r in resources if r.type in WORKLOAD_TYPES and isinstance(r.props, dict)]
    servers = [s for r in workloads for s in table_servers(r, "ollama")]
    if not servers:
        return []
    pulled = _run_pulls(workloads)
    if pulled is None:
        return _unpulled_config(resources, workloads, servers)
    serving = {id(s.container) for s in servers}
    findings: list[tuple[str, str]] = []
    for r in workloads:
        for path, podspec in pod_specs(r):
            for container in containers(podspec):
                if id(container) in serving:
                    continue
                for variable, model in _asked(container):
                    if model_key(model) in pulled:
                        continue
                    findings.append(
                        (
                            r.name,
                            unproven(
                                f"{container_label(path, container)}: {variable} asks Ollama for {model}, but the "
                                f"run pulls only {', '.join(pulled)}: Ollama serves only models in its store, so "
                                f"every request for {model} fails with model not found; pull {model} where the run "
                                f"pulls its models, or ask for one it pulls"
                            ),
                        )
                    )
    return findings


POLICY = Policy(
    name="ollama-client-model-pulled",
    description=(
        "A client of the run's Ollama (OLLAMA_MODEL, MODEL_NAME, DEFAULT_MODELS, ...) asks for a model the run pulls; "
        "one no pull of the run names fails with model not found (advice)."
    ),
    catalog="S57",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Pull the model the client asks for where the run pulls its models (an init container, a postStart hook or a "
        "Job running `ollama pull MODEL`), or set the client's model to one the run pulls."
    ),
    check_stack=_check,
    rationale=(
        "ollama/ollama v0.32.15: `ollama serve` names no model, models are in the store only where a pull wrote them "
        "(envconfig/config.go L111-124 Models()), and a request for another is answered 404 model not found (server/routes.go:3107-3116 handleScheduleError); "
        "a name's default namespace is library and its default tag latest (types/model/name.go:39-42)."
    ),
)
