"""G93 alb-https-listener-certificate: an ALB Ingress that opens an HTTPS listener gives the controller a certificate.

The AWS Load Balancer Controller (kubernetes-sigs/aws-load-balancer-controller v3.5.0, the chart 3.5.0 pinned under the
reference folder) builds each port of ``alb.ingress.kubernetes.io/listen-ports`` (a JSON list of ``{"HTTP": 80}`` /
``{"HTTPS": 443}``, ``pkg/ingress/model_build_listener.go:237-270``). An HTTPS port takes its certificates from, in
order (``:133-192``, ``:194-211``): the IngressClassParams ``spec.certificateArn`` of the Ingress's class, the
``certificate-arn`` annotation, a certificate the controller requests itself (``create-acm-cert``, ``pkg/ingress/
model_builder.go:318-331``), and otherwise certificates it discovers in ACM for the hosts of ``spec.tls`` and of the
rules (``:213-224``; ``pkg/certs/cert_discovery.go:74-96`` loops over those hosts only). An Ingress with none of these
and no host gets an HTTPS listener with no certificate; ELBv2 refuses to create an HTTPS listener without a default
certificate (CreateListener, ``Certificates``: required for HTTPS listeners,
https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_CreateListener.html), so the controller's
deploy of the Ingress group fails and the ALB has no listener on that port (spent set 78:
Kindee18/opti-inference-pipeline k8s/ingress.yaml@1883c46d, ``[{"HTTPS":443}]`` with no certificate-arn and no host,
labelled NONE, blocking).

A group (``group.name``) merges its members' listeners and takes the first member's certificate for the port
(``pkg/ingress/model_builder.go:401-412``): silent when another member of the files carries one. Mandatory only where
the files show the whole of it: no group, and the class is an IngressClass of the files whose parameters (if any) are
IngressClassParams of the files with no certificateArn. Otherwise advice: an Ingress by the class annotation takes the
cluster's default IngressClass's parameters (``pkg/ingress/class_loader.go:74-86``), and a class or group member
outside the files may carry the certificate.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from policies.framework import UNKNOWN, Policy, Resource, unproven
from policies.ingress.internet_facing_alb_guarded import (
    ALB,
    ALB_CLASSES_SETTING,
    INGRESS_TYPES,
    alb_class_settings,
    by_kind,
)
from policies.kube import annotations_of, as_dict, as_list, get

_GROUP = ALB + "group.name"


def _listen_protocols(raw: object) -> set[str]:
    """The protocols of a listen-ports annotation ({} when unset, unparsable or templated)."""
    if not isinstance(raw, str) or "{{" in raw or "${" in raw:
        return set()
    try:
        entries = json.loads(raw)
    except ValueError:
        return set()
    return {str(k) for e in as_list(entries) if isinstance(e, Mapping) for k in e}


def _hosts(ing: Resource) -> list[object]:
    spec = as_dict(get(ing.props, "spec"))
    hosts = [get(r, "host") for r in as_list(spec.get("rules"))]
    hosts += [h for t in as_list(spec.get("tls")) for h in as_list(get(t, "hosts"))]
    # A host the pipeline fills in (a placeholder, a Terraform or Pulumi value: UNKNOWN) is still a host to discover by.
    return [h for h in hosts if h is UNKNOWN or isinstance(h, str) and h.strip()]


def _certificate(ing: Resource, params: Mapping) -> bool:
    """True when the Ingress or its class gives the controller a certificate or a host to discover one for."""
    ann = annotations_of(ing.props)
    if as_list(params.get("certificateArn")) or str(ann.get(ALB + "certificate-arn") or "").strip():
        return True
    return str(ann.get(ALB + "create-acm-cert") or "").strip().lower() == "true" or bool(_hosts(ing))


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    ingresses = [r for r in resources if r.type in INGRESS_TYPES]
    if not ingresses:
        return []
    kinds = by_kind(resources)
    classes = [c for c in config.get("albIngressClasses", []) if isinstance(c, str)]
    albs = []
    for ing in ingresses:
        is_alb, params = alb_class_settings(ing, kinds, classes)
        if is_alb:
            albs.append((ing, params))
    findings = []
    for ing, params in albs:
        ann = annotations_of(ing.props)
        raw = ann.get(ALB + "listen-ports")
        if "HTTPS" not in _listen_protocols(raw) or _certificate(ing, params):
            continue
        group = ann.get(_GROUP)
        if group and any(annotations_of(o.props).get(_GROUP) == group and _certificate(o, p) for o, p in albs if o is not ing):
            continue
        message = (
            f"listen-ports {raw} opens an HTTPS listener, but nothing gives it a certificate: no {ALB}certificate-arn, "
            f"no create-acm-cert, no certificateArn in the class's IngressClassParams, and no host in spec.tls or the "
            f"rules for the controller to discover one in ACM by (aws-load-balancer-controller v3.5.0 "
            f"pkg/ingress/model_build_listener.go:163-184, 213-224); ELBv2 refuses an HTTPS listener without a "
            f"certificate, so the controller fails to deploy the Ingress's ALB listeners and nothing is served on it; "
            f"set certificate-arn (an ACM certificate) or a host whose ACM certificate the controller can find"
        )
        proven = not group and _class_in_files(ing, kinds)
        if not proven:
            message = unproven(
                message + " (the class or another member of its Ingress group, outside the files read, may give one)"
            )
        findings.append((ing.name, message))
    return findings


def _class_in_files(ing: Resource, kinds: dict[str, list[Resource]]) -> bool:
    """True when spec.ingressClassName names an IngressClass of the files whose parameters, if any, are read."""
    name = get(ing.props, "spec", "ingressClassName")
    ingress_class = next((c for c in kinds.get("IngressClass", []) if get(c.props, "metadata", "name") == name), None)
    if not isinstance(name, str) or ingress_class is None:
        return False
    ref = as_dict(get(ingress_class.props, "spec", "parameters"))
    if not ref:
        return True
    return ref.get("kind") == "IngressClassParams" and any(
        get(p.props, "metadata", "name") == ref.get("name") for p in kinds.get("IngressClassParams", [])
    )


POLICY = Policy(
    name="alb-https-listener-certificate",
    description="An ALB Ingress whose listen-ports open HTTPS gives the AWS Load Balancer Controller a certificate "
    "(certificate-arn, create-acm-cert, the class's certificateArn) or a host to discover one by.",
    catalog="G93",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Add alb.ingress.kubernetes.io/certificate-arn with an ACM certificate ARN (or certificateArn in the class's "
        "IngressClassParams), or name the host in spec.rules[].host / spec.tls[].hosts so the controller discovers the "
        "ACM certificate for it; or listen on HTTP only (listen-ports '[{\"HTTP\":80}]')."
    ),
    config_schema={
        "albIngressClasses": ALB_CLASSES_SETTING,
    },
    check_stack=_check,
    rationale=(
        "The controller takes an HTTPS listener's certificates from the class's IngressClassParams, the certificate-arn "
        "annotation, create-acm-cert, or ACM discovery over the Ingress's hosts (aws-load-balancer-controller v3.5.0 "
        "pkg/ingress/model_build_listener.go:133-224, pkg/certs/cert_discovery.go:74-96); with none of them the listener "
        "has no certificate and ELBv2 CreateListener refuses it, so the ALB never serves that port."
    ),
)
