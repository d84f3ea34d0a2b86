"""G65: an Istio ALLOW AuthorizationPolicy that means a path prefix writes it with a trailing ``*``.

Istio reads every string of an AuthorizationPolicy rule as an exact match unless it starts or ends with ``*``
(istio/api 1.29.0 security/v1beta1/authorization_policy.proto:383-388: "Exact match: `abc` will match on value `abc`.
Prefix match: `abc*` will match on value `abc` and `abcd`"); istiod builds the path's Envoy matcher the same way
(istio/istio 1.29.0 pilot/pkg/security/authz/model/generator.go:374-386 pathGenerator.permission ->
pilot/pkg/security/authz/matcher/header.go:93-99 PathMatcher -> matcher/string.go:99-117 StringMatcherWithPrefix:
a trailing ``*`` gives a prefix matcher, anything else StringMatcherExact). So ``paths: ["/vllm-serving/"]`` allows
the request for ``/vllm-serving/`` alone, never ``/vllm-serving/v1/completions``; and a workload with an ALLOW policy
denies every request no ALLOW policy matches (authorization_policy.proto:31-35). A path ending in ``/`` names a
folder: nobody means to allow only the folder's own URL.

Blocking when a route of the files (VirtualService ``uri.prefix``, HTTPRoute ``PathPrefix``, an Ingress path) sends
requests under that path, and no ALLOW rule of the files matches them (a rule with no operation paths, ``*``, or a
prefix covering them): the requests the policy exists to let through are denied (403 "RBAC: access denied"). The
route counts only when its path is the folder or below it (``/static-llm`` is not under ``/static/``) and it reaches
a workload the policy governs: the policy's namespace or the root namespace istio-system, and its selector (or
targetRefs Gateway) matching the backend Service's pods or, for a Gateway-bound route, the gateway's pods (istio/api
1.29.0 authorization_policy.proto: selector "the workloads on which this authorization policy is applied"). Advice
when no route of the files shows such requests (review 43 item 5). Set 39 prokube/vllm-serving helm-example/admin/
istio-ingressgateway-allow-vllm-serving-authpolicy.yaml (labelled with no catalogue row, blocking).
"""

from __future__ import annotations

from typing import Any, Iterator, Optional

from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, as_list, get, split_type

_POLICY = ("security.istio.io", "AuthorizationPolicy")


def _allow_policies(resources: list[Resource]) -> list[Resource]:
    return [
        r
        for r in resources
        if split_type(r.type) == _POLICY and str(get(r.props, "spec", "action") or "ALLOW").upper() == "ALLOW"
    ]


def _operations(rule: Any) -> Iterator[tuple[int, dict]]:
    for j, to in enumerate(as_list(as_dict(rule).get("to"))):
        yield j, as_dict(as_dict(to).get("operation"))


def _folder_paths(policy: Resource) -> Iterator[tuple[str, str]]:
    """(field, value) of every operation path that ends in ``/`` with no wildcard or template: an exact match."""
    for i, rule in enumerate(as_list(get(policy.props, "spec", "rules"))):
        for j, operation in _operations(rule):
            for k, value in enumerate(as_list(operation.get("paths"))):
                if isinstance(value, str) and len(value) > 1 and value.endswith("/") and not set(value) & set("*{"):
                    yield f"spec.rules[{i}].to[{j}].operation.paths[{k}]", value


def _allows_under(rule: Any, folder: str) -> bool:
    """True when an ALLOW rule may match a request under ``folder`` (its from/when conditions aside)."""
    operations = [op for _, op in _operations(rule)]
    if not as_dict(rule).get("to"):
        return True
    probe = folder + "v1/x"
    for op in operations:
        paths = [p for p in as_list(op.get("paths")) if isinstance(p, str)]
        if not paths:
            return True
        for p in paths:
            if p == "*" or p == probe or (p.endswith("*") and probe.startswith(p[:-1])) or "{" in p:
                return True
    return False


_ROOT = "istio-system"  # Istio's default root namespace: a policy there applies mesh-wide
_GATEWAY_NAME = "gateway.networking.k8s.io/gateway-name"


def _namespace(r: Any, default: str = "default") -> str:
    value = get(r.props, "metadata", "namespace")
    return value if isinstance(value, str) and value else default


