"""S54: a client told a context window larger than the model server it calls serves.

vLLM refuses a request whose prompt and max_tokens exceed ``--max-model-len`` with HTTP 400 ("This model's maximum
context length is N tokens": vllm v0.6.6.post2 vllm/entrypoints/openai/serving_engine.py _validate_input L273-315). An application
that budgets its prompts by a context-window setting larger than the server's limit sends prompts it believes fit and
gets 400s. Set 29: diwanshuydv/sqora k8s/configmap.yaml@47b7abf ConfigMap teaching-app-config, MODEL_CONTEXT_WINDOW
16384 beside VLLM_API_BASE_URL http://vllm:8000/v1, while k8s/vllm.yaml starts vLLM with --max-model-len 8192.

Read only where the files tie the two together: a ConfigMap's data or a container's literal env that holds a URL to a
Service of the files whose selector picks a model server's pods (same namespace), and beside it a variable named as a
context window (MODEL_CONTEXT_WINDOW, CONTEXT_LENGTH, MAX_CONTEXT_TOKENS, MAX_MODEL_LEN, NUM_CTX, ...) with a whole
number above that server's context. Advice: how the application uses the number is in its code.
A LiteLLM proxy configuration (policies/reading/litellm.py: a ConfigMap's, or chart values') is read the same way per
model_list route: its litellm_params.api_base beside model_info.context_window, max_input_tokens and max_tokens, the
window the proxy's /model/info reports and its pre-call checks use (spent set 61: PYTHON01100100/Serving-Large-Language-
Models-at-Scale-Using-LiteLLM-and-vLLM-on-Alibaba-Cloud-ACK k8s/litellm-config.yaml, context_window 6144 for a route
to a vLLM server started with --max-model-len 4096). So is an object's annotation or label named as a context window
beside a URL in its spec (spent set 107: dysonfrost/arkollama-k3s k8s/ark/model-config-*.yaml, an Ark Model's
model.ark.mckinsey.com/context-window beside spec.config.openai.baseUrl).

Session 54 widened the server side from vLLM to every engine whose context the manifest states (policies/reading/
served_context.py: SGLang, TGI, llama.cpp, Ollama, LocalAI, each spelling and default from the engine table's context
rows, an Ollama default only at the release its image tag names); a moving tag is an unknown release and stays silent.
Ollama's native API takes a larger num_ctx per request, so an Ollama server is judged only for a client of its
OpenAI-compatible /v1 path (review54b: OLLAMA_NUM_CTX beside OLLAMA_BASE_URL, a LiteLLM ollama_chat route with num_ctx).
A router's token limit named for one of its LiteLLM routes (FAST_CTX_LIMIT for route fast: a ConfigMap key, a literal
env value, or an assignment in a script a ConfigMap holds) above the window that route's model_info states is the same
advice (spent set 110: pocharlies-org/k8s-litellm-pocharlies k8s/manifest.yaml, litellm_strip_params.py sends up to
FAST_CTX_LIMIT = 73000 tokens to the fast route, whose context_window is 32768).
"""

from __future__ import annotations

import re
from typing import Any, Iterator, Mapping, Optional
from urllib.parse import urlsplit

from components.engine_context import engine_context
from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, as_list, containers, get, pod_specs, split_type
from policies.reading.litellm import litellm_configs, values_configs
from policies.reading.served_context import Served, served_contexts, whole
from policies.reading.serving import namespace_of, pod_labels, selector_matches

_CONTEXT_NAME = re.compile(
    r"(?:^|_)(?:CONTEXT_WINDOW|CONTEXT_LENGTH|CONTEXT_SIZE|CONTEXT_LEN|MAX_CONTEXT(?:_TOKENS|_LENGTH|_LEN)?|MAX_MODEL_LEN|"
    r"NUM_CTX|CTX_SIZE)$"
)
# The model_info keys a LiteLLM route states its model's window by (litellm's model_prices_and_context_window.json
# schema: max_input_tokens, max_tokens the legacy whole window or output cap; context_window as the proxy reports it).
_LITELLM_WINDOW = ("context_window", "max_input_tokens", "max_tokens")
_WALK = 400  # nodes of an annotated object's spec read for URLs

