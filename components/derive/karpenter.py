"""Karpenter's node choice for the pods our objects imply: which NodePool, how many nodes, which instance types.

Pure: from the Kubernetes objects a stack renders (NodePools, InferenceServices, RayClusters, the GPU buffer's
placeholders), the pods the controllers will create at replicas.min, provisioned together on an empty cluster the
way Karpenter's provisioning scheduler does it (kubernetes-sigs/karpenter v1.14.1,
pkg/controllers/provisioning/scheduling/; instance facts from aws/karpenter-provider-aws v1.14.1):

- pods are queued by CPU, then memory, descending (queue.go:72-107); each goes to an in-flight NodeClaim first,
  the one with the fewest pods first (scheduler.go:593-603), else to a new NodeClaim of the first NodePool that
  takes it (scheduler.go:695-790), within the NodePool's limits (scheduler.go:708-727, 786: a new claim counts the
  most its instance types could add);
- every NodePool taint counts, whatever its effect (pkg/scheduling/taints.go:83-95);
- every topology spread constraint counts, ScheduleAnyway too (topology.go:461-490): a hostname spread admits a
  pod on a node while its count there stays within maxSkew (topologygroup.go:238-252), a zone spread picks the
  least-loaded zone within maxSkew (topologygroup.go:254-297); a required pod affinity that selects the pod
  itself starts in any zone when no pod matches yet (topologygroup.go:365-367);
- a pod that fits nowhere is relaxed and tried again, in preferences.go's order (38-57): preferred pod affinity,
  preferred anti-affinity, preferred node affinity, one ScheduleAnyway constraint at a time, and last a toleration
  of every PreferNoSchedule taint (132-146), offered only when some NodePool has such a taint (scheduler.go:144-153);
- a NodeClaim launches the cheapest of the instance types that still hold its pods (on-demand fleets use
  lowest-price: aws/karpenter-provider-aws pkg/providers/instance/types.go:244). No price list is kept here:
  "cheapest" is the type with the fewest GPUs, then vCPUs, then memory, which orders each GPU family by price;
- allocatable is the instance's capacity less the VM memory overhead (7.5 %: pkg/operator/options/options.go:58,
  pkg/providers/instancetype/types.go:356-366), kube-reserved (types.go:522-552, with 110 pods) and the 100Mi
  eviction threshold (types.go:554-558).

- every new NodeClaim also holds the DaemonSet pods that will run on it: Karpenter adds to the pods' requests the
  requests of each DaemonSet pod compatible with the NodePool and instance type (scheduler.go:969-1004
  buildDaemonOverheadGroups, 1019-1043 isDaemonPodCompatible: every taint tolerated, PreferNoSchedule ones taken as
  tolerated, the pod's node selection compatible with the NodePool's labels and requirements; nodeclaim.go:563-582
  adds the overhead before the fit). The DaemonSets counted are those the stack renders: its own objects, and the
  Helm releases whose chart renders one, with the chart's default requests and node selection (read in its
  values.yaml at the pinned version: ``CHART_DAEMONSETS``) under the values we install;
- KServe creates a predictor Deployment under an external autoscaler (our HPA or KEDA) without replicas
  (kserve v0.20.0 deployment_reconciler.go:170-172 sets them only for autoscaler class none), so it starts at one
  pod and the autoscaler raises it to minReplicas: the pods arrive in two steps, not all at once as modelled here.
  Karpenter packs the later ones into the first NodeClaims' room the same way, so the nodes are the same unless a
  node launches between the two steps (then a pod may open a node of its own where it would have shared one).

What is left out, said so in the result: the DaemonSets of EKS add-ons (vpc-cni, kube-proxy, the Pod Identity
Agent: their requests are the add-on's own), existing nodes, zones beyond ``zones`` assumed ones (the subnets are
not known offline), pod anti-affinity, volume topology, capacity-type and reservation offerings.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Optional, Sequence

from ..capacity.gpus import INSTANCES
from .node_facts import (
    CHART_DAEMONSETS,
    EFA,
    GPU,
    GPU_NAME_LABEL,
    HOSTNAME,
    ISVC_LABEL,
    NODEPOOL_LABEL,
    ZONE,
    _dig,
    _fmt,
    _instance_labels,
    _selects,
    allocatable,
    daemon_fits_node,
    quantity,
    scheduling_fields,
    tolerates_taint,
)
from .node_facts import VM_MEMORY_OVERHEAD as VM_MEMORY_OVERHEAD  # read by policies/karpenter/limits_admit_instances.py
from .node_facts import count as _count
from .node_facts import mapping as _mapping
from .node_facts import mappings as _mappings
from .node_facts import text_labels as _labels

DEFAULT_ZONES = ("zone-a", "zone-b", "zone-c")
LEFT_OUT = (
    "the DaemonSets of EKS add-ons (vpc-cni, kube-proxy, Pod Identity Agent), existing nodes, pod anti-affinity, volume "
    "topology and capacity-type offerings are not modelled; zones are assumed (the subnets are not known offline); "
    "'cheapest' orders each GPU family by size; KServe starts each predictor Deployment at 1 replica under an external "
    "autoscaler (deployment_reconciler.go:170-172) and the HPA raises it to minReplicas, while all pods are taken "
    "pending at once here"
)


@dataclass
class Pod:
    """One pod a controller will create, as the provisioning scheduler sees it."""

    name: str
    namespace: str
    owner: str  # the model (InferenceService or RayCluster name) or "buffer/<pool>"
    labels: dict[str, str]
    spec: dict[str, Any]
    requests: dict[str, float]
    relaxations: list[str] = field(default_factory=list)


@dataclass
class NodeClaim:
    """A node Karpenter will launch: its NodePool, zone (once a constraint fixed it), pods and instance options."""

    pool: str
    index: int
    options: list[str]
    zone: Optional[str] = None
    pods: list[Pod] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.pool}-{self.index}"

    def used(self, resource: str) -> float:
        return sum(p.requests.get(resource, 0.0) for p in self.pods)


def _pod_requests(spec: Mapping[str, Any]) -> dict[str, float]:
    """Requests of the pod: each container's requests, its limits where a request is missing (the API server's
    defaulting), summed; init containers count by their largest (resources.RequestsForPods)."""

    def one(c: Mapping[str, Any]) -> dict[str, float]:
        res = _mapping(c.get("resources"))
        merged = {**_mapping(res.get("limits")), **_mapping(res.get("requests"))}
        return {k: quantity(v) for k, v in merged.items()}

    total: dict[str, float] = {}
    for c in _mappings(spec.get("containers")):
        for k, v in one(c).items():
            total[k] = total.get(k, 0.0) + v
    for c in _mappings(spec.get("initContainers")):
        for k, v in one(c).items():
            total[k] = max(total.get(k, 0.0), v)
    return total


@dataclass
class _Pool:
    name: str
    labels: dict[str, str]
    requirements: list[dict[str, Any]]
    taints: list[dict[str, Any]]
    instance_types: list[str]
    gpu_limit: Optional[float]


def _pools(objects: Iterable[Mapping[str, Any]]) -> list[_Pool]:
    out = []
    for o in objects:
        name = _mapping(o.get("metadata")).get("name")
        if o.get("kind") != "NodePool" or not isinstance(name, str):
            continue
        tpl = _mapping(_mapping(o.get("spec")).get("template"))
        spec = _mapping(tpl.get("spec"))
        reqs = [
            r | {"values": r["values"] if isinstance(r.get("values"), list) else []} for r in _mappings(spec.get("requirements"))
        ]
        types: list[Any] = next((r["values"] for r in reqs if r.get("key") == "node.kubernetes.io/instance-type"), [])
        limit = _mapping(_mapping(o.get("spec")).get("limits")).get(GPU)
        labels = _mapping(_mapping(tpl.get("metadata")).get("labels"))
        out.append(
            _Pool(
                name=name,
                labels={str(k): v for k, v in labels.items() if isinstance(v, str)},
                requirements=reqs,
                taints=_mappings(spec.get("taints")),
                instance_types=[t for t in types if isinstance(t, str) and t in INSTANCES],
                gpu_limit=quantity(limit) if isinstance(limit, (str, int, float)) and not isinstance(limit, bool) else None,
            )
        )
    return out


def _pod(name: str, namespace: str, owner: str, labels: Any, spec: Any) -> Pod:
    """A pending pod. Third-party manifests reach here (policies/karpenter/node_choice.py): every field the scheduler
    reads is taken as the API defines it or not at all (a map, a list of maps, text labels), never read as given."""
    spec = _mapping(spec)
    return Pod(name, namespace, owner, _labels(labels), {**spec, **scheduling_fields(spec)}, _pod_requests(spec))


# InferenceService predictor keys that are not pod-spec fields (KServe's ComponentExtensionSpec and friends).
_PREDICTOR_ONLY = {"minReplicas", "maxReplicas", "labels", "annotations", "model", "scaleTarget", "scaleMetric",
                   "scaleMetricType", "containerConcurrency", "timeout", "canaryTrafficPercent", "logger", "batcher",
                   "deploymentStrategy", "autoScaling", "workerSpec"}  # fmt: skip


def pods_of(objects: Sequence[Mapping[str, Any]]) -> list[Pod]:
    """The pods our objects make controllers create at their minimum size, in object order.

    InferenceService: ``minReplicas`` predictor pods labelled ``serving.kserve.io/inferenceservice`` (KServe v0.20.0
    puts the label on the pod template). RayCluster: one head and ``replicas x numOfHosts`` pods per worker group,
    labelled ``ray.io/cluster``, ``ray.io/node-type`` and ``ray.io/group`` (KubeRay v1.7.0 ray-operator/controllers/
    ray/common/pod.go:1167-1191). Deployment and CapacityBuffer (with its PodTemplate) of the GPU buffer.
    """
    templates = {
        (_text(_mapping(o.get("metadata")).get("namespace")), _text(_mapping(o.get("metadata")).get("name"))): _mapping(
            o.get("template")
        )
        for o in objects
        if o.get("kind") == "PodTemplate"
    }
    pods: list[Pod] = []
    for o in objects:
        kind, meta = o.get("kind"), _mapping(o.get("metadata"))
        name, ns = _text(meta.get("name", "")), _text(meta.get("namespace", "default"))
        spec = _mapping(o.get("spec"))
        if kind == "InferenceService":
            predictor = _mapping(spec.get("predictor"))
            fields = {k: v for k, v in predictor.items() if k not in _PREDICTOR_ONLY}
            for i in range(_count(predictor.get("minReplicas", 1) or 0, 1)):
                pods.append(
                    _pod(f"{name}-predictor-{i}", ns, name, {**_labels(predictor.get("labels")), ISVC_LABEL: name}, fields)
                )
        elif kind == "RayCluster":
            head = _mapping(spec.get("headGroupSpec"))
            tpl = _mapping(head.get("template"))
            base = {**_labels(_mapping(tpl.get("metadata")).get("labels")), "ray.io/cluster": name}
            pods.append(
                _pod(
                    f"{name}-head",
                    ns,
                    name,
                    {**base, "ray.io/node-type": "head", "ray.io/group": "headgroup"},
                    tpl.get("spec"),
                )
            )
            for g in _mappings(spec.get("workerGroupSpecs")):
                gt = _mapping(g.get("template"))
                glabels = {
                    **_labels(_mapping(gt.get("metadata")).get("labels")),
                    "ray.io/cluster": name,
                    "ray.io/node-type": "worker",
                    "ray.io/group": _text(g.get("groupName", "")),
                }
                for i in range(_count(g.get("replicas", 0) or 0, 0) * _count(g.get("numOfHosts", 1) or 1, 1)):
                    pods.append(_pod(f"{name}-{g.get('groupName')}-worker-{i}", ns, name, glabels, gt.get("spec")))
        elif kind == "Deployment":
            tpl = _mapping(spec.get("template"))
            podspec = _mapping(tpl.get("spec"))
            selector = _labels(podspec.get("nodeSelector"))
            if NODEPOOL_LABEL not in selector:
                continue  # not one of the GPU pools' pods: it runs on the cluster's own nodes
            owner = f"buffer/{selector[NODEPOOL_LABEL]}" if "gpu-buffer" in name else name
            for i in range(_count(spec.get("replicas", 1) or 0, 1)):
                pods.append(_pod(f"{name}-{i}", ns, owner, _mapping(tpl.get("metadata")).get("labels"), podspec))
        elif kind == "CapacityBuffer":
            ref = _text(_mapping(spec.get("podTemplateRef")).get("name"))
            tpl = templates.get((ns, ref)) or {}
            podspec = _mapping(tpl.get("spec"))
            pool = _labels(podspec.get("nodeSelector")).get(NODEPOOL_LABEL, "?")
            for i in range(_count(spec.get("replicas", 0) or 0, 0)):
                pods.append(_pod(f"{name}-{i}", ns, f"buffer/{pool}", _mapping(tpl.get("metadata")).get("labels"), podspec))
    return [p for p in pods if p.requests.get(GPU) or NODEPOOL_LABEL in p.spec["nodeSelector"]]


def _text(value: Any) -> str:
    """A name or namespace read from a manifest: text, else "" (an object named by no text joins nothing)."""
    return value if isinstance(value, str) else ""


def daemonset_pods(objects: Sequence[Mapping[str, Any]], releases: Sequence[Any] = ()) -> list[Pod]:
    """One pod per DaemonSet the stack renders: its own DaemonSet objects, and each release of a chart in
    ``CHART_DAEMONSETS`` (the chart's default requests and node selector, overridden by the release's values)."""
    out: list[Pod] = []
    for o in objects:
        if o.get("kind") == "DaemonSet":
            meta = _mapping(o.get("metadata"))
            tpl = _mapping(_mapping(o.get("spec")).get("template"))
            out.append(_pod(str(meta.get("name")), str(meta.get("namespace") or ""), "daemonset", {}, tpl.get("spec")))
    for rel in releases:
        chart = next((c for c in CHART_DAEMONSETS if c.chart == rel.chart_name), None)
        if chart is None:
            continue
        values = _dig(rel.values, chart.values_path)
        resources = values.get("resources") if isinstance(values.get("resources"), Mapping) else None
        requests = dict((resources or {}).get("requests") or {}) if resources is not None else dict(chart.requests)
        spec: dict[str, Any] = {
            "containers": [{"name": chart.chart, "resources": {"requests": requests}}],
            "tolerations": list(values.get("tolerations") or []),
            "nodeSelector": dict(values["nodeSelector"]) if "nodeSelector" in values else dict(chart.node_selector),
        }
        if values.get("affinity"):
            spec["affinity"] = values["affinity"]
        elif chart.efa_instance_types_only:
            efa = sorted(t for t, i in INSTANCES.items() if i.efa)
            term = {"matchExpressions": [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": efa}]}
            spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}
        out.append(_pod(rel.name, rel.namespace, f"helm/{rel.chart_name}", {}, spec))
    return sorted(out, key=lambda p: (p.namespace, p.name))


class _Scheduler:
    def __init__(self, pools: list[_Pool], zones: Sequence[str], daemons: Sequence[Pod] = ()):
        self.daemons = list(daemons)
        self.pools = pools
        self.zones = list(zones)
        self.claims: list[NodeClaim] = []
        self.placed: list[tuple[Pod, NodeClaim]] = []
        self.remaining = {p.name: p.gpu_limit for p in pools}
        self.tolerate_soft = any(t.get("effect") == "PreferNoSchedule" for p in pools for t in p.taints)

    # -- compatibility -------------------------------------------------------------------------------------------
    def _types_for(self, pod: Pod, pool: _Pool) -> Optional[list[str]]:
        """The pool's instance types the pod's node selection allows, or None when the pool is ruled out."""
        if any(not tolerates_taint(pod.spec["tolerations"], t) for t in pool.taints):
            return None
        types = list(pool.instance_types)
        for key, value in pod.spec["nodeSelector"].items():
            if key == NODEPOOL_LABEL:
                if value != pool.name:
                    return None
            elif key in pool.labels:
                if pool.labels[key] != value:
                    return None
            elif key in ("node.kubernetes.io/instance-type", GPU_NAME_LABEL, "kubernetes.io/arch"):
                types = [t for t in types if _instance_labels(t)[key] == value]
            elif key == ZONE:
                continue
            else:
                req = next((r for r in pool.requirements if r.get("key") == key), None)
                if req is None or req.get("operator") != "In" or value not in (req.get("values") or []):
                    return None
        for req in pool.requirements:
            if req.get("key") in (GPU_NAME_LABEL, "kubernetes.io/arch") and req.get("operator") == "In":
                types = [t for t in types if _instance_labels(t)[req["key"]] in req.get("values", [])]
        return types or None

    def overhead(self, pool: _Pool, instance_type: str) -> dict[str, float]:
        """The requests of the DaemonSet pods Karpenter counts on a new node of this pool and type."""
        total: dict[str, float] = {}
        for d in self.daemons:
            if daemon_fits_node(d, pool, instance_type):
                for k, v in d.requests.items():
                    total[k] = total.get(k, 0.0) + v
        return total

    def _fits(self, types: list[str], pods: list[Pod], pool: _Pool) -> list[str]:
        need: dict[str, float] = {}
        for p in pods:
            for k, v in p.requests.items():
                need[k] = need.get(k, 0.0) + v
        out = []
        for t in types:
            alloc = allocatable(t)
            with_daemons = dict(need)
            for k, v in self.overhead(pool, t).items():
                with_daemons[k] = with_daemons.get(k, 0.0) + v
            if all(v <= alloc.get(k, math.inf if k not in (GPU, EFA) else 0.0) + 1e-9 for k, v in with_daemons.items()):
                out.append(t)
        return out

    def _count(self, constraint: Mapping[str, Any], pod: Pod, where: Any) -> int:
        sel = constraint.get("labelSelector") or {}
        return sum(1 for q, c in self.placed if q.namespace == pod.namespace and _selects(sel, q.labels) and where(c))

    def _zone_for(self, pod: Pod, claim: NodeClaim) -> tuple[bool, Optional[str]]:
        """Whether the pod's zone constraints allow this claim, and the zone the claim gets."""
        zone = claim.zone
        for c in pod.spec.get("topologySpreadConstraints") or []:
            key = c.get("topologyKey")
            if key == HOSTNAME:
                self_count = 1 if _selects(c.get("labelSelector") or {}, pod.labels) else 0
                if self._count(c, pod, lambda n: n is claim) + self_count > int(c.get("maxSkew", 1)):
                    return False, None
            elif key == ZONE:
                counts = {z: self._count(c, pod, lambda n, z=z: n.zone == z) for z in self.zones}
                self_count = 1 if _selects(c.get("labelSelector") or {}, pod.labels) else 0
                low = min(counts.values())
                valid = [z for z in self.zones if counts[z] + self_count - low <= int(c.get("maxSkew", 1))]
                if zone is not None:
                    if zone not in valid:
                        return False, None
                else:
                    zone = min(valid, key=lambda z: (counts[z], self.zones.index(z)), default=None)
                    if zone is None:
                        return False, None
        affinity = ((pod.spec.get("affinity") or {}).get("podAffinity") or {}).get(
            "requiredDuringSchedulingIgnoredDuringExecution"
        ) or []
        for term in affinity:
            if term.get("topologyKey") != ZONE:
                continue
            sel = term.get("labelSelector") or {}
            there = sorted({n.zone or "" for q, n in self.placed if q.namespace == pod.namespace and _selects(sel, q.labels)})
            if there:
                want = there[0] or None
                if want is not None and zone not in (None, want):
                    return False, None
                zone = want or zone
            elif not _selects(sel, pod.labels):
                return False, None  # nothing to join, and the pod cannot start the domain itself
            else:
                zone = zone or self.zones[0]  # the first pod starts the domain (topologygroup.go:365-367)
        return True, zone

    # -- placement -----------------------------------------------------------------------------------------------
    def _try(self, pod: Pod) -> Optional[str]:
        for claim in sorted(self.claims, key=lambda c: len(c.pods)):
            pool = next(p for p in self.pools if p.name == claim.pool)
            types = self._types_for(pod, pool)
            if types is None:
                continue
            options = self._fits([t for t in claim.options if t in types], [*claim.pods, pod], pool)
            ok, zone = self._zone_for(pod, claim)
            if options and ok:
                claim.options, claim.zone = options, zone
                claim.pods.append(pod)
                self.placed.append((pod, claim))
                return None
        reasons = []
        for pool in self.pools:
            types = self._types_for(pod, pool)
            if types is None:
                reasons.append(f"{pool.name}: taints or node selection")
                continue
            left = self.remaining[pool.name]
            if left is not None:
                types = [t for t in types if INSTANCES[t].gpu_count <= left]
            options = self._fits(types, [pod], pool)
            if not options:
                reasons.append(f"{pool.name}: no instance type holds the pod within the pool's limits")
                continue
            claim = NodeClaim(pool.name, 1 + sum(1 for c in self.claims if c.pool == pool.name), options)
            ok, zone = self._zone_for(pod, claim)
            if not ok:
                reasons.append(f"{pool.name}: topology")
                continue
            claim.zone = zone
            claim.pods.append(pod)
            self.claims.append(claim)
            self.placed.append((pod, claim))
            if left is not None:
                self.remaining[pool.name] = left - max(INSTANCES[t].gpu_count for t in options)
            return None
        return "; ".join(reasons) or "no NodePool"

    def _relax(self, pod: Pod) -> bool:
        aff = pod.spec.get("affinity") or {}
        for kind in ("podAffinity", "podAntiAffinity", "nodeAffinity"):
            preferred = (aff.get(kind) or {}).get("preferredDuringSchedulingIgnoredDuringExecution")
            if preferred:
                aff[kind]["preferredDuringSchedulingIgnoredDuringExecution"] = []
                pod.relaxations.append(f"removed preferred {kind}")
                return True
        spread = pod.spec.get("topologySpreadConstraints") or []
        for i, c in enumerate(spread):
            if c.get("whenUnsatisfiable") == "ScheduleAnyway":
                pod.spec["topologySpreadConstraints"] = spread[:i] + spread[i + 1 :]
                pod.relaxations.append(f"removed ScheduleAnyway spread on {c.get('topologyKey')}")
                return True
        soft = {"operator": "Exists", "effect": "PreferNoSchedule"}
        has = any(
            not t.get("key") and t.get("operator") == "Exists" and t.get("effect") == "PreferNoSchedule"
            for t in pod.spec["tolerations"]
        )
        if self.tolerate_soft and not has:
            pod.spec["tolerations"].append(soft)
            pod.relaxations.append("added a toleration of every PreferNoSchedule taint")
            return True
        return False

    def schedule(self, pods: list[Pod]) -> list[tuple[Pod, str]]:
        # queue.go:72-107: CPU, then memory, descending; ties go by creation time, then UID, which a plan has not:
        # namespace and name stand in for them, so the same objects always give the same nodes.
        queue = sorted(pods, key=lambda p: (-p.requests.get("cpu", 0.0), -p.requests.get("memory", 0.0), p.namespace, p.name))
        failed = []
        for pod in queue:
            while True:
                reason = self._try(pod)
                if reason is None:
                    break
                if not self._relax(pod):
                    failed.append((pod, reason))
                    break
        return failed


