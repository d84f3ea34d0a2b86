"""Manifests of the ingress path: ALB Ingress, Istio Gateway / VirtualService / DestinationRule, and the
Helm releases of the AWS Load Balancer Controller and Istio.

Pure functions from the ingress config and the models' capacity plans. Every timeout, retry,
keep-alive and drain number is read from each plan's timeout chain (components/timeouts.py);
nothing here invents one. Annotation names and ranges: kubernetes-sigs/aws-load-balancer-controller v3.5.0,
docs/guide/ingress/annotations.md; Istio field names: istio/istio 1.30.3,
manifests/charts/base/files/crd-all.gen.yaml.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence

from ..capacity.plan import ServingPlan
from ..config import LONG_CONTEXT_HEADER, LONG_CONTEXT_VALUE, IngressConfig, ModelConfig
from ..timeouts import (
    TCP_KEEPALIVE_INTERVAL_SECONDS,
    TCP_KEEPALIVE_PROBES,
    TCP_KEEPALIVE_TIME_SECONDS,
    shared_alb_idle,
)
from ..vllm_auth import EVERY_RELEASE, image_guarded_prefixes
from . import pod_identity
from .labels import recommended_labels

# The controller's IAM policy has a module of its own; callers read it from here as before.
from .lb_controller_iam import lb_controller_policy as lb_controller_policy
from .serving_backend import serving_backend

ALB = "alb.ingress.kubernetes.io"
INGRESS_CLASS = "alb"
# vLLM's health endpoint (200 when the engine is alive, 503 when it died: vllm-project/vllm v0.33.0 section 3).
HEALTH_PATH = "/health"
# The Istio ingress gateway (Helm chart "gateway"): release name, namespace, its pods' label, and the
# status port on which its readiness answers (chart values service.ports: status-port 15021).
GATEWAY_RELEASE = "istio-ingressgateway"
GATEWAY_NAMESPACE = "istio-ingress"
GATEWAY_SELECTOR = {"istio": "ingressgateway"}
GATEWAY_NAME = "llm-gateway"
GATEWAY_STATUS_PORT = 15021
GATEWAY_HEALTH_PATH = "/healthz/ready"
GATEWAY_HTTP_PORT = 80
ISTIO_SYSTEM = "istio-system"
LB_CONTROLLER_NAMESPACE = "kube-system"
LB_CONTROLLER_SERVICE_ACCOUNT = "aws-load-balancer-controller"
# The AWS Load Balancer Controller's pod webhook injects target-group readiness gates only in namespaces
# with this label (eks-charts stable/aws-load-balancer-controller/templates/webhook.yaml:31-34, chart 3.5.0).
READINESS_GATE_LABEL = {"elbv2.k8s.aws/pod-readiness-gate-inject": "enabled"}
# Share of the gateway's or an ejected pool's hosts outlier detection may eject at once.
MAX_EJECTION_PERCENT = 50
CONSECUTIVE_LOCAL_ORIGIN_FAILURES = 3


@dataclass(frozen=True)
class Chart:
    """A pinned Helm chart: its name, released version and repository."""

    name: str
    version: str
    repository: str


EKS_CHARTS = "https://aws.github.io/eks-charts"
ISTIO_CHARTS = "https://istio-release.storage.googleapis.com/charts"
LB_CONTROLLER = Chart(
    "aws-load-balancer-controller", "3.5.0", EKS_CHARTS
)  # controller v3.5.0 (aws-load-balancer-controller v3.5.0 docs/guide/ingress/annotations.md and the ELBv2 API)
ISTIO_BASE = Chart("base", "1.30.3", ISTIO_CHARTS)
ISTIOD = Chart("istiod", "1.30.3", ISTIO_CHARTS)
ISTIO_GATEWAY = Chart("gateway", "1.30.3", ISTIO_CHARTS)


def backend_of(m: ModelConfig) -> tuple[str, int]:
    """(Service name, port) that serves a model, as its serving back-end names it (components/backends/)."""
    return serving_backend(m).route_target(m)


def model_host(model: str, host: str) -> str:
    """The DNS name a model answers at."""
    return f"{model}.{host}"


def service_host(m: ModelConfig, namespace: str) -> str:
    """The cluster DNS name of the Service that serves a model."""
    return f"{backend_of(m)[0]}.{namespace}.svc.cluster.local"


def _secs(value: int) -> str:
    return f"{value}s"


def front_numbers(plans: Mapping[str, ServingPlan]) -> tuple[int, int]:
    """(ALB idle timeout, target group deregistration delay) of the one ALB in front of every model:
    the largest any model's chain needs."""
    chains = [p.timeouts for p in plans.values()]
    return shared_alb_idle(chains), max(c.deregistration_delay_seconds for c in chains)