def _route_prefixes(resources: list[Resource]) -> Iterator[tuple[str, str, Resource]]:
    """(object label, prefix, route object) of every route of the files that sends a path prefix somewhere."""
    for r in resources:
        group, kind = split_type(r.type)
        label = f"{kind}/{get(r.props, 'metadata', 'name')}"
        if kind == "VirtualService" and group == "networking.istio.io":
            for http in as_list(get(r.props, "spec", "http")):
                for match in as_list(as_dict(http).get("match")):
                    if isinstance(prefix := get(match, "uri", "prefix"), str):
                        yield label, prefix, r
        elif kind == "HTTPRoute":
            for rule in as_list(get(r.props, "spec", "rules")):
                for match in as_list(as_dict(rule).get("matches")):
                    path = as_dict(as_dict(match).get("path"))
                    if path.get("type", "PathPrefix") == "PathPrefix" and isinstance(path.get("value"), str):
                        yield label, path["value"], r
        elif kind == "Ingress" and group == "networking.k8s.io":
            for rule in as_list(get(r.props, "spec", "rules")):
                for path in as_list(get(rule, "http", "paths")):
                    path = as_dict(path)
                    if path.get("pathType") != "Exact" and isinstance(path.get("path"), str):
                        yield label, path["path"], r


def _under(prefix: str, folder: str) -> bool:
    """True when a route prefix sends requests under ``folder`` (the folder itself or below it; /static-llm is not
    under /static/)."""
    return prefix.rstrip("/") == folder.rstrip("/") or prefix.startswith(folder)


def _backends(route: Resource) -> Iterator[tuple[str, str]]:
    """(namespace, Service name) of every backend the route sends to."""
    own = _namespace(route)
    kind = split_type(route.type)[1]
    if kind == "VirtualService":
        for http in as_list(get(route.props, "spec", "http")):
            for dest in as_list(as_dict(http).get("route")):
                host = get(dest, "destination", "host")
                if isinstance(host, str) and host:
                    labels = host.split(".")
                    yield (labels[1] if len(labels) > 1 else own), labels[0]
    elif kind == "HTTPRoute":
        for rule in as_list(get(route.props, "spec", "rules")):
            for ref in (as_dict(x) for x in as_list(as_dict(rule).get("backendRefs"))):
                if isinstance(ref.get("name"), str) and ref.get("kind", "Service") == "Service":
                    yield str(ref.get("namespace") or own), ref["name"]
    else:
        for rule in as_list(get(route.props, "spec", "rules")):
            for path in as_list(get(rule, "http", "paths")):
                name = get(path, "backend", "service", "name")
                if isinstance(name, str):
                    yield own, name


def _gateway_labels(route: Resource, resources: list[Resource]) -> list[tuple[dict, Optional[str]]]:
    """(labels, namespace or None when unknown) of the gateway pods a Gateway-bound route passes through: an Istio
    Gateway's spec.selector (found in the files; its pods may run in any namespace), the Gateway API's gateway-name
    label (pods in the Gateway's namespace), or the default ingress gateway's labels in istio-system when the Gateway
    is not in the files."""
    kind = split_type(route.type)[1]
    default = ({"app": "istio-ingressgateway", "istio": "ingressgateway"}, _ROOT)
    found: list[tuple[dict, Optional[str]]] = []
    if kind == "VirtualService":
        for ref in (g for g in as_list(get(route.props, "spec", "gateways")) if isinstance(g, str) and g != "mesh"):
            name = ref.split("/")[-1]
            shown: list[tuple[dict, Optional[str]]] = [
                (as_dict(get(r.props, "spec", "selector")), None)
                for r in resources
                if split_type(r.type) == ("networking.istio.io", "Gateway") and get(r.props, "metadata", "name") == name
            ]
            found += shown or [default]
    elif kind == "HTTPRoute":
        for parent_ref in (as_dict(x) for x in as_list(get(route.props, "spec", "parentRefs"))):
            parent = parent_ref.get("name")
            if isinstance(parent, str):
                found.append(({_GATEWAY_NAME: parent}, str(parent_ref.get("namespace") or _namespace(route))))
    elif get(route.props, "spec", "ingressClassName") == "istio":
        found.append(default)
    return found


