"""S44 (second policy): a route forwards a path prefix the model server behind it serves.

An Ingress or a Gateway API HTTPRoute with no rewrite passes the request path to the backend as it came: a rule
for ``/api/vllm`` sends ``/api/vllm/v1/chat/completions`` to the server, which answers 404 unless it serves paths
under that prefix. The servers read here serve fixed top-level paths:

* vLLM's OpenAI server: ``/v1/...`` and a handful of top-level endpoints (``/health``, ``/ping``, ``/metrics``,
  ``/tokenize``, ``/version``, ``/invocations``, ``/v2/rerank``, ...: vllm-project/vllm vllm/entrypoints/openai/
  api_server.py and the routers it includes); a ``--root-path`` set for a proxy is not judged.
* Ollama: ``/`` (exactly), ``/api/...`` and ``/v1/...`` (ollama/ollama v0.32.15 server/routes.go:1877-1926).
* Serving-path apps whose row in components/serving_apps.toml lists ``root_segments`` (the LiteLLM proxy: ``/v1``,
  ``/chat``, ``/health``, ... read from the litellm 1.77.7 wheel's routes), unless the container sets one of the row's
  ``root_path_env`` (LiteLLM's ``SERVER_ROOT_PATH``, which serves every route under that prefix); a prefix followed by
  one of the row's ``param_segments`` (LiteLLM's ``/{provider}/v1/files``) is not judged for an exact path. Spent set
  81 fhswf/soccer-agent k8s/ingress.yaml@bac5e294: Prefix ``/llm`` to the LiteLLM Service, no rewrite, labelled S44.

Spent sets 37 MissawB/Animetix deploy/k8s/ingress.yaml (Prefix ``/api/vllm`` to vLLM, no rewrite: every API call
404) and 33 shanaka-versent/Ollama-on-EKS k8s/httproutes.yaml (Exact ``/healthz`` to Ollama, which has no such
handler: the gateway's health check gets 404), both labels filed NONE.

Advice: a controller may rewrite by a mechanism the files do not show. Silent on an Ingress with any rewrite, strip
or middleware annotation (S44's ingress-nginx rule judges rewrite-target), an HTTPRoute rule with a URLRewrite
filter, a path under ``/`` alone, a regex path, and backends whose engine is not read here or not known.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Optional

from components.serving_apps import APPS, App
from policies.framework import Policy, Resource, unproven
from policies.kube import annotations_of, as_dict, as_list, get, split_type
from policies.reading import route_path
from policies.reading.gateway_apps import app_containers
from policies.reading.serving import model_servers
from policies.reading.vllm_args import vllm_args

# Top-level path segments each server answers under (module docstring); "" is the bare root.
_SERVED = {
    "vllm": frozenset(
        {
            "v1",
            "v2",
            "health",
            "ping",
            "load",
            "metrics",
            "tokenize",
            "detokenize",
            "version",
            "invocations",
            "pooling",
            "classify",
            "score",
            "rerank",
            "server_info",
            "reset_prefix_cache",
            "reset_mm_cache",
            "sleep",
            "wake_up",
            "is_sleeping",
            "collective_rpc",
            "scale_elastic_ep",
            "is_scaling_elastic_ep",
            "start_profile",
            "stop_profile",
            "docs",
            "openapi.json",
            "redoc",
            "tokenizer_info",
            "inference",
            "get_world_size",
            "abort_requests",
            "pause",
            "resume",
            "is_paused",
            "update_weights",
        }
    ),  # fmt: skip
    "ollama": frozenset({"", "api", "v1"}),
}
_SHOWN = {"vllm": "/v1/..., /health, /metrics, /tokenize, /version, ...", "ollama": "/ exactly, /api/..., /v1/..."}
# Second path segments an app's parametric first-segment routes take.
_PARAMS: dict[str, frozenset[str]] = {}
_REWRITES = re.compile(r"rewrite|strip|middleware|prefix|snippet|plugin|filter", re.IGNORECASE)


def _app_engines(w: Resource) -> set[str]:
    """The serving-path apps of a workload's long-running pods as engine keys ("app:NAME"; "?" for an app whose paths
    are not established or whose root a root_path_env variable moves)."""
    engines: set[str] = set()
    for found in app_containers(w):
        app = found.app
        env = {str(as_dict(e).get("name")) for e in as_list(found.container.get("env"))}
        if not app.root_segments or env & set(app.root_path_env) or found.container.get("envFrom"):
            engines.add("?")
            continue
        engines.add(f"app:{app.name}")
    return engines


def _app_shown(segments: tuple[str, ...], root_env: tuple[str, ...]) -> str:
    main = [s for s in ("v1", "chat", "completions", "embeddings", "models", "health") if s in segments]
    moved = f"; {' or '.join(root_env)} unset" if root_env else ""
    return ", ".join(f"/{s}/..." for s in main) + f", ... at its root{moved}"


# The serving-path apps whose root paths their rows establish (components/serving_apps.toml root_segments).
for _app in APPS:
    if _app.root_segments:
        _SERVED[f"app:{_app.name}"] = frozenset(_app.root_segments)
        _SHOWN[f"app:{_app.name}"] = _app_shown(_app.root_segments, _app.root_path_env)
        _PARAMS[f"app:{_app.name}"] = frozenset(_app.param_segments)


def _service_engines(resources: list[Resource]) -> dict[str, set[str]]:
    """Service name -> the engines of the model servers and serving-path apps it selects (workloads of the set)."""
    selectors = route_path.service_selectors(resources)
    out: dict[str, set[str]] = {}
    for w in resources:
        servers = model_servers(w)
        apps = _app_engines(w) if not servers else set()
        if not servers and not apps:
            continue
        engines = {s.engine if s.engine in _SERVED else "?" for s in servers} | apps
        if any(s.engine == "vllm" and "root-path" in vllm_args(s.container) for s in servers):
            engines.add("?")
        for service in route_path.workload_services(w, selectors):
            out.setdefault(service, set()).update(engines)
        # A Service the files do not hold, named as the workload: the usual pairing (Deployment ollama, Service ollama).
        name = get(w.props, "metadata", "name")
        if isinstance(name, str) and name not in selectors:
            out.setdefault(name, set()).update(engines)
    return out


def _ingress_paths(ing: Resource) -> Iterator[tuple[str, str, bool, Optional[str]]]:
    """(label, path, exact, Service) of the rules of an Ingress with no rewrite-like annotation."""
    if any(_REWRITES.search(key) for key in annotations_of(ing.props)):
        return
    for i, rule in enumerate(as_list(get(ing.props, "spec", "rules"))):
        for j, item in enumerate(as_list(get(rule, "http", "paths"))):
            item = as_dict(item)
            path, service = item.get("path"), get(item, "backend", "service", "name")
            if isinstance(path, str) and isinstance(service, str) and item.get("pathType") in ("Prefix", "Exact"):
                yield f"spec.rules[{i}].http.paths[{j}]", path, item.get("pathType") == "Exact", service


def _route_paths(route: Resource) -> Iterator[tuple[str, str, bool, Optional[str]]]:
    """(label, path, exact, Service) of the rules of an HTTPRoute with no URLRewrite filter."""
    for i, rule in enumerate(as_list(get(route.props, "spec", "rules"))):
        rule = as_dict(rule)
        if any(as_dict(f).get("type") == "URLRewrite" for f in as_list(rule.get("filters"))):
            continue
        services = [
            r.get("name")
            for r in (as_dict(r) for r in as_list(rule.get("backendRefs")))
            if r.get("kind", "Service") == "Service"
            and not r.get("group")
            and not any(as_dict(f).get("type") == "URLRewrite" for f in as_list(r.get("filters")))
        ]
        for j, match in enumerate(as_list(rule.get("matches"))):
            kind, path = get(match, "path", "type") or "PathPrefix", get(match, "path", "value")
            if not isinstance(path, str) or kind not in ("PathPrefix", "Exact"):
                continue
            for service in services:
                if isinstance(service, str):
                    yield f"spec.rules[{i}].matches[{j}]", path, kind == "Exact", service


def _unserved(path: str, engines: set[str]) -> bool:
    """True when no engine behind the route serves anything under (or, for an exact match, at) the path: its first
    segment is none of theirs, and its second none an app's parametric route takes."""
    parts = path.strip("/").split("/")
    first = parts[0]
    if not first or "?" in engines:
        return False  # the root, or an engine not read here
    if len(parts) > 1 and any(parts[1] in _PARAMS.get(engine, ()) for engine in engines):
        return False
    return all(first not in _SERVED[engine] for engine in engines)


