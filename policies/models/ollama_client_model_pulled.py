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
API call whose body is not read, may be the one), the run has an Ollama server, and the client reaches an Ollama (an
OLLAMA_ variable, a Secret's included though its value is not read, or a URL on port 11434 or naming an ollama host).
A run that pulls nothing at all is read only where every Ollama server's store starts empty (an emptyDir, a generic
ephemeral volume, the ollama/ollama image's layer: ``ollama_store_lasts.starts_empty``): a claim or a hostPath may hold
models pulled by hand. A value a ConfigMap of the files gives is reported on that ConfigMap too (either may be what to change: spent set
67 Chunshan-Theta/local-voice-ai k8s/configmap.yaml), and a ConfigMap whose data reads as an Ollama client's
environment is a client of its own when no Ollama server reads it (a gateway whose Deployment is elsewhere: spent set
68 jakepage91/operating-llms-on-kubernetes llm-gateway/k8s/configmap.yaml; brief clients49b).

Where the run pulls nothing at all (every pod read) while a ConfigMap in the server's namespace that names Ollama (the
word, or a Service selecting the server) lists models by a size tag (mistral:7b, qwen2.5:0.5b: a host:port or an
image version is no such name), the app configured there expects models no pull of the files provides: advice on the
Ollama server, whatever its store (a PersistentVolumeClaim starts empty too; spent set 64 AdityaKhari1001/borgos
k8s/ollama-deployment.yaml with borgos-config in k8s/secrets.yaml, brief pods49).

Brief ollama51 widens the client reading: a prefixed model variable pairs with any endpoint of its prefix that names
the engine in between (SOCIAL_AI_OLLAMA_URL beside SOCIAL_AI_MODEL, spent set 88 geekychris/enterprise_social_platform
k8s/social-app.yaml), and a client's settings files in ConfigMaps are read (policies.reading.ollama_client_config:
LiteLLM ``ollama/`` routes, spent set 84 rjmad1/AegisOS; appsettings sections beside an Ollama endpoint, spent set 90
PMeeske/Ouroboros-v2), said on the ConfigMap and on each client that mounts it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from typing import Optional

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, container_label, containers, get, name_of, pod_specs, split_type
from policies.models.ollama_store_lasts import starts_empty
from policies.reading import route_path
from policies.reading.container_env import env_config_map
from policies.reading.engines import cache_dirs, env_values, table_servers
from policies.reading.ollama_client_config import ConfigAsk, file_asks, mounted_keys
from policies.reading.ollama_pulls import model_key, pod_pull_names
from policies.reading.serving import namespace_of
from policies.reading.urls import cluster_service

# Variables a client names its Ollama model by: the Ollama-specific ones always; the generic ones only in a container
# that also reaches an Ollama (_reaches_ollama). DEFAULT_MODELS is Open WebUI's comma-separated list.
_OLLAMA_NAMES = ("OLLAMA_MODEL", "OLLAMA_CHAT_MODEL", "OLLAMA_MODEL_NAME", "OLLAMA_EMBED_MODEL", "OLLAMA_EMBEDDING_MODEL")
_GENERIC_NAMES = ("MODEL_NAME", "MODEL", "LLM_MODEL", "CHAT_MODEL", "DEFAULT_MODEL", "DEFAULT_MODELS")
# An Ollama library reference: name[:tag], no namespace (a Hub id's slash is not one).
_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]*(?::[a-z0-9][a-z0-9._-]*)?$", re.IGNORECASE)
_OLLAMA_URL = re.compile(r"(?::11434\b|//[^/\s]*ollama)", re.IGNORECASE)


def _reaches_ollama(env: Mapping[str, str], names: Iterable[str] = ()) -> bool:
    """True when an environment (a container's, or a ConfigMap's data read as one) reaches an Ollama: an OLLAMA_
    variable (``names``: those a container sets from a Secret too, whose value is not read) or a URL on port 11434 or
    naming an ollama host."""
    return any(k.startswith("OLLAMA_") for k in (*env, *names)) or any(
        _OLLAMA_URL.search(v) for v in env.values() if isinstance(v, str)
    )


