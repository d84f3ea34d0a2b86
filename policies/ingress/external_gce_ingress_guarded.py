"""G32 (GKE companion): an external GKE Ingress must serve HTTPS, and says when nothing keeps strangers out.

GKE's Ingress controller makes an Ingress of class ``gce`` (or ``gce-regional-external``) an external Application
Load Balancer reachable from the internet (kubernetes/ingress-gce v1.41.1 ``pkg/annotations/ingress.go:62-66``,
``pkg/utils/utils.go:331-357``; ``gce-internal`` is the internal one). It gets an HTTPS front end only from
``spec.tls`` Secrets, the ``ingress.gcp.kubernetes.io/pre-shared-cert`` annotation
(``pkg/annotations/ingress.go:57``) or Google-managed certificates
(``networking.gke.io/managed-certificates``, ``pkg/metrics/features.go:49``); without any of them the load balancer answers plain HTTP on port 80,
so prompts and answers cross the internet in clear text. That blocks when a model server of the set is behind the
Ingress (and no IAP guards it); a backend in another file is advice (it may not be a model), and an Ingress whose
backends are all known non-models (a UI, Grafana) is not reported (session 24 review F11). A GKE Gateway of an
external class is read by public_model_endpoint_guarded with every other Gateway.

Who may call the model is decided on the backend Service: Identity-Aware Proxy (``iap.enabled``) or a Cloud Armor
``securityPolicy`` in the BackendConfig the Service's ``cloud.google.com/backend-config`` annotation names
(``pkg/apis/backendconfig/v1/types.go:38-50,66-71,175-179``; https://cloud.google.com/kubernetes-engine/docs/concepts/backendconfig).
That Service (and its BackendConfig) may live in another file, so the message says what was seen and the finding
stays one: the clear-text listener.
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.kube import annotations_of, as_list, get
from policies.reading import edge, model_backends
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
        elif get(config, "spec", "iap", "enabled") is True:
            seen.append(f"BackendConfig {name} of Service {service} sets IAP")
        elif get(config, "spec", "securityPolicy", "name"):
            seen.append(f"BackendConfig {name} of Service {service} sets Cloud Armor, no IAP")
        else:
            seen.append(f"BackendConfig {name} of Service {service} sets neither IAP nor Cloud Armor")
    return "; ".join(sorted(set(seen)))


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    services, configs = edge.services_by_name(resources), edge.backend_configs(resources)
    # An LLM router (production-stack router, LiteLLM) forwards prompts to the models: plain HTTP to it leaks them too.
    llm = model_backends.model_services(resources) | set(model_backends.router_services(resources))
    known = set(model_backends.selected_services(resources)) | llm
    findings = []
    for ing in resources:
        if ing.type not in edge.INGRESS_TYPES or edge.gce_ingress_class(ing) not in edge.GCE_EXTERNAL:
            continue
        annotations = annotations_of(ing.props)
        if as_list(get(ing.props, "spec", "tls")) or annotations.get(PRE_SHARED) or annotations.get(MANAGED):
            continue
        backends = [name for name, _ in edge.ingress_backend_ports(ing)]
        models = [name for name in backends if name in llm]
        unknown = [name for name in backends if name not in known and not model_backends.not_a_model_name(name)]
        if not models and not unknown:
            continue  # every backend is a known non-model (session 24 review F11)
        guard = _guard(ing, services, configs)
        message = (
            f"Ingress {namespace_of(ing) or '<default>'}/{get(ing.props, 'metadata', 'name')} (external GKE load "
            f"balancer, class {edge.gce_ingress_class(ing)}): no spec.tls, {PRE_SHARED} or {MANAGED}, so it answers "
            f"plain HTTP on port 80 and prompts cross the internet in clear text" + (f" ({guard})" if guard else "")
        )
        # Blocking only with a model of the set behind it and no IAP: a backend in another file may not be a model.
        iap = "sets IAP" in guard
        findings.append((ing.name, message if models and not iap else unproven(message)))
    return findings


POLICY = Policy(
    name="external-gce-ingress-guarded",
    description="An external GKE Ingress (class gce) in front of a model must terminate TLS (spec.tls, a pre-shared or "
    "Google-managed certificate); blocking when the model is in the set, and the message says whether IAP or Cloud "
    "Armor guards its backends (GKE Gateways: public-model-endpoint-guarded).",
    catalog="G32",
    severity="critical",
    enforcement="mandatory",
    remediation_steps=(
        "Add spec.tls (or networking.gke.io/managed-certificates / ingress.gcp.kubernetes.io/pre-shared-cert), set "
        'kubernetes.io/ingress.allow-http: "false", and attach a BackendConfig with iap.enabled (or a Cloud Armor '
        "securityPolicy) to the model's Service through cloud.google.com/backend-config; or make it internal "
        "(class gce-internal). Annotate llm-serving.io/exempt-external-gce-ingress-guarded with the reason where TLS "
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
