"""S6: an autoscaler target on vLLM's running requests above what one pod's vLLM runs at once is never reached.

``vllm:num_requests_running`` counts the sequences in the running batch, which the scheduler keeps at or below
``--max-num-seqs`` ("Maximum number of sequences to be processed in a single iteration"; vllm/config/scheduler.py
``max_num_seqs``): every request beyond it waits in ``vllm:num_requests_waiting``. So a per-pod target above the cap
(an HPA ``Pods`` metric's ``averageValue``, an ``External`` one's ``averageValue``, a KEDA prometheus trigger's
``threshold``, which KEDA hands the HPA as an AverageValue per replica unless ``metricType: Value``) is never reached:
the HPA's desired count, replicas x average / target, stays below the current one, so it never scales out and scales in
toward its floor instead, however long the queue grows.

Proven only where the files show it: the scaler's target is a workload of the files whose vLLM sets ``--max-num-seqs``
to a literal (times ``--data-parallel-size``, each rank running its own batch; pipeline parallelism is left out), the
metric is the bare series (a KEDA query that aggregates it with sum, avg or max and nothing else), and the target is
an average per pod. Anything else is silent: a target the files do not bound is not judged.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from policies.autoscaling.scalers import hpa_metrics, is_hpa, is_scaled_object, target_number, triggers
from policies.framework import Resource
from policies.kube import as_dict, as_int, as_quantity
from policies.reading.vllm_args import parallel_size, vllm_servers

# The running-requests gauge in vLLM's spelling, the Prometheus adapter's and GKE's (prometheus.googleapis.com|...|gauge).
_RUNNING = re.compile(r"(?<![\w])vllm[:_]num_requests_running(?![\w])")
# A KEDA query that is the series alone, or one aggregation of it (by labels allowed): its value per replica is bounded
# by the per-pod cap.
_BOUNDED_QUERY = re.compile(
    r"^\s*(?:(?:sum|avg|max)\s*(?:(?:by|without)\s*\([^)]*\)\s*)?\(\s*)?vllm[:_]num_requests_running\s*(?:\{[^}]*\})?"
    r"\s*\)?\s*(?:(?:by|without)\s*\([^)]*\)\s*)?$"
)


def batch_cap(resource: Any) -> Optional[tuple[int, str]]:
    """(requests one pod's vLLM runs at once, the flags that say so): a literal --max-num-seqs times
    --data-parallel-size, from the first vLLM server; None when --max-num-seqs is not a literal or pipeline
    parallelism is on (its default depends on the GPU and the release)."""
    for server in vllm_servers(resource):
        seqs = as_int(server.args.get("max-num-seqs"))
        if seqs is None or seqs <= 0 or parallel_size(server.args, "pipeline-parallel-size") != 1:
            return None
        dp = parallel_size(server.args, "data-parallel-size")
        if dp is None:
            return None
        return seqs * dp, f"--max-num-seqs {seqs}" + (f" x --data-parallel-size {dp}" if dp > 1 else "")
    return None


def _targets(scaler: Resource) -> list[tuple[str, str, float]]:
    """(field, metric, per-pod target) of every target on the running-requests gauge that is an average per pod."""
    found = []
    if is_hpa(scaler):
        for metric in hpa_metrics(scaler):
            if metric.type not in ("Pods", "External") or not metric.name or not _RUNNING.search(metric.name):
                continue
            key, value = target_number(metric.target)
            if key == "averageValue" and value is not None:
                found.append((f"{metric.path}.target.averageValue", metric.name, value))
    elif is_scaled_object(scaler):
        for path, trigger in triggers(scaler):
            meta = as_dict(trigger.get("metadata"))
            query, value = meta.get("query"), as_quantity(meta.get("threshold"))
            if trigger.get("type") != "prometheus" or not isinstance(query, str) or value is None:
                continue
            if str(trigger.get("metricType") or "AverageValue") != "AverageValue" or not _BOUNDED_QUERY.match(query):
                continue
            found.append((f"{path}.metadata.threshold", query.strip(), value))
    return found


def running_cap_findings(scaler: Resource, target: Optional[Any]) -> list[str]:
    """Findings for an HPA or ScaledObject whose per-pod target on vLLM's running requests exceeds the target
    workload's batch cap (``target``: the Workload of the files the scaler names, or None)."""
    if target is None:
        return []
    cap = batch_cap(target.resource)
    if cap is None:
        return []
    limit, flags = cap
    return [
        f"{field} = {value:g} on {metric}: vLLM runs at most {limit} requests at once per pod ({flags} in "
        f"{target.kind}/{target.name}), so the running-requests average never reaches {value:g}; the HPA never scales "
        f"out and scales in toward its floor instead, while the queue grows in vllm:num_requests_waiting; aim it below "
        f"{limit} or scale on the queue"
        for field, metric, value in _targets(scaler)
        if value > limit
    ]
