"""S65: a client asks its model server for a model that server serves (advice).

vLLM's OpenAI server answers only the names it serves: the ``--served-model-name`` values when given (several may be
given: the option takes one or more names), else the ``--model`` value (the positional tag of ``vllm serve``), as
written, case and all; a request whose ``model`` is any other name is answered 404 "The model `X` does not exist."
(vllm-project/vllm vllm/entrypoints/openai/models/serving.py ``OpenAIModelRegistry.check_model``/``is_base_model``,
read at 00153c8b7948077ebdfc5bfa14e403da41aaea6d; earlier releases hold the same check in
vllm/entrypoints/openai/serving_engine.py ``_check_model`` over serving_models.py ``base_model_paths``; the
``--served-model-name`` help, vllm/engine/arg_utils.py: "If not specified, the model name will be the same as the
``--model`` argument"). So a client container of the files (a gateway, a backend, an agent, a chat UI) whose base
URL reaches one vLLM server of the files and whose model variable names another model gets 404 on every request.

Reach: a URL in the client's environment (literal, or from a ConfigMap of the files through ``envFrom``/
``configMapKeyRef``) whose host is a Service of the files (``svc``, ``svc.ns``, ``svc.ns.svc.cluster.local``) that
selects the pods of exactly one workload, and that workload runs vLLM; or a KServe InferenceService's own host
(``<name>-predictor``, ``<name>``) for its vLLM predictor. The model variable pairs with the URL variable by its
prefix (LLM_BASE_URL with LLM_MODEL/LLM_MODEL_NAME, VLLM_URL with VLLM_MODEL); one named by its role (MODEL,
MODEL_NAME, LLM_MODEL, DEFAULT_MODEL, OPENAI_MODEL, INFERENCE_MODEL, ...: ``_ROLES``) only when every endpoint-like URL
of the container reaches that server. Several workloads behind the Service count as one server when each is a vLLM
server serving the same names (variants of one Deployment in two files).

A LiteLLM-SDK client (OpenHands, CrewAI, aider) names the model with a provider prefix that LiteLLM strips before it
calls the server (``hosted_vllm/Qwen/...``, ``openai/...``: the prefixes of components/litellm_providers.json, read in
litellm 1.77.7 litellm_core_utils/get_llm_provider_logic.py:148-172 and constants.py:457-499): the name after the
prefix is compared too, and the advice keeps the prefix.

Silent where the served names cannot be read (a ``--config`` file, a command line with a variable the files do not
resolve, runtime LoRA loading), where the URL reaches a router (LiteLLM, a gateway) or a Service in front of several
workloads that serve different names, for a client that is itself a router, for embedding/reranker variables, and where the names agree.
Ollama's clients are S57's (``ollama-client-model-pulled``: the names the run pulls), not repeated here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Optional

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, container_label, containers, get, pod_specs, split_type
from policies.models.lora_adapter_asked import adapter_names
from policies.reading import route_path as path
from policies.reading.engines import env_values
from policies.reading.litellm import litellm_configs, without_provider
from policies.reading.model_backends import router_kind
from policies.reading.serving import namespace_of
from policies.reading.urls import cluster_service
from policies.reading.vllm_args import VllmServer, served_model, set_at_run_time, vllm_command_line, vllm_servers

# URL variable suffixes; what is left is the prefix a model variable of the same endpoint shares.
_URL_SUFFIX = re.compile(
    r"_?(?:BASE_URL|API_BASE_URL|API_BASE|API_URL|SERVER_URL|SERVICE_URL|ENDPOINT_URL|ENDPOINT|URL|URI|HOST)$"
)
# Model variables: a prefix, then MODEL, MODEL_NAME or MODEL_ID.
_MODEL_VAR = re.compile(r"^(?:(?P<prefix>[A-Z0-9_]*?)_)?(?:MODEL|MODEL_NAME|MODEL_ID)$")
# Model variables by role, not by endpoint: a client with one model endpoint reads them whatever its URL variable is
# called (MODEL_NAME, LLM_MODEL, CHAT_MODEL_ID, DEFAULT_MODEL; Llama Stack's INFERENCE_MODEL beside VLLM_URL: spent set
# 70 bugbiteme/vllm-demo k8s/ogx/deployment-base.yaml@a31b9769, brief clients49b).
_ROLES = frozenset(
    {"", "LLM", "CHAT", "DEFAULT", "DEFAULT_LLM", "OPENAI", "INFERENCE", "COMPLETION", "COMPLETIONS", "GENERATION"}
)
# Variables of another model than the chat/completion one: an embedding, reranker, speech or vision model may be
# served elsewhere.
_OTHER_MODEL = re.compile(r"EMBED|RERANK|TOKENIZER|WHISPER|SPEECH|TTS|STT|VISION|GUARD|JUDGE|DRAFT|SPECULATIVE|SMALL|FAST")
# An endpoint-like variable (a model API base), so a generic model variable is paired only when all of them agree.
_ENDPOINT_VAR = re.compile(r"BASE_URL|API_BASE|LLM|OPENAI|VLLM|MODEL|INFERENCE|OLLAMA|CHAT|COMPLETION")
_URL = re.compile(r"^\s*https?://([^/\s?#]+)", re.IGNORECASE)
_PLAIN = re.compile(r"^[\w./:@+-]+$")


def _option_values(line: list[str], option: str) -> Optional[list[str]]:
    """Every value of a vLLM option that takes one or more words (``--served-model-name a b``, ``=``-joined too), or
    None when the option is absent."""
    values: Optional[list[str]] = None
    spellings = (f"--{option}", f"--{option.replace('-', '_')}")
    i = 0
    while i < len(line):
        token = line[i]
        i += 1
        head, eq, rest = token.partition("=")
        if head not in spellings:
            continue
        values = []  # the last use wins (argparse)
        if eq:
            values.append(rest)
            continue
        while i < len(line) and not line[i].startswith("-"):
            values.append(line[i])
            i += 1
    return values


def served_names(resource: Resource, server: VllmServer) -> Optional[set[str]]:
    """The model names a vLLM server answers, or None when the files do not show them."""
    if server.runtime_merged:
        given = server.args.get("model_name") or server.args.get("model-name")
        name = given if isinstance(given, str) and given else get(resource.props, "metadata", "name")
        return {name} if isinstance(name, str) and not set_at_run_time(name) else None
    line = vllm_command_line(server.container)
    if line is None or "config" in server.args or any(set_at_run_time(t) for t in line):
        return None
    env = env_values(server.container)
    if "VLLM_ALLOW_RUNTIME_LORA_UPDATING" in env or "VLLM_PLUGINS" in env:
        return None  # adapters loaded at run time answer under names the files do not show
    names = _option_values(line, "served-model-name")
    if names is None:
        model = served_model(server)
        if not isinstance(model, str) or not model:
            return None
        names = [model]
    if not names:
        return None
    return set(names) | set(adapter_names(line))


def _servers(resources: list[Resource]) -> dict[tuple[str, Optional[str]], tuple[Resource, VllmServer, set[str]]]:
    """(Service host name, namespace) -> the one vLLM server behind it and the names it serves."""
    selectors = path.service_selectors(resources)
    behind: dict[tuple[str, Optional[str]], list[Optional[tuple[Resource, VllmServer, set[str]]]]] = {}
    for r in resources:
        if not pod_specs(r):
            continue
        servers = vllm_servers(r)
        entry: Optional[tuple[Resource, VllmServer, set[str]]] = None
        if len(servers) == 1:
            names = served_names(r, servers[0])
            entry = (r, servers[0], names) if names else None
        namespace = namespace_of(r)
        hosts = set(path.workload_services(r, selectors))
        if split_type(r.type)[1] == "InferenceService":
            name = str(get(r.props, "metadata", "name") or "")
            hosts |= {name, f"{name}-predictor"}
        for host in hosts:
            behind.setdefault((host.lower(), namespace), []).append(entry)
    # Several workloads behind one host answer as one only when each is a vLLM server serving the same names (two
    # variants of one Deployment, a storage and a no-storage file: spent set 70 bugbiteme/vllm-demo).
    return {
        key: first
        for key, entries in behind.items()
        if (first := entries[0]) is not None and all(e is not None and e[2] == first[2] for e in entries)
    }


def _reached(
    host: str, namespace: Optional[str], servers: Mapping[tuple[str, Optional[str]], tuple[Resource, VllmServer, set[str]]]
) -> Optional[tuple[Resource, VllmServer, set[str]]]:
    name, url_ns = cluster_service(host)
    if not name:
        return None
    want = url_ns or namespace  # a short host is the client's own namespace; no namespace written is unknown
    found = [v for (svc, ns), v in servers.items() if svc == name and (want is None or ns is None or ns == want)]
    return found[0] if len(found) == 1 else None


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    if not any(r.type in WORKLOAD_TYPES and vllm_servers(r) for r in resources if isinstance(r.props, dict)):
        return []
    servers = _servers(resources)
    if not servers:
        return []
    findings: list[tuple[str, str]] = []
    for r in resources:
        findings += _litellm_routes(r, servers)
        if r.type not in WORKLOAD_TYPES or not isinstance(r.props, dict):
            continue
        own = {id(s.container) for s in vllm_servers(r)}
        namespace = namespace_of(r)
        for cpath, podspec in pod_specs(r):
            for container in containers(podspec):
                if id(container) in own or router_kind(container) is not None:
                    continue
                env = env_values(container)
                if not any("_MODEL" in k or k.startswith("MODEL") for k in env):
                    continue
                findings += _client(r, cpath, container, env, namespace, servers)
    return findings


def _litellm_routes(
    r: Resource, servers: Mapping[tuple[str, Optional[str]], tuple[Resource, VllmServer, set[str]]]
) -> list[tuple[str, str]]:
    """A LiteLLM proxy's model_list route (a ConfigMap's config.yaml) whose api_base reaches a vLLM server of the files
    and whose OpenAI-compatible model (``openai/X``, ``hosted_vllm/X``: LiteLLM sends X) that server does not serve
    (the form of spent set 128 obaida7/gke-vllm-serving@0343a25d k8s/litellm/config.yaml)."""
    out: list[tuple[str, str]] = []
    for key, config in litellm_configs(r):
        for i, route in enumerate(config["model_list"]):
            params = route.get("litellm_params") if isinstance(route, dict) else None
            model = params.get("model") if isinstance(params, dict) else None
            base = params.get("api_base") if isinstance(params, dict) else None
            m = _URL.match(base) if isinstance(base, str) else None
            if not isinstance(model, str) or m is None or not _PLAIN.match(model) or set_at_run_time(model):
                continue
            provider, sent = without_provider(model.strip())
            if not provider:
                continue  # another provider (its own API and names), or a name LiteLLM sends as written
            target = _reached(m.group(1), namespace_of(r), servers)
            if target is None or sent in target[2]:
                continue
            owner, _server, names = target
            kind, oname = split_type(owner.type)[1], get(owner.props, "metadata", "name")
            served = ", ".join(sorted(names))
            out.append(
                (
                    r.name,
                    f"data[{key}] model_list[{i}]: LiteLLM route model {model} sends model {sent} to the vLLM server of "
                    f"{kind} {oname} (api_base {base}), which serves only {served}, so every request through this "
                    f"route is answered 404 'The model `{sent}` does not exist'; set model to {provider}/"
                    f"{served.split(', ')[0]} or add --served-model-name {sent} to the server",
                )
            )
    return out


def _client(
    r: Resource,
    cpath: str,
    container: Mapping,
    env: Mapping[str, str],
    namespace: Optional[str],
    servers: Mapping[tuple[str, Optional[str]], tuple[Resource, VllmServer, set[str]]],
) -> list[tuple[str, str]]:
    reaches: dict[str, Optional[tuple[Resource, VllmServer, set[str]]]] = {}
    endpoint_vars = []
    for name, value in env.items():
        m = _URL.match(value) if isinstance(value, str) else None
        if m is None:
            continue
        reaches[name] = _reached(m.group(1), namespace, servers)
        if _ENDPOINT_VAR.search(name):
            endpoint_vars.append(name)
    targets = {id(v[0]): v for v in (reaches[n] for n in endpoint_vars) if v is not None}
    one_endpoint = len(targets) == 1 and all(reaches[n] is not None for n in endpoint_vars)
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for url_var, target in reaches.items():
        if target is None:
            continue
        prefix = _URL_SUFFIX.sub("", url_var)
        owner, _server, names = target
        for variable, value in env.items():
            m = _MODEL_VAR.match(variable)
            if m is None or variable in seen or _OTHER_MODEL.search(variable):
                continue
            paired = (m.group("prefix") or "") == prefix and prefix != ""
            if not paired and not ((m.group("prefix") or "") in _ROLES and one_endpoint):
                continue
            value = value.strip() if isinstance(value, str) else ""
            if not value or not _PLAIN.match(value) or set_at_run_time(value) or value in names:
                continue
            provider, sent = without_provider(value)
            if sent in names:
                continue  # a LiteLLM client (OpenHands, CrewAI, aider) strips its provider prefix before it asks
            seen.add(variable)
            kind, oname = split_type(owner.type)[1], get(owner.props, "metadata", "name")
            served = ", ".join(sorted(names))
            first = served.split(", ")[0]
            fix = f"set {variable} to {f'{provider}/' if provider else ''}{first}"
            out.append(
                (
                    r.name,
                    f"{container_label(cpath, container)}: {variable}={value} asks the vLLM server of {kind} {oname} "
                    f"(reached by {url_var}) for a model it does not serve: it serves only {served}, so every "
                    f"request is answered 404 'The model `{sent}` does not exist'; {fix} "
                    f"or add --served-model-name {sent} to the server",
                )
            )
    return out


POLICY = Policy(
    name="client-model-served",
    description=(
        "A client in the files whose base URL reaches a vLLM server of the files asks for a model name that server "
        "serves (--served-model-name, else --model); another name is answered 404 (advice)."
    ),
    catalog="S65",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Set the client's model variable to a name the server serves, or give the server --served-model-name with the "
        "name the clients use (it takes several names)."
    ),
    check_stack=_check,
    rationale=(
        "vllm-project/vllm vllm/entrypoints/openai/models/serving.py (read at 00153c8b) check_model: a request whose "
        "model is not a served name is answered 404 'The model `X` does not exist.'; vllm/engine/arg_utils.py "
        "--served-model-name: without it the served name is the --model argument."
    ),
)
