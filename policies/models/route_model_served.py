"""S65: a router or gateway sends a model name only to a server that serves it (route-model-served).

Routers that pick a model server by the request's ``model`` name take that name from the manifests: the rows of
components/model_routes.toml (an AIBrix pod label ``model.aibrix.ai/name``, vllm-project/aibrix@v0.7.0
pkg/cache/informers.go:104-117; an Envoy AI Gateway AIGatewayRoute rule matching header ``x-ai-eg-model``,
envoyproxy/ai-gateway@v1.1.0 api/v1alpha1/ai_gateway_route.go:84-86; a Gateway API Inference Extension
InferenceModel's ``spec.modelName``, kubernetes-sigs/gateway-api-inference-extension@v0.5.1
api/v1alpha2/inferencemodel_types.go:66-79; a Gateway API HTTPRoute rule matching ``X-Gateway-Model-Name``, which
body-based routing fills from the body, v1.0.0 pkg/bbr/handlers/request.go:31). The route forwards the body unchanged (unless it rewrites the name:
``modelNameOverride``, ``targetModels``, compared instead), and vLLM answers a name it does not serve 404 "The model
`X` does not exist." (S65's reading of the served names: policies/models/client_model_served.py ``served_names``).

Reach: the AIBrix label sits on the server's own pod template; an InferenceModel's ``poolRef`` names an InferencePool
whose selector (a label map, or ``matchLabels``) picks the server's pods; an AIGatewayRoute's backendRef names an
InferencePool, or an AIServiceBackend whose ``backendRef`` is an Envoy Gateway Backend (``endpoints[].fqdn.hostname``,
an in-cluster Service host) or a Service, and that Service selects the server's pods. Every workload reached must run
one vLLM server whose served names the files show (none set at run time, no ``--config``, no runtime LoRA loading).

Level: the AIBrix label is mandatory (the gateway routes that name only to the labelled pods and refuses every other
name: aibrix gateway_req_body.go:210-217; every request through it fails). A route rule or InferenceModel is
mandatory when every backend it sends to (weight not 0) reaches only servers read and none serves the name (every
request the rule takes gets 404); a traffic split or a fallback (Envoy AI Gateway ``priority``) where some target is
served is not reported, nor a pool or Service that also selects a pod template that is not a vLLM server read (an
SGLang or TGI server behind the same labels may serve the name).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, Optional

from components.model_routes import ROUTES, ModelRoute
from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, get, pod_specs, split_type
from policies.models.client_model_served import served_names
from policies.reading.label_selectors import selector_matches
from policies.reading.serving import namespace_of
from policies.reading.urls import cluster_service
from policies.reading.vllm_args import vllm_servers

_AIBRIX = ROUTES["aibrix"]
_AIGW = ROUTES["envoy-ai-gateway"]
_IM = ROUTES["inference-model"]
_BBR = ROUTES["gateway-api-bbr"]
_POOL_GROUPS = ("inference.networking.x-k8s.io", "inference.networking.k8s.io")
_STEP = re.compile(r"([^.\[\]]+)|\[(\d+)\]")

# (workload, its pod labels, its pod annotations, served names or None)
Server = tuple[Resource, dict, dict, Optional[frozenset[str]]]


def _pod_metadata(resource: Resource, path: str) -> Mapping:
    """The metadata of the pod template at ``path`` (``spec.template.spec`` -> ``spec.template.metadata``; a bare Pod's
    own metadata)."""
    if path == "spec":
        return as_dict(get(resource.props, "metadata"))
    steps: list[Any] = [int(i) if i else k for k, i in _STEP.findall(path)]
    if len(steps) < 2 or steps[-1] != "spec":
        return {}
    return as_dict(get(resource.props, *steps[:-1], "metadata"))


def _servers(resources: list[Resource]) -> list[Server]:
    out: list[Server] = []
    for r in resources:
        if r.type not in WORKLOAD_TYPES or not isinstance(r.props, dict) or not pod_specs(r):
            continue
        servers = vllm_servers(r)
        if not servers:
            continue
        for server in servers:
            if server.runtime_merged:
                continue  # a KServe predictor: KServe's own routing names it (S66)
            meta = _pod_metadata(r, server.path)
            names = served_names(r, server) if len(servers) == 1 else None
            out.append((r, as_dict(meta.get("labels")), as_dict(meta.get("annotations")), frozenset(names) if names else None))
    return out


def _finding(route: ModelRoute, name: str, names: frozenset[str], where: str) -> str:
    served = ", ".join(sorted(names))
    return (
        f"{where} routes model {name!r} to a vLLM server that serves only {served} ({route.display}): "
        f"{route.effect}; name the route {sorted(names)[0]!r} or add --served-model-name {name} to the server"
    )


def _aibrix(servers: list[Server]) -> Iterator[tuple[Resource, str]]:
    for r, labels, notes, names in servers:
        value = labels.get(_AIBRIX.key) or notes.get(_AIBRIX.key)
        if not isinstance(value, str) or not value or names is None or value in names:
            continue
        where = "the pod label" if labels.get(_AIBRIX.key) else "the pod annotation"
        yield r, _finding(_AIBRIX, value, names, f"{where} {_AIBRIX.key}={value}")


def _selected(
    resources: list[Resource], servers: list[Server], selector: Any, namespace: Optional[str], plain: bool
) -> Optional[list[Server]]:
    """The vLLM servers a selector picks; None when it also picks a pod template of the files that is not one of them
    (an SGLang or TGI Deployment behind the same pool or Service may serve the name)."""
    chosen = [
        s
        for s in servers
        if selector_matches(selector, s[1], plain=plain) and (namespace is None or namespace_of(s[0]) in (None, namespace))
    ]
    judged = {id(s[0]) for s in chosen}
    for r in resources:
        if r.type not in WORKLOAD_TYPES or id(r) in judged or not isinstance(r.props, dict):
            continue
        if namespace is not None and namespace_of(r) not in (None, namespace):
            continue
        for path, _spec in pod_specs(r):
            if selector_matches(selector, as_dict(_pod_metadata(r, path).get("labels")), plain=plain):
                return None
    return chosen


def _pool(resources: list[Resource], servers: list[Server], name: Any, namespace: Optional[str]) -> Optional[list[Server]]:
    """The servers an InferencePool of the files selects; None where no such pool is in the files."""
    for r in resources:
        group, kind = split_type(r.type)
        if kind != "InferencePool" or group not in _POOL_GROUPS or get(r.props, "metadata", "name") != name:
            continue
        if namespace is not None and namespace_of(r) not in (None, namespace):
            continue
        selector = get(r.props, "spec", "selector")
        if isinstance(selector, Mapping) and "matchLabels" in selector:
            return _selected(resources, servers, selector, namespace, plain=False)
        return _selected(resources, servers, selector, namespace, plain=True)
    return None


def _service(resources: list[Resource], servers: list[Server], name: Any, namespace: Optional[str]) -> Optional[list[Server]]:
    for r in resources:
        if split_type(r.type) != ("", "Service") or get(r.props, "metadata", "name") != name:
            continue
        if namespace is not None and namespace_of(r) not in (None, namespace):
            continue
        return _selected(resources, servers, get(r.props, "spec", "selector"), namespace, plain=True)
    return None


def _ai_backend(resources: list[Resource], servers: list[Server], name: Any, namespace: Optional[str]) -> Optional[list[Server]]:
    """The servers an AIServiceBackend reaches: its backendRef, an Envoy Gateway Backend (fqdn endpoints naming an
    in-cluster Service) or a Service."""
    for r in resources:
        if split_type(r.type) != ("aigateway.envoyproxy.io", "AIServiceBackend") or get(r.props, "metadata", "name") != name:
            continue
        if namespace is not None and namespace_of(r) not in (None, namespace):
            continue
        ref = as_dict(get(r.props, "spec", "backendRef"))
        ref_ns = ref.get("namespace") if isinstance(ref.get("namespace"), str) else namespace_of(r)
        if ref.get("kind") in (None, "Service"):
            return _service(resources, servers, ref.get("name"), ref_ns)
        if ref.get("kind") != "Backend":
            return None
        return _backend(resources, servers, ref.get("name"), ref_ns)
    return None


def _backend(resources: list[Resource], servers: list[Server], name: Any, namespace: Optional[str]) -> Optional[list[Server]]:
    for r in resources:
        if split_type(r.type) != ("gateway.envoyproxy.io", "Backend") or get(r.props, "metadata", "name") != name:
            continue
        if namespace is not None and namespace_of(r) not in (None, namespace):
            continue
        reached: list[Server] = []
        for endpoint in as_list(get(r.props, "spec", "endpoints")):
            host = get(endpoint, "fqdn", "hostname")
            if not isinstance(host, str):
                return None
            svc, svc_ns = cluster_service(host)
            found = _service(resources, servers, svc, svc_ns or namespace) if svc else None
            if found is None:
                return None
            reached += found
        return reached or None
    return None


def _judge(route: ModelRoute, name: str, reached: Optional[list[Server]], where: str) -> Optional[tuple[str, str]]:
    """(level, message) when every server reached shows its names and none serves ``name``."""
    if not reached or any(s[3] is None for s in reached):
        return None
    names = frozenset().union(*(s[3] or frozenset() for s in reached))
    if name in names:
        return None
    return "mandatory", _finding(route, name, names, where)


def _pool_rewritten(resources: list[Resource], name: Any, namespace: Optional[str]) -> bool:
    """Whether the files may rewrite the model name on the way to a pool: an InferenceModel on it (its targetModels;
    S65 judges that object itself) or any object of the namespace naming the endpoint picker's rewrite header or a
    rewrite kind (gateway-api-inference-extension v1.0.0 pkg/epp/metadata/consts.go:33-34)."""
    for r in resources:
        kind = split_type(r.type)[1]
        if namespace is not None and namespace_of(r) not in (None, namespace):
            continue
        if kind == "InferenceModel" and get(r.props, "spec", "poolRef", "name") == name:
            return True
        if "Rewrite" in kind:
            return True
        if kind == "ConfigMap" and "rewrite" in str(get(r.props, "data")).lower():
            return True
    return False


def _header_rule(
    resources: list[Resource], servers: list[Server], route: Resource, table: ModelRoute
) -> Iterator[tuple[Resource, str, str]]:
    """An AIGatewayRoute (x-ai-eg-model) or Gateway API HTTPRoute (X-Gateway-Model-Name, filled by body-based routing)
    rule matching the model header exactly, judged against every backend it sends to."""
    namespace = namespace_of(route)
    for i, rule in enumerate(as_list(get(route.props, "spec", "rules"))):
        models = set()
        for match in as_list(get(rule, "matches")):
            for header in as_list(get(match, "headers")):
                if str(get(header, "name") or "").lower() != table.key or get(header, "type") not in (None, "Exact"):
                    continue
                if isinstance(value := get(header, "value"), str) and value:
                    models.add(value)
        if not models:
            continue
        if table is _BBR and _BBR.rewrite in str(get(rule, "filters")).lower():
            continue  # the rule sets the endpoint picker's rewrite header
        # Every backend the rule sends to must be read and none may serve the name: a split or a fallback (Envoy AI
        # Gateway backendRefs[].priority, envoyproxy/ai-gateway@v1.1.0 api/v1alpha1/ai_gateway_route.go:387-397) to a
        # backend that serves it fails only part of the traffic, or none. A ref of weight 0 gets no traffic.
        sends: list[tuple[Any, Optional[list[Server]], Any]] = []
        for ref in as_list(get(rule, "backendRefs")):
            group, kind = get(ref, "group"), get(ref, "kind")
            ref_ns = get(ref, "namespace") if isinstance(get(ref, "namespace"), str) else namespace
            if get(ref, "weight") == 0:
                continue
            override = None
            if kind == "InferencePool" or group in _POOL_GROUPS:
                reached = (
                    None
                    if _pool_rewritten(resources, get(ref, "name"), ref_ns)
                    else _pool(resources, servers, get(ref, "name"), ref_ns)
                )
            elif table is _AIGW:
                reached = _ai_backend(resources, servers, get(ref, "name"), ref_ns)
                override = get(ref, _AIGW.rewrite)
            elif kind in (None, "Service") and group in (None, ""):
                reached = _service(resources, servers, get(ref, "name"), ref_ns)
            else:
                reached = None
            sends.append((get(ref, "name"), reached, override))
        if not sends:
            continue
        for model in sorted(models):
            found = []
            for backend, reached, override in sends:
                sent = override if isinstance(override, str) and override else model
                found.append(_judge(table, sent, reached, f"rules[{i}] ({table.key}: {model}, backend {backend})"))
            if all(found):
                for level, message in (f for f in found if f):
                    yield route, level, message


def _inference_model(resources: list[Resource], servers: list[Server], model: Resource) -> Iterator[tuple[Resource, str, str]]:
    spec = as_dict(get(model.props, "spec"))
    name = spec.get("modelName")
    if not isinstance(name, str) or not name:
        return
    reached = _pool(resources, servers, get(spec, "poolRef", "name"), namespace_of(model))
    targets = [get(t, "name") for t in as_list(spec.get("targetModels")) if get(t, "weight") != 0]
    targets = [t for t in targets if isinstance(t, str) and t] or ([name] if not spec.get("targetModels") else [])
    judged = [_judge(_IM, t, reached, f"modelName {name}" + (f" (target {t})" if t != name else "")) for t in targets]
    if judged and all(judged):  # a split where some target is served fails only part of the traffic: not proven here
        for level, message in (j for j in judged if j):
            yield model, level, message


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    # Cheap prefilter: a vLLM workload, then the router objects or the AIBrix key somewhere in a pod template.
    routes = [r for r in resources if split_type(r.type)[1] in ("AIGatewayRoute", "InferenceModel", "HTTPRoute")]
    servers = _servers(resources) if routes or any(r.type in WORKLOAD_TYPES for r in resources) else []
    if not servers:
        return []
    out: list[tuple[str, str]] = [(r.name, m) for r, m in _aibrix(servers)]
    for route in routes:
        group, kind = split_type(route.type)
        if (group, kind) in _AIGW.kinds:
            found = list(_header_rule(resources, servers, route, _AIGW))
        elif (group, kind) in _BBR.kinds:
            found = list(_header_rule(resources, servers, route, _BBR))
        elif (group, kind) in _IM.kinds:
            found = list(_inference_model(resources, servers, route))
        else:
            continue
        out += [(r.name, m) for r, _level, m in found]
    return out


POLICY = Policy(
    name="route-model-served",
    description=(
        "A router or gateway that picks a model server by the request's model name (AIBrix pod label, Envoy AI Gateway "
        "x-ai-eg-model rule, HTTPRoute on X-Gateway-Model-Name, InferenceModel) routes each name to a vLLM server of the files that serves it."
    ),
    catalog="S65",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Name the route (label, header match, modelName) with a name the server serves, rewrite it to one "
        "(modelNameOverride, targetModels), or give the server --served-model-name with the route's name (it takes several)."
    ),
    check_stack=_check,
    rationale=(
        "vllm-project/aibrix@v0.7.0 pkg/cache/informers.go:104-117 and pkg/plugins/gateway/gateway_req_body.go:210-217; "
        "envoyproxy/ai-gateway@v1.1.0 api/v1alpha1/ai_gateway_route.go:84-86, :355-358; "
        "kubernetes-sigs/gateway-api-inference-extension@v0.5.1 api/v1alpha2/inferencemodel_types.go:66-104, "
        "pkg/epp/requestcontrol/director.go:113-119; vllm-project/vllm serving.py check_model (404 for a name not served)."
    ),
)
