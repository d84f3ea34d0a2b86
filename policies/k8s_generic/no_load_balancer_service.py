"""G32: no Service of type LoadBalancer (and a NodePort one is advice).

Each LoadBalancer Service gets its own cloud load balancer, usually internet-facing, with its
own idle timeout that the serving timeout chain does not know about: streamed generations are cut
at its default (60 s on AWS), and the model is exposed past the gateway's auth and rate limits.
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.kube import annotations_of, get

SERVICE_TYPE = "kubernetes:core/v1:Service"


# Annotations by which a LoadBalancer Service asks its cloud for an internal (VPC-only) load balancer: AWS Load Balancer
# Controller (https://kubernetes-sigs.github.io/aws-load-balancer-controller/latest/guide/service/annotations/#lb-scheme)
# and the in-tree AWS provider, GKE (https://cloud.google.com/kubernetes-engine/docs/how-to/internal-load-balancing),
# Azure (https://learn.microsoft.com/azure/aks/internal-lb).
_INTERNAL = {
    "service.beta.kubernetes.io/aws-load-balancer-scheme": "internal",
    "service.beta.kubernetes.io/aws-load-balancer-internal": "true",
    "networking.gke.io/load-balancer-type": "internal",
    "cloud.google.com/load-balancer-type": "internal",
    "service.beta.kubernetes.io/azure-load-balancer-internal": "true",
}


def _internal(resource: Resource) -> bool:
    annotations = annotations_of(resource.props)
    return any(str(annotations.get(k, "")).strip().lower() == v for k, v in _INTERNAL.items())


def _check(resource: Resource, config: dict) -> list[str]:
    if get(resource.props, "spec", "type") == "NodePort":
        # A NodePort opens the port on every node's address (https://kubernetes.io/docs/concepts/services-networking/
        # service/#type-nodeport), past the gateway's auth; whether those addresses are reachable from outside depends
        # on the node network, which the manifest does not show: advice.
        return [
            unproven(
                "spec.type: NodePort opens the model's port on every node's address, past the ingress gateway's auth, "
                "timeouts and rate limits; use ClusterIP behind the gateway path"
            )
        ]
    if get(resource.props, "spec", "type") != "LoadBalancer":
        return []
    message = (
        "spec.type: LoadBalancer provisions a separate cloud load balancer that bypasses the ingress gateway's "
        "timeouts, auth and rate limits; use ClusterIP behind the ALB/gateway path"
    )
    # An internal load balancer is not exposed past anything; that it sits beside the gateway path is advice.
    return [unproven(message) if _internal(resource) else message]


POLICY = Policy(
    name="no-load-balancer-service",
    description="Services must not be of type LoadBalancer; expose models through the ingress gateway.",
    catalog="G32",
    severity="medium",
    enforcement="mandatory",
    remediation_steps=(
        "Make the Service ClusterIP and route to it from the shared ALB Ingress / gateway; annotate "
        'llm-serving.io/exempt-no-load-balancer-service: "<reason>" for a deliberate, internal-only NLB.'
    ),
    resource_types=(SERVICE_TYPE,),
    check_resource=_check,
    rationale=(
        "Every LoadBalancer Service creates its own cloud load balancer (https://kubernetes.io/docs/concepts/services-networking/service/#loadbalancer); "
        "on AWS its idle timeout defaults to 60 s (https://docs.aws.amazon.com/elasticloadbalancing/latest/application/application-load-balancers.html#connection-idle-timeout), "
        "outside the timeout chain this project computes. Catalogue row 32 (compliance-policies disallowLoadBalancer, "
        "Kyverno restrict-loadbalancer)."
    ),
)
