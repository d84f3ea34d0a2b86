"""Read the request path's timeouts from Kubernetes objects as policies see them.

The ALB's idle timeout and target-group drain (AWS Load Balancer Controller annotations), Istio
VirtualService routes and DestinationRule pools, Gateway API HTTPRoutes, KServe's
``spec.predictor.timeout``, and a vLLM container's keep-alive and drain. Defaults that apply
when a field is unset are the documented ones (ELBv2 API, Envoy RouteAction, kserve/kserve v0.20.0, vllm-project/vllm v0.33.0).
Every reader tolerates odd input and returns None where a value cannot be read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

from components.edge_timeouts import default_seconds
from policies.kube import annotations_of, as_dict, as_float, as_int, as_list, get, memoized, split_type

ALB = "alb.ingress.kubernetes.io"
ALB_IDLE_DEFAULT = default_seconds("alb")  # ELBv2 idle_timeout.timeout_seconds default (components/edge_timeouts.toml)
DEREGISTRATION_DEFAULT = 300  # ELBv2 deregistration_delay.timeout_seconds default
ENVOY_ROUTE_DEFAULT = default_seconds("envoy-route")  # Envoy RouteAction.timeout; Envoy Gateway's HTTPRequestTimeout
KSERVE_HTTPROUTE_DEFAULT = default_seconds("kserve-httproute")  # KServe's HTTPRoute DefaultTimeout (kserve/kserve v0.20.0)
ENVOY_UPSTREAM_IDLE_DEFAULT = 3600  # Envoy connection idle_timeout (DestinationRule unset)
VLLM_KEEP_ALIVE_DEFAULT = 5  # VLLM_HTTP_TIMEOUT_KEEP_ALIVE
KEEP_ALIVE_ENV = "VLLM_HTTP_TIMEOUT_KEEP_ALIVE"

INGRESS_TYPES = (
    "kubernetes:networking.k8s.io/v1:Ingress",
    "kubernetes:extensions/v1beta1:Ingress",
    "kubernetes:networking.k8s.io/v1beta1:Ingress",
)
VS_TYPES = tuple(f"kubernetes:networking.istio.io/{v}:VirtualService" for v in ("v1", "v1beta1", "v1alpha3"))
DR_TYPES = tuple(f"kubernetes:networking.istio.io/{v}:DestinationRule" for v in ("v1", "v1beta1", "v1alpha3"))
HTTPROUTE_TYPES = ("kubernetes:gateway.networking.k8s.io/v1:HTTPRoute", "kubernetes:gateway.networking.k8s.io/v1beta1:HTTPRoute")

_DURATION = re.compile(r"^(\d+(?:\.\d+)?)(ms|s|m|h)$")
_UNIT = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}


def duration_seconds(value: Any) -> Optional[float]:
    """A protobuf/Gateway API duration ("300s", "5m", "1h30m", "500ms") in seconds; None if unreadable."""
    if not isinstance(value, str) or not value:
        return None
    total, rest = 0.0, value.strip()
    for match in re.finditer(r"(\d+(?:\.\d+)?)(ms|s|m|h)", rest):
        total += float(match[1]) * _UNIT[match[2]]
    if re.sub(r"(\d+(?:\.\d+)?)(ms|s|m|h)", "", rest):
        return None
    return total


def fmt(seconds: float) -> str:
    """600.0 -> "600s"."""
    return f"{int(seconds)}s" if float(seconds).is_integer() else f"{seconds:g}s"


def is_alb_ingress(resource: Any) -> bool:
    """An Ingress the AWS Load Balancer Controller serves (class alb, by field or legacy annotation)."""
    if resource.type not in INGRESS_TYPES:
        return False
    return (
        get(resource.props, "spec", "ingressClassName") == "alb"
        or annotations_of(resource.props).get("kubernetes.io/ingress.class") == "alb"
    )


def _attributes(resource: Any, key: str) -> dict[str, str]:
    text = annotations_of(resource.props).get(f"{ALB}/{key}")
    if not isinstance(text, str):
        return {}
    pairs = (kv.split("=", 1) for kv in text.split(",") if "=" in kv)
    return {k.strip(): v.strip() for k, v in pairs}


def alb_idle_seconds(resource: Any) -> tuple[float, bool]:
    """(idle timeout, explicitly set) of an ALB Ingress; the ELBv2 default when unset."""
    value = as_float(_attributes(resource, "load-balancer-attributes").get("idle_timeout.timeout_seconds"))
    return (value, True) if value is not None else (float(ALB_IDLE_DEFAULT), False)


def alb_deregistration_seconds(resource: Any) -> tuple[float, bool]:
    """(target-group deregistration delay, explicitly set) of an ALB Ingress; the default when unset."""
    value = as_float(_attributes(resource, "target-group-attributes").get("deregistration_delay.timeout_seconds"))
    return (value, True) if value is not None else (float(DEREGISTRATION_DEFAULT), False)


def ingress_backends(resource: Any) -> list[str]:
    """Service names an Ingress sends to."""
    # Asked for every Ingress once per workload by two policies: read once per evaluation.
    return list(memoized(resource, "ingress_backends", _ingress_backends))


def _ingress_backends(resource: Any) -> list[str]:
    names = []
    spec = get(resource.props, "spec")
    for backend in [get(spec, "defaultBackend")] + [
        get(p, "backend") for r in as_list(get(spec, "rules")) for p in as_list(get(r, "http", "paths"))
    ]:
        name = get(backend, "service", "name") or get(backend, "serviceName")
        if isinstance(name, str):
            names.append(name)
    return names


def service_of_host(host: Any) -> Optional[str]:
    """The Service name in a mesh host ("chat-8b-predictor.llm.svc.cluster.local" -> "chat-8b-predictor")."""
    return host.split(".", 1)[0] if isinstance(host, str) and host else None


@dataclass(frozen=True)
class Route:
    """One HTTP route of a VirtualService or HTTPRoute: where it goes and its timeouts (None: unset)."""

    label: str
    services: tuple[str, ...]
    timeout: Optional[float]
    per_try: Optional[float]
    retry_on: Optional[str]
    attempts: Optional[int]
    # Gateway API Inference Extension InferencePools the route sends to: model servers by definition.
    inference_pools: tuple[str, ...] = ()


def vs_routes(resource: Any) -> list[Route]:
    """The http routes of a VirtualService."""
    found = []
    for i, http in enumerate(as_list(get(resource.props, "spec", "http"))):
        if not isinstance(http, Mapping):
            continue
        services = tuple(s for s in (service_of_host(get(d, "destination", "host")) for d in as_list(http.get("route"))) if s)
        raw_retries = http.get("retries")
        retries: Mapping = raw_retries if isinstance(raw_retries, Mapping) else {}
        name = http.get("name")
        found.append(
            Route(
                label=f"spec.http[{i}]" + (f" ({name})" if isinstance(name, str) else ""),
                services=services,
                timeout=duration_seconds(http.get("timeout")),
                per_try=duration_seconds(retries.get("perTryTimeout")),
                retry_on=retry_on if isinstance(retry_on := retries.get("retryOn"), str) else None,
                attempts=as_int(retries.get("attempts")),
            )
        )
    return found


def httproute_routes(resource: Any) -> list[Route]:
    """The rules of a Gateway API HTTPRoute (timeouts.request / backendRequest)."""
    found = []
    for i, rule in enumerate(as_list(get(resource.props, "spec", "rules"))):
        if not isinstance(rule, Mapping):
            continue
        refs = [as_dict(b) for b in as_list(rule.get("backendRefs"))]
        pools = tuple(b["name"] for b in refs if b.get("kind") == "InferencePool" and isinstance(b.get("name"), str))
        services = tuple(b["name"] for b in refs if b.get("kind", "Service") == "Service" and isinstance(b.get("name"), str))
        found.append(
            Route(
                label=f"spec.rules[{i}]",
                services=services,
                timeout=duration_seconds(get(rule, "timeouts", "request")),
                per_try=duration_seconds(get(rule, "timeouts", "backendRequest")),
                retry_on=None,
                attempts=None,
                inference_pools=pools,
            )
        )
    return found


def dr_upstream_idle(resource: Any) -> tuple[Optional[str], float, bool]:
    """(Service, upstream idle timeout, explicitly set) of a DestinationRule; Envoy's 1 h when unset."""
    spec = get(resource.props, "spec")
    value = duration_seconds(get(spec, "trafficPolicy", "connectionPool", "http", "idleTimeout"))
    service = service_of_host(get(spec, "host"))
    return (service, value, True) if value is not None else (service, float(ENVOY_UPSTREAM_IDLE_DEFAULT), False)


