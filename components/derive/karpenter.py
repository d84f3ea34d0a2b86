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

What is left out, said so in the result: DaemonSet overhead, existing nodes, zones beyond ``zones`` assumed ones
(the subnets are not known offline), pod anti-affinity, volume topology, capacity-type and reservation offerings.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Optional, Sequence

from ..capacity.gpus import GPUS, INSTANCES
from ..quantities import parse_quantity

GPU = "nvidia.com/gpu"
EFA = "vpc.amazonaws.com/efa"
NODEPOOL_LABEL = "karpenter.sh/nodepool"
GPU_NAME_LABEL = "karpenter.k8s.aws/instance-gpu-name"
ZONE = "topology.kubernetes.io/zone"
HOSTNAME = "kubernetes.io/hostname"
ISVC_LABEL = "serving.kserve.io/inferenceservice"
VM_MEMORY_OVERHEAD = 0.075  # aws/karpenter-provider-aws v1.14.1 pkg/operator/options/options.go:58 (default)
ASSUMED_MAX_PODS = 110  # for kube-reserved memory (11 MiB a pod + 255 MiB, types.go:524)
EVICTION_MEMORY_MI = 100  # types.go:556
DEFAULT_ZONES = ("zone-a", "zone-b", "zone-c")
LEFT_OUT = (
    "DaemonSet overhead, existing nodes, pod anti-affinity, volume topology and capacity-type offerings are not "
    "modelled; zones are assumed (the subnets are not known offline); 'cheapest' orders each GPU family by size"
)


def quantity(value: Any) -> float:
    """A Kubernetes quantity in base units (CPU cores, bytes, counts); 0 for what is not one (components/quantities.py
    parses it, for the policy pack too)."""
    try:
        return parse_quantity(value)
    except ValueError:
        return 0.0


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


def allocatable(instance_type: str) -> dict[str, float]:
    """What a node of this type offers pods, as Karpenter computes it before the node exists."""
    spec = INSTANCES[instance_type]
    millicores = spec.vcpu * 1000
    reserved_m = 0.0
    for start, end, pct in ((0, 1000, 0.06), (1000, 2000, 0.01), (2000, 4000, 0.005), (4000, 1 << 31, 0.0025)):
        if millicores >= start:
            reserved_m += (min(millicores, end) - start) * pct
    mem_mi = spec.memory_gib * 1024
    mem_mi -= math.ceil(mem_mi * VM_MEMORY_OVERHEAD)
    mem_mi -= 11 * ASSUMED_MAX_PODS + 255 + EVICTION_MEMORY_MI
    return {
        "cpu": (millicores - reserved_m) / 1000,
        "memory": mem_mi * 2.0**20,
        GPU: float(spec.gpu_count),
        EFA: float(spec.efa_interfaces),
    }


def _instance_labels(instance_type: str) -> dict[str, str]:
    spec = INSTANCES[instance_type]
    gpu = GPUS.get(spec.gpu)
    return {
        "node.kubernetes.io/instance-type": instance_type,
        GPU_NAME_LABEL: (gpu.karpenter_gpu_name or spec.gpu.lower()) if gpu else spec.gpu.lower(),
        "kubernetes.io/arch": spec.arch,
    }


def _pod_requests(spec: Mapping[str, Any]) -> dict[str, float]:
    """Requests of the pod: each container's requests, its limits where a request is missing (the API server's
    defaulting), summed; init containers count by their largest (resources.RequestsForPods)."""

    def one(c: Mapping[str, Any]) -> dict[str, float]:
        res = c.get("resources") or {}
        merged = {**(res.get("limits") or {}), **(res.get("requests") or {})}
        return {k: quantity(v) for k, v in merged.items()}

    total: dict[str, float] = {}
    for c in spec.get("containers") or []:
        for k, v in one(c).items():
            total[k] = total.get(k, 0.0) + v
    for c in spec.get("initContainers") or []:
        for k, v in one(c).items():
            total[k] = max(total.get(k, 0.0), v)
    return total


def tolerates_taint(tolerations: Sequence[Any], taint: Mapping[str, Any]) -> bool:
    """k8s.io/api core/v1 Toleration.ToleratesTaint: empty effect matches all; an empty key with Exists matches
    every taint; Exists matches any value; Equal (or no operator) compares the value; any other operator matches
    nothing.

    The one matcher of the derivations and of the policy pack (S15 reads third-party pods: an item that is no
    mapping tolerates nothing)."""
    for t in tolerations:
        if not isinstance(t, Mapping):
            continue
        if t.get("effect") not in (None, "", taint.get("effect")):
            continue
        key, operator = t.get("key"), t.get("operator") or "Equal"
        if operator == "Exists":
            if key in (None, "") or key == taint.get("key"):
                return True
        elif operator == "Equal" and key == taint.get("key") and str(t.get("value", "")) == str(taint.get("value", "")):
            return True
    return False


