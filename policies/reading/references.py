"""References between the objects of one run, as one table: object A names object B (by name, and for a route by
port), and B must exist and offer what A asks for.

Each row of ``ROWS`` (policies/reading/reference_rows.py) is one kind of reference: the kinds that hold it (or every
pod template), where it sits (a path of fields, ``[]`` marking a list), which field names the target and which its
port, the target's kind (or the field that names it), the namespace rule (the source's own, an explicit field, a DNS
host, or cluster-scoped), and what breaks when it does not resolve. ``unresolved`` reads every row over a run; a new reference kind is one more row.

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
from policies.reading.reference_rows import ROWS, SERVICE, Row
from policies.reading.run_objects import (
    SERVICE_MAKERS,
    Names,
    by_namespace,
    folder_of,
    hidden_namespaces,
    services_by_namespace,
    stated_namespace,
    templated,
)
from policies.reading.serving import namespace_of

_SERVICE = SERVICE
_GENERATED = (("", "ConfigMap"), ("", "Secret"))
CLUSTER = "<cluster>"  # the namespace key of cluster-scoped objects


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

    def unplaced(self, kind: tuple[str, str], source: Optional[Resource]) -> dict[str, Optional[Resource]]:
        """name -> its one definition (None for one defined twice) of the objects of one kind that state no namespace
        (no metadata.namespace, no kustomization's) in the folder of ``source``: they land in whatever namespace they
        are applied to, which for files kept beside it is likely its own (a folder applied whole, one kustomization).
        Objects of other folders may belong to another application, and are not counted as the namespace's other
        names; with ``source`` None, those of every folder (one of the name asked for may be applied there too)."""
        folder = folder_of(source) if source is not None else None
        found: dict[str, list[Resource]] = {}
        for named in self.namespaces(kind).values():
            for name, objects in named.items():
                found.setdefault(name, []).extend(
                    o for o in objects if not _placed(o) and (source is None or folder_of(o) == folder)
                )
        return {n: (o[0] if len(o) == 1 else None) for n, o in found.items() if o}

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


def _placed(resource: Resource) -> bool:
    """True when an object's namespace is written: its own metadata.namespace, or a kustomization's."""
    namespace = get(resource.props, "metadata", "namespace")
    return bool(resource.kustomize_namespace) or (isinstance(namespace, str) and bool(namespace))


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


def missing(ref: Ref, defined: Defined, source: Resource) -> Optional[Names]:
    """The names the run defines of the target kind there, where none is the one the reference asks for; None
    where the name resolves or the run cannot prove it does not."""
    if not defined.judged(ref) or _builtin(ref) or (defined.generates and ref.kind in _GENERATED):
        return None
    names = defined.names(ref.kind, ref.namespace)
    if ref.row.unplaced and ref.namespace != CLUSTER:
        if ref.name in defined.unplaced(ref.kind, None):
            return None  # the run writes it with no namespace (in any folder): applied there, it resolves
        names = {**defined.unplaced(ref.kind, source), **names}
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


def _name_message(ref: Ref, names: Names, unplaced: bool = False) -> str:
    """The message on a name that resolves to nothing (advice: the object may come from elsewhere; even a name one
    slip from a defined one may be another object a file the run leaves out defines)."""
    kinds = "/".join([ref.kind[1], *(k for _, k in ref.row.also)])
    place = "among the cluster-scoped objects" if ref.namespace == CLUSTER else f"in namespace {ref.namespace}"
    if unplaced:
        place += ", nor beside it with no namespace (which lands wherever it is applied)"
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
            names = missing(ref, defined, resource)
            if names is not None:
                unplaced = ref.row.unplaced and ref.namespace != CLUSTER and bool(defined.unplaced(ref.kind, resource))
                found.append((resource.name, _name_message(ref, names, unplaced), False))
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