# A model variable paired by its prefix with an endpoint or engine variable of the same prefix: AnythingLLM's
# OLLAMA_MODEL_PREF beside OLLAMA_BASE_PATH, EMBEDDING_MODEL_PREF beside EMBEDDING_BASE_PATH / EMBEDDING_ENGINE=ollama
# (Mintplex-Labs/anything-llm v1.16.0 server/utils/AiProviders/ollama/index.js:24-25, EmbeddingEngines/ollama/index.js:
# 16-17): the model is asked of an Ollama when the paired endpoint reaches one or the paired engine is ollama.
_PREFIXED_MODEL = re.compile(r"^(?P<p>[A-Z][A-Z0-9_]*?)_MODEL(?:_PREF|_NAME|_ID)?$")
_PAIRED_ENDPOINTS = ("_BASE_PATH", "_BASE_URL", "_API_BASE", "_URL", "_HOST", "_ENDPOINT")
_PAIRED_ENGINES = ("_ENGINE", "_PROVIDER")


def _paired_with_ollama(env: Mapping[str, str], variable: str) -> bool:
    """True when a prefixed model variable's endpoints (every one of the prefix that holds a URL) reach an Ollama, or
    its engine variable says ollama (and none says another)."""
    m = _PREFIXED_MODEL.match(variable)
    if m is None:
        return False
    prefix = m.group("p") + "_"
    # The endpoint may name the engine between prefix and suffix: SOCIAL_AI_OLLAMA_URL beside SOCIAL_AI_MODEL (spent set
    # 88 geekychris/enterprise_social_platform k8s/social-app.yaml, brief ollama51); a prefix that also holds another
    # provider's URL (APP_OPENAI_URL) may send the model there.
    endpoints = [
        v
        for k, v in env.items()
        if k.startswith(prefix) and k.endswith(_PAIRED_ENDPOINTS) and isinstance(v, str) and ("://" in v or _OLLAMA_URL.search(v))
    ]
    engines = [
        str(v).strip().strip("\"'").lower() for k, v in env.items() if k.startswith(prefix) and k.endswith(_PAIRED_ENGINES)
    ]
    if engines:
        return all(e == "ollama" for e in engines)
    return bool(endpoints) and all(_OLLAMA_URL.search(v) for v in endpoints)


def _asked(env: Mapping[str, str], names: Iterable[str] = ()) -> list[tuple[str, str]]:
    """(variable, model) for each Ollama model an environment asks for."""
    variables = list(_OLLAMA_NAMES) + (list(_GENERIC_NAMES) if _reaches_ollama(env, names) else [])
    variables += [v for v in env if v not in variables and _paired_with_ollama(env, v)]
    found = []
    for name in variables:
        value = env.get(name)
        if not isinstance(value, str):
            continue
        for item in value.split(","):
            item = item.strip()
            if _NAME.match(item) and not item.isdigit():
                found.append((name, item))
    return found


# A dotenv file's line: KEY=value, the value optionally quoted (AnythingLLM reads /app/server/.env with dotenv:
# Mintplex-Labs/anything-llm v1.16.0 server/index.js:1-3).
_DOTENV_LINE = re.compile(
    r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(?:'([^'\n]*)'|\"([^\"\n]*)\"|([^#\n]*?))\s*(?:#.*)?$", re.M
)


def dotenv(text: str) -> dict[str, str]:
    """The variables a dotenv file (a ConfigMap's ``.env`` key) sets."""
    return {m.group(1): next(g for g in m.groups()[1:] if g is not None) for m in _DOTENV_LINE.finditer(text[:200_000])}


