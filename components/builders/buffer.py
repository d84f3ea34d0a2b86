"""Warm GPU headroom per pool, and the PriorityClasses that make serving pods take it at once.

Two modes (``gpuPools[].buffer.mode``):

* ``placeholder`` (default): a Deployment of pinned pause pods, each the size of the pool's largest
  serving replica (GPUs = TP x PP from the capacity plan, with its CPU and memory), at a negative
  PriorityClass. A serving pod (PriorityClass above zero) preempts a placeholder at once and starts
  on the warm node; the evicted placeholder goes Pending and Karpenter buys the next node
  (kubernetes.io/docs/tasks/administer-cluster/node-overprovisioning, "Overprovision Node Capacity For A Cluster").
* ``capacityBuffer``: Karpenter's CapacityBuffer (autoscaling.x-k8s.io/v1beta1) over a PodTemplate of
  the same pod; Karpenter keeps room for it as virtual pods (pattern 2; feature gate CapacityBuffer).
"""

from __future__ import annotations

from typing import Any

from ..builders.karpenter import GPU_NAME_LABEL, NODEPOOL_LABEL, gpu_tolerations
from ..builders.labels import SKIP_AWAIT, recommended_labels
from ..capacity.pools import PoolPlan

# Pinned pause image (registry.k8s.io/pause, the image Kubernetes' own overprovisioning guide uses).
PAUSE_IMAGE = "registry.k8s.io/pause:3.10"
BUFFER_PRIORITY_CLASS = "llm-serving-gpu-buffer"
SERVING_PRIORITY_CLASS = "llm-serving-inference"
# Negative so that any pod, even at the default priority 0, preempts a placeholder. Not below -10:
# Cluster Autoscaler ignores pods under --expendable-pods-priority-cutoff (default -10) when it scales
# up, so -10 keeps the buffer working under either autoscaler (Karpenter v1.14.1 docs, "Capacity buffers").
BUFFER_PRIORITY = -10
SERVING_PRIORITY = 1000


def priority_classes() -> list[dict[str, Any]]:
    """The buffer's negative PriorityClass and the serving pods' PriorityClass above zero."""
    return [
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {
                "name": BUFFER_PRIORITY_CLASS,
                "labels": recommended_labels(BUFFER_PRIORITY_CLASS, component="gpu-buffer"),
            },
            "value": BUFFER_PRIORITY,
            "globalDefault": False,
            # Placeholders only hold room: they never evict anything themselves.
            "preemptionPolicy": "Never",
            "description": "Placeholder pods that keep warm GPU headroom; every serving pod preempts them.",
        },
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {
                "name": SERVING_PRIORITY_CLASS,
                "labels": recommended_labels(SERVING_PRIORITY_CLASS, component="inference"),
            },
            "value": SERVING_PRIORITY,
            "globalDefault": False,
            "preemptionPolicy": "PreemptLowerPriority",
            "description": "vLLM serving pods: above batch work and the GPU buffer's placeholders.",
        },
    ]


def buffer_name(pool: str) -> str:
    """Name of a pool's buffer objects."""
    return f"gpu-buffer-{pool}"


def _labels(plan: PoolPlan) -> dict[str, str]:
    return {**recommended_labels(buffer_name(plan.name), component="gpu-buffer"), "llm-serving.io/pool": plan.name}


def buffer_pod(plan: PoolPlan) -> dict[str, Any]:
    """The placeholder pod template: one serving replica's GPUs, CPU and memory on the pool's nodes."""
    r = plan.buffer_pod
    assert r is not None, "a pool without models keeps no buffer"
    size = {"cpu": str(r.cpu), "memory": f"{r.memory_gib}Gi", "nvidia.com/gpu": str(r.gpus)}
    return {
        "metadata": {"labels": _labels(plan)},
        "spec": {
            "priorityClassName": BUFFER_PRIORITY_CLASS,
            "terminationGracePeriodSeconds": 0,
            "automountServiceAccountToken": False,
            "nodeSelector": {NODEPOOL_LABEL: plan.name, GPU_NAME_LABEL: plan.karpenter_gpu_name},
            "tolerations": gpu_tolerations(),
            "securityContext": {"runAsNonRoot": True, "runAsUser": 65535, "seccompProfile": {"type": "RuntimeDefault"}},
            "containers": [
                {
                    "name": "pause",
                    "image": PAUSE_IMAGE,
                    "resources": {
                        "requests": dict(size),
                        "limits": {"memory": size["memory"], "nvidia.com/gpu": size["nvidia.com/gpu"]},
                    },
                    "securityContext": {
                        "allowPrivilegeEscalation": False,
                        "readOnlyRootFilesystem": True,
                        "capabilities": {"drop": ["ALL"]},
                    },
                }
            ],
        },
    }


def placeholder_deployment(plan: PoolPlan, namespace: str) -> dict[str, Any]:
    """The placeholder Deployment of a pool (mode ``placeholder``)."""
    labels = _labels(plan)
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        # Not awaited by `pulumi up`: the placeholders wait for new GPU nodes, or never fit at peak.
        "metadata": {"name": buffer_name(plan.name), "namespace": namespace, "labels": labels, "annotations": dict(SKIP_AWAIT)},
        "spec": {
            "replicas": plan.buffer_replicas,
            # Placeholders hold the pool's last GPUs: a surge pod would find none (policy S20).
            "strategy": {"type": "Recreate"},
            "selector": {"matchLabels": {"app.kubernetes.io/name": buffer_name(plan.name)}},
            "template": buffer_pod(plan),
        },
    }


def buffer_pod_template(plan: PoolPlan, namespace: str) -> dict[str, Any]:
    """The PodTemplate a CapacityBuffer reserves room for (mode ``capacityBuffer``)."""
    return {
        "apiVersion": "v1",
        "kind": "PodTemplate",
        "metadata": {"name": buffer_name(plan.name), "namespace": namespace, "labels": _labels(plan)},
        "template": buffer_pod(plan),
    }


def capacity_buffer(plan: PoolPlan, namespace: str) -> dict[str, Any]:
    """Karpenter's CapacityBuffer for a pool: ``buffer.replicas`` copies of the placeholder pod (mode ``capacityBuffer``)."""
    return {
        "apiVersion": "autoscaling.x-k8s.io/v1beta1",
        "kind": "CapacityBuffer",
        "metadata": {"name": buffer_name(plan.name), "namespace": namespace, "labels": _labels(plan)},
        "spec": {"podTemplateRef": {"name": buffer_name(plan.name)}, "replicas": plan.buffer_replicas},
    }