_whole = whole


def _limits(resources: list[Resource]) -> dict[tuple[str, str], Served]:
    """(namespace, Service name) -> the largest stated context of the model servers the Service selects."""
    servers = []
    for r in resources:
        if not isinstance(r.props, dict):
            continue
        found = served_contexts(r)
        if found:
            servers.append((namespace_of(r, "default"), pod_labels(r), max(found, key=lambda s: s.tokens)))
    limits: dict[tuple[str, str], Served] = {}
    if not servers:
        return limits
    for r in resources:
        if split_type(r.type) != ("", "Service") or not isinstance(r.props, dict):
            continue
        selector = get(r.props, "spec", "selector")
        key = (namespace_of(r, "default"), str(get(r.props, "metadata", "name")))
        for namespace, label_sets, served in servers:
            if namespace == key[0] and any(selector_matches(selector, labels, plain=True) for labels in label_sets):
                if key not in limits or served.tokens > limits[key].tokens:
                    limits[key] = served
    return limits


def _routes(where: str, config: Mapping) -> Iterator[tuple[str, Mapping[str, Any], tuple[str, ...]]]:
    """A LiteLLM proxy's routes: api_base beside the model_info window keys each states (module docstring)."""
    for i, entry in enumerate(as_list(config.get("model_list"))):
        params, info = as_dict(as_dict(entry).get("litellm_params")), as_dict(as_dict(entry).get("model_info"))
        named = tuple(k for k in _LITELLM_WINDOW if k in info)
        if named:
            bag = {"api_base": params.get("api_base"), **{k: info[k] for k in named}}
            yield f"{where} model_list[{i}].model_info", bag, named


def _urls(spec: Any) -> dict[str, str]:
    """The URL strings of an object's spec, bounded walk."""
    found: dict[str, str] = {}
    stack, seen = [spec], 0
    while stack and seen < _WALK:
        node = stack.pop()
        seen += 1
        if isinstance(node, str) and "://" in node:
            found[f"url{len(found)}"] = node
        elif isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def _stated(resource: Resource) -> Iterator[tuple[str, Mapping[str, Any], tuple[str, ...]]]:
    """An object's annotations and labels named as a context window, beside the URLs of its spec."""
    meta = as_dict(resource.props.get("metadata"))
    for field in ("annotations", "labels"):
        named = {
            str(k): v
            for k, v in as_dict(meta.get(field)).items()
            if _CONTEXT_NAME.search(re.sub(r"[-.]", "_", str(k).rsplit("/", 1)[-1].upper()))
        }
        if named:
            yield f"metadata.{field}", {**_urls(resource.props.get("spec")), **named}, tuple(named)


def _bags(resource: Resource) -> Iterator[tuple[str, Mapping[str, Any], Optional[tuple[str, ...]]]]:
    """(where, name -> value, the names that are windows: None for those _CONTEXT_NAME matches) of a ConfigMap's data
    and its LiteLLM routes, a chart-values LiteLLM configuration's routes, each container's literal env, and an object's
    annotations and labels."""
    yield from _stated(resource)
    for path, config in values_configs(resource):
        yield from _routes(path, config)
    if split_type(resource.type) == ("", "ConfigMap"):
        yield "data", as_dict(resource.props.get("data")), None
        for key, config in litellm_configs(resource):
            yield from _routes(f"data {key}", config)
        return
    for path, podspec in pod_specs(resource):
        for container in containers(podspec):
            pairs = [(as_dict(e).get("name"), as_dict(e).get("value")) for e in as_list(container.get("env"))]
            yield f"{path} container {container.get('name')} env", {k: v for k, v in pairs if isinstance(k, str)}, None