def alb_annotations(cfg: IngressConfig, plans: Mapping[str, ServingPlan]) -> dict[str, str]:
    """The ALB's annotations: idle timeout and target-group drain from the chain, health check, TLS."""
    idle, deregistration = front_numbers(plans)
    istio = cfg.routing == "istio"
    ann = {
        f"{ALB}/scheme": cfg.scheme,
        # Pod IPs as targets: the ALB follows readiness directly, no NodePort hop (aws-load-balancer-controller v3.5.0 docs/guide/ingress/annotations.md and the ELBv2 API).
        f"{ALB}/target-type": "ip",
        f"{ALB}/load-balancer-attributes": f"idle_timeout.timeout_seconds={idle}",
        # A draining target keeps its in-flight streams; new requests go to the least busy target.
        f"{ALB}/target-group-attributes": (
            f"deregistration_delay.timeout_seconds={deregistration},load_balancing.algorithm.type=least_outstanding_requests"
        ),
        f"{ALB}/healthcheck-path": GATEWAY_HEALTH_PATH if istio else HEALTH_PATH,
        f"{ALB}/success-codes": "200",
    }
    if istio:
        # The gateway's readiness is on its status port, not on the traffic port.
        ann[f"{ALB}/healthcheck-port"] = str(GATEWAY_STATUS_PORT)
    if cfg.certificate_arn:
        ann[f"{ALB}/certificate-arn"] = cfg.certificate_arn
        ann[f"{ALB}/listen-ports"] = json.dumps([{"HTTP": 80}, {"HTTPS": 443}], separators=(",", ":"))
        ann[f"{ALB}/ssl-redirect"] = "443"
        # The controller's default (ELBSecurityPolicy-2016-08) still accepts TLS 1.0 (docs/edge.md).
        ann[f"{ALB}/ssl-policy"] = cfg.ssl_policy
    else:
        ann[f"{ALB}/listen-ports"] = json.dumps([{"HTTP": 80}], separators=(",", ":"))
    ann.update(edge_guards(cfg))
    return ann


def edge_guards(cfg: IngressConfig) -> dict[str, str]:
    """Who may reach the ALB: its security group's CIDRs and a WAFv2 web ACL (annotation names of controller v3.5.0)."""
    ann = {}
    if cfg.inbound_cidrs:
        # A stringList annotation: comma-separated (pkg/ingress/model_build_listener.go computeIngressExplicitInboundCIDRs).
        ann[f"{ALB}/inbound-cidrs"] = ",".join(cfg.inbound_cidrs)
    if cfg.waf_acl_arn:
        ann[f"{ALB}/wafv2-acl-arn"] = cfg.waf_acl_arn
    return ann


def _long_condition() -> str:
    """ALB rule condition (annotation conditions.<service>) that matches the long-context header."""
    return json.dumps(
        [{"field": "http-header", "httpHeaderConfig": {"httpHeaderName": LONG_CONTEXT_HEADER, "values": [LONG_CONTEXT_VALUE]}}],
        separators=(",", ":"),
    )


def route_paths(models: Sequence[ModelConfig], api_key: bool) -> tuple[str, ...]:
    """The path prefixes an edge forwards to ``models``: behind an API key, those the key guards in each model's
    vLLM release (components/vllm_auth.py, read in the wheels: /v1, /v2, /inference and /cohere in 0.33.0), so
    /invocations, /tokenize, /metrics and /health never leave the cluster; without a key, everything ("/").

    Several models share a prefix list only where each of their releases guards it (an unknown release: /v1).
    """
    if not api_key:
        return ("/",)
    sets = [set(image_guarded_prefixes(m.image)) for m in models] or [set(EVERY_RELEASE)]
    return tuple(sorted(set.intersection(*sets)))


def _backend(service: str, port: int) -> dict[str, Any]:
    return {"service": {"name": service, "port": {"number": port}}}