def _selects(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    wanted = (selector or {}).get("matchLabels") or {}
    return all(labels.get(k) == v for k, v in wanted.items())


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
        if o.get("kind") != "NodePool":
            continue
        tpl = (o.get("spec") or {}).get("template") or {}
        spec = tpl.get("spec") or {}
        reqs = list(spec.get("requirements") or [])
        types = next((r.get("values") or [] for r in reqs if r.get("key") == "node.kubernetes.io/instance-type"), [])
        limit = ((o.get("spec") or {}).get("limits") or {}).get(GPU)
        out.append(
            _Pool(
                name=o["metadata"]["name"],
                labels=dict((tpl.get("metadata") or {}).get("labels") or {}),
                requirements=reqs,
                taints=list(spec.get("taints") or []),
                instance_types=[t for t in types if t in INSTANCES],
                gpu_limit=quantity(limit) if limit is not None else None,
            )
        )
    return out


def _pod(name: str, namespace: str, owner: str, labels: Mapping[str, str], spec: Mapping[str, Any]) -> Pod:
    copied = {k: v for k, v in spec.items()}
    copied["tolerations"] = [dict(t) for t in spec.get("tolerations") or []]
    copied["topologySpreadConstraints"] = [dict(c) for c in spec.get("topologySpreadConstraints") or []]
    return Pod(name, namespace, owner, dict(labels), copied, _pod_requests(spec))


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
        (o["metadata"].get("namespace"), o["metadata"]["name"]): o.get("template") or {}
        for o in objects
        if o.get("kind") == "PodTemplate"
    }
    pods: list[Pod] = []
    for o in objects:
        kind, meta = o.get("kind"), o.get("metadata") or {}
        name, ns = meta.get("name", ""), meta.get("namespace", "default")
        spec = o.get("spec") or {}
        if kind == "InferenceService":
            predictor = spec.get("predictor") or {}
            podspec = {k: v for k, v in predictor.items() if k not in _PREDICTOR_ONLY}
            labels = {**(predictor.get("labels") or {}), ISVC_LABEL: name}
            for i in range(int(predictor.get("minReplicas", 1) or 0)):
                pods.append(_pod(f"{name}-predictor-{i}", ns, name, labels, podspec))
        elif kind == "RayCluster":
            head = spec.get("headGroupSpec") or {}
            tpl = head.get("template") or {}
            base = {**((tpl.get("metadata") or {}).get("labels") or {}), "ray.io/cluster": name}
            pods.append(
                _pod(
                    f"{name}-head",
                    ns,
                    name,
                    {**base, "ray.io/node-type": "head", "ray.io/group": "headgroup"},
                    tpl.get("spec") or {},
                )
            )
            for g in spec.get("workerGroupSpecs") or []:
                gt = g.get("template") or {}
                glabels = {
                    **((gt.get("metadata") or {}).get("labels") or {}),
                    "ray.io/cluster": name,
                    "ray.io/node-type": "worker",
                    "ray.io/group": g.get("groupName", ""),
                }
                for i in range(int(g.get("replicas", 0) or 0) * int(g.get("numOfHosts", 1) or 1)):
                    pods.append(_pod(f"{name}-{g.get('groupName')}-worker-{i}", ns, name, glabels, gt.get("spec") or {}))
        elif kind == "Deployment":
            tpl = spec.get("template") or {}
            podspec = tpl.get("spec") or {}
            if NODEPOOL_LABEL not in (podspec.get("nodeSelector") or {}):
                continue  # not one of the GPU pools' pods: it runs on the cluster's own nodes
            labels = (tpl.get("metadata") or {}).get("labels") or {}
            owner = f"buffer/{podspec['nodeSelector'][NODEPOOL_LABEL]}" if "gpu-buffer" in name else name
            for i in range(int(spec.get("replicas", 1) or 0)):
                pods.append(_pod(f"{name}-{i}", ns, owner, labels, podspec))
        elif kind == "CapacityBuffer":
            ref = (spec.get("podTemplateRef") or {}).get("name")
            tpl = templates.get((ns, ref)) or {}
            podspec = tpl.get("spec") or {}
            pool = (podspec.get("nodeSelector") or {}).get(NODEPOOL_LABEL, "?")
            labels = (tpl.get("metadata") or {}).get("labels") or {}
            for i in range(int(spec.get("replicas", 0) or 0)):
                pods.append(_pod(f"{name}-{i}", ns, f"buffer/{pool}", labels, podspec))
    return [p for p in pods if p.requests.get(GPU) or NODEPOOL_LABEL in (p.spec.get("nodeSelector") or {})]


class _Scheduler:
    def __init__(self, pools: list[_Pool], zones: Sequence[str]):
        self.pools = pools
        self.zones = list(zones)
        self.claims: list[NodeClaim] = []
        self.placed: list[tuple[Pod, NodeClaim]] = []
        self.remaining = {p.name: p.gpu_limit for p in pools}
        self.tolerate_soft = any(t.get("effect") == "PreferNoSchedule" for p in pools for t in p.taints)

    # -- compatibility -------------------------------------------------------------------------------------------
    def _types_for(self, pod: Pod, pool: _Pool) -> Optional[list[str]]:
        """The pool's instance types the pod's node selection allows, or None when the pool is ruled out."""
        if any(not tolerates_taint(pod.spec.get("tolerations") or [], t) for t in pool.taints):
            return None
        types = list(pool.instance_types)
        for key, value in (pod.spec.get("nodeSelector") or {}).items():
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

    def _fits(self, types: list[str], pods: list[Pod]) -> list[str]:
        need: dict[str, float] = {}
        for p in pods:
            for k, v in p.requests.items():
                need[k] = need.get(k, 0.0) + v
        out = []
        for t in types:
            alloc = allocatable(t)
            if all(v <= alloc.get(k, math.inf if k not in (GPU, EFA) else 0.0) + 1e-9 for k, v in need.items()):
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
            options = self._fits([t for t in claim.options if t in types], [*claim.pods, pod])
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
            options = self._fits(types, [pod])
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


def node_choice(objects: Sequence[Mapping[str, Any]], zones: Sequence[str] = DEFAULT_ZONES) -> dict[str, Any]:
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
    sched = _Scheduler(pools, zones)
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
        "nodes": nodes,
        "models": models,
        "pools": pool_rows,
        "unschedulable": [{"pod": f"{p.namespace}/{p.name}", "owner": p.owner, "reason": why} for p, why in failed],
        "findings": sorted(findings),
    }
