"""The deploy graph: what each resource waits for, derived from facts about the controllers we install.

``pulumi up`` creates a resource only after everything in its ``depends_on`` (and every resource
behind an Output it reads); ``pulumi destroy`` deletes in the reverse order. The order that makes a
first ``up`` and a ``destroy`` work on a fresh cluster is not placed by hand here: it follows from

* :data:`CHARTS`, one row per Helm chart the stack installs (a data catalogue of its own,
  components/deploy_facts.py): which kinds' CRDs it installs, which kinds its controller
  reconciles (finalizers) or its webhooks admit, which other charts it needs first, and the
  service account it runs as when it needs AWS IAM (EKS Pod Identity); each row cites the chart
  or controller source at the pinned tag (the tags and commits are listed with each chart pin);
* what each rendered object names: the ServiceAccounts, Secrets, PriorityClasses and model caches
  in its spec, and the namespace it lives in.

The rules (:func:`required_waits`, pure; docs/deploy.md explains them):

1. a custom resource waits for the release that installs its CRD and the release whose controller
   or webhook serves its kind, when the stack installs that chart (on destroy it goes first, while
   its controller can still run its finalizers: Karpenter's NodeClaims, KServe's InferenceService);
2. a release waits for the releases its chart needs first (cert-manager before KServe, the CRD
   charts before their controllers, istiod before the gateway);
3. a controller release waits for the Pod Identity association of its service account, for
   every IAM policy on that association's role and for the Pod Identity Agent add-on (and is
   deleted before them);
4. a workload waits for the ServiceAccounts, Secrets, PriorityClasses, LocalModelCaches and Pod
   Identity associations it names, when the stack creates them;
5. a namespaced object (a Helm release too) waits for its Namespace, when the stack creates it.

:class:`DeployOrder` applies them to a whole component tree as a Pulumi transformation: every
Kubernetes object and Helm release created under the component gets, in ``depends_on``, the
resources the rules name among everything the tree registered, whatever was created first. So a
ServiceAccount, Secret or controller added later is ordered without touching this module, as long
as its kind or chart is in the table.

pulumi-kubernetes retries a custom resource whose kind is not yet known only a few times (about
30 s: ``provider/pkg/await/await.go`` ``Creation``, ``WithMaxRetries(5).WithBackoffFactor(2)``,
v4.32.0), and never a webhook that refuses the connection, hence rule 1.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Iterator, Optional

import pulumi

from .builders import chart_crds
from .deploy_facts import CHARTS, POD_NAMESPACES, ChartFacts

HELM_RELEASE = "kubernetes:helm.sh/v3:Release"
# A chart's CRD that Pulumi applies itself (components/helm.py chart_crd_resources), one file each.
CONFIG_FILE = "kubernetes:yaml/v2:ConfigFile"
POD_IDENTITY = "aws:eks/podIdentityAssociation:PodIdentityAssociation"
EKS_ADDON = "aws:eks/addon:Addon"
# The node agent that hands Pod Identity credentials to pods: without it an association gives a
# pod nothing (EKS user guide, "Set up the Amazon EKS Pod Identity Agent").
POD_IDENTITY_AGENT = "eks-pod-identity-agent"
ROLE = "aws:iam/role:Role"
# Resources that put a policy on a role: the controller may start only once they are in place.
ROLE_POLICIES = ("aws:iam/rolePolicy:RolePolicy", "aws:iam/rolePolicyAttachment:RolePolicyAttachment")


@dataclass(frozen=True)
class Node:
    """One resource as the rules see it: a key, its Pulumi type and name, its inputs (engine form:
    camelCase keys, plain values) and, for an IAM association or policy, the key of its role."""

    key: Any
    type: str
    name: str
    body: Mapping[str, Any] = field(default_factory=dict)
    role: Any = None


@dataclass(frozen=True)
class Wait:
    """``node`` must wait for the resource ``key`` (by rule ``rule``, because ``why``)."""

    key: Any
    rule: int
    why: str


def chart_of(node: Node) -> Optional[str]:
    """The chart name of a Helm release (an ``oci://.../name`` chart reads as ``name``); None otherwise."""
    if node.type != HELM_RELEASE:
        return None
    chart = node.body.get("chart")
    return str(chart).rstrip("/").rsplit("/", 1)[-1] if chart else None


def kind_of(node: Node) -> Optional[str]:
    """``"<group>/<Kind>"`` of a Kubernetes object; None for anything else."""
    if not node.type.startswith("kubernetes:") or node.type == HELM_RELEASE:
        return None
    api_version, kind = node.body.get("apiVersion"), node.body.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return None
    group = api_version.rsplit("/", 1)[0] if "/" in api_version else ""
    return f"{group}/{kind}"


def namespace_of(node: Node) -> Optional[str]:
    """The namespace a Kubernetes object or Helm release goes to (None: cluster-scoped or not known)."""
    if node.type == HELM_RELEASE:
        ns = node.body.get("namespace")
    else:
        ns = (node.body.get("metadata") or {}).get("namespace") if isinstance(node.body.get("metadata"), Mapping) else None
    return ns if isinstance(ns, str) and ns else None


def object_name(node: Node) -> Optional[str]:
    """metadata.name of a Kubernetes object."""
    meta = node.body.get("metadata")
    name = meta.get("name") if isinstance(meta, Mapping) else None
    return name if isinstance(name, str) else None


def _walk(value: Any) -> Iterator[tuple[str, Any]]:
    """Every (key, value) pair of a nested mapping, depth first."""
    if isinstance(value, Mapping):
        for k, v in value.items():
            yield str(k), v
            yield from _walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from _walk(v)


@dataclass(frozen=True)
class References:
    """What a rendered object names: ServiceAccounts, Secrets, PriorityClasses and model URIs."""

    service_accounts: frozenset[str] = frozenset()
    secrets: frozenset[str] = frozenset()
    priority_classes: frozenset[str] = frozenset()
    storage_uris: frozenset[str] = frozenset()


def references(node: Node) -> References:
    """The names ``node``'s spec refers to (pod specs at any depth, a ServiceAccount's ``secrets``)."""
    sas: set[str] = set()
    secrets: set[str] = set()
    classes: set[str] = set()
    uris: set[str] = set()
    kind = kind_of(node)
    body = {k: v for k, v in node.body.items() if k not in ("metadata", "apiVersion", "kind")}
    for key, value in _walk(body):
        if key == "serviceAccountName" and isinstance(value, str):
            sas.add(value)
        elif key == "secretName" and isinstance(value, str):
            secrets.add(value)
        elif key in ("secretKeyRef", "secretRef") and isinstance(value, Mapping) and isinstance(value.get("name"), str):
            secrets.add(value["name"])
        elif key == "imagePullSecrets" and isinstance(value, list):
            secrets.update(v["name"] for v in value if isinstance(v, Mapping) and isinstance(v.get("name"), str))
        elif key == "priorityClassName" and isinstance(value, str):
            classes.add(value)
        elif key == "storageUri" and isinstance(value, str):
            uris.add(value)
        elif key == "env" and isinstance(value, list):
            uris.update(
                v["value"]
                for v in value
                if isinstance(v, Mapping) and v.get("name") == "STORAGE_URI" and isinstance(v.get("value"), str)
            )
    if kind == "/ServiceAccount":
        for ref in node.body.get("secrets") or []:
            if isinstance(ref, Mapping) and isinstance(ref.get("name"), str):
                secrets.add(ref["name"])
    return References(frozenset(sas), frozenset(secrets), frozenset(classes), frozenset(uris))


def _get(values: Any, path: str) -> Any:
    for part in path.split("."):
        if not isinstance(values, Mapping):
            return None
        values = values.get(part)
    return values


def release_service_account(node: Node) -> Optional[tuple[str, str]]:
    """(namespace, service account) a controller release runs as, when its chart calls AWS through Pod Identity."""
    facts = CHARTS.get(chart_of(node) or "")
    ns = namespace_of(node)
    if facts is None or facts.service_account is None or ns is None:
        return None
    path, default = facts.service_account
    name = _get(node.body.get("values"), path)
    return ns, name if isinstance(name, str) and name else default


def _uri_matches(uri: str, source: str) -> bool:
    # KServe matches a cache whose sourceModelUri is the model's URI or a folder above it.
    return uri == source or uri.startswith(source.rstrip("/") + "/")


class NodeIndex:
    """``nodes`` sorted by what the rules look them up by (built once for many :func:`required_waits`)."""

    def __init__(self, nodes: Sequence[Node]):
        self.releases = [(n, chart_of(n)) for n in nodes if n.type == HELM_RELEASE]
        self.by_kind: dict[str, list[tuple[Node, Optional[str], Optional[str]]]] = {}
        for n in nodes:
            kind = kind_of(n)
            if kind in _LOOKED_UP_KINDS:
                self.by_kind.setdefault(kind, []).append((n, object_name(n), namespace_of(n)))
        self.identity = [n for n in nodes if n.type in (POD_IDENTITY, EKS_ADDON, *ROLE_POLICIES)]
        self.crd_files = [(n, n.body.get("file")) for n in nodes if n.type == CONFIG_FILE]


_LOOKED_UP_KINDS = (
    "/ServiceAccount",
    "/Secret",
    "scheduling.k8s.io/PriorityClass",
    "serving.kserve.io/LocalModelCache",
    "/Namespace",
)


def required_waits(node: Node, nodes: "Sequence[Node] | NodeIndex") -> list[Wait]:
    """What ``node`` must wait for among ``nodes`` (the other resources of the stack), by rules 1-5."""
    index = nodes if isinstance(nodes, NodeIndex) else NodeIndex(nodes)

    def other(n: Node) -> bool:
        return n.key is not node.key and n.key != node.key

    waits: list[Wait] = []
    releases = [(n, c) for n, c in index.releases if other(n)]
    kind = kind_of(node)
    ns = namespace_of(node)
    # 1. A custom resource (or a kind a controller serves) after the releases of its CRD and its controller.
    if kind is not None:
        for rel, chart in releases:
            facts = CHARTS.get(chart or "")
            if facts is not None and kind in facts.crds:
                waits.append(Wait(rel.key, 1, f"{chart} installs the CRD of {kind}"))
            elif facts is not None and kind in facts.serves:
                waits.append(Wait(rel.key, 1, f"{chart} runs the controller or webhook of {kind}"))
        # ... and after the CRD files of that chart that Pulumi applies itself (the chart's release skips them).
        files = _crd_files_of(kind)
        for n, file in index.crd_files:
            if file in files and other(n):
                waits.append(Wait(n.key, 1, f"{file} is the CRD of {kind} (chart {files[file]})"))
    chart = chart_of(node)
    identity = [n for n in index.identity if other(n)]
    if chart is not None:
        facts = CHARTS.get(chart)
        # 2. A release after the charts it needs first.
        for rel, after in releases:
            if facts is not None and after in facts.after:
                waits.append(Wait(rel.key, 2, f"{chart} needs {after} first"))
        # 3. A controller release after its Pod Identity association and the policies on its role.
        account = release_service_account(node)
        if account is not None:
            waits.extend(_identity_waits(account, identity, f"{chart} runs as {account[0]}/{account[1]}", 3))
    # 4. A workload after what it names (in the namespace its pods run in).
    if kind is not None:
        refs = references(node)
        pod_ns = ns if ns is not None else _pod_namespace(kind, releases)
        for n, name, n_ns in index.by_kind.get("/ServiceAccount", ()):
            if name in refs.service_accounts and pod_ns is not None and n_ns == pod_ns and other(n):
                waits.append(Wait(n.key, 4, f"names ServiceAccount {name}"))
        for n, name, n_ns in index.by_kind.get("/Secret", ()):
            if name in refs.secrets and pod_ns is not None and n_ns == pod_ns and other(n):
                waits.append(Wait(n.key, 4, f"names Secret {name}"))
        for n, name, _ in index.by_kind.get("scheduling.k8s.io/PriorityClass", ()):
            if name in refs.priority_classes and other(n):
                waits.append(Wait(n.key, 4, f"names PriorityClass {name}"))
        for n, name, _ in index.by_kind.get("serving.kserve.io/LocalModelCache", ()):
            source = (n.body.get("spec") or {}).get("sourceModelUri")
            if isinstance(source, str) and any(_uri_matches(u, source) for u in refs.storage_uris) and other(n):
                waits.append(Wait(n.key, 4, f"reads {source} from LocalModelCache {name}"))
        for sa in sorted(refs.service_accounts):
            if pod_ns is not None:
                waits.extend(_identity_waits((pod_ns, sa), identity, f"runs as {pod_ns}/{sa}", 4, policies=False))
    # 5. A namespaced object after its Namespace.
    if ns is not None and kind != "/Namespace":
        for n, name, _ in index.by_kind.get("/Namespace", ()):
            if name == ns and other(n):
                waits.append(Wait(n.key, 5, f"lives in Namespace {ns}"))
    seen: set[int] = set()
    unique: list[Wait] = []
    for w in waits:
        if id(w.key) not in seen:
            seen.add(id(w.key))
            unique.append(w)
    return unique


def _crd_files_of(kind: str) -> dict[str, str]:
    """The CRD file Pulumi applies for ``kind`` (file -> chart), when a chart's crds/ hold it (builders/chart_crds.py)."""
    return {p.local_path(crd): p.chart for p in chart_crds.CHARTS.values() for crd, k in p.kinds().items() if k == kind}


def _pod_namespace(kind: str, releases: Sequence[tuple[Node, Optional[str]]]) -> Optional[str]:
    """The namespace the pods of a cluster-scoped ``kind`` run in (:data:`POD_NAMESPACES`), the chart's value when set."""
    place = POD_NAMESPACES.get(kind)
    if place is None:
        return None
    chart, path, default = place
    for rel, name in releases:
        if name == chart:
            value = _get(rel.body.get("values"), path)
            if isinstance(value, str) and value:
                return value
    return default


def _identity_waits(account: tuple[str, str], nodes: Sequence[Node], why: str, rule: int, policies: bool = True) -> list[Wait]:
    """The Pod Identity associations of ``account`` (namespace, service account) and the policies on their roles."""
    waits: list[Wait] = []
    roles = []
    for n in nodes:
        if n.type == POD_IDENTITY and n.body.get("namespace") == account[0] and n.body.get("serviceAccount") == account[1]:
            waits.append(Wait(n.key, rule, f"{why}: its Pod Identity association"))
            if n.role is not None:
                roles.append(n.role)
    if waits:
        for n in nodes:
            if n.type == EKS_ADDON and n.body.get("addonName") == POD_IDENTITY_AGENT:
                waits.append(Wait(n.key, rule, f"{why}: the Pod Identity Agent add-on"))
    for n in nodes if policies else ():
        if n.type in ROLE_POLICIES and n.role is not None and any(n.role is r or n.role == r for r in roles):
            waits.append(Wait(n.key, rule, f"{why}: a policy of its role"))
    return waits


# --------------------------------------------------------------------------------------------------
# The Pulumi side: a transformation that applies the rules to a component tree.


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


async def _plain(value: Any) -> Any:
    """``value`` with every Output and awaitable resolved (an unknown value reads as None)."""
    if isinstance(value, pulumi.Output):
        return await _plain(await value.future())
    if inspect.isawaitable(value):
        return await _plain(await value)
    if isinstance(value, Mapping):
        return {str(k): await _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [await _plain(v) for v in value]
    return value


def _known(value: Any) -> Any:
    """``value`` as far as it is known at construction: an Output or awaitable reads as None."""
    if isinstance(value, pulumi.Output) or inspect.isawaitable(value):
        return None
    if isinstance(value, Mapping):
        return {str(k): _known(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_known(v) for v in value]
    return value


def _waits_at_all(type_: str) -> bool:
    """Kubernetes objects and Helm releases wait by the rules; cloud resources only by their own inputs."""
    return type_.startswith("kubernetes:")


_ROLE_INPUT = {POD_IDENTITY: "role_arn", ROLE_POLICIES[0]: "role", ROLE_POLICIES[1]: "role"}


class _Entry:
    """A resource the tree registered, as it was given to its constructor."""

    def __init__(self, resource: pulumi.Resource, type_: str, name: str, props: Mapping[str, Any]):
        self.resource = resource
        self.type = type_
        self.name = name
        self.props = props

    def known_node(self, outputs: Mapping[int, pulumi.Resource]) -> Node:
        """The Node from the inputs known at construction; a role given as another resource's Output
        (``role=role.name``) is found by that Output's identity in ``outputs``."""
        body = {_camel(k): _known(v) for k, v in self.props.items() if v is not None}
        role = None
        role_input = _ROLE_INPUT.get(self.type)
        if role_input is not None:
            given = self.props.get(role_input)
            role = outputs.get(id(given)) if isinstance(given, pulumi.Output) else given
        return Node(key=self.resource, type=self.type, name=self.name, body=body, role=role)

    async def own_node(self, outputs: Mapping[int, pulumi.Resource]) -> Node:
        """The Node with the resource's own Output inputs resolved (what it names may be known only then)."""
        node = self.known_node(outputs)
        body = {_camel(k): await _plain(v) for k, v in self.props.items() if v is not None}
        return Node(key=node.key, type=node.type, name=node.name, body=body, role=node.role)


class DeployOrder:
    """Orders a component tree by the rules above (pass :meth:`options` to the root component).

    Every Kubernetes object and Helm release registered under the root gets ``depends_on`` what
    :func:`required_waits` names among all the resources the tree registered by the time
    :meth:`seal` is called (the root calls it when it has created its children, also when it
    fails part way). The resource's own inputs are read once resolved; the other resources'
    inputs as they were given (an Output there is not waited for: it could wait on this very
    resource through a parent's ``depends_on``), so a name another resource takes from an Output
    is not matched. ``waits`` keeps, per resource name, what was added and why.

    In a component of one's own (``LlmPlatform`` does exactly this)::

        order = DeployOrder()
        try:
            super().__init__("my:index:Serving", name, None, pulumi.ResourceOptions.merge(opts, order.options()))
            ...  # children, in any order
        finally:
            order.seal()
    """

    def __init__(self) -> None:
        self._entries: list[_Entry] = []
        self._sealed: Optional[asyncio.Future] = None
        self._output_index: Optional[dict[int, pulumi.Resource]] = None
        self._parents: dict[int, Any] = {}
        self._known: Optional[tuple[int, NodeIndex]] = None
        self._given: dict[int, list[pulumi.Resource]] = {}
        self.waits: dict[str, list[tuple[str, int, str]]] = {}
        # Per resource name, the waits the rules asked for that would have closed a cycle (left out).
        self.cycles: dict[str, list[str]] = {}

    def options(self) -> pulumi.ResourceOptions:
        """ResourceOptions that install the transformation on the component they are given to."""
        return pulumi.ResourceOptions(transformations=[self.transformation])

    def _seal_future(self) -> asyncio.Future:
        if self._sealed is None:
            self._sealed = asyncio.get_event_loop().create_future()
        return self._sealed

    def seal(self) -> None:
        """Every child is registered: the waits can be computed (idempotent)."""
        sealed = self._seal_future()
        if not sealed.done():
            sealed.set_result(True)

    def transformation(self, args: pulumi.ResourceTransformationArgs) -> Optional[pulumi.ResourceTransformationResult]:
        """Record the resource; for a Kubernetes object or release, defer its ``depends_on`` until sealed."""
        res = args.resource
        # Every resource's parent and plain depends_on, components included: a wait that would close
        # a cycle through them is left out (the engine would wait forever), see _closes_cycle.
        self._parents[id(res)] = args.opts.parent if args.opts is not None else None
        given = args.opts.depends_on if args.opts is not None else None
        plain = [given] if isinstance(given, pulumi.Resource) else given if isinstance(given, (list, tuple)) else []
        self._given[id(res)] = [g for g in plain if isinstance(g, pulumi.Resource)]
        if args.type_ == CONFIG_FILE:
            # A component (the provider registers its objects), recorded so that custom resources can wait for it.
            self._entries.append(_Entry(res, args.type_, args.name, dict(args.props)))
            return None
        if not isinstance(res, pulumi.CustomResource) or isinstance(res, pulumi.ProviderResource):
            return None
        entry = _Entry(res, args.type_, args.name, dict(args.props))
        self._entries.append(entry)
        if not _waits_at_all(args.type_):
            return None
        opts = args.opts._copy() if args.opts is not None else pulumi.ResourceOptions()
        sealed = self._seal_future()
        existing = opts.depends_on
        opts.depends_on = pulumi.Output.from_input(asyncio.ensure_future(self._depends_on(entry, existing, sealed)))
        return pulumi.ResourceTransformationResult(args.props, opts)

    async def _depends_on(self, entry: _Entry, existing: Any, sealed: asyncio.Future) -> list[pulumi.Resource]:
        await sealed
        given = await _given(existing)
        outputs = self._outputs()
        me = await entry.own_node(outputs)
        if self._known is None or self._known[0] != len(self._entries):
            # Read and indexed once for all the waiting resources (a 100-model stack has about a thousand).
            self._known = (len(self._entries), NodeIndex([o.known_node(outputs) for o in self._entries]))
        waits = required_waits(me, self._known[1])
        kept = [w for w in waits if not self._closes_cycle(entry.resource, w.key)]
        self.cycles[entry.name] = sorted(w.key._name for w in waits if w not in kept)
        self.waits[entry.name] = sorted((w.key._name, w.rule, w.why) for w in kept)
        extra = [w.key for w in kept if all(w.key is not g for g in given)]
        return [*given, *extra]

    def _lineage(self, res: Any) -> list[Any]:
        """``res`` and its ancestors (as registered under this tree)."""
        out: list[Any] = []
        while res is not None and all(res is not r for r in out):
            out.append(res)
            res = self._parents.get(id(res))
        return out

    def _closes_cycle(self, waiter: Any, target: Any) -> bool:
        """Whether ``waiter`` waiting for ``target`` closes a cycle the engine would wait on forever:
        ``target`` or one of its ancestors (whose registration ``target`` needs first) was given
        ``depends_on`` ``waiter``, one of its ancestors, or a component above it. Implicit waits
        through Outputs are not seen here."""
        mine = {id(r) for r in self._lineage(waiter)}
        return any(id(g) in mine for a in self._lineage(target) for g in self._given.get(id(a), ()))

    def _outputs(self) -> dict[int, pulumi.Resource]:
        """Each registered resource's output attributes (``role.name``, ``role.arn``) by identity."""
        if self._output_index is None:
            self._output_index = {
                id(value): e.resource
                for e in self._entries
                for value in vars(e.resource).values()
                if isinstance(value, pulumi.Output)
            }
        return self._output_index


async def _given(existing: Any) -> list[pulumi.Resource]:
    """The ``depends_on`` the resource was created with, as a list of resources."""
    if existing is None:
        return []
    if isinstance(existing, pulumi.Resource):
        return [existing]
    if isinstance(existing, pulumi.Output):
        return await _given(await existing.future())
    if inspect.isawaitable(existing):
        return await _given(await existing)
    out: list[pulumi.Resource] = []
    for item in existing:
        out.extend(await _given(item))
    return out


__all__ = [
    "CHARTS",
    "ChartFacts",
    "DeployOrder",
    "Node",
    "NodeIndex",
    "Wait",
    "chart_of",
    "kind_of",
    "references",
    "required_waits",
]