def _run_pulls(resources: list[Resource]) -> Optional[list[str]]:
    """Every model the run's pods pull (``model_key`` form), [] when no pod pulls one (every pod read), None when a
    pull is not resolved."""
    pulled: list[str] = []
    for r in resources:
        if r.type not in WORKLOAD_TYPES or not isinstance(r.props, dict):
            continue
        for _path, podspec in pod_specs(r):
            models, known = pod_pull_names(podspec)
            if not known:
                return None
            pulled += models
    return pulled


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


def _config_map_resources(resources: list[Resource]) -> dict[tuple[Optional[str], str], Resource]:
    """(namespace or None, name) -> the ConfigMap of the files (the last one read of the name wins, as kubectl apply)."""
    found: dict[tuple[Optional[str], str], Resource] = {}
    for r in resources:
        if split_type(r.type) == ("", "ConfigMap") and isinstance(r.props, dict):
            name = get(r.props, "metadata", "name")
            if isinstance(name, str) and name:
                found[(namespace_of(r), name)] = r
    return found


def _map_of(maps: Mapping[tuple[Optional[str], str], Resource], namespace: Optional[str], name: str) -> Optional[Resource]:
    """The ConfigMap a pod of ``namespace`` reads by ``name``: one of its namespace, or one that writes none."""
    return maps.get((namespace, name)) or maps.get((None, name))


_URL_HOST = re.compile(r"https?://([^/\s?#'\"]+)", re.IGNORECASE)


def server_hosts(resources: list[Resource], workloads: list[Resource]) -> set[tuple[str, Optional[str]]]:
    """(Service name, namespace) of every Service of the files in front of an Ollama server of the files."""
    selectors = route_path.service_selectors(resources)
    return {
        (host.lower(), namespace_of(r))
        for r in workloads
        if table_servers(r, "ollama")
        for host in route_path.workload_services(r, selectors)
    }


def _reaches_server(env: Mapping[str, str], namespace: Optional[str], hosts: AbstractSet[tuple[str, Optional[str]]]) -> bool:
    """True when a URL of the environment names a Service of ``hosts`` (``svc``, ``svc.ns``, ``svc.ns.svc...``)."""
    for value in env.values():
        for host in _URL_HOST.findall(value) if isinstance(value, str) else ():
            name, url_ns = cluster_service(host)
            want = url_ns or namespace
            if name and any(svc == name and (want is None or ns is None or ns == want) for svc, ns in hosts):
                return True
    return False