def env_value(container: Mapping, name: str) -> Any:
    """A literal env value of a container (None when unset or from a reference)."""
    for entry in as_list(container.get("env")):
        if isinstance(entry, Mapping) and entry.get("name") == name:
            return entry.get("value")
    return None


def keep_alive_seconds(container: Mapping) -> tuple[float, bool]:
    """(vLLM's keep-alive, explicitly set); 5 s when VLLM_HTTP_TIMEOUT_KEEP_ALIVE is unset."""
    value = as_float(env_value(container, KEEP_ALIVE_ENV))
    return (value, True) if value is not None else (float(VLLM_KEEP_ALIVE_DEFAULT), False)


def workload_services(resource: Any, service_selectors: Mapping[str, Mapping]) -> set[str]:
    """Service names that front a workload: KServe's "<name>-predictor", a RayCluster's head Service "<name>",
    and every Service whose selector matches the workload's pod labels."""
    from policies.reading.serving import pod_labels, selector_matches

    name = get(resource.props, "metadata", "name")
    out: set[str] = set()
    group, kind = split_type(resource.type)
    if isinstance(name, str):
        if kind == "InferenceService":
            out |= {f"{name}-predictor", name}
        elif group == "ray.io":
            out.add(name)
    labels = pod_labels(resource)
    for service, selector in service_selectors.items():
        if any(selector_matches(selector, lab, plain=True) for lab in labels):
            out.add(service)
    return out