def _per_request(served: Served, url: str) -> bool:
    """Whether a client of this URL may ask the server for a larger context per request: Ollama's native API takes
    options.num_ctx over OLLAMA_CONTEXT_LENGTH and the default (ollama/ollama v0.6.7 api/types.go Options.NumCtx; a
    LiteLLM ollama/ route passes litellm_params num_ctx), its OpenAI-compatible /v1 API does not (the engine table's
    ollama context source: openai/openai.go fromChatRequest never sets num_ctx)."""
    if served.engine != "ollama":
        return False
    try:
        return not urlsplit(url.strip()).path.startswith("/v1")
    except ValueError:
        return True


def _target(values: Mapping[str, Any], namespace: str, limits: Mapping[tuple[str, str], Any]) -> Optional[tuple[str, Any]]:
    """(Service, limit) of the first URL among the values that names a Service fronting a model server whose context
    the client cannot raise per request (_per_request)."""
    for value in values.values():
        if not isinstance(value, str) or "://" not in value:
            continue
        try:
            host = (urlsplit(value.strip()).hostname or "").split(".")
        except ValueError:  # an address urlsplit refuses ("http://[fd00::1/v1"): no Service named
            continue
        if not host[0]:
            continue
        if len(host) >= 2 and host[1] not in ("svc",):
            namespace_named = host[1]
        else:
            namespace_named = namespace
        found = limits.get((namespace_named, host[0]))
        if found is None and len(host) == 1:
            # A bare name no Service of the client's namespace carries, and exactly one Service of the files does (its
            # namespace written differently, often a fill-in such as your-namespace): the files mean that one.
            others = [limit for (_, name), limit in limits.items() if name == host[0]]
            if len(others) == 1 and not any(n == namespace and name == host[0] for n, name in limits):
                found = others[0]
        if found is not None:
            return None if _per_request(found, value) else (host[0], found)
    return None


def _message(where: str, name: str, told: int, service: str, served: Served) -> str:
    facts = engine_context(served.engine)
    beyond = facts.beyond if facts is not None else "cannot hold longer requests"
    unless = f" (unless {facts.model_sets} sets more)" if facts is not None and facts.model_sets else ""
    return (
        f"{where} {name}={told} tells the application a context window larger than the server behind Service "
        f"{service} serves, {served.tokens} tokens a request ({served.how}{unless}): it {beyond}; state at most "
        f"{served.tokens}, or raise the "
        "server's context where its memory allows"
    )


# A router's token limit named for one of its routes: FAST_CTX_LIMIT, SMALL_CONTEXT_LIMIT (a ConfigMap key, a literal env
# value, or an assignment line of a script a ConfigMap holds: `FAST_CTX_LIMIT = 73000`).
_ROUTE_LIMIT = re.compile(r"^([A-Z][A-Z0-9]*)_(?:CTX|CONTEXT)_(?:LIMIT|MAX)$")
_ASSIGNED = re.compile(
    r"^[ \t]*([A-Z][A-Z0-9]*_(?:CTX|CONTEXT)_(?:LIMIT|MAX))[ \t]*[:=][ \t]*[\"']?([0-9_]{1,14})[\"']?[ \t]*(?:#.*)?$", re.M
)


def _route_windows(resources: list[Resource]) -> dict[tuple[str, str], tuple[int, str]]:
    """(namespace, route name lower-cased) -> (the smallest input window its model_info states, where) over the
    LiteLLM configurations of the files (context_window, max_input_tokens; max_tokens may be an output cap)."""
    windows: dict[tuple[str, str], tuple[int, str]] = {}
    for r in resources:
        if not isinstance(r.props, dict) or r.template:
            continue
        configs = [(f"data {k}", c) for k, c in litellm_configs(r)] + values_configs(r)
        for where, config in configs:
            for i, entry in enumerate(as_list(config.get("model_list"))):
                name, info = as_dict(entry).get("model_name"), as_dict(as_dict(entry).get("model_info"))
                label = f"{split_type(r.type)[1]}/{get(r.props, 'metadata', 'name')} {where} model_list[{i}].model_info"
                known = [(t, f"{label} {k}") for k in ("context_window", "max_input_tokens") if (t := whole(info.get(k)))]
                key = (namespace_of(r, "default"), str(name).lower())
                if isinstance(name, str) and known and (key not in windows or min(known)[0] < windows[key][0]):
                    windows[key] = min(known)
    return windows


