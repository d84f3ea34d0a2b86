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

A generic request counter is the same signal one hop out: ``http_requests_total`` (the Prometheus client's handler
counter, incremented when the handler returns), ``istio_requests_total`` (Istio's standard metric, recorded when the
stream ends), ``nginx_ingress_controller_requests`` (written in the log phase, after the response), Envoy's
``upstream_rq``, Traefik's ``*_requests_total``, the ALB's ``RequestCount(PerTarget)`` and the Google load balancer's
``request_count``: each counts answered requests, so its rate too plateaus at saturation, and a streamed LLM answer
counts only once it has ended, tens of seconds after the load arrived. Such a counter names no model server, so it is
read only where the scaler scales one (``llm_scaler``: a GPU target of the files, or, unproven, a target in no file
read whose names say model server); a web tier scaled on its request rate stays silent. Knative's ``rps`` metric
(``autoscaling.knative.dev/metric: rps`` or ``spec.predictor.scaleMetric: rps`` on a GPU InferenceService in Knative
mode, or on a Knative Service running a model server) counts arrivals without their length: advice of its own.
"""

from __future__ import annotations

import re

from policies.autoscaling.embedded import embedded_scalers
from policies.autoscaling.hpa_behavior import llm_scaler
from policies.autoscaling.http_scaled_object import http_scaled_object_findings
from policies.autoscaling.scalers import hpa_metrics, is_hpa, is_scaled_object, scale_target, triggers, workloads
from policies.autoscaling.throughput_knative import knative_rps_findings, knative_target_findings
from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, get, kserve_default_mode_setting

# Counters of work finished: completed requests, processed (generated or prefill) tokens, in vLLM's, SGLang's and
# generic spellings. Queue depth, running requests and cache usage are not in this list.
THROUGHPUT = re.compile(
    r"(request_success|requests?_(?:completed|finished|succeeded|success)|(?:generation|generated|output|prompt)_tokens"
    r"|tokens_(?:generated|processed))(?:_total|_per_second|_rate)?\b",
    re.IGNORECASE,
)
# Counters of answered requests that name no server: HTTP handlers, Istio, ingress-nginx, Envoy, Traefik, and the
# cloud load balancers' request counts (AWS ALB CloudWatch RequestCount/RequestCountPerTarget, Google's
# loadbalancing.googleapis.com/https/request_count, "|" in the GKE adapter's spelling). Read only for an LLM scaler.
REQUEST_COUNT = re.compile(
    r"(?<![\w:])((?:http|http_server|istio|nginx_ingress_controller|traefik_(?:service|router|entrypoint))_requests?"
    r"(?:_seconds_count|_total|_per_second)?|requests?_per_second|envoy_cluster_upstream_rq(?:_total)?"
    r"|loadbalancing\.googleapis\.com[/|]https[/|](?:backend_)?request_count|RequestCount(?:PerTarget)?)(?![\w:])",
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
_WHY_REQUESTS = (
    "the counter counts answered requests, so its rate levels off once the replicas saturate while the queue keeps "
    "growing, and a streamed answer counts only when it ends, tens of seconds after its load arrived; scale on queue "
    "depth (vllm:num_requests_waiting) or running requests"
)
_WHY = (
    "a throughput rate levels off once the replicas saturate while the queue keeps growing, so it stops asking for "
    "replicas exactly when they are needed; scale on queue depth (vllm:num_requests_waiting) or running requests"
)


def _query(trigger: dict) -> tuple[str, str | None]:
    """(the trigger's type, the text it queries: a Prometheus query, an OTel metricQuery, a CloudWatch metricName or a
    Stackdriver filter), or None."""
    kind = str(trigger.get("type"))
    metadata = as_dict(get(trigger, "metadata"))
    key = {"prometheus": "query", "aws-cloudwatch": "metricName", "gcp-stackdriver": "filter"}.get(kind, "metricQuery")
    query = metadata.get(key)
    return kind, query if isinstance(query, str) else None


def _trigger_reason(trigger: dict) -> str | None:
    kind, query = _query(trigger)
    if query is None or not (match := THROUGHPUT.search(query)):
        return None
    over_time = str(as_dict(get(trigger, "metadata")).get("operationOverTime", "")).lower()
    if _RATE.search(query) or over_time == "rate":
        return f"{kind} trigger scales on the rate of {match.group(0)}"
    return None


def _request_trigger_reason(trigger: dict) -> str | None:
    """A trigger on the rate of a generic request counter: a PromQL rate, an OTel rate, or a cloud request count
    (CloudWatch and Stackdriver report counts per period, a rate by construction)."""
    kind, query = _query(trigger)
    if query is None or not (match := REQUEST_COUNT.search(query)):
        return None
    over_time = str(as_dict(get(trigger, "metadata")).get("operationOverTime", "")).lower()
    if kind in ("aws-cloudwatch", "gcp-stackdriver") or _RATE.search(query) or over_time == "rate":
        return f"{kind} trigger scales on the rate of {match.group(0)}"
    return None


def _vllm_findings(scaler: Resource) -> list[str]:
    """Findings on vLLM's own throughput counters and on per-request latency: they name a model server themselves."""
    if is_scaled_object(scaler):
        return [f"{path}: {reason}: {_WHY}" for path, t in triggers(scaler) if (reason := _trigger_reason(t))]
    found = []
    for metric in hpa_metrics(scaler):
        if metric.type not in ("Pods", "Object", "External") or not metric.name:
            continue
        if THROUGHPUT.search(metric.name):
            # Prometheus Adapter's own default rules serve a *_total counter as a rate named without _total; the name
            # kept with its suffix reads the count itself, which only grows.
            raw = (
                " (served under its _total name it is the cumulative count itself, which only grows, so the HPA holds "
                "its maximum unless an adapter rule turns it into a rate)"
                if metric.name.endswith("_total")
                else ""
            )
            found.append(f"{metric.path}: metric {metric.name} is a throughput rate{raw}: {_WHY}")
        elif LATENCY.search(metric.name):
            found.append(f"{metric.path}: metric {metric.name} is a per-request latency: {_WHY_LATENCY}")
    return found


