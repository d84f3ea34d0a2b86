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
from ..builders.karpenter import GPU_NAME_LABEL, GPU_TOLERATION, NODEPOOL_LABEL
from ..capacity.gpus import GPUS
from ..capacity.plan import ServingPlan

ISVC_LABEL = "serving.kserve.io/inferenceservice"  # the label KServe puts on an InferenceService's pods
ZONE_LABEL = "topology.kubernetes.io/zone"


def karpenter_gpu_name(plan: ServingPlan) -> str:
    """The value of Karpenter's GPU-name node label for the plan's GPU (the catalogue's, else its lower-case name)."""
    return GPUS[plan.gpu.name].karpenter_gpu_name or plan.gpu.name.lower()


def serving_pod_scheduling(
    pool: str,
    gpu_name: str,
    spread_labels: Optional[Mapping[str, str]] = None,
    zone_labels: Optional[Mapping[str, str]] = None,
) -> dict[str, Any]:
    """nodeSelector, tolerations, priorityClassName, and the pod's spread or packing, of a serving pod.

    ``gpu_name`` is Karpenter's GPU-name label value (:func:`karpenter_gpu_name`). With ``spread_labels``
    (independent replicas), topologySpreadConstraints over zones and nodes among the pods they select,
    ``ScheduleAnyway``: GPUs are scarce, and a replica on a crowded zone beats a Pending one (policy
    catalogue row 23). With ``zone_labels`` (the pods of one engine), a required podAffinity that keeps
    every pod they select in one zone: the pods must select themselves, so the first one picks the zone
    (kube-scheduler and Karpenter both let a self-selecting pod start a domain when none holds a match).
    Default null for both: neither.
    """
    scheduling: dict[str, Any] = {
        # The pool the capacity plan sized, and its GPU type, exactly (a wrong GPU means a wrong KV budget).
        "nodeSelector": {NODEPOOL_LABEL: pool, GPU_NAME_LABEL: gpu_name},
        "tolerations": [dict(GPU_TOLERATION)],
        # Above the GPU buffer's placeholders (1000, PreemptLowerPriority): at the default 0, a scale-out of
        # any other model could preempt a serving pod and take its model down for a cold start.
        "priorityClassName": SERVING_PRIORITY_CLASS,
    }
    if spread_labels is not None:
        selector = {"matchLabels": dict(spread_labels)}
        scheduling["topologySpreadConstraints"] = [
            {
                "maxSkew": 1,
                "topologyKey": ZONE_LABEL,
                "whenUnsatisfiable": "ScheduleAnyway",
                "labelSelector": selector,
            },
            {
                "maxSkew": 1,
                "topologyKey": "kubernetes.io/hostname",
                "whenUnsatisfiable": "ScheduleAnyway",
                "labelSelector": selector,
            },
        ]
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