def alb_ingress(
    cfg: IngressConfig,
    models: Sequence[ModelConfig],
    plans: Mapping[str, ServingPlan],
    namespace: str,
    siblings: Mapping[str, str],
    api_key: bool = False,
) -> dict[str, Any]:
    """The ALB Ingress: per model a host rule to its predictor (direct) or one wildcard rule to the gateway (istio).

    ``siblings`` maps a long-context sibling's name to its model's; in direct mode the sibling's
    rule comes first under its model's host, matched by the ALB condition on the header. With
    ``api_key`` (the models require the stack's API key) the rules forward only the prefixes the key
    guards in the models' releases (``route_paths``).
    """
    ann = alb_annotations(cfg, plans)
    by_name = {x.name: x for x in models}
    labels = recommended_labels("llm-ingress", component="ingress")
    if cfg.routing == "istio":
        rules = [
            {
                "host": f"*.{cfg.host}",
                "http": {
                    "paths": [
                        {"path": path, "pathType": "Prefix", "backend": _backend(GATEWAY_RELEASE, GATEWAY_HTTP_PORT)}
                        # Each model's VirtualService narrows this to its own release's prefixes.
                        for path in sorted({p for m in models for p in route_paths([m], api_key)})
                    ]
                },
            }
        ]
        ns = GATEWAY_NAMESPACE
    else:
        rules = []
        for m in models:
            if m.name in siblings:
                continue
            paths = []
            long = next((s for s, parent in siblings.items() if parent == m.name), None)
            both = [m] if long is None else [m, by_name[long]]
            for path in route_paths(both, api_key):
                if long is not None:
                    service, port = backend_of(by_name[long])
                    ann[f"{ALB}/conditions.{service}"] = _long_condition()
                    paths.append({"path": path, "pathType": "Prefix", "backend": _backend(service, port)})
                paths.append({"path": path, "pathType": "Prefix", "backend": _backend(*backend_of(m))})
            rules.append({"host": model_host(m.name, cfg.host), "http": {"paths": paths}})
        ns = namespace
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": "llm", "namespace": ns, "labels": labels, "annotations": ann},
        "spec": {"ingressClassName": INGRESS_CLASS, "rules": rules},
    }


def istio_gateway(cfg: IngressConfig) -> dict[str, Any]:
    """The Istio Gateway on the ingress gateway pods: plain HTTP, TLS ends at the ALB."""
    return {
        "apiVersion": "networking.istio.io/v1",
        "kind": "Gateway",
        "metadata": {
            "name": GATEWAY_NAME,
            "namespace": GATEWAY_NAMESPACE,
            "labels": recommended_labels(GATEWAY_NAME, component="ingress"),
        },
        "spec": {
            "selector": dict(GATEWAY_SELECTOR),
            "servers": [{"port": {"number": GATEWAY_HTTP_PORT, "name": "http", "protocol": "HTTP"}, "hosts": [f"*.{cfg.host}"]}],
        },
    }


def _route(m: ModelConfig, plan: ServingPlan, namespace: str, match: Optional[list] = None) -> dict[str, Any]:
    chain = plan.timeouts
    route: dict[str, Any] = {"name": m.name}
    if match:
        route["match"] = match
    route.update(
        {
            "route": [{"destination": {"host": service_host(m, namespace), "port": {"number": backend_of(m)[1]}}}],
            # Replaces Envoy's 15 s default (Istio: no timeout at all); covers one fast-failing try + a full retry.
            "timeout": _secs(chain.route_timeout_seconds),
            "retries": {
                "attempts": chain.retry.attempts,
                "perTryTimeout": _secs(chain.per_try_timeout_seconds),
                "retryOn": chain.retry.retry_on_header,
                "retryIgnorePreviousHosts": True,
            },
        }
    )
    return route