def _asks(
    resources: list[Resource],
    workloads: list[Resource],
    serving: set[int],
    hosts: AbstractSet[tuple[str, Optional[str]]] = frozenset(),
) -> list[tuple[str, str, str, bool]]:
    """(resource reported on, where: the variable with its source, model, whether the asker's URL reaches a Service of
    ``hosts``) of each model a client of the run asks
    Ollama for: each container that is not an Ollama server (said on the ConfigMap of the files a value comes from too:
    either may be what to change; spent set 67 Chunshan-Theta/local-voice-ai k8s/configmap.yaml labels the ConfigMap,
    spent set 58 kunalsingh286/k8s-llm-deployment-platform k8s/deployment.yaml the client), and each ConfigMap of the
    files whose data reads as a client's environment and feeds no Ollama server (a gateway whose Deployment is not among
    the files: spent set 68 jakepage91/operating-llms-on-kubernetes llm-gateway/k8s/configmap.yaml)."""
    maps = _config_map_resources(resources)
    found: dict[tuple[str, str, str], str] = {}
    reached: set[tuple[str, str, str]] = set()
    feeds_server: set[int] = set()
    for r in workloads:
        namespace = namespace_of(r)
        for path, podspec in pod_specs(r):
            for container in containers(podspec):
                names = [n for e in as_list(container.get("env")) if (n := name_of(as_dict(e))) is not None]
                if id(container) in serving:
                    # A ConfigMap the server reads (its own OLLAMA_MODEL for a pull script) is no client's.
                    read = [name_of(get(as_dict(e), "valueFrom", "configMapKeyRef")) for e in as_list(container.get("env"))]
                    read += [name_of(get(as_dict(e), "configMapRef")) for e in as_list(container.get("envFrom"))]
                    feeds_server.update(id(cm) for n in read if n and (cm := _map_of(maps, namespace, n)) is not None)
                    continue
                env = env_values(container)
                reaches = bool(hosts) and _reaches_server(env, namespace, hosts)
                _mounted_file_asks(r, container_label(path, container), podspec, container, maps, hosts, found, reached)
                for variable, model in _asked(env, names):
                    source = env_config_map(container, variable)
                    cm = _map_of(maps, namespace, source[0]) if source else None
                    label = container_label(path, container)
                    if reaches:
                        reached.add((r.name, variable, model))
                    if cm is None or source is None:
                        found.setdefault((r.name, variable, model), f"{label}: {variable}")
                        continue
                    # Said on the client and on the ConfigMap that gives the value (either may be the one to change).
                    found.setdefault((r.name, variable, model), f"{label}: {variable} (ConfigMap {source[0]} key {source[1]})")
                    reader = f"{label} of {split_type(r.type)[1]} {get(r.props, 'metadata', 'name')}"
                    where = f"ConfigMap {source[0]} key {source[1]} ({reader} reads it as {variable})"
                    found.setdefault((cm.name, variable, model), where)
                    if reaches:
                        reached.add((cm.name, variable, model))
    for cm in maps.values():
        data = cm.props.get("data")
        if id(cm) in feeds_server or not isinstance(data, Mapping):
            continue
        env = {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}
        for key, text in list(env.items()):
            if key == "env" or key.endswith(".env"):
                env.update(dotenv(text))
        reaches = bool(hosts) and _reaches_server(env, namespace_of(cm), hosts)
        for key, ask in _config_map_asks(cm):
            where = f"ConfigMap {get(cm.props, 'metadata', 'name')} key {key}: {ask.where}"
            found.setdefault((cm.name, f"{key}: {ask.where}", ask.model), where)
            if bool(hosts) and _reaches_server(_urls(ask), namespace_of(cm), hosts):
                reached.add((cm.name, f"{key}: {ask.where}", ask.model))
        for variable, model in _asked(env):
            if not any(key[0] == cm.name and key[1] == variable for key in found):
                found.setdefault((cm.name, variable, model), f"ConfigMap {get(cm.props, 'metadata', 'name')} key {variable}")
                if reaches:
                    reached.add((cm.name, variable, model))
    return [(name, where, model, (name, variable, model) in reached) for (name, variable, model), where in found.items()]


def _urls(ask: ConfigAsk) -> dict[str, str]:
    """A settings file's URLs as an environment ``_reaches_server`` reads."""
    return {str(i): url for i, url in enumerate(ask.urls)}


def _config_map_asks(cm: Resource, keys: Optional[AbstractSet[str]] = None) -> list[tuple[str, ConfigAsk]]:
    """(data key, ask) of each Ollama model the ConfigMap's settings files (``keys``: those mounted; None: all) ask for
    (policies.reading.ollama_client_config: LiteLLM ``ollama/`` routes, settings sections beside an Ollama endpoint)."""
    data = cm.props.get("data") if isinstance(cm.props, dict) else None
    if not isinstance(data, Mapping):
        return []
    return [
        (key, ask)
        for key, text in data.items()
        if isinstance(key, str) and isinstance(text, str) and (keys is None or key in keys)
        for ask in file_asks(key, text)
        if _NAME.match(ask.model) and not ask.model.isdigit()
    ]