def _moving(engines: set[str]) -> str:
    """The root-path setting of the apps among the engines, as advice ("" when none has one)."""
    names = sorted({n for e in engines if e.startswith("app:") for a in _apps(e) for n in a.root_path_env})
    return f" (or set {' / '.join(names)} to the prefix)" if names else ""


def _apps(engine: str) -> tuple[App, ...]:
    return tuple(a for a in APPS if f"app:{a.name}" == engine)


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    engines_of = _service_engines(resources)
    findings: list[tuple[str, str]] = []
    for r in resources:
        kind = split_type(r.type)
        if kind == ("networking.k8s.io", "Ingress"):
            paths = _ingress_paths(r)
        elif kind == ("gateway.networking.k8s.io", "HTTPRoute"):
            paths = _route_paths(r)
        else:
            continue
        for label, path, exact, service in paths:
            engines = engines_of.get(service or "", set())
            if not engines or not _unserved(path, engines):
                continue
            names = ", ".join(sorted(_apps(e)[0].display if _apps(e) else e for e in engines))
            served = "; ".join(_SHOWN[e] for e in sorted(engines))
            findings.append(
                (
                    r.name,
                    unproven(
                        f"{label}: {'requests for' if exact else 'requests under'} {path} reach Service {service} "
                        f"unchanged (no rewrite), and the {names} server behind it serves nothing there (its paths: "
                        f"{served}), so it answers 404; route the server's "
                        f"own paths (/v1) or rewrite the prefix away{_moving(engines)}"
                    ),
                )
            )
    return findings


POLICY = Policy(
    name="route-path-served",
    description=(
        "An Ingress or HTTPRoute with no rewrite forwards a path prefix the model server behind it serves (vLLM: /v1, "
        "/health, ...; Ollama: /api, /v1) (advice)."
    ),
    rationale=(
        "A route without a rewrite passes the request path unchanged; vLLM's and Ollama's servers answer only their "
        "own paths (ollama/ollama v0.32.15 server/routes.go:1877-1926), so a prefix of the route's own reaches no "
        "handler (404)."
    ),
    catalog="S44",
    severity="high",
    enforcement="advisory",
    remediation_steps=(
        "Route the server's own paths (/v1, /health) to it, or strip the prefix (an HTTPRoute URLRewrite "
        "ReplacePrefixMatch filter, ingress-nginx rewrite-target with a capture group)."
    ),
    config_schema={},
    check_stack=_check,
)
