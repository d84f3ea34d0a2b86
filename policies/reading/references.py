"""References between the objects of one run, as one table: object A names object B (by name, and for a route by
port), and B must exist and offer what A asks for.

Each row of ``ROWS`` is one kind of reference: the kinds that hold it (or every pod template), where it sits (a path
of fields, ``[]`` marking a list), which field names the target and which its port, the target's kind (or the field
that names it), the namespace rule (the source's own, an explicit field, a DNS host, or cluster-scoped), and what
breaks when it does not resolve. ``unresolved`` reads every row over a run; a new reference kind is one more row.

Precision first (the rules that read this, G68 and G69, share it): a reference is judged only where the run proves
the target's absence. A name, where the files define objects of the target kind in the target's namespace (for a
cluster-scoped kind, anywhere in the run) and nothing there may create others the files do not show (an operator's
custom resource, a Helm template, a Kustomize patch or base: policies/reading/run_objects.hidden_namespaces, the test
G51, G56, G60 and G63 share); the message names the closest defined name. A port, only where the run defines the
target Service once, literally, with literal ports. What other rules already judge is not read here: a pod's claim
(G51), Secret (G60), a URL in its environment (G63), a Service's selector (G56), a monitor's selector (G42), a GPU
pod's ``karpenter.sh/nodepool`` (S15).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Optional

from policies.framework import Resource
from policies.kube import WORKLOAD_TYPES, as_dict, as_int, as_list, get, memoized, pod_specs, split_type
from policies.reading.kserve_runtime import builtin_runtimes, builtin_supports
from policies.reading.run_objects import (
    SERVICE_MAKERS,
    Names,
    by_namespace,
    hidden_namespaces,
    services_by_namespace,
    stated_namespace,
    templated,
)
from policies.reading.serving import namespace_of

_SERVICE = ("", "Service")
_GENERATED = (("", "ConfigMap"), ("", "Secret"))
# An InferencePool makes no object a route or pool names (Istio's shadow Service for it is named after a hash).
_POOLS = (("inference.networking.k8s.io", "InferencePool"), ("inference.networking.x-k8s.io", "InferencePool"))
CLUSTER = "<cluster>"  # the namespace key of cluster-scoped objects


@dataclass(frozen=True)
class Row:
    """One kind of reference. Field paths are dotted; ``x[]`` walks every item of list ``x``."""

    family: str  # the catalogue id of the rule that reports it
    what: str  # how a message calls the reference
    sources: tuple[tuple[str, str], ...]  # (API group, kind) holding it; () for every pod template (paths from the pod spec)
    at: tuple[str, ...]  # where the referring objects sit
    name: str  # field of the target's name
    target: tuple[str, str] = _SERVICE  # (group, kind) when no kind field says otherwise
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


def _field(node: Any, path: str) -> Any:
    return get(node, *path.split(".")) if path else None


def _walk(node: Any, path: str, where: str = "") -> Iterator[tuple[str, Mapping]]:
    """(location, object) of every object at ``path`` under ``node``."""
    if not path:
        if isinstance(node, Mapping):
            yield where, node
        return
    head, _, rest = path.partition(".")
    key = head.removesuffix("[]")
    value = node.get(key) if type(node) is dict or isinstance(node, Mapping) else None
    at = f"{where}.{key}" if where else key
    if head.endswith("[]"):
        for i, item in enumerate(as_list(value)):
            yield from _walk(item, rest, f"{at}[{i}]")
    elif value is not None:
        yield from _walk(value, rest, at)


@dataclass(frozen=True)
class Ref:
    """One reference found: where, the target (kind, name, namespace or CLUSTER) and the port asked for."""

    row: Row
    where: str
    kind: tuple[str, str]
    name: str
    namespace: str
    port: Any


def _group(row: Row, ref: Mapping) -> Optional[str]:
    if not row.group:
        return row.target[0]
    value = _field(ref, row.group)
    if value is None:
        return row.target[0]
    if not isinstance(value, str):
        return None
    return value.rpartition("/")[0] if row.group == "apiVersion" else value


def _target(row: Row, ref: Mapping, own: str) -> Optional[tuple[tuple[str, str], str, str]]:
    """((group, kind), name, namespace) of one reference, or None where it is not read (another kind, a host outside
    the cluster, a templated or missing name)."""
    name = _field(ref, row.name)
    kind = _field(ref, row.kind) if row.kind else None
    group = _group(row, ref)
    if not isinstance(name, str) or not name or templated(name) or group is None:
        return None
    target = (group, kind) if isinstance(kind, str) else row.target
    if kind is not None and not isinstance(kind, str):
        return None
    namespace = _field(ref, row.namespace) if row.namespace else None
    namespace = namespace if isinstance(namespace, str) and namespace else own
    if row.host:
        labels = name.split(".")
        if len(labels) == 1:
            return target, name, own
        if len(labels) >= 3 and labels[2] == "svc" and labels[0] != "*":
            return target, labels[0], labels[1]
        return None
    return target, name, CLUSTER if row.cluster else namespace


def _refs_of(resource: Resource) -> tuple[Ref, ...]:
    """refs(resource), kept once per evaluation: G68 and G69 both read every object's references (review 44 #9)."""
    return tuple(refs(resource))