def _mounted_file_asks(
    r: Resource,
    label: str,
    podspec: dict,
    container: dict,
    maps: Mapping[tuple[Optional[str], str], Resource],
    hosts: AbstractSet[tuple[str, Optional[str]]],
    found: dict[tuple[str, str, str], str],
    reached: set[tuple[str, str, str]],
) -> None:
    """Adds the models a client container's mounted settings files ask an Ollama for, said on the client and on the
    ConfigMap (either may be what to change: spent set 90 PMeeske/Ouroboros-v2 labels the Deployment that mounts
    appsettings.Production.json, set 84 rjmad1/AegisOS the ConfigMap of the LiteLLM routes)."""
    namespace = namespace_of(r)
    for map_name, keys in mounted_keys(podspec, container).items():
        cm = _map_of(maps, namespace, map_name)
        if cm is None:
            continue
        for key, ask in _config_map_asks(cm, keys):
            variable = f"{key}: {ask.where}"
            reaches = bool(hosts) and _reaches_server(_urls(ask), namespace, hosts)
            found.setdefault((r.name, variable, ask.model), f"{label}: mounted ConfigMap {map_name} key {key}: {ask.where}")
            found.setdefault((cm.name, variable, ask.model), f"ConfigMap {map_name} key {key}: {ask.where}")
            if reaches:
                reached.update({(r.name, variable, ask.model), (cm.name, variable, ask.model)})


def client_asks(
    resources: list[Resource], workloads: list[Resource], serving: set[int], hosts: AbstractSet[tuple[str, Optional[str]]]
) -> list[tuple[str, str, str, bool]]:
    """The models clients of the run ask an Ollama for (``_asks``), each with whether its URL reaches a Service of
    ``hosts``: read by G10 (ollama-client-model-fits) to size what a CPU-only Ollama is asked to load."""
    return _asks(resources, workloads, serving, hosts)


def _empty_stores(servers: list) -> Optional[str]:
    """How every Ollama server of the run starts with an empty store (for the message), or None when one may keep its
    models (a claim, a hostPath: filled out of band, it lasts)."""
    said = []
    for server in servers:
        dirs = cache_dirs(server.container, {}, server.row)
        empty = starts_empty(server.podspec, server.container, dirs[0]) if len(dirs) == 1 else None
        if empty is None:
            return None
        said.append(empty)
    return "; ".join(dict.fromkeys(said)) or None


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    workloads = [r for r in resources if r.type in WORKLOAD_TYPES and isinstance(r.props, dict)]
    servers = [s for r in workloads for s in table_servers(r, "ollama")]
    if not servers:
        return []
    pulled = _run_pulls(workloads)
    if pulled is None:
        return []
    findings: list[tuple[str, str]] = []
    empty: Optional[str] = ""
    hosts: AbstractSet[tuple[str, Optional[str]]] = frozenset()
    if not pulled:
        findings += _unpulled_config(resources, workloads, servers)
        # Nothing pulls: where a store may hold a model pulled by hand (a claim, a hostPath), a client is advised only
        # when its URL reaches an Ollama server of the files through a Service of the files: that server's store starts
        # empty too, and nothing in the run fills it (spent set 81 uaiso-serious/infra apps/anythingllm/anythingllm.yaml,
        # granite4:3b to ollama-service.ollama-cuda on a claim; as _unpulled_config advises the server of a ConfigMap).
        empty = _empty_stores(servers)
        if empty is None:
            hosts = server_hosts(resources, workloads)
            if not hosts:
                return findings
    for name, where, model, reaches in _asks(resources, workloads, {id(s.container) for s in servers}, hosts):
        if model_key(model) in pulled or (empty is None and not reaches):
            continue
        if pulled:
            why = f"but the run pulls only {', '.join(pulled)}"
        elif empty is None:
            why = (
                "but nothing in the files pulls a model into the Ollama it reaches, whose store starts empty (a claim "
                "keeps only what someone pulled by hand)"
            )
        else:
            why = f"but nothing in the files pulls a model into the run's Ollama, whose store is {empty}"
        findings.append(
            (
                name,
                unproven(
                    f"{where} asks Ollama for {model}, {why}: Ollama serves only models in its store, so "
                    f"every request for {model} fails with model not found; pull {model} where the run pulls its "
                    f"models, or ask for one it pulls"
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
