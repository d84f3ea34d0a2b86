"""G67: a KEDA query that is already per replica, or a latency, is not handed to the HPA as an average per replica.

A KEDA ``prometheus`` trigger without ``metricType`` becomes an External metric with an AverageValue target
(kedacore/keda v2.20.2 pkg/scalers/scaler.go:95-104 GetMetricTargetType: "Use AverageValue if no metric type was
provided"; pkg/scalers/prometheus_scaler.go:77, 190-199 hands ``threshold`` to it). For an AverageValue External
metric the HPA asks for ceil(query value / threshold) replicas (kubernetes/kubernetes
pkg/controller/podautoscaler/replica_calculator.go GetExternalPerPodMetricReplicas: usageRatio = usage /
(targetUsagePerPod x replicas), replicaCount = ceil(usage / targetUsagePerPod)): it treats the value as the fleet's
total and divides it by the replicas itself. So:

- a query that already divides by the replica count (``/ kube_deployment_spec_replicas``, ``/ count(...)`` of the
  pods or their series, ``kube_pod_status_ready``), or averages a model server's per-pod queue or running gauge over
  the pods (``avg(vllm:num_requests_waiting)``: the engine table's load series), is divided twice: N replicas ask for ceil(total / (N x threshold)),
  the fleet settles near sqrt(total / threshold) replicas instead of total / threshold, and scale-out needs N times
  the per-pod load it was written for;
- a latency (``histogram_quantile``, or a ``_sum`` rate over a ``_count`` rate) does not grow with replicas: the HPA
  asks for ceil(latency / threshold) whatever the load, so it adds one replica when the latency passes the threshold
  and removes it as soon as the latency dips back, never holding the fleet the load needs.

Both are advice: the autoscaler still moves, only not as its author wrote it. ``metricType: Value`` (the HPA then
scales by value / threshold x replicas) is silent, as is a plain sum, an average of a utilisation gauge
(``avg(DCGM_FI_DEV_GPU_UTIL)``: sometimes a deliberate guard whose author sized the threshold for it) and any query whose shape the text does not prove.
"""

from __future__ import annotations

import re
from typing import Optional

from policies.autoscaling.scalers import is_scaled_object, triggers
from policies.framework import Policy, Resource
from policies.kube import SCALED_OBJECT_TYPE, as_dict, as_quantity
from policies.reading.promql import server_series

# What counts a workload's replicas or pods: kube-state-metrics' replica and pod-readiness series, or a count().
_REPLICA_SERIES = re.compile(
    r"(?<![\w:])kube_(?:deployment|statefulset|replicaset|leaderworkerset)_(?:spec|status)_replicas\w*"
    r"|(?<![\w:])kube_pod_(?:status_ready|status_phase|info|container_status_ready)(?![\w:])"
)
_COUNT_CALL = re.compile(r"(?<![\w:])count\s*(?:(?:by|without)\s*\([^)]*\)\s*)?\(", re.IGNORECASE)
# Wrappers a denominator may sit in without changing what it counts.
_WRAPPER = re.compile(r"^\s*(?:clamp_min|clamp_max|clamp|scalar|max|min|sum|avg|vector)\s*\(", re.IGNORECASE)
_QUANTILE = re.compile(r"^\s*(?:(?:max|avg|min|sum)\s*(?:(?:by|without)\s*\([^)]*\)\s*)?\(\s*)?histogram_quantile\s*\(")
# A leading avg() (by labels other than the pod's allowed): the mean over the pods when it averages a per-pod series.
_AVG_LEAD = re.compile(r"^\s*avg\s*(?:by\s*\(([^)]*)\)\s*)?\(", re.IGNORECASE)
_SUM_SERIES = re.compile(r"[A-Za-z_:][\w:]*_sum(?![\w:])")
_COUNT_SERIES = re.compile(r"[A-Za-z_:][\w:]*_count(?![\w:])")
_OPEN, _CLOSE = "([{", ")]}"


def _top_level_division(query: str) -> Optional[tuple[str, str]]:
    """(numerator, denominator) split at the query's first ``/`` outside parentheses, braces, brackets and quotes;
    None when there is none."""
    depth, quote = 0, ""
    for i, char in enumerate(query):
        if quote:
            quote = "" if char == quote and query[i - 1] != "\\" else quote
        elif char in "\"'`":
            quote = char
        elif char in _OPEN:
            depth += 1
        elif char in _CLOSE:
            depth -= 1
        elif char == "/" and depth == 0:
            return query[:i], query[i + 1 :]
    return None


