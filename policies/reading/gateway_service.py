"""What the files say of the load-balancer Service a Gateway API implementation generates for a Gateway (read by
policies/reading/exposure.py for G32): an Istio parametersRef ConfigMap overlay, an Envoy Gateway EnvoyProxy's
``envoyService``, the Gateway's ``spec.infrastructure.annotations``; whether TLS ends at that load balancer and
whether it admits only a narrow source range."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Optional

import yaml

from components.aws_ids import sources_too_wide
from policies.kube import annotations_of, as_dict, as_list, get

GATEWAY_API = "gateway.networking.k8s.io"

# (group, kind, name) -> the object of the set, or None.
Named = Callable[[str, str, Any], Any]


def parameters_ref(gw: Any, gc: Any) -> dict:
    """The parametersRef that configures a Gateway's infrastructure: the Gateway's ``spec.infrastructure``, else its
    GatewayClass's (``gc``, None when not in the set); {} when neither names one."""
    return as_dict(get(gw.props, "spec", "infrastructure", "parametersRef")) or (
        as_dict(get(gc.props, "spec", "parametersRef")) if gc is not None else {}
    )


def istio_overlay(gw: Any, gc: Any, named: Named) -> Optional[tuple[str, Optional[Mapping]]]:
    """The Service overlay an Istio Gateway's (or its GatewayClass's) parametersRef names: ("ConfigMap name", its
    ``service`` key read as YAML, {} when it has none, None when the ConfigMap is not in the set or unreadable); None
    when there is no parametersRef. Istio merges that ConfigMap's ``service`` key over the Service it generates
    (istio 1.30.3 pilot/pkg/config/kube/gatewaycommon/deploymentcontroller.go:765-766 reads
    ``gw.Spec.Infrastructure.ParametersRef``, :625 "parametersRef targeting configmap")."""
    ref = parameters_ref(gw, gc)
    if not ref:
        return None
    label = f"{ref.get('kind') or 'parametersRef'} {ref.get('name')}"
    found = named("", "ConfigMap", ref.get("name")) if ref.get("kind") == "ConfigMap" else None
    if found is None:
        return label, None
    text = get(found.props, "data", "service")
    if text is None:
        return label, {}
    try:
        service = yaml.safe_load(str(text))
    except yaml.YAMLError:
        return label, None
    return label, service if isinstance(service, Mapping) else None


def _lb_service(gw: Any, named: Named) -> list[Mapping]:
    """What the files say of a Gateway's generated load-balancer Service, as Service-shaped mappings: the Gateway's
    ``spec.infrastructure.annotations`` (Gateway API: copied onto the resources the implementation creates), an
    Envoy Gateway EnvoyProxy's ``envoyService`` and an Istio parametersRef ConfigMap's ``service`` overlay."""
    out: list[Mapping] = [{"metadata": {"annotations": as_dict(get(gw.props, "spec", "infrastructure", "annotations"))}}]
    klass = get(gw.props, "spec", "gatewayClassName")
    gc = named(GATEWAY_API, "GatewayClass", klass)
    ref = parameters_ref(gw, gc)
    if ref.get("kind") == "EnvoyProxy":
        proxy = named("gateway.envoyproxy.io", "EnvoyProxy", ref.get("name"))
        service = as_dict(get(proxy.props, "spec", "provider", "kubernetes", "envoyService")) if proxy is not None else {}
        out.append({"metadata": {"annotations": as_dict(service.get("annotations"))}, "spec": service})
    overlay = istio_overlay(gw, gc, named)
    if overlay is not None and overlay[1]:
        out.append(overlay[1])
    return out


# The AWS Load Balancer Controller's TLS listener annotations: with ssl-cert set, the ports named in ssl-ports (all
# when absent) terminate TLS at the NLB (https://kubernetes-sigs.github.io/aws-load-balancer-controller/v2.13/guide/
# service/annotations/#ssl-cert, #ssl-ports: "Defaults to '*'").
AWS_SSL_CERT = "service.beta.kubernetes.io/aws-load-balancer-ssl-cert"
AWS_SSL_PORTS = "service.beta.kubernetes.io/aws-load-balancer-ssl-ports"


def lb_tls(gw: Any, named: Named, ports: list[Any]) -> bool:
    """Whether the Gateway's load balancer terminates TLS in front of every one of ``ports`` (listener ports)."""
    for service in _lb_service(gw, named):
        ann = annotations_of(service)
        if not str(ann.get(AWS_SSL_CERT, "")).strip():
            continue
        tls_ports = [p.strip() for p in str(ann.get(AWS_SSL_PORTS, "*")).split(",") if p.strip()]
        if "*" in tls_ports or (ports and all(str(p) in tls_ports for p in ports)):
            return True
    return False


def lb_source_guard(gw: Any, named: Named) -> Optional[str]:
    """A ``loadBalancerSourceRanges`` on the Gateway's load-balancer Service no wider than the ALB rule's bound (the
    same bound as the ingress-nginx allow-list in policies/reading/exposure.py): the cloud load balancer admits only those sources (Kubernetes
    ServiceSpec.loadBalancerSourceRanges; envoyproxy/gateway v1.9.0 api/v1alpha1/shared_types.go:358-364)."""
    for service in _lb_service(gw, named):
        ranges = narrow_source_ranges(service)
        if ranges:
            return f"loadBalancerSourceRanges {', '.join(ranges)}"
    return None


def narrow_source_ranges(service: Mapping) -> list[str]:
    """A Service's ``spec.loadBalancerSourceRanges`` when they are no wider than the ALB rule's bound
    (components/aws_ids.py sources_too_wide), else [] (none, or too wide to keep strangers out)."""
    ranges = [str(c).strip() for c in as_list(get(service, "spec", "loadBalancerSourceRanges")) if str(c).strip()]
    return ranges if ranges and sources_too_wide(ranges) is None else []