def _cheapest(options: Sequence[str]) -> str:
    return min(options, key=lambda t: (INSTANCES[t].gpu_count, INSTANCES[t].vcpu, INSTANCES[t].memory_gib, t))


def _model_rows(sched: "_Scheduler", nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per owner (model): its pools, pods, nodes, instance types, the owners it shares nodes with, its relaxations."""
    by_node = {n["name"]: n for n in nodes}
    owners: dict[str, dict[str, Any]] = {}
    for pod, claim in sched.placed:
        row = owners.setdefault(pod.owner, {"model": pod.owner, "pools": set(), "pods": 0, "nodes": set(), "relaxations": set()})
        row["pools"].add(claim.pool)
        row["pods"] += 1
        row["nodes"].add(claim.name)
        row["relaxations"].update(pod.relaxations)
    models = [
        {
            "model": r["model"],
            "pool": ", ".join(sorted(r["pools"])),
            "pods": r["pods"],
            "nodes": len(r["nodes"]),
            "node_names": sorted(r["nodes"]),
            "instance_types": sorted({by_node[n]["instance_type"] for n in r["nodes"]}),
            "shares_nodes_with": sorted(
                {q.owner for n in r["nodes"] for q, c in sched.placed if c.name == n and q.owner != r["model"]}
            ),
            "relaxations": sorted(r["relaxations"]),
        }
        for r in sorted(owners.values(), key=lambda r: r["model"])
    ]
    return models


def _pool_rows(pools: Sequence[Any], nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per NodePool: node count, instance types, GPUs, requested and idle."""
    pool_rows = []
    for p in pools:
        mine = [n for n in nodes if n["pool"] == p.name]
        types: dict[str, int] = {}
        for n in mine:
            types[n["instance_type"]] = types.get(n["instance_type"], 0) + 1
        pool_rows.append(
            {
                "pool": p.name,
                "nodes": len(mine),
                "instance_types": dict(sorted(types.items())),
                "gpus": sum(n["gpus"] for n in mine),
                "gpus_requested": sum(n["gpus_requested"] for n in mine),
                "idle_gpus": sum(n["idle_gpus"] for n in mine),
            }
        )
    return pool_rows


def node_choice(
    objects: Sequence[Mapping[str, Any]], zones: Sequence[str] = DEFAULT_ZONES, releases: Sequence[Any] = ()
) -> dict[str, Any]:
    """Karpenter's node choice for every GPU pod the objects imply, as JSON-ready data (deterministic).

    ``nodes``: one row per NodeClaim (pool, instance type, zone, GPUs, pods); ``models``: per owner, its pool, pods,
    nodes and the relaxations Karpenter needed; ``pools``: node count, instance types, GPUs, requested and idle;
    ``unschedulable``: pods no NodePool takes, with why; ``findings``: what the checks found.
    """
    # NodePools without weights, by name (Karpenter orders them by weight: scheduler.go:756-759 keeps the first);
    # the objects by kind, namespace and name, whatever order the engine recorded them in.
    ordered = sorted(
        objects,
        key=lambda o: (
            str(o.get("kind")),
            str((o.get("metadata") or {}).get("namespace")),
            str((o.get("metadata") or {}).get("name")),
        ),
    )
    pools = sorted(_pools(ordered), key=lambda p: p.name)
    pods = pods_of(ordered)
    daemons = daemonset_pods(ordered, releases)
    sched = _Scheduler(pools, zones, daemons)
    failed = sched.schedule(pods)
    nodes: list[dict[str, Any]] = []
    for c in sched.claims:
        itype = _cheapest(c.options)
        gpus = INSTANCES[itype].gpu_count
        used = int(round(c.used(GPU)))
        nodes.append(
            {
                "name": c.name,
                "pool": c.pool,
                "instance_type": itype,
                "zone": c.zone,
                "gpus": gpus,
                "gpus_requested": used,
                "idle_gpus": gpus - used,
                "pods": [f"{p.namespace}/{p.name}" for p in c.pods],
            }
        )
    models = _model_rows(sched, nodes)
    pool_rows = _pool_rows(pools, nodes)
    findings = [f"{p.namespace}/{p.name} ({p.owner}): Karpenter provisions no node for it: {why}" for p, why in failed]
    for pod, _ in sched.placed:
        for r in pod.relaxations:
            findings.append(
                f"{pod.namespace}/{pod.name} ({pod.owner}): Karpenter {r} before it found a node "
                "(preferences.go:38-57): the pod's constraints do not hold as written"
            )
    return {
        "zones_assumed": list(zones),
        "left_out": LEFT_OUT,
        # The DaemonSet pods counted on every new node (scheduler.go:969-1004), and the pools whose nodes they run on.
        "daemonsets": [
            {
                "pod": f"{d.namespace}/{d.name}",
                "owner": d.owner,
                "requests": {k: _fmt(v, k) for k, v in sorted(d.requests.items())},
                "pools": [p.name for p in pools if any(daemon_fits_node(d, p, t) for t in p.instance_types)],
            }
            for d in daemons
        ],
        "nodes": nodes,
        "models": models,
        "pools": pool_rows,
        "unschedulable": [{"pod": f"{p.namespace}/{p.name}", "owner": p.owner, "reason": why} for p, why in failed],
        "findings": sorted(findings),
    }