def refs(resource: Resource) -> Iterator[Ref]:
    """Every reference of the table the resource holds."""
    if not isinstance(resource.props, dict) or resource.template or resource.patch:
        return
    kind = split_type(resource.type)
    own = namespace_of(resource, "default")
    for row in ROWS:
        if row.sources and kind not in row.sources:
            continue
        if not row.sources and resource.type not in WORKLOAD_TYPES:
            continue
        roots = [("", resource.props)] if row.sources else pod_specs(resource)
        for prefix, root in roots:
            for at in row.at:
                for where, ref in _walk(root, at):
                    if row.optional and _field(ref, row.optional) is True:
                        continue
                    found = _target(row, ref, own)
                    if found is not None:
                        port = _field(ref, row.port) if row.port else None
                        port = port if port is not None else (_field(ref, row.port_name) if row.port_name else None)
                        yield Ref(row, ".".join(x for x in (prefix, where) if x), found[0], found[1], found[2], port)


class Defined:
    """What the run defines of each target kind, per namespace, and where it may hold more than the files show."""

    def __init__(self, resources: list[Resource], generates: bool = False) -> None:
        self.resources = resources
        self.generates = generates
        self.services = services_by_namespace(resources)
        self._hidden: dict[tuple[tuple[str, str], ...], set[str]] = {}
        # A Helm template or patch anywhere may make a cluster-scoped object the files do not show.
        self.cluster_hidden = any(r.template or r.patch or r.base for r in resources)
        self._kinds: dict[tuple[str, str], dict[str, dict[str, list[Resource]]]] = {}
        self._names: dict[tuple[tuple[str, str], str], Names] = {}
        self._by_name: dict[tuple[tuple[str, str], str], dict[str, Optional[Resource]]] = {}

    def names(self, kind: tuple[str, str], namespace: str) -> Mapping[str, Any]:
        """name -> its one definition (None for one a controller makes or one defined twice) of one kind; built once
        per kind and namespace, so many references into a large namespace cost one lookup each."""
        if kind == _SERVICE:
            return self.services.get(namespace, {})
        if (kind, namespace) in self._by_name:
            return self._by_name[(kind, namespace)]
        if kind not in self._kinds:
            found = by_namespace(self.resources, *kind)
            if any(r.type.endswith(f":{kind[1]}") and r.template for r in self.resources):
                found = {}
            everywhere: dict[str, list[Resource]] = {}
            for named in found.values():
                for name, objects in named.items():
                    everywhere.setdefault(name, []).extend(objects)
            self._kinds[kind] = {**found, CLUSTER: everywhere}
        one = {n: (o[0] if len(o) == 1 else None) for n, o in self._kinds[kind].get(namespace, {}).items()}
        self._by_name[(kind, namespace)] = one
        return one

    def namespaces(self, kind: tuple[str, str]) -> dict[str, dict[str, list[Resource]]]:
        """namespace -> name -> the objects of one kind the run defines there (no Helm-templated kind)."""
        self.names(kind, CLUSTER)
        return {ns: named for ns, named in self._kinds[kind].items() if ns != CLUSTER}

    def index(self, kind: tuple[str, str], namespace: str, names: Mapping[str, Any]) -> Names:
        if (kind, namespace) not in self._names:
            self._names[(kind, namespace)] = Names(names)
        return self._names[(kind, namespace)]

    def judged(self, ref: Ref) -> bool:
        """True where the run holds the namespace's (or the cluster's) objects of the target kind."""
        if ref.namespace == CLUSTER:
            return not self.cluster_hidden
        spared = (*SERVICE_MAKERS, *ref.row.spared) if ref.kind == _SERVICE else ref.row.spared
        if spared not in self._hidden:
            self._hidden[spared] = hidden_namespaces(self.resources, spared=spared)
        return ref.namespace not in self._hidden[spared]


