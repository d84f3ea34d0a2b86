"""The table of references between the objects of one run (policies/reading/references.py reads it): one ``Row`` per
kind of reference, each with where it sits, what it names and what breaks when it resolves to nothing, and the source
of that fact. A pure table: a new reference kind is one more row.
"""

from __future__ import annotations

from dataclasses import dataclass

SERVICE = ("", "Service")
# An InferencePool makes no object a route or pool names (Istio's shadow Service for it is named after a hash).
_POOLS = (("inference.networking.k8s.io", "InferencePool"), ("inference.networking.x-k8s.io", "InferencePool"))


@dataclass(frozen=True)
class Row:
    """One kind of reference. Field paths are dotted; ``x[]`` walks every item of list ``x``."""

    family: str  # the catalogue id of the rule that reports it
    what: str  # how a message calls the reference
    sources: tuple[tuple[str, str], ...]  # (API group, kind) holding it; () for every pod template (paths from the pod spec)
    at: tuple[str, ...]  # where the referring objects sit
    name: str  # field of the target's name
    target: tuple[str, str] = SERVICE  # (group, kind) when no kind field says otherwise
    kind: str = ""  # field naming the target's kind; a reference to another kind is not read
    group: str = ""  # field naming the target's API group ("" = core), or an apiVersion when it holds a "/"
    namespace: str = ""  # field naming the target's namespace (default: the source's)
    host: bool = False  # the name is a DNS host: NAME (the source's namespace) or NAME.NS.svc[.cluster.local]
    port: str = ""  # field of the port the reference asks the Service for (a number, or a name)
    port_name: str = ""  # field of the port given by name
    target_port_too: bool = False  # the reader also accepts the Service's targetPort (ingress-nginx)
    optional: str = ""  # field that, true, makes a missing target harmless
    cluster: bool = False  # the target kind is cluster-scoped
    also: tuple[tuple[str, str], ...] = ()  # cluster-scoped kinds that satisfy the reference too
    spared: tuple[tuple[str, str], ...] = ()  # custom kinds of the namespace not read as making targets the files lack
    builtin: tuple[str, ...] = ()  # names the cluster always holds (the default ServiceAccount, system PriorityClasses)
    kin: tuple[tuple[str, str], ...] = ()  # kinds an author writes for the target by mistake (not read as the target)
    # targets the run writes with no namespace count in the referring object's namespace too: they land wherever they
    # are applied, which may be there (a ServingRuntime beside a namespaced InferenceService in one kustomization)
    unplaced: bool = False
    fails: str = ""  # what happens when the name resolves to nothing
    port_fails: str = ""  # what happens when the Service offers no such port


# Ingress backends (networking.k8s.io/v1 and the older extensions/v1beta1 shape). ingress-nginx takes a backend port
# that equals a Service port's number, its targetPort or its name (kubernetes/ingress-nginx controller-v1.15.1
# internal/ingress/controller/controller.go:1233-1248 serviceEndpoints) and otherwise builds an upstream with no
# endpoint, which answers 503; other controllers (ALB, GCE) take the Service port only. Judged by the loosest reading.
_INGRESS_AT = ("spec.rules[].http.paths[].backend", "spec.defaultBackend", "spec.backend")
_INGRESS_FAILS = "the controller has no endpoint for the backend and answers 503"
_INGRESS_SOURCES = (("networking.k8s.io", "Ingress"), ("extensions", "Ingress"))