def virtual_service(
    m: ModelConfig,
    plans: Mapping[str, ServingPlan],
    cfg: IngressConfig,
    namespace: str,
    sibling: Optional[ModelConfig] = None,
    api_key: bool = False,
) -> dict[str, Any]:
    """A model's VirtualService: its host on the gateway, timeouts and retries from the chain, the long sibling by header.

    With ``api_key`` every route matches only the ``uri`` prefixes the key guards in its release (``route_paths``);
    a path outside them (``/invocations``, ``/metrics``) matches no route, and the gateway answers 404. Istio
    normalizes the path before it matches and forwards the normalized one (1.30.3
    pilot/pkg/networking/core/listener_builder.go:339-345: an unset meshConfig.pathNormalization is DEFAULT,
    which sets Envoy's normalize_path, RFC 3986: ``/v1/../invocations`` becomes ``/invocations``; escaped
    slashes are kept unchanged, :340), so the path vLLM sees starts with the prefix that matched.
    """
    long_header = {"headers": {LONG_CONTEXT_HEADER: {"exact": LONG_CONTEXT_VALUE}}}
    http = []
    if sibling is not None:
        sibling_match = (
            [{"uri": {"prefix": p}, **long_header} for p in route_paths([sibling], api_key)] if api_key else [long_header]
        )
        http.append(_route(sibling, plans[sibling.name], namespace, sibling_match))
    own = [{"uri": {"prefix": p}} for p in route_paths([m], api_key)] if api_key else None
    http.append(_route(m, plans[m.name], namespace, own))
    return {
        "apiVersion": "networking.istio.io/v1",
        "kind": "VirtualService",
        "metadata": {"name": m.name, "namespace": namespace, "labels": recommended_labels(m.name, component="ingress")},
        "spec": {
            "hosts": [model_host(m.name, cfg.host)],
            "gateways": [f"{GATEWAY_NAMESPACE}/{GATEWAY_NAME}"],
            "http": http,
        },
    }


def connection_limits(m: ModelConfig, plan: ServingPlan, gateway_replicas: int = 1) -> tuple[int, int]:
    """(active requests, pending requests) each Envoy of the gateway lets through to the model's pods at most.

    A pod holds maxNumSeqs running + its admission queue (--max-num-queued-reqs); beyond that it
    answers 503 anyway, so the gateway stops at the same total over maxReplicas pods. Without admission
    control (older releases) the batch alone bounds a pod. Envoy's circuit breakers count per Envoy
    (per cluster, per proxy: Istio 1.30.3 pilot/pkg/networking/core/cluster_traffic_policy.go builds
    them into each proxy's cluster), so the total is divided among the gateway's replicas, rounded down
    (never above the pods' capacity; at least 1).
    """
    queue = plan.max_num_queued_reqs or 0
    per_pod = plan.max_num_seqs + queue
    n = max(1, gateway_replicas)
    return max(1, per_pod * m.replicas.max // n), max(1, max(1, queue) * m.replicas.max // n)


def destination_rule(m: ModelConfig, plan: ServingPlan, namespace: str, gateway_replicas: int = 1) -> dict[str, Any]:
    """A model's DestinationRule: connection pool from the batch + queue (per gateway replica), idle timeout
    from the chain, outlier detection that ejects a dead pod (connect failures) but never a busy one (503 rejects)."""
    chain = plan.timeouts
    active, pending = connection_limits(m, plan, gateway_replicas)
    tcp: dict[str, Any] = {"maxConnections": active, "connectTimeout": _secs(chain.connect_timeout_seconds)}
    if not chain.streaming:
        # A non-streamed response sends nothing until it ends: probe the silent connection.
        tcp["tcpKeepalive"] = {
            "time": _secs(TCP_KEEPALIVE_TIME_SECONDS),
            "interval": _secs(TCP_KEEPALIVE_INTERVAL_SECONDS),
            "probes": TCP_KEEPALIVE_PROBES,
        }
    return {
        "apiVersion": "networking.istio.io/v1",
        "kind": "DestinationRule",
        "metadata": {"name": m.name, "namespace": namespace, "labels": recommended_labels(m.name, component="ingress")},
        "spec": {
            "host": service_host(m, namespace),
            "trafficPolicy": {
                "loadBalancer": {"simple": "LEAST_REQUEST"},
                "connectionPool": {
                    "tcp": tcp,
                    "http": {
                        "http1MaxPendingRequests": pending,
                        "http2MaxRequests": active,
                        # Envoy's default allows 3 concurrent retries per cluster; one per request in flight.
                        "maxRetries": active,
                        # Below vLLM's keep-alive: Envoy closes an idle upstream connection before vLLM does.
                        "idleTimeout": _secs(chain.upstream_idle_timeout_seconds),
                    },
                },
                # A busy pod answers 503 (admission reject) and would be ejected by any 5xx or gateway-error
                # detector (both count 503), so those are off; a dead pod refuses connections, which the
                # local-origin detector counts (Envoy: split_external_local_origin_errors).
                "outlierDetection": {
                    "splitExternalLocalOriginErrors": True,
                    "consecutiveLocalOriginFailures": CONSECUTIVE_LOCAL_ORIGIN_FAILURES,
                    "consecutive5xxErrors": 0,
                    "consecutiveGatewayErrors": 0,
                    "interval": "10s",
                    "baseEjectionTime": "30s",
                    "maxEjectionPercent": MAX_EJECTION_PERCENT,
                },
            },
        },
    }


def lb_controller_release(cluster_name: str, region: str, vpc_id: Optional[str] = None) -> dict[str, Any]:
    """The AWS Load Balancer Controller's Helm release (its IAM role is bound through EKS Pod Identity).

    Plain values: the component resolves Inputs first (components/helm.py ``releases_of``).
    """
    values: dict[str, Any] = {
        "clusterName": cluster_name,
        "region": region,
        "replicaCount": 2,
        "serviceAccount": {"create": True, "name": LB_CONTROLLER_SERVICE_ACCOUNT},
        # Register pods only once they are ready, and deregister before they stop (readiness gate).
        "enablePodReadinessGateInject": True,
    }
    if vpc_id is not None:
        values["vpcId"] = vpc_id
    return {"name": LB_CONTROLLER.name, "chart": LB_CONTROLLER, "namespace": LB_CONTROLLER_NAMESPACE, "values": values}


def gateway_namespace() -> dict[str, Any]:
    """The gateway's namespace as an explicit object, labelled for the ALB controller's readiness gates."""
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": GATEWAY_NAMESPACE,
            "labels": {**recommended_labels(GATEWAY_NAMESPACE, component="namespace"), **READINESS_GATE_LABEL},
        },
    }