def _service_labels(namespace: str, name: str, resources: list[Resource]) -> list[dict]:
    """The label sets of the pods behind a Service of the files (its selector, and the pod templates it selects)."""
    for r in resources:
        if split_type(r.type) == ("", "Service") and get(r.props, "metadata", "name") == name and _namespace(r) == namespace:
            selector = as_dict(get(r.props, "spec", "selector"))
            pods = [
                labels
                for w in resources
                if _namespace(w) == namespace
                for labels in [as_dict(get(w.props, "spec", "template", "metadata", "labels"))]
                if selector and all(labels.get(k) == v for k, v in selector.items())
            ]
            return [selector, *pods] if selector else []
    return []


def _governs(policy: Resource, labels: dict, namespace: Optional[str], gateway_name: Optional[str] = None) -> bool:
    """Whether the policy applies to pods with ``labels`` in ``namespace`` (None: the gateway's, unknown here)."""
    own = _namespace(policy)
    if own != _ROOT and namespace is not None and own != namespace:
        return False
    targets = [
        as_dict(t)
        for t in as_list(get(policy.props, "spec", "targetRefs")) + as_list([get(policy.props, "spec", "targetRef")])
        if t
    ]
    if targets:
        return gateway_name is not None and any(t.get("kind") == "Gateway" and t.get("name") == gateway_name for t in targets)
    selector = as_dict(get(policy.props, "spec", "selector", "matchLabels"))
    if not selector:
        return own == _ROOT or namespace is not None
    return all(labels.get(k) == v for k, v in selector.items())


def _reaches(policy: Resource, route: Resource, resources: list[Resource]) -> bool:
    """Whether the route's requests reach a workload the policy applies to: its backends' pods, or its gateway."""
    for namespace, name in _backends(route):
        if any(_governs(policy, labels, namespace) for labels in _service_labels(namespace, name, resources)):
            return True
    for labels, where in _gateway_labels(route, resources):
        if _governs(policy, labels, where, labels.get(_GATEWAY_NAME)):
            return True
    return False


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    allows = _allow_policies(resources)
    if not allows:
        return []
    rules = [rule for p in allows for rule in as_list(get(p.props, "spec", "rules"))]
    routes = list(_route_prefixes(resources))
    findings: list[tuple[str, str]] = []
    for policy in allows:
        for field, folder in _folder_paths(policy):
            if any(_allows_under(rule, folder) for rule in rules):
                continue
            message = (
                f"{field} {folder!r} is an exact match in Istio (only a leading or trailing '*' makes a suffix or "
                f"prefix match), so this ALLOW policy lets through the request for {folder} alone, not "
                f"{folder}v1/...; a workload with an ALLOW policy denies every request none matches (403 RBAC: access "
                f"denied); write {folder + '*'!r}"
            )
            shown = next(
                (
                    f"{label} routes prefix {p}"
                    for label, p, route in routes
                    if _under(p, folder) and _reaches(policy, route, resources)
                ),
                None,
            )
            if shown is not None:
                findings.append((policy.name, f"{message} ({shown} there)"))
            else:
                findings.append(
                    (
                        policy.name,
                        unproven(f"{message} (no route of these files shows requests under it to a workload it governs)"),
                    )
                )
    return findings


POLICY = Policy(
    name="istio-allow-path-prefix",
    description="An Istio ALLOW AuthorizationPolicy writes a path prefix with a trailing '*' (a path ending in '/' is exact).",
    catalog="G65",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Write the prefix with a trailing '*' (paths: ['/vllm-serving/*']), or list each exact path the clients call."
    ),
    check_stack=_check,
    rationale=(
        "Istio matches an AuthorizationPolicy path exactly unless it starts or ends with '*' (istio/api 1.29.0 "
        "security/v1beta1/authorization_policy.proto:383-388; istio/istio 1.29.0 pilot/pkg/security/authz/matcher/"
        "string.go:99-117), and a workload with an ALLOW policy denies what no ALLOW policy matches "
        "(authorization_policy.proto:31-35). Blocking when a route of the files sends requests under the path."
    ),
)
