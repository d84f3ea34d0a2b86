"""S6 (companion): the KEDA HTTP add-on scaling a model server on arriving requests per second, or at a concurrency
above what its vLLM runs at once.

An HTTPScaledObject (``http.keda.sh/v1alpha1``) scales its target from what its interceptor counts:
``spec.scalingMetric.requestRate`` is the average rate of requests over a window, counted as they arrive (the
interceptor's counting middleware calls ``Increase`` before it forwards a request, and ``Increase`` adds to both the
in-flight gauge and the request counter: kedacore/http-add-on v0.15.0 interceptor/middleware/counting.go:38,
pkg/queue/queue.go:70-77); ``spec.scalingMetric.concurrency`` (the default, target 100:
operator/apis/http/v1alpha1/httpscaledobject_types.go:92-122, 176-187) is the requests in flight. KEDA hands the HPA the
target value per replica (scaler/handlers.go:123-129).

For an LLM server a request rate says little about load (a request holds a batch slot for as long as its answer
streams), so ``requestRate`` is advice, as Knative's ``rps`` is; and a concurrency target above an explicit
``--max-num-seqs`` of the target's vLLM leaves the excess waiting in vLLM's queue before a replica is added, as a
Knative target does. Read only where the target is a GPU model server of the files, or, advice on a hint, a target in
no file read whose names say model server; a web app behind the add-on stays silent.
"""

from __future__ import annotations

from typing import Optional

from policies.autoscaling.running_cap import batch_cap
from policies.autoscaling.scalers import Workload, model_server_hint, namespace_of
from policies.framework import Resource, unproven
from policies.kube import as_dict, as_int, get, split_type

HTTP_SCALED_OBJECT = ("http.keda.sh", "HTTPScaledObject")
_DEFAULT_TARGET = 100
_WHY_RATE = (
    "an LLM request holds a batch slot for as long as its answer streams (under a second to minutes), so requests per "
    "second say little about how full a replica is: the same rate idles with short answers and queues with long ones; "
    "scale on concurrency (the add-on's default) with a target near the engine's batch size, or on vLLM's queue"
)


def _target(scaler: Resource, candidates: list[Workload]) -> Optional[Workload]:
    """The workload of the files the HTTPScaledObject names (kind Deployment when unset, as the ScaledObject the
    add-on creates from it defaults)."""
    ref = as_dict(get(scaler.props, "spec", "scaleTargetRef"))
    kind, name, ns = ref.get("kind") or "Deployment", ref.get("name"), namespace_of(scaler)
    for w in candidates:
        if (w.kind, w.name) == (kind, name) and (ns is None or w.namespace is None or ns == w.namespace):
            return w
    return None


def http_scaled_object_findings(scaler: Resource, candidates: list[Workload]) -> list[str]:
    """Advice for an HTTPScaledObject on a model server that scales on arriving requests per second or aims a replica
    at more requests in flight than its vLLM runs at once."""
    if split_type(scaler.type) != HTTP_SCALED_OBJECT:
        return []
    target = _target(scaler, candidates)
    if target is not None and target.gpus_per_pod <= 0:
        return []
    who = "this GPU model server" if target is not None else None
    if who is None:
        hint = model_server_hint(scaler)
        if hint is None:
            return []
        who = f"its target (in no file read, but {hint})"
    metric = as_dict(get(scaler.props, "spec", "scalingMetric"))
    rate = metric.get("requestRate")
    if isinstance(rate, dict):
        value = as_int(rate.get("targetValue")) or _DEFAULT_TARGET
        return [
            unproven(
                f"spec.scalingMetric.requestRate: the KEDA HTTP add-on scales {who} on requests per second ({value} per "
                f"replica), counted as they arrive: {_WHY_RATE}"
            )
        ]
    if target is None or (cap := batch_cap(target.resource)) is None:
        return []
    concurrency = as_dict(metric.get("concurrency"))
    field = "spec.scalingMetric.concurrency.targetValue"
    written = as_int(concurrency.get("targetValue"))
    if written is None and not metric:
        field, written = "spec.targetPendingRequests", as_int(get(scaler.props, "spec", "targetPendingRequests"))
    shown = f"{field} {written}" if written is not None else f"no target: the add-on's default {_DEFAULT_TARGET}"
    value = written or _DEFAULT_TARGET
    limit, flags = cap
    if value <= limit:
        return []
    return [
        unproven(
            f"{shown}: the KEDA HTTP add-on adds a replica of {target.kind}/{target.name} only past {value} requests in "
            f"flight per replica, but vLLM runs at most {limit} at once ({flags}): the rest wait in its queue first; set "
            f"the target at most {limit}"
        )
    ]