def istio_releases(plans: Mapping[str, ServingPlan], gateway_replicas: int = 1) -> list[dict[str, Any]]:
    """Istio's base, istiod and ingress gateway releases; the gateway drains like the longest model.

    The gateway runs a fixed number of replicas (the chart's CPU autoscaler off: each DestinationRule's
    limits are divided by this number), with a PodDisruptionBudget, which the chart renders only above
    one replica (Istio 1.30.3 manifests/charts/gateway/templates/poddisruptionbudget.yaml:1-3).
    """
    chains = [p.timeouts for p in plans.values()]
    drain = max(c.deregistration_delay_seconds for c in chains)
    idle = max(c.gateway_idle_timeout_seconds for c in chains)
    proxy_config = {
        # Envoy keeps the ALB's pooled connections longer than the ALB does (keep-alives grow inward).
        # Proxy metadata reaches Envoy's node metadata only under the ISTIO_META_ prefix (Istio 1.30.3
        # pkg/bootstrap/config.go:53,674-675), whose IDLE_TIMEOUT (pkg/model/proxy.go:277) sets the HTTP
        # connection manager's idle timeout (pilot/pkg/networking/core/listener_builder.go:365-368).
        "proxyMetadata": {"ISTIO_META_IDLE_TIMEOUT": _secs(idle), "EXIT_ON_ZERO_ACTIVE_CONNECTIONS": "true"},
        # A gateway rollout drains streams as long as the longest request, then exits when idle.
        "terminationDrainDuration": _secs(drain),
    }
    gateway_values = {
        # The ALB targets the gateway pods by IP; no cloud load balancer of its own (catalogue row 32).
        "service": {"type": "ClusterIP"},
        "autoscaling": {"enabled": False},
        "replicaCount": gateway_replicas,
        # The chart puts this under the PDB's spec (templates/poddisruptionbudget.yaml); rendered above 1 replica.
        "podDisruptionBudget": {"maxUnavailable": 1, "unhealthyPodEvictionPolicy": "AlwaysAllow"},
        "terminationGracePeriodSeconds": drain + 15,
        "podAnnotations": {"proxy.istio.io/config": json.dumps(proxy_config, sort_keys=True, separators=(",", ":"))},
    }
    return [
        {"name": "istio-base", "chart": ISTIO_BASE, "namespace": ISTIO_SYSTEM, "values": {"defaultRevision": "default"}},
        {"name": "istiod", "chart": ISTIOD, "namespace": ISTIO_SYSTEM, "values": {}},
        {"name": GATEWAY_RELEASE, "chart": ISTIO_GATEWAY, "namespace": GATEWAY_NAMESPACE, "values": gateway_values},
    ]


def pod_identity_trust_policy(cluster_arn: str) -> dict[str, Any]:
    """The controller role's trust: EKS Pod Identity, for the controller's service account on this cluster only."""
    return pod_identity.trust_policy(cluster_arn, LB_CONTROLLER_NAMESPACE, LB_CONTROLLER_SERVICE_ACCOUNT)