def _request_findings(scaler: Resource, resources: list[Resource], candidates: list) -> list[str]:
    """Findings on a generic request counter, where the scaler scales an LLM server (advice on a hint only)."""
    if is_scaled_object(scaler):
        found = [(path, reason) for path, t in triggers(scaler) if (reason := _request_trigger_reason(t))]
    else:
        found = [
            (m.path, f"metric {m.name} is a request rate")
            for m in hpa_metrics(scaler)
            if m.type in ("Pods", "Object", "External") and m.name and REQUEST_COUNT.search(m.name)
        ]
    if not found:
        return []
    relevance = llm_scaler(scaler, resources, scale_target(scaler, candidates))
    if relevance is None:
        return []
    shown = "its target is a GPU model server" if relevance == "" else relevance
    return [unproven(f"{path}: {what} ({shown}): {_WHY_REQUESTS}") for path, what in found]


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    findings: list[tuple[str, str]] = []
    candidates = workloads(resources)
    for r in resources:
        if is_scaled_object(r) or is_hpa(r):
            messages = _vllm_findings(r)
            findings.extend((r.name, m) for m in messages or _request_findings(r, resources, candidates))
        findings.extend((r.name, m) for m in knative_rps_findings(r, config) + knative_target_findings(r, config))
        findings.extend((r.name, m) for m in http_scaled_object_findings(r, candidates))
    # The HPAs operators render (a NIMService's spec.scale.hpa, held-out set 17 jdluther2025/aiml-on-aws-eks-with-nim-
    # operator: an Object metric request_success_total) are judged as a hand-written HPA on the model server.
    for hpa, _ in embedded_scalers(resources):
        findings.extend((hpa.name, m) for m in _vllm_findings(hpa))
    return findings


POLICY = Policy(
    name="autoscaling-signal-not-throughput",
    description="An HPA or KEDA trigger does not scale a model server on a throughput rate (completed requests or "
    "processed tokens per second, or a proxy's or load balancer's request count), which plateaus at saturation instead "
    "of rising with the queue; nor does Knative scale one on requests per second, or aim a pod at more requests in "
    "flight than its vLLM runs at once (--max-num-seqs); nor does the KEDA HTTP add-on, on requestRate or a concurrency "
    "above --max-num-seqs.",
    catalog="S6",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Scale on a load signal that keeps rising under overload: vllm:num_requests_waiting (queue depth) or "
        "vllm:num_requests_running per replica, with the target from the capacity plan (components/capacity)."
    ),
    config_schema={
        "kserveDefaultDeploymentMode": kserve_default_mode_setting(
            "The deployment mode of an InferenceService without the serving.kserve.io/deploymentMode annotation (the "
            "cluster's inferenceservice-config deploy.defaultDeploymentMode). Default Serverless, KServe's shipped "
            "value; a GPU InferenceService in that mode with scaleMetric rps is advised on."
        ),
    },
    check_stack=_check,
    rationale=(
        "vLLM's request_success, generation_tokens and prompt_tokens counters count work processed (vllm 0.33.0 "
        "vllm/v1/metrics/loggers.py), so their rate is bounded by what the replicas can do; num_requests_waiting "
        "counts what is waiting and grows under overload."
    ),
)