def _route_limits(resource: Resource) -> Iterator[tuple[str, str, int]]:
    """(where, name, tokens) of each router limit a ConfigMap or a container's literal env states (_ROUTE_LIMIT)."""
    values: list[tuple[str, Mapping[str, Any]]] = []
    if split_type(resource.type) == ("", "ConfigMap"):
        values.append(("data", as_dict(resource.props.get("data"))))
    else:
        for path, podspec in pod_specs(resource):
            for c in containers(podspec):
                pairs = [(as_dict(e).get("name"), as_dict(e).get("value")) for e in as_list(c.get("env"))]
                values.append((f"{path} container {c.get('name')} env", {k: v for k, v in pairs if isinstance(k, str)}))
    for where, bag in values:
        for key, value in bag.items():
            if not isinstance(key, str):
                continue  # a mistyped key (a list, a number) names no limit
            if _ROUTE_LIMIT.match(key) and whole(value) is not None:
                yield where, key, int(str(whole(value)))
            elif isinstance(value, str) and ("_LIMIT" in value or "_MAX" in value):
                for name, number in _ASSIGNED.findall(str(value))[:50]:
                    tokens = whole(number.replace("_", ""))
                    if tokens is not None:
                        yield f"{where} {key}", name, tokens


def _router_findings(resources: list[Resource]) -> list[tuple[str, str]]:
    """A router limit above the window its route's model_info states (module docstring)."""
    windows = _route_windows(resources)
    findings: list[tuple[str, str]] = []
    if not windows:
        return findings
    for r in resources:
        if not isinstance(r.props, dict) or r.template:
            continue
        for where, name, tokens in _route_limits(r):
            route = _ROUTE_LIMIT.match(name)
            key = (namespace_of(r, "default"), route.group(1).lower() if route else "")
            if key in windows and tokens > windows[key][0]:
                window, stated = windows[key]
                findings.append(
                    (
                        r.name,
                        unproven(
                            f"{where} {name}={tokens} lets the router send prompts of up to {tokens} tokens to route "
                            f"{key[1]}, whose window is {window} ({stated}): prompts between the two fail or are cut; "
                            f"keep {name} at most {window}, or send longer prompts to a route that holds them"
                        ),
                    )
                )
    return findings


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    limits = _limits(resources)
    findings: list[tuple[str, str]] = _router_findings(resources)
    if not limits:
        return findings
    for r in resources:
        if not isinstance(r.props, dict) or r.template:
            continue
        for where, values, names in _bags(r):
            target = _target(values, namespace_of(r, "default"), limits)
            if target is None:
                continue
            service, served = target
            for name, value in values.items():
                told = whole(value)
                window = name in names if names is not None else bool(_CONTEXT_NAME.search(str(name).upper()))
                if window and told is not None and told > served.tokens:
                    findings.append((r.name, unproven(_message(where, name, told, service, served))))
    return findings


POLICY = Policy(
    name="client-context-within-server",
    description="A ConfigMap, env, LiteLLM route or annotation that points an application at a model server's Service "
    "does not tell it a context window (MODEL_CONTEXT_WINDOW, model_info max_input_tokens, a context-window annotation, "
    "...) larger than the server serves (vLLM --max-model-len, SGLang --context-length, TGI --max-total-tokens, "
    "llama.cpp --ctx-size, Ollama OLLAMA_CONTEXT_LENGTH or its release's default, LocalAI CONTEXT_SIZE) (advice).",
    catalog="S54",
    severity="medium",
    enforcement="advisory",
    remediation_steps="Keep the application's context setting at or below the context its server serves.",
    config_schema={},
    check_stack=_check,
    rationale=(
        "vLLM rejects a request longer than --max-model-len with HTTP 400 (vllm v0.6.6.post2 entrypoints/openai/serving_engine.py "
        "_validate_input L273-315); an application that sizes prompts by a larger window sends requests that fail."
    ),
)
