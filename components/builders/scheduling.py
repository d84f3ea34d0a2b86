"""Where a serving pod runs and how it leaves: its pool, GPU type, priority, spread or packing, and its drain.

One scheduling function and one drain model that every serving back-end (components/backends/: the
KServe predictor, the KubeRay head and workers) merges into its pod specs, so every serving pod
targets and tolerates its pool the same way (policy S15), outranks the GPU buffer's placeholders,
and drains by the model's timeout chain (components/timeouts.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional

from ..builders.buffer import SERVING_PRIORITY_CLASS
from ..builders.karpenter import GPU_NAME_LABEL, NODEPOOL_LABEL, gpu_tolerations
from ..capacity.gpus import GPUS, INSTANCES
from ..capacity.plan import ServingPlan

ISVC_LABEL = "serving.kserve.io/inferenceservice"  # the label KServe puts on an InferenceService's pods
ZONE_LABEL = "topology.kubernetes.io/zone"
HOSTNAME_LABEL = "kubernetes.io/hostname"


def karpenter_gpu_name(plan: ServingPlan) -> str:
    """The value of Karpenter's GPU-name node label for the plan's GPU (the catalogue's, else its lower-case name)."""
    return GPUS[plan.gpu.name].karpenter_gpu_name or plan.gpu.name.lower()


def replicas_per_node(plan: ServingPlan) -> int:
    """How many of the model's single-node replicas fill one node of the type the plan sized it on (at least 1).

    GPUs bound it first; CPU and memory requests too, against the instance's capacity (the plan sizes a pod's
    CPU and memory as its GPUs' share of the node, so these agree on the catalogue's types).
    """
    node = INSTANCES[plan.node_instance_type]
    r = plan.resources
    bounds = [node.gpu_count // r.gpus if r.gpus else 1]
    if r.cpu:
        bounds.append(int(node.vcpu // r.cpu))
    if r.memory_gib:
        bounds.append(int(node.memory_gib // r.memory_gib))
    return max(1, min(bounds))


def serving_pod_scheduling(
    pool: str,
    gpu_name: str,
    spread_labels: Optional[Mapping[str, str]] = None,
    zone_labels: Optional[Mapping[str, str]] = None,
    per_node: int = 1,
) -> dict[str, Any]:
    """nodeSelector, tolerations, priorityClassName, and the pod's spread or packing, of a serving pod.

    ``gpu_name`` is Karpenter's GPU-name label value (:func:`karpenter_gpu_name`). With ``spread_labels``
    (independent replicas), topologySpreadConstraints over zones and nodes among the pods they select,
    ``ScheduleAnyway``: GPUs are scarce, and a replica on a crowded zone beats a Pending one (policy
    catalogue row 23). With ``zone_labels`` (the pods of one engine), a required podAffinity that keeps
    every pod they select in one zone: the pods must select themselves, so the first one picks the zone
    (kube-scheduler and Karpenter both let a self-selecting pod start a domain when none holds a match).
    Default null for both: neither.

    ``per_node`` is how many replicas fill one node of the pool (:func:`replicas_per_node`). Karpenter treats a
    ScheduleAnyway constraint as required when it provisions: it keeps every spread constraint unless the
    preference policy is Ignore (kubernetes-sigs/karpenter v1.14.1 pkg/controllers/provisioning/scheduling/
    topology.go:461-490) and drops one only after the pod failed to schedule (scheduler.go:521-552,
    preferences.go:90-100), which never happens while it can launch a new node. A hostname spread of maxSkew 1
    then allows one replica per node (topologygroup.go:238-252: a new node's count must stay at or below maxSkew),
    and a zone spread puts the next replica in the zone with the fewest (topologygroup.go:254-297), so two TP4
    replicas would take two 8-GPU nodes, each half idle. Where several replicas fill one node (``per_node`` > 1) the
    hostname spread is left out and the zone spread's maxSkew is ``per_node``: a replica may join its zone's node
    until that node is full, then the next zone is opened. Losing that node takes ``per_node`` replicas at once: the
    price of not paying for idle GPUs, which the model's PodDisruptionBudget and replicas.min must carry.
    """
    scheduling: dict[str, Any] = {
        # The pool the capacity plan sized, and its GPU type, exactly (a wrong GPU means a wrong KV budget).
        "nodeSelector": {NODEPOOL_LABEL: pool, GPU_NAME_LABEL: gpu_name},
        "tolerations": gpu_tolerations(),
        # Above the GPU buffer's placeholders (1000, PreemptLowerPriority): at the default 0, a scale-out of
        # any other model could preempt a serving pod and take its model down for a cold start.
        "priorityClassName": SERVING_PRIORITY_CLASS,
    }
    if spread_labels is not None:
        selector = {"matchLabels": dict(spread_labels)}
        constraints: list[dict[str, Any]] = [
            {
                "maxSkew": max(1, per_node),
                "topologyKey": ZONE_LABEL,
                "whenUnsatisfiable": "ScheduleAnyway",
                "labelSelector": selector,
            }
        ]
        if per_node <= 1:
            constraints.append(
                {
                    "maxSkew": 1,
                    "topologyKey": HOSTNAME_LABEL,
                    "whenUnsatisfiable": "ScheduleAnyway",
                    "labelSelector": dict(selector),
                }
            )
        scheduling["topologySpreadConstraints"] = constraints
    if zone_labels is not None:
        scheduling["affinity"] = {
            "podAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": dict(zone_labels)}, "topologyKey": ZONE_LABEL}
                ]
            }
        }
    return scheduling


@dataclass(frozen=True)
class Drain:
    """How a serving pod leaves, from the model's timeout chain (components/timeouts.py).

    The pod that answers the API stops taking requests during its preStop sleep, then vLLM
    (--shutdown-timeout) finishes what is in flight. A pod that holds engine ranks behind that API
    server (a multi-node engine's workers) must outlive that drain: its preStop sleeps through the
    server's preStop and drain. Both share the chain's grace period, which covers that plus a margin.
    """

    grace_seconds: int
    pre_stop_seconds: int
    rank_pre_stop_seconds: int


def pod_drain(plan: ServingPlan) -> Drain:
    """The drain numbers of a model's serving pods."""
    chain = plan.timeouts
    return Drain(
        grace_seconds=chain.termination_grace_seconds,
        pre_stop_seconds=chain.pre_stop_seconds,
        rank_pre_stop_seconds=chain.pre_stop_seconds + chain.shutdown_timeout_seconds,
    )