def _builtin(ref: Ref) -> bool:
    """True for a name the cluster holds without the files: the row's own, and KServe's built-in
    ClusterServingRuntimes (components/kserve_runtimes.toml: every runtime the chart installs, [[supports]])."""
    if ref.name in ref.row.builtin:
        return True
    if ref.kind[1] != "ServingRuntime":
        return False
    return ref.name in builtin_supports() or any(ref.name == runtime.name for runtime, *_ in builtin_runtimes())


def service_ports(service: Resource, target_port_too: bool) -> Optional[tuple[set[Any], list[str]]]:
    """(what a reference may name, how a message lists it) of a literal Service's ports, or None where they are not
    all literal, or the Service forwards to what it names (ExternalName, headless)."""
    spec = as_dict(get(service.props, "spec"))
    if spec.get("type") == "ExternalName" or spec.get("clusterIP") == "None" or service.template or service.patch:
        return None
    offered: set[Any] = set()
    shown: list[str] = []
    for port in (as_dict(p) for p in as_list(spec.get("ports"))):
        number, name = as_int(port.get("port")), port.get("name")
        if number is None or (name is not None and (not isinstance(name, str) or templated(name))):
            return None
        offered.add(number)
        offered.update([name] if name else [])
        target = port.get("targetPort")
        if target_port_too and (as_int(target) is not None or isinstance(target, str)):  # a number or a port's name
            offered.add(as_int(target) if as_int(target) is not None else target)
        shown.append(f"{number} ({name})" if name else str(number))
    return (offered, shown) if shown else None


def port_problem(ref: Ref, defined: Defined) -> Optional[tuple[str, list[str]]]:
    """(the port asked for, the ports offered) where the run's one literal definition of the Service lacks it."""
    if ref.port is None or ref.kind != _SERVICE or ref.namespace == CLUSTER:
        return None
    service = defined.names(_SERVICE, ref.namespace).get(ref.name)
    if service is None:
        return None
    ports = service_ports(service, ref.row.target_port_too)
    asked = as_int(ref.port) if as_int(ref.port) is not None else ref.port
    if ports is None or not isinstance(asked, (int, str)) or (isinstance(asked, str) and templated(asked)):
        return None
    return None if asked in ports[0] else (str(asked), ports[1])


def missing(ref: Ref, defined: Defined) -> Optional[Names]:
    """The names the run defines of the target kind there, where none is the one the reference asks for; None
    where the name resolves or the run cannot prove it does not."""
    if not defined.judged(ref) or _builtin(ref) or (defined.generates and ref.kind in _GENERATED):
        return None
    names = defined.names(ref.kind, ref.namespace)
    if ref.row.also:
        names = {**names, **{n: d for kind in ref.row.also for n, d in defined.names(kind, CLUSTER).items()}}
    if not names or ref.name in names:
        return None
    return defined.index(ref.kind, ref.namespace, names)


def elsewhere(ref: Ref, source: Resource, defined: Defined) -> list[str]:
    """The other namespaces where the run defines the object a namespaced reference names, where it defines none of
    that name in the reference's namespace and the source and every such object state their namespace (an object that
    states none lands where it is applied); [] otherwise. The lookup is by namespace: the object of another namespace
    does not serve the reference."""
    if ref.namespace == CLUSTER or _builtin(ref) or (defined.generates and ref.kind in _GENERATED):
        return []
    if not stated_namespace(source) or not defined.judged(ref) or ref.name in defined.names(ref.kind, ref.namespace):
        return []
    if ref.kind == _SERVICE:
        spaces = {ns: named.get(ref.name) for ns, named in defined.services.items() if ref.name in named}
        found = {ns: [s] if s is not None else [] for ns, s in spaces.items()}
    else:
        found = {ns: named[ref.name] for ns, named in defined.namespaces(ref.kind).items() if ref.name in named}
    others = sorted(ns for ns in found if ns != ref.namespace)
    if not others or not all(objects and all(stated_namespace(o) for o in objects) for objects in found.values()):
        return []
    return others