def _counts_replicas(denominator: str) -> bool:
    """Whether a denominator is a count of the replicas or pods: a replica or pod-readiness series of kube-state-metrics,
    or a count() (inside clamp_min, scalar, max and the like)."""
    text = re.sub(r"^\s*(?:on|ignoring)\s*\([^)]*\)\s*(?:group_left|group_right)?\s*(?:\([^)]*\))?", "", denominator)
    while True:
        match = _WRAPPER.match(text)
        if match is None or _COUNT_CALL.match(text):
            break
        text = text[match.end() :]
    return bool(_COUNT_CALL.match(text.lstrip())) or bool(_REPLICA_SERIES.search(denominator))


def _averages_server_load(query: str) -> bool:
    """Whether the query is avg() over a model server's per-pod queue or running gauge (the engine table's, not
    DCGM's utilisation): the mean over the pods, a per-replica value."""
    lead = _AVG_LEAD.match(query)
    if lead is None or _top_level_division(query) is not None:
        return False
    if {label.strip() for label in (lead.group(1) or "").split(",")} & {"pod", "instance", "pod_name"}:
        return False
    series = server_series(query)
    return bool(series) and all(not name.startswith("DCGM_") for name, _ in series)


def _shape(query: str) -> Optional[str]:
    """What the query's value is, where its text proves it: "per-replica", "percentile", "mean-latency", else None."""
    if _QUANTILE.match(query):
        return "percentile"
    if _averages_server_load(query):
        return "per-replica"
    split = _top_level_division(query)
    if split is None:
        return None
    numerator, denominator = split
    if _counts_replicas(denominator):
        return "per-replica"
    sums = {m.group(0)[: -len("_sum")] for m in _SUM_SERIES.finditer(numerator)}
    if sums & {m.group(0)[: -len("_count")] for m in _COUNT_SERIES.finditer(denominator)}:
        return "mean-latency"
    return None


def _finding(path: str, threshold: str, shape: str) -> str:
    lead = f"{path} has no metricType, so KEDA hands the HPA threshold {threshold} as an AverageValue per replica"
    if shape == "per-replica":
        return (
            f"{lead}, and the HPA divides the query's value by the replica count itself (it asks for ceil(value / "
            "threshold) replicas); this query is already per replica (it divides by the replicas or pods, or averages "
            "over them), so the load is divided twice: "
            "N replicas ask for ceil(total / (N x threshold)), scale-out needs N times the per-pod load it was written "
            "for and the fleet settles near sqrt(total / threshold) replicas; sum the load instead or set metricType: Value "
            "on the trigger"
        )
    what = "a percentile latency" if shape == "percentile" else "a mean latency (a _sum rate over a _count rate)"
    return (
        f"{lead}, and the HPA asks for ceil(value / threshold) replicas; the query is {what}, which does not grow with "
        "the load the replicas share, so the HPA asks for ceil(latency / threshold) replicas however busy the fleet "
        "is: one more when the latency passes the threshold, and back down as soon as it dips, never the replicas "
        "the load needs; scale on the queue or requests in flight (summed), or set metricType: Value if a fixed step "
        "is meant"
    )


def _check(resource: Resource, config: dict) -> list[str]:
    if not is_scaled_object(resource):
        return []
    found = []
    for path, trigger in triggers(resource):
        meta = as_dict(trigger.get("metadata"))
        query, threshold = meta.get("query"), meta.get("threshold")
        if trigger.get("type") != "prometheus" or not isinstance(query, str) or as_quantity(threshold) is None:
            continue
        if trigger.get("metricType") not in (None, "", "AverageValue"):
            continue
        shape = _shape(query.strip())
        if shape is not None:
            found.append(_finding(path, str(threshold), shape))
    return found


POLICY = Policy(
    name="scaler-query-averaged-once",
    description=(
        "A KEDA prometheus trigger whose query is already per replica (divides by the replica or pod count) or is a "
        "latency sets metricType: Value: KEDA's default AverageValue makes the HPA divide the value by the replicas "
        "again (or ask for latency / threshold replicas whatever the load)."
    ),
    catalog="G67",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Query the total load (sum over the target's pods) and keep the per-replica threshold, or keep the query and "
        "set metricType: Value on the trigger; scale on the queue or requests in flight rather than on a latency."
    ),
    resource_types=(SCALED_OBJECT_TYPE,),
    check_resource=_check,
    rationale=(
        "KEDA hands a trigger without metricType to the HPA as an AverageValue External metric (kedacore/keda v2.20.2 "
        "pkg/scalers/scaler.go:95-104, pkg/scalers/prometheus_scaler.go:190-199), for which the HPA asks for "
        "ceil(value / target) replicas (kubernetes pkg/controller/podautoscaler/replica_calculator.go "
        "GetExternalPerPodMetricReplicas), treating the value as the fleet's total."
    ),
)
