"""G32 (GKE companion): an external GKE Ingress must serve HTTPS, and says when nothing keeps strangers out.

GKE's Ingress controller makes an Ingress of class ``gce`` (or ``gce-regional-external``) an external Application
Load Balancer reachable from the internet (kubernetes/ingress-gce v1.41.1 ``pkg/annotations/ingress.go:62-66``,
``pkg/utils/utils.go:331-357``; ``gce-internal`` is the internal one). It gets an HTTPS front end only from
``spec.tls`` Secrets, the ``ingress.gcp.kubernetes.io/pre-shared-cert`` annotation
(``pkg/annotations/ingress.go:57``) or Google-managed certificates
(``networking.gke.io/managed-certificates``, ``pkg/metrics/features.go:49``); without any of them the load balancer answers plain HTTP on port 80,
so prompts and answers cross the internet in clear text: the Ingress alone proves it, so that finding is blocking.

A GKE Gateway of an external class (``gke-l7-global-external-managed``, ``gke-l7-regional-external-managed``,
``gke-l7-gxlb`` and their ``-mc`` multi-cluster forms; https://cloud.google.com/kubernetes-engine/docs/concepts/gateway-api
"GatewayClass capabilities") is the same internet-facing load balancer; it serves HTTPS only on a listener of
protocol HTTPS, so a Gateway whose listeners are all HTTP answers in clear text, which the Gateway alone proves.

Who may call the model is decided on the backend Service: Identity-Aware Proxy (``iap.enabled``) or a Cloud Armor
``securityPolicy`` in the BackendConfig the Service's ``cloud.google.com/backend-config`` annotation names
(``pkg/apis/backendconfig/v1/types.go:38-50,66-71,175-179``; https://cloud.google.com/kubernetes-engine/docs/concepts/backendconfig).
That Service (and its BackendConfig) may live in another file, so the message says what was seen and the finding
stays one: the clear-text listener.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import annotations_of, as_dict, as_list, get, split_type
from policies.reading import edge
from policies.reading.serving import namespace_of

PRE_SHARED = "ingress.gcp.kubernetes.io/pre-shared-cert"
MANAGED = "networking.gke.io/managed-certificates"


def _guard(ing: Resource, services: dict, configs: dict) -> str:
    """What the set says of IAP / Cloud Armor on the Ingress's backends (for the message)."""
    seen = []
    for service, port in edge.ingress_backend_ports(ing):
        svc = services.get(service)
        if svc is None:
            seen.append(f"Service {service} is not in this set")
            continue
        name = edge.backend_config_name(svc, port)
        config = configs.get(name) if name else None
        if name is None:
            seen.append(f"Service {service} has no BackendConfig, so no IAP or Cloud Armor")
        elif config is None:
            seen.append(f"BackendConfig {name} of Service {service} is not in this set")
        elif get(config, "spec", "iap", "enabled") is True or get(config, "spec", "securityPolicy", "name"):
            seen.append(f"BackendConfig {name} of Service {service} sets IAP or Cloud Armor")
        else:
            seen.append(f"BackendConfig {name} of Service {service} sets neither IAP nor Cloud Armor")
    return "; ".join(sorted(set(seen)))


EXTERNAL_GATEWAY_CLASSES = (
    "gke-l7-global-external-managed",
    "gke-l7-regional-external-managed",
    "gke-l7-gxlb",
    "gke-l7-global-external-managed-mc",
    "gke-l7-regional-external-managed-mc",
    "gke-l7-gxlb-mc",
)


def _gateways(resources: list[Resource]) -> list[tuple[str, str]]:
    """External GKE Gateways with no HTTPS listener."""
    found = []
    for gw in resources:
        if split_type(gw.type) != ("gateway.networking.k8s.io", "Gateway"):
            continue
        klass = get(gw.props, "spec", "gatewayClassName")
        listeners = [as_dict(x) for x in as_list(get(gw.props, "spec", "listeners"))]
        if klass not in EXTERNAL_GATEWAY_CLASSES or not listeners:
            continue
        if any(str(x.get("protocol", "")).upper() == "HTTPS" for x in listeners):
            continue
        found.append(
            (
                gw.name,
                f"Gateway {namespace_of(gw) or '<default>'}/{get(gw.props, 'metadata', 'name')} (external GKE load "
                f"balancer, class {klass}): no listener of protocol HTTPS, so it answers plain HTTP and prompts cross "
                f"the internet in clear text",
            )
        )
    return found


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    services, configs = edge.services_by_name(resources), edge.backend_configs(resources)
    findings = _gateways(resources)
    for ing in resources:
        if ing.type not in edge.INGRESS_TYPES or edge.gce_ingress_class(ing) not in edge.GCE_EXTERNAL:
            continue
        annotations = annotations_of(ing.props)
        if as_list(get(ing.props, "spec", "tls")) or annotations.get(PRE_SHARED) or annotations.get(MANAGED):
            continue
        guard = _guard(ing, services, configs)
        findings.append(
            (
                ing.name,
                f"Ingress {namespace_of(ing) or '<default>'}/{get(ing.props, 'metadata', 'name')} (external GKE load "
                f"balancer, class {edge.gce_ingress_class(ing)}): no spec.tls, {PRE_SHARED} or {MANAGED}, so it answers "
                f"plain HTTP on port 80 and prompts cross the internet in clear text" + (f" ({guard})" if guard else ""),
            )
        )
    return findings


POLICY = Policy(
    name="external-gce-ingress-guarded",
    description="An external GKE Ingress (class gce) must terminate TLS (spec.tls, a pre-shared or Google-managed "
    "certificate), and an external GKE Gateway must have an HTTPS listener; the message says whether IAP or Cloud "
    "Armor guards an Ingress's backends.",
    catalog="G32",
    severity="critical",
    enforcement="mandatory",
    remediation_steps=(
        "Add spec.tls (or networking.gke.io/managed-certificates / ingress.gcp.kubernetes.io/pre-shared-cert), set "
        'kubernetes.io/ingress.allow-http: "false", and attach a BackendConfig with iap.enabled (or a Cloud Armor '
        "securityPolicy) to the model's Service through cloud.google.com/backend-config; or make it internal "
        "(class gce-internal). On a Gateway of an external GKE class, add a listener of protocol HTTPS with "
        "tls.certificateRefs (or a certificate map) and drop the HTTP one. Annotate llm-serving.io/exempt-external-gce-ingress-guarded with the reason where TLS "
        "ends in front of GKE."
    ),
    check_stack=_check,
    rationale=(
        "GKE's Ingress controller makes class gce an external Application Load Balancer and adds HTTPS only from "
        "spec.tls, a pre-shared or a Google-managed certificate (kubernetes/ingress-gce v1.41.1 "
        "pkg/annotations/ingress.go; https://cloud.google.com/kubernetes-engine/docs/how-to/ingress-configuration); "
        "IAP and Cloud Armor are BackendConfig settings of the backend Service "
        "(https://cloud.google.com/kubernetes-engine/docs/concepts/backendconfig)."
    ),
)
