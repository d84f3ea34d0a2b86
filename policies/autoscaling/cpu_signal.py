"""S6: an autoscaler that scales a GPU model server on CPU or memory usage through a metric of any scaler.

A GPU model server's CPU and memory use do not follow its load (the batch waits on the GPU; the weights sit in GPU
memory), so an autoscaler aimed at them never scales out, or, with a threshold any running pod exceeds, sits at its
maximum. S6 reads KEDA ``cpu``/``memory`` triggers and HPA Resource metrics elsewhere; this module reads the same
signal spelled as another scaler's metric: a ``gcp-stackdriver`` filter on ``kubernetes.io/container/cpu/
core_usage_time`` (spent set 11, lahlfors/cybernetic-governance-engine deployment/k8s/vllm-inference-scaler-draft.yaml
at 2bcc2f2e), a Prometheus query on cAdvisor's ``container_cpu_usage_seconds_total`` or
``container_memory_working_set_bytes``, Datadog's ``kubernetes.cpu.*``, CloudWatch Container Insights'
``pod_cpu_utilization`` or EC2's ``CPUUtilization``, Azure Monitor's ``Percentage CPU``, and an HPA External or Pods
metric so named (the Stackdriver adapter writes ``kubernetes.io|container|cpu|core_usage_time``). KEDA ``cpu`` and
``memory`` triggers beside another trigger count here too: the all-cpu/memory case is S6's own reason.
"""

from __future__ import annotations

import re
from typing import Optional

from policies.autoscaling.scalers import hpa_metrics, is_hpa, is_scaled_object, model_server_hint, triggers
from policies.framework import Resource, unproven
from policies.kube import as_dict

# CPU or memory usage of containers, pods, nodes or instances, as each monitoring backend names it.
CPU_OR_MEMORY_USAGE = re.compile(
    r"(kubernetes\.io[/|](?:container|pod|node)[/|](?:cpu|memory)[/|]\w+"
    r"|compute\.googleapis\.com/instance/cpu/\w+"
    r"|(?:container|process|node)_cpu_(?:usage_)?seconds_total|container_memory_(?:working_set|usage|rss)_bytes"
    r"|(?:kubernetes|container|docker|system)\.(?:cpu|mem|memory)\.[\w.]+"
    r"|(?:pod|container|node)_(?:cpu|memory)_utilization\w*|\bCPUUtilization\b|Percentage CPU)",
    re.IGNORECASE,
)
_KEDA_RESOURCE_TRIGGERS = ("cpu", "memory")


def _trigger_signal(trigger: dict, alone: bool) -> Optional[str]:
    """What in one KEDA trigger scales on CPU/memory usage, or None (``alone``: every trigger is cpu/memory)."""
    kind = str(trigger.get("type"))
    if kind in _KEDA_RESOURCE_TRIGGERS:
        return None if alone else f"a KEDA {kind} trigger (CPU/memory usage)"
    for key, value in sorted(as_dict(trigger.get("metadata")).items()):
        if isinstance(value, str) and (match := CPU_OR_MEMORY_USAGE.search(value)):
            return f"a {kind} trigger whose metadata.{key} reads {match.group(0)} (CPU/memory usage)"
    return None


def _signals(scaler: Resource) -> list[tuple[str, str]]:
    """(path, what) of every trigger or non-Resource HPA metric on CPU/memory usage."""
    found = []
    if is_scaled_object(scaler):
        listed = triggers(scaler)
        alone = bool(listed) and all(str(t.get("type")) in _KEDA_RESOURCE_TRIGGERS for _, t in listed)
        for path, trigger in listed:
            if (what := _trigger_signal(trigger, alone)) is not None:
                found.append((path, what))
    elif is_hpa(scaler):
        for metric in hpa_metrics(scaler):
            if metric.type != "Resource" and metric.name and (match := CPU_OR_MEMORY_USAGE.search(metric.name)):
                found.append((metric.path, f"metric {metric.name} reads {match.group(0)} (CPU/memory usage)"))
    return found


_WHY = (
    "a GPU model server's CPU and memory use do not follow its load (requests wait on the GPU, the weights sit in GPU "
    "memory), so this signal never scales out, or, with a threshold any running pod passes, holds the maximum; scale "
    "on queue depth or running requests (vllm:num_requests_waiting, vllm:num_requests_running)"
)


def cpu_usage_findings(scaler: Resource, gpu_target: Optional[str]) -> list[str]:
    """Advice for one HPA/ScaledObject with a CPU/memory-usage signal whose target is a GPU workload of the files
    (``gpu_target``) or, elsewhere, whose names hint at a model server; none otherwise (a CPU web tier may scale on
    CPU). Advice, as S6's own CPU/memory rows are since this session's precision audit: the replica count is wrong for
    the load, the server still serves."""
    signals = _signals(scaler)
    if not signals:
        return []
    hint = None if gpu_target else model_server_hint(scaler)
    if not (gpu_target or hint):
        return []
    who = f"scaleTargetRef {gpu_target} is a GPU workload" if gpu_target else f"{hint} (its target is not in the files read)"
    out: list[str] = []
    for path, what in signals:
        message = f"{path}: {what}; {who}: {_WHY}"
        out.append(unproven(message))
    return out