def _elsewhere_message(ref: Ref, others: list[str]) -> str:
    return (
        f"{ref.where}: {ref.row.what} names {ref.kind[1]} {ref.name} in namespace {ref.namespace}, and the files read "
        f"define {ref.name} only in namespace {', '.join(others)}: the lookup is in {ref.namespace} alone, so "
        f"{ref.row.fails}; unless {ref.namespace}/{ref.name} is created another way, put both in one namespace"
    )


def kin_of(ref: Ref, defined: Defined) -> Optional[Resource]:
    """The run's one object under the name a reference asks for, of a kind written for the target by mistake (the row's
    ``kin``: a legacy AWSNodeTemplate where a NodePool names an EC2NodeClass), where the run defines no target of that
    name; None otherwise."""
    if not ref.row.kin or _builtin(ref) or not defined.judged(ref):
        return None
    if ref.name in defined.names(ref.kind, ref.namespace):
        return None
    for kind in ref.row.kin:
        if kind != ref.kind and ref.name in defined.names(kind, ref.namespace):
            return defined.names(kind, ref.namespace)[ref.name]
    return None


def _kin_message(ref: Ref, other: Resource) -> str:
    """Advice on a reference whose name the run gives only to an object of another kind."""
    api_version, kind = get(other.props, "apiVersion"), str(get(other.props, "kind"))
    target = ref.kind[1]

    def a(word: str) -> str:
        return f"{'an' if word[:1].upper() in 'AEIOU' else 'a'} {word}"

    return (
        f"{ref.where}: {ref.row.what} names {target} {ref.name} ({ref.kind[0]}), and the files read define {ref.name} "
        f"only as {a(kind)} ({api_version}), which is not {a(target)}: the controller looks the reference up by its "
        f"group and kind, so {ref.row.fails}; unless {a(target)} {ref.name} comes from elsewhere, write {ref.name} as "
        f"{a(target)} (or make the reference name the kind and group the files define)"
    )


def _name_message(ref: Ref, names: Names) -> str:
    """The message on a name that resolves to nothing (advice: the object may come from elsewhere; even a name one
    slip from a defined one may be another object a file the run leaves out defines)."""
    kinds = "/".join([ref.kind[1], *(k for _, k in ref.row.also)])
    place = "among the cluster-scoped objects" if ref.namespace == CLUSTER else f"in namespace {ref.namespace}"
    typo = names.typo_of(ref.name)
    text = (
        f"{ref.where}: {ref.row.what} names {ref.kind[1]} {ref.name}, which none of the files read defines {place} "
        f"(they define {kinds} {names.listed()} there): {ref.row.fails}; "
    )
    if typo is not None:
        return text + f"unless that {ref.kind[1]} comes from elsewhere, use {typo}"
    return text + f"unless that {ref.kind[1]} comes from elsewhere, name one the files define"


def _port_message(ref: Ref, asked: str, shown: list[str]) -> str:
    return (
        f"{ref.where}: {ref.row.what} asks Service {ref.name} (namespace {ref.namespace}) for port {asked}, which it "
        f"does not offer (its spec.ports: {', '.join(shown)}): {ref.row.port_fails}; name one of its ports, or add "
        f"{asked} to the Service"
    )


def unresolved(resources: list[Resource], family: str, generates: bool = False) -> list[tuple[str, str, bool]]:
    """(source resource name, message, whether it blocks) of every reference of the family's rows that the run proves
    does not resolve: a name it defines nothing under, or a port the Service it defines does not offer. ``generates``:
    the run holds a kustomization, which may generate ConfigMaps and Secrets (configMapGenerator, secretGenerator)
    under names the files never write; those are then not judged."""
    defined = Defined(resources, generates)
    found: list[tuple[str, str, bool]] = []
    seen: set[tuple[str, str, str]] = set()
    for resource in resources:
        for ref in memoized(resource, "references", _refs_of):
            if ref.row.family != family or (resource.name, ref.where, ref.row.what) in seen:
                continue
            seen.add((resource.name, ref.where, ref.row.what))
            names = missing(ref, defined)
            if names is not None:
                found.append((resource.name, _name_message(ref, names), False))
                continue
            other = kin_of(ref, defined)
            if other is not None:
                found.append((resource.name, _kin_message(ref, other), False))
                continue
            others = elsewhere(ref, resource, defined)
            if others:
                found.append((resource.name, _elsewhere_message(ref, others), False))
                continue
            problem = port_problem(ref, defined)
            if problem is not None:
                found.append((resource.name, _port_message(ref, *problem), True))
    return found