# Pod labels whose value names the app, as Services conventionally take it (the Kubernetes recommended labels,
# https://kubernetes.io/docs/concepts/overview/working-with-objects/common-labels/, and the bare ``app``), and the
# suffixes a Service's name adds to it ("vllm" -> "vllm-service").
_NAME_LABELS = ("app", "app.kubernetes.io/name", "app.kubernetes.io/instance")
_SERVICE_SUFFIXES = ("", "-service", "-svc")


def named_services(resource: Any, defined: Any) -> set[str]:
    """Service names a workload's own Service conventionally takes (its name or its pods' app-name label, bare or with
    -service / -svc) that no Service of the files (``defined``) holds: a proxy or Ingress sending to such a name sends
    to this workload's Service where the files leave the Service out (spent set 56 kk137/litellm-eks-public: Ingress
    litellm to Service litellm beside Deployment litellm; spent set 62 Pritiks23/Kubernetes-Request-Serving-2: an nginx
    to vllm-service beside Deployment vllm, no Service file)."""
    from policies.reading.serving import pod_labels

    found = [get(resource.props, "metadata", "name"), *(labels.get(k) for labels in pod_labels(resource) for k in _NAME_LABELS)]
    names = {f"{b}{suffix}" for b in found if isinstance(b, str) and b for suffix in _SERVICE_SUFFIXES}
    return names - set(defined)


def service_selectors(resources: list) -> dict[str, Mapping]:
    """Service name -> its selector, for every Service in the stack."""
    out = {}
    for r in resources:
        if split_type(r.type) == ("", "Service"):
            name, selector = get(r.props, "metadata", "name"), get(r.props, "spec", "selector")
            if isinstance(name, str) and isinstance(selector, Mapping) and selector:
                out[name] = selector
    return out
