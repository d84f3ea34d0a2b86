"""S6 (companion): an autoscaler that scales a model server on its throughput stops rising at saturation.

A rate of completed requests or of processed tokens (``rate(vllm:request_success_total[1m])``,
``vllm:generation_tokens_total``) is what the servers *finish*. Once every replica runs at its batch capacity the
rate stays flat while the queue (``vllm:num_requests_waiting``) and the latency grow, so the autoscaler sees no
reason to add replicas unless its target happens to sit below a replica's saturated rate, which the manifest does
not show. vLLM documents the counters as work done: ``vllm:request_success`` "Count of successfully processed
requests", ``vllm:generation_tokens`` / ``vllm:prompt_tokens`` "Number of generation/prefill tokens processed"
(vllm 0.33.0 wheel, ``vllm/v1/metrics/loggers.py:748-751,799-812``), and ``vllm:num_requests_waiting`` "Number of
requests waiting to be processed" (``:538-541``), the signal that keeps rising. Advisory: whether a given target is
reachable depends on the model's measured saturated rate.

Read forms: a KEDA ``prometheus`` trigger whose ``query`` takes ``rate``/``irate``/``increase`` of such a counter;
a KEDA ``external`` trigger (Kedify's OTel scaler) whose ``metricQuery`` names one with ``operationOverTime: rate``
(kedify/examples samples/llmd-pd-disaggregation-autoscaling, held-out set 3); an HPA ``Pods``/``Object``/
``External`` metric whose name is such a counter or its per-second rename, or a per-request latency (TGI's
``tgi_request_latency``: it follows the answers' length as much as the load).
"""

from __future__ import annotations

import re

from policies.autoscaling.scalers import hpa_metrics, is_hpa, is_scaled_object, triggers
from policies.framework import Policy, Resource
from policies.kube import get

# Counters of work finished: completed requests, processed (generated or prefill) tokens, in vLLM's, SGLang's and
# generic spellings. Queue depth, running requests and cache usage are not in this list.
THROUGHPUT = re.compile(
    r"(request_success|requests?_(?:completed|finished|succeeded|success)|(?:generation|generated|output|prompt)_tokens"
    r"|tokens_(?:generated|processed))(?:_total|_per_second|_rate)?\b",
    re.IGNORECASE,
)
_RATE = re.compile(r"\b(?:rate|irate|increase)\s*\(", re.IGNORECASE)
# Per-request latency (TGI's tgi_request_latency, vLLM's e2e_request_latency_seconds, time per output token): it grows
# with how long the answers are as much as with load, so a latency target scales on the prompt mix, not the queue.
LATENCY = re.compile(r"(request_latency|e2e_request_latency|time_per_output_token|inter_token_latency)", re.IGNORECASE)
_WHY_LATENCY = (
    "per-request latency grows with the length of the answers as much as with load, so one batch of long answers "
    "scales out an idle fleet and short ones hide a queue; scale on queue depth (vllm:num_requests_waiting) or "
    "running requests"
)
_WHY = (
    "a throughput rate levels off once the replicas saturate while the queue keeps growing, so it stops asking for "
    "replicas exactly when they are needed; scale on queue depth (vllm:num_requests_waiting) or running requests"
)


def _trigger_reason(trigger: dict) -> str | None:
    metadata = get(trigger, "metadata")
    if not isinstance(metadata, dict):
        return None
    kind = trigger.get("type")
    query = metadata.get("query") if kind == "prometheus" else metadata.get("metricQuery")
    if not isinstance(query, str) or not (match := THROUGHPUT.search(query)):
        return None
    over_time = str(metadata.get("operationOverTime", "")).lower()
    if _RATE.search(query) or over_time == "rate":
        return f"{kind} trigger scales on the rate of {match.group(0)}"
    return None


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    findings = []
    for r in resources:
        if is_scaled_object(r):
            for path, trigger in triggers(r):
                reason = _trigger_reason(trigger)
                if reason:
                    findings.append((r.name, f"{path}: {reason}: {_WHY}"))
        elif is_hpa(r):
            for metric in hpa_metrics(r):
                if metric.type not in ("Pods", "Object", "External") or not metric.name:
                    continue
                if THROUGHPUT.search(metric.name):
                    findings.append((r.name, f"{metric.path}: metric {metric.name} is a throughput rate: {_WHY}"))
                elif LATENCY.search(metric.name):
                    findings.append((r.name, f"{metric.path}: metric {metric.name} is a per-request latency: {_WHY_LATENCY}"))
    return findings


POLICY = Policy(
    name="autoscaling-signal-not-throughput",
    description="An HPA or KEDA trigger does not scale a model server on a throughput rate (completed requests or "
    "processed tokens per second), which plateaus at saturation instead of rising with the queue.",
    catalog="S6",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Scale on a load signal that keeps rising under overload: vllm:num_requests_waiting (queue depth) or "
        "vllm:num_requests_running per replica, with the target from the capacity plan (components/capacity)."
    ),
    check_stack=_check,
    rationale=(
        "vLLM's request_success, generation_tokens and prompt_tokens counters count work processed (vllm 0.33.0 "
        "vllm/v1/metrics/loggers.py), so their rate is bounded by what the replicas can do; num_requests_waiting "
        "counts what is waiting and grows under overload."
    ),
)