ROWS: tuple[Row, ...] = (
    # Istio: a destination host is a short name (the VirtualService's namespace) or an FQDN, and its port selects a
    # port of that Service (istio/api 1.29.6 networking/v1alpha3/virtual_service.proto:163-170 short names, :383-386
    # Destination.port); Envoy has no cluster for host:port otherwise and answers 503 (spent set 40).
    Row(
        family="G68",
        what="route destination",
        sources=(("networking.istio.io", "VirtualService"),),
        at=("spec.http[].route[].destination", "spec.tcp[].route[].destination", "spec.tls[].route[].destination"),
        name="host",
        host=True,
        port="port.number",
        fails="Envoy has no cluster for the host and answers 503 (unless a ServiceEntry or another file defines it)",
        port_fails="Envoy has no cluster for that host and port and answers 503",
    ),
    # Gateway API: a backendRef to a Service that does not exist, or on a port it lacks, is invalid, and the requests
    # it would take get 500 (kubernetes-sigs/gateway-api v1.6.1 apis/v1/httproute_types.go:266-285, shared_types.go:
    # 434-436 BackendNotFound; object_reference_types.go:149 port required for a Service).
    Row(
        family="G68",
        what="backendRef",
        sources=tuple(("gateway.networking.k8s.io", k) for k in ("HTTPRoute", "GRPCRoute", "TCPRoute", "TLSRoute", "UDPRoute")),
        at=("spec.rules[].backendRefs[]",),
        name="name",
        kind="kind",
        group="group",
        namespace="namespace",
        port="port",
        fails="the route's ResolvedRefs condition is False (BackendNotFound) and its requests get 500",
        port_fails="the backend is invalid and the requests it would take get 500",
        spared=_POOLS,
    ),
    Row(
        family="G68",
        what="backend",
        sources=_INGRESS_SOURCES,
        at=_INGRESS_AT,
        name="service.name",
        port="service.port.number",
        port_name="service.port.name",
        target_port_too=True,
        fails=_INGRESS_FAILS,
        port_fails=_INGRESS_FAILS,
    ),
    Row(
        family="G68",
        what="backend",
        sources=_INGRESS_SOURCES,
        at=_INGRESS_AT,
        name="serviceName",
        port="servicePort",
        target_port_too=True,
        fails=_INGRESS_FAILS,
        port_fails=_INGRESS_FAILS,
    ),
    # Gateway API Inference Extension: an InferencePool names its Endpoint Picker Service and port (the Service port,
    # not the target port; gateway-api-inference-extension v1.6.0 api/v1/inferencepool_types.go:126-173, v0.5.1
    # api/v1alpha2/inferencepool_types.go:81, :138 extensionRef.portNumber); the gateway asks it for an endpoint on
    # every request, and with the default FailClose drops the request when it cannot reach it.
    Row(
        family="G68",
        what="endpointPickerRef",
        sources=(("inference.networking.k8s.io", "InferencePool"),),
        at=("spec.endpointPickerRef",),
        name="name",
        kind="kind",
        group="group",
        port="port.number",
        fails="the gateway reaches no endpoint picker and (failureMode FailClose, the default) drops every request",
        port_fails="the gateway reaches no endpoint picker and (failureMode FailClose, the default) drops every request",
        spared=_POOLS,
    ),
    Row(
        family="G68",
        what="extensionRef",
        sources=(("inference.networking.x-k8s.io", "InferencePool"),),
        at=("spec.extensionRef",),
        name="name",
        kind="kind",
        group="group",
        port="portNumber",
        fails="the gateway reaches no endpoint picker and (failureMode FailClose, the default) drops every request",
        port_fails="the gateway reaches no endpoint picker and (failureMode FailClose, the default) drops every request",
        spared=_POOLS,
    ),
    # An autoscaler scales the workload scaleTargetRef names in its namespace; with none it reports FailedGetScale
    # and never scales (https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/); KEDA's
    # ScaledObject defaults the kind to a Deployment (kedacore/keda v2.17.0 apis/keda/v1alpha1/scaledobject_types.go
    # ScaleTarget).
    Row(
        family="G69",
        what="scaleTargetRef",
        sources=(("autoscaling", "HorizontalPodAutoscaler"), ("keda.sh", "ScaledObject")),
        at=("spec.scaleTargetRef",),
        name="name",
        target=("apps", "Deployment"),
        kind="kind",
        group="apiVersion",
        fails="the autoscaler finds nothing to scale (FailedGetScale) and the workload never scales",
    ),
    # KServe: a predictor's runtime is a ServingRuntime of its namespace or a ClusterServingRuntime; with neither the
    # InferenceService never becomes ready ("specified runtime ... does not exist").
    Row(
        family="G69",
        what="runtime",
        sources=(("serving.kserve.io", "InferenceService"),),
        at=("spec.predictor.model",),
        name="runtime",
        target=("serving.kserve.io", "ServingRuntime"),
        also=(("serving.kserve.io", "ClusterServingRuntime"),),
        spared=tuple(("serving.kserve.io", k) for k in ("InferenceService", "ServingRuntime", "ClusterServingRuntime")),
        unplaced=True,
        fails="KServe finds no runtime of that name and the InferenceService never becomes ready",
    ),
    # Karpenter: a NodePool launches nodes from the EC2NodeClass its nodeClassRef names (cluster-scoped); with none the
    # NodePool is not ready and launches nothing.
    Row(
        family="G69",
        what="nodeClassRef",
        sources=(("karpenter.sh", "NodePool"),),
        at=("spec.template.spec.nodeClassRef",),
        name="name",
        target=("karpenter.k8s.aws", "EC2NodeClass"),
        kind="kind",
        group="group",
        cluster=True,
        fails="the NodePool is not ready and launches no node",
        # What an author may have written in its place under the name the NodePool names: Karpenter's pre-v0.33
        # AWSNodeTemplate (karpenter.k8s.aws/v1alpha1, not served from v0.33.0: see G40) and EKS Auto Mode's
        # NodeClass (eks.amazonaws.com, which a NodePool names with that group and kind). Karpenter resolves the
        # reference by its group and kind, so neither stands for an EC2NodeClass.
        kin=(("karpenter.k8s.aws", "AWSNodeTemplate"), ("karpenter.k8s.aws", "NodeClass"), ("eks.amazonaws.com", "NodeClass")),
    ),
    # A pod's ConfigMap (volume, projected source, env, envFrom): the kubelet does not start the container without it
    # unless the reference is optional (https://kubernetes.io/docs/concepts/configuration/configmap/#configmap-object:
    # "The ConfigMap must exist in the same namespace as the Pod"; optional references are skipped).
    Row(
        family="G69",
        what="ConfigMap volume",
        sources=(),
        at=("volumes[].configMap", "volumes[].projected.sources[].configMap"),
        name="name",
        target=("", "ConfigMap"),
        optional="optional",
        fails="the pod stays in ContainerCreating (configmap not found)",
    ),
    Row(
        family="G69",
        what="ConfigMap reference",
        sources=(),
        at=(
            "containers[].env[].valueFrom.configMapKeyRef",
            "containers[].envFrom[].configMapRef",
            "initContainers[].env[].valueFrom.configMapKeyRef",
            "initContainers[].envFrom[].configMapRef",
        ),
        name="name",
        target=("", "ConfigMap"),
        optional="optional",
        fails="the container does not start (CreateContainerConfigError: configmap not found)",
    ),
    # A pod's ServiceAccount, PriorityClass and RuntimeClass: admission refuses a pod naming a ServiceAccount or
    # PriorityClass that does not exist, so the workload's controller creates no pod
    # (https://kubernetes.io/docs/concepts/security/service-accounts/, https://kubernetes.io/docs/concepts/scheduling-
    # eviction/pod-priority-preemption/#pod-priority), and a RuntimeClass that does not exist fails the pod's sandbox
    # (https://kubernetes.io/docs/concepts/containers/runtime-class/#usage). ``default`` and the system classes exist.
    Row(
        family="G69",
        what="serviceAccountName",
        sources=(),
        at=("",),
        name="serviceAccountName",
        target=("", "ServiceAccount"),
        builtin=("default",),
        fails="admission refuses the pods (serviceaccount not found), so none is created",
    ),
    Row(
        family="G69",
        what="priorityClassName",
        sources=(),
        at=("",),
        name="priorityClassName",
        target=("scheduling.k8s.io", "PriorityClass"),
        cluster=True,
        builtin=("system-cluster-critical", "system-node-critical"),
        fails="admission refuses the pods (no PriorityClass of that name), so none is created",
    ),
    Row(
        family="G69",
        what="runtimeClassName",
        sources=(),
        at=("",),
        name="runtimeClassName",
        target=("node.k8s.io", "RuntimeClass"),
        cluster=True,
        fails="the pod's sandbox is not created (RuntimeClass not found) and it never starts",
    ),
    # Gateway API: a route attaches to the Gateways its parentRefs name (kind Gateway by default, the route's
    # namespace unless one is given); a route attached to none is not served and its requests get 404
    # (kubernetes-sigs/gateway-api v1.6.1 apis/v1/shared_types.go ParentReference).
    Row(
        family="G69",
        what="parentRef",
        sources=tuple(("gateway.networking.k8s.io", k) for k in ("HTTPRoute", "GRPCRoute", "TCPRoute", "TLSRoute", "UDPRoute")),
        at=("spec.parentRefs[]",),
        name="name",
        target=("gateway.networking.k8s.io", "Gateway"),
        kind="kind",
        group="group",
        namespace="namespace",
        fails="the route attaches to no Gateway and its requests are not served",
    ),
    # Istio: a policy attached by targetRefs (a Gateway, a Service, a ServiceEntry of its namespace: istio/api 1.29.6
    # type/v1beta1/selector.proto:111-132 PolicyTargetReference, kind and name required, the local namespace when none
    # is given; security/v1beta1/authorization_policy.proto:285-307) applies to the objects it names and to nothing
    # else: naming one that does not exist leaves the traffic it was written for unrestricted (fresh set 55:
    # linsun/gen-al-demo policy/authz-host-ollama.yaml names ServiceEntry host-ollama, the files' is external-ollama).
    Row(
        family="G69",
        what="policy targetRef",
        sources=(
            ("security.istio.io", "AuthorizationPolicy"),
            ("security.istio.io", "RequestAuthentication"),
            ("telemetry.istio.io", "Telemetry"),
            ("extensions.istio.io", "WasmPlugin"),
        ),
        at=("spec.targetRefs[]", "spec.targetRef"),
        name="name",
        kind="kind",
        group="group",
        namespace="namespace",
        fails="the policy attaches to nothing, so the traffic it was written to allow, deny or authenticate is not governed by it",
    ),
    # KEDA: a trigger's authenticationRef names a TriggerAuthentication of the ScaledObject's namespace (kind
    # TriggerAuthentication by default); without it the scaler fails and the ScaledObject is not ready.
    Row(
        family="G69",
        what="authenticationRef",
        sources=(("keda.sh", "ScaledObject"), ("keda.sh", "ScaledJob")),
        at=("spec.triggers[].authenticationRef",),
        name="name",
        target=("keda.sh", "TriggerAuthentication"),
        kind="kind",
        fails="the scaler cannot authenticate and the ScaledObject is not ready",
    ),
)
