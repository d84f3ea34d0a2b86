"""S6: an HPA that scales a GPU model server on memory beside its other metrics.

S6 reports an HPA whose metrics are all CPU/memory Resource metrics; one that adds a memory Resource (or
ContainerResource) metric to a load metric was read as scaling on load. It does not, whenever memory stays above its
target: the HPA computes a replica count per metric and takes the largest ("If multiple metrics are specified ...
the largest of the desired replica counts is chosen", https://kubernetes.io/docs/tasks/run-application/
horizontal-pod-autoscale/#algorithm-details), and a loaded model server's memory does not fall when its load does
(the weights, CUDA context, pinned buffers and the engine's caches stay resident), so a memory target it sits above
holds replicas up, each one a GPU, whatever its queue says. Forms: held-out set 38, Ting-YuChou/LLM-Infrastructure-mvp
@a451649 k8s/deployments/vllm-deployment.yaml HPA vllm-hpa (cpu 80%, memory 85%, two Pods metrics, on a GPU vLLM
Deployment); spent set 37, yhxuyou/GLM-OCR@12bc066 deploy/k8s/hpa.yaml glmocr-pipeline-hpa (memory 80% beside a
Pods metric, on a GPU StatefulSet).

Advice, never blocking: whether memory use sits above the target depends on the request it is measured against and
on the model, which the files rarely settle. A CPU metric beside a load metric is left alone: a GPU server's low CPU
proposes few replicas and the load metric wins the maximum.
"""

from __future__ import annotations

from typing import Optional

from policies.autoscaling.scalers import hpa_metrics, is_hpa, model_server_hint
from policies.framework import Resource, unproven

_MEMORY_TYPES = ("Resource", "ContainerResource")
_WHY = (
    "the HPA takes the largest replica count any of its metrics proposes, and a loaded model server's memory does not "
    "fall when its load does (weights, CUDA context and the engine's buffers stay resident), so once memory sits above "
    "this target replicas stay up, each a GPU, whatever the load metric says; drop the memory metric and scale on the "
    "load metric alone"
)


def _shown_target(target: dict) -> str:
    for key, unit in (("averageUtilization", "% of the request"), ("averageValue", ""), ("value", "")):
        if key in target:
            return f"{target[key]}{unit}"
    return "its target"


def memory_beside_findings(scaler: Resource, gpu_target: Optional[str]) -> list[str]:
    """Advice for each memory Resource/ContainerResource metric of an HPA that also has a non-Resource metric, when its
    target is a GPU workload of the files (``gpu_target``) or, not in the files, its names hint at a model server."""
    if not is_hpa(scaler):
        return []
    metrics = hpa_metrics(scaler)
    memory = [m for m in metrics if m.type in _MEMORY_TYPES and m.name == "memory"]
    if not memory or all(m.type == "Resource" for m in metrics):
        return []  # nothing but Resource metrics: S6's own reason (gpu_workload_no_resource_metric_hpa._hpa_reason)
    hint = None if gpu_target else model_server_hint(scaler)
    if not (gpu_target or hint):
        return []
    who = f"scaleTargetRef {gpu_target} is a GPU workload" if gpu_target else f"{hint} (its target is not in the files read)"
    others = sorted({m.name or m.type for m in metrics if m not in memory})
    return [
        unproven(f"{m.path}: a memory target ({_shown_target(m.target)}) beside {', '.join(others)}; {who}: {_WHY}")
        for m in memory
    ]
