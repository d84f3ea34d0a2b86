"""G68 route-backend-resolves: a route's backend is a Service of its run, on a port that Service offers.

An Istio VirtualService destination, a Gateway API backendRef, an Ingress backend and an InferencePool's endpoint
picker each name a Service (a backendRef may name an InferencePool) and a port.
Envoy builds one cluster per Service port, so a VirtualService destination on a port the Service does not expose
routes to no cluster and answers 503 (spent set 40: akshaymittal143/LLM-Kubernetes
kubernetes/optimized/service-mesh.yaml@2019f6d routes to port 8000 of llm-optimized-service, which exposes 80 with
targetPort 8000; istio/api 1.29.6 networking/v1alpha3/virtual_service.proto:383-386 Destination.port "the port on
the host that is being addressed"); a Gateway API backendRef to an absent Service or port is invalid and its requests
get 500 (kubernetes-sigs/gateway-api v1.6.1 apis/v1/httproute_types.go:266-285); ingress-nginx finds no endpoint for a
backend port that is neither a port, a targetPort nor a port name of the Service, and answers 503 (kubernetes/
ingress-nginx controller-v1.15.1 internal/ingress/controller/controller.go:1233-1248); an InferencePool whose
endpoint picker Service does not resolve is not ready and its requests get 5xx (gateway-api-inference-extension v1.6.0
conformance/tests/inferencepool_invalid_epp_service.go:64-84).

One table of references (policies/reading/references.py, the rows of family G68) read by one checker. A port is
judged only where the run defines the Service once, literally; that finding blocks. A name the run does not define
is judged only where the run holds the namespace's Services (no operator, Helm template or patch there may make
others), and is advice even when it misspells one defined there (a ServiceEntry, another chart or a file the run
leaves out may define it); the message names the closest defined name.
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.input.unreadable import kustomization_read
from policies.reading.references import unresolved


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    # A kustomization of the run may patch a Service's ports (patches, patchesJson6902, patchesStrategicMerge or
    # replacements, inline in kustomization.yaml, so no patch object of the run shows it): a port the base Service
    # lacks is then advice (review 44 #13).
    patched = kustomization_read(resources)
    return [
        (name, message if blocks and not patched else unproven(message)) for name, message, blocks in unresolved(resources, "G68")
    ]


POLICY = Policy(
    name="route-backend-resolves",
    description=(
        "A VirtualService destination, Gateway API backendRef, Ingress backend or InferencePool endpoint picker names a "
        "Service (or InferencePool) of its run on a port that Service offers; a port it lacks blocks, a name the "
        "namespace lacks is advice (the message names the closest one defined there)."
    ),
    catalog="G68",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Route to the Service in front of the server, on one of its spec.ports (the Service port, not the container's "
        "targetPort): VirtualService destination.port.number, backendRefs[].port, Ingress backend.service.port, "
        "InferencePool endpointPickerRef.port.number."
    ),
    config_schema={},
    check_stack=_check,
    rationale=(
        "A route's backend must be a Service that exists, on a port of its spec.ports: Envoy (Istio, Envoy Gateway) "
        "has no cluster otherwise and answers 503 or 500, and ingress-nginx has no endpoint and answers 503."
    ),
)
