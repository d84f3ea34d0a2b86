"""Where a serving pod runs: its pool, its GPU type, its priority and its spread across zones and nodes.

One function the vLLM builders (InferenceService today, Ray pods later) merge into their pod spec,
so every serving pod targets and tolerates its pool the same way (policy S15).
"""

from __future__ import annotations

from typing import Any

from ..builders.buffer import SERVING_PRIORITY_CLASS
from ..builders.karpenter import GPU_NAME_LABEL, GPU_TOLERATION, NODEPOOL_LABEL

ISVC_LABEL = "serving.kserve.io/inferenceservice"  # the label KServe puts on an InferenceService's pods


def serving_pod_scheduling(name: str, pool: str, karpenter_gpu_name: str) -> dict[str, Any]:
    """nodeSelector, tolerations, priorityClassName and topologySpreadConstraints of one model's pods.

    Spread is ``ScheduleAnyway``: GPUs are scarce, and a replica on a crowded zone beats a Pending one
    (policy catalogue row 23).
    """
    selector = {"matchLabels": {ISVC_LABEL: name}}
    return {
        # The pool the capacity plan sized, and its GPU type, exactly (a wrong GPU means a wrong KV budget).
        "nodeSelector": {NODEPOOL_LABEL: pool, GPU_NAME_LABEL: karpenter_gpu_name},
        "tolerations": [dict(GPU_TOLERATION)],
        "priorityClassName": SERVING_PRIORITY_CLASS,
        "topologySpreadConstraints": [
            {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": selector},
            {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": selector},
        ],
    }
