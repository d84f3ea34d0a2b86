"""What authenticates callers at a Gateway or route, from policies attached to it in the files (catalogue row G32;
read by policies/reading/exposure.py for every Gateway API and Istio edge, a chart release's rendered route included).

- Envoy Gateway ``SecurityPolicy`` with apiKeyAuth, basicAuth, jwt, oidc, extAuth or authorization (envoyproxy/gateway
  v1.9.0 ``api/v1alpha1/securitypolicy_types.go:66-110``) targeting the Gateway or the route;
- Kuadrant ``AuthPolicy`` targeting either;
- kgateway ``TrafficPolicy`` with extAuth/jwt/basicAuth/apiKeyAuthentication targeting either;
- an Istio ``RequestAuthentication`` or ``AuthorizationPolicy`` of the files (mesh-wide or not: its selector is not
  matched here).

A policy attaching by ``targetSelectors`` counts (its labels cannot be matched against objects here). Pure: takes a
``kind(group, kind)`` lookup over the objects of one evaluation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Optional

from policies.kube import as_dict, as_list, get

ENVOY_AUTH = ("apiKeyAuth", "basicAuth", "jwt", "oidc", "extAuth", "authorization")
KGATEWAY_AUTH = ("extAuth", "jwt", "jwtAuth", "basicAuth", "apiKeyAuthentication", "apiKeyAuth")

Lookup = Callable[[str, str], list]


def _name(r: Any) -> Any:
    return get(r.props, "metadata", "name")


def targets(policy: Any, wanted: set[tuple[str, Any]]) -> bool:
    """Whether a policy attachment targets one of (kind, name); targetSelectors count (they cannot be judged here)."""
    spec = as_dict(get(policy.props, "spec"))
    if spec.get("targetSelectors"):
        return True
    refs = [as_dict(spec.get("targetRef"))] + [as_dict(r) for r in as_list(spec.get("targetRefs"))]
    return any((r.get("kind"), r.get("name")) in wanted for r in refs)


def attached_guard(wanted: set[tuple[str, Any]], kind: Lookup) -> Optional[str]:
    """The first policy of the files that authenticates callers of one of the (kind, name) objects, or None."""
    for sp in kind("gateway.envoyproxy.io", "SecurityPolicy"):
        spec = as_dict(get(sp.props, "spec"))
        if targets(sp, wanted) and any(spec.get(k) for k in ENVOY_AUTH):
            return f"SecurityPolicy {_name(sp)}"
    for ap in kind("kuadrant.io", "AuthPolicy"):
        if targets(ap, wanted):
            return f"AuthPolicy {_name(ap)}"
    for tp in kind("gateway.kgateway.dev", "TrafficPolicy"):
        if targets(tp, wanted) and any(as_dict(get(tp.props, "spec")).get(k) for k in KGATEWAY_AUTH):
            return f"TrafficPolicy {_name(tp)}"
    return istio_guard(kind)


def istio_guard(kind: Lookup) -> Optional[str]:
    """An Istio RequestAuthentication or AuthorizationPolicy of the files, or None."""
    for name in ("RequestAuthentication", "AuthorizationPolicy"):
        found = kind("security.istio.io", name)
        if found:
            return f"Istio {name} {_name(found[0])}"
    return None
