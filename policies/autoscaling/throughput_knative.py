"""S6 (companion): Knative's KPA told to scale a model server on requests per second.

``autoscaling.knative.dev/metric: rps`` makes the KPA hold each replica at ``autoscaling.knative.dev/target`` requests
per second (default 200, Knative config-autoscaler ``requests-per-second-target-default``,
https://knative.dev/docs/serving/autoscaling/autoscaling-metrics/ and .../rps-target/). A request to an LLM holds a
batch slot for as long as its answer streams, from under a second to minutes, so a number of requests per second says
little about how full a replica is: the same rate is idle with short answers and a growing queue with long ones.
Knative's default metric, ``concurrency`` (requests in flight), does follow an LLM's load.

Read: a Knative Service whose revision template runs a model server with the annotation ``rps``, and a GPU
InferenceService in Knative (Serverless) mode whose ``spec.predictor.scaleMetric`` is ``rps`` or whose annotations
(the InferenceService's, merged under the predictor's) say ``rps``: KServe writes the predictor's scaleMetric as
``autoscaling.knative.dev/metric`` on the Knative revision (kserve v0.20.0
pkg/controller/v1alpha1/utils/utils.go SetAutoScalingAnnotations L56-67). Advisory: a target chosen below the
saturated rate of the shortest answers would still scale, which the manifest does not show.

The concurrency target too: the KPA aims each pod at target x utilization requests in flight (the annotation, capped
by containerConcurrency; else containerConcurrency; else 100; times 70 %: knative-v1.23.0
pkg/reconciler/autoscaling/resources/target.go:31-63). Where that exceeds what vLLM runs at once (an explicit
``--max-num-seqs``, times ``--data-parallel-size``), the excess waits in vLLM's queue while Knative counts it as load
being served, so scale-out comes only after each pod holds that many waiting requests: advice (the cluster's defaults
may differ, and a queue may be wanted).
"""

from __future__ import annotations

from policies.autoscaling.running_cap import batch_cap
from policies.framework import Resource, unproven
from policies.kube import (
    ISVC_TYPE,
    KNATIVE_MODES,
    KNATIVE_SERVICE_TYPE,
    annotations_of,
    as_dict,
    as_float,
    get,
    kserve_deployment_mode,
    requests_gpu,
)
from policies.reading.serving import model_servers

KNATIVE_METRIC = "autoscaling.knative.dev/metric"
_WHY = (
    "an LLM request holds a batch slot for as long as its answer streams (under a second to minutes), so requests per "
    "second say little about how full a replica is: the same rate idles with short answers and queues with long ones; "
    "use Knative's concurrency metric (its default: requests in flight) with a target near the engine's batch size"
)


def _isvc_rps(resource: Resource, config: dict) -> list[str]:
    predictor = as_dict(get(resource.props, "spec", "predictor"))
    if not requests_gpu(predictor):
        return []
    mode, annotated = kserve_deployment_mode(resource.props, str(config.get("kserveDefaultDeploymentMode") or "Serverless"))
    if mode not in KNATIVE_MODES:
        return []
    merged = {**annotations_of(resource.props), **as_dict(predictor.get("annotations"))}
    if predictor.get("scaleMetric") == "rps":
        where = "spec.predictor.scaleMetric is rps"
    elif merged.get(KNATIVE_METRIC) == "rps":
        where = f"annotation {KNATIVE_METRIC} is rps"
    else:
        return []
    how = "annotation" if annotated else "no annotation: setting kserveDefaultDeploymentMode"
    return [
        unproven(f"{where}: deploymentMode {mode} ({how}), so Knative's KPA scales this GPU model on requests per second: {_WHY}")
    ]


def knative_rps_findings(resource: Resource, config: dict) -> list[str]:
    """Advice for a Knative Service running a model server, or a GPU InferenceService in Knative mode, that scales on
    requests per second."""
    if resource.type == ISVC_TYPE:
        return _isvc_rps(resource, config)
    if resource.type != KNATIVE_SERVICE_TYPE:
        return []
    found = annotations_of(as_dict(get(resource.props, "spec", "template")))
    if found.get(KNATIVE_METRIC) != "rps" or not model_servers(resource):
        return []
    return [
        unproven(
            f"spec.template.metadata.annotations: {KNATIVE_METRIC} is rps, so Knative's KPA scales this model server "
            f"on requests per second: {_WHY}"
        )
    ]


# Knative's KPA aims each pod at target x utilization requests in flight: the target is the annotation (capped by
# containerConcurrency when both are set), else containerConcurrency, else config-autoscaler's
# container-concurrency-target-default 100; utilization is target-utilization-percentage, else 70 % (knative/serving
# knative-v1.23.0 pkg/reconciler/autoscaling/resources/target.go:31-63 ResolveMetricTarget; defaults at
# pkg/autoscaler/config/config.go:39,46).
_KNATIVE_TARGET = "autoscaling.knative.dev/target"
_KNATIVE_UTILIZATION = "autoscaling.knative.dev/target-utilization-percentage"
_DEFAULT_CONCURRENCY = 100.0
_DEFAULT_UTILIZATION = 0.7


def _revision(resource: Resource, config: dict) -> tuple[str, dict, float] | None:
    """(where, annotations, containerConcurrency) of a model server's Knative revision, or None."""
    if resource.type == KNATIVE_SERVICE_TYPE:
        template = as_dict(get(resource.props, "spec", "template"))
        cc = as_float(get(template, "spec", "containerConcurrency")) or 0.0
        return "spec.template.metadata.annotations", annotations_of(template), cc
    if resource.type != ISVC_TYPE:
        return None
    mode, _ = kserve_deployment_mode(resource.props, str(config.get("kserveDefaultDeploymentMode") or "Serverless"))
    predictor = as_dict(get(resource.props, "spec", "predictor"))
    if mode not in KNATIVE_MODES:
        return None
    merged = {**annotations_of(resource.props), **as_dict(predictor.get("annotations"))}
    # KServe writes spec.predictor.scaleTarget as the target annotation and passes containerConcurrency to the
    # revision (kserve v0.20.0 pkg/controller/v1alpha1/utils/utils.go:56-67).
    if predictor.get("scaleTarget") is not None and predictor.get("scaleMetric") in (None, "concurrency"):
        merged[_KNATIVE_TARGET] = str(predictor.get("scaleTarget"))
    return "spec.predictor", merged, as_float(predictor.get("containerConcurrency")) or 0.0


def knative_target_findings(resource: Resource, config: dict) -> list[str]:
    """Advice for a Knative revision running vLLM whose concurrency target per pod exceeds what the engine runs at
    once: the excess waits in vLLM's queue, which Knative counts as served load, before a replica is added."""
    read = _revision(resource, config)
    if read is None:
        return []
    where, annotations, cc = read
    if annotations.get(KNATIVE_METRIC, "concurrency") != "concurrency" or (cap := batch_cap(resource)) is None:
        return []
    limit, flags = cap
    explicit = as_float(annotations.get(_KNATIVE_TARGET))
    total = explicit if explicit is not None else (cc or _DEFAULT_CONCURRENCY)
    if explicit is not None and cc:
        total = min(explicit, cc)
    utilization = as_float(annotations.get(_KNATIVE_UTILIZATION))
    fraction = utilization / 100 if utilization is not None else _DEFAULT_UTILIZATION
    aim = total * fraction
    if aim <= limit:
        return []
    source = (
        f"{_KNATIVE_TARGET} {explicit:g}" + (f" capped by containerConcurrency {cc:g}" if cc and cc < explicit else "")
        if explicit is not None
        else (f"containerConcurrency {cc:g}" if cc else f"no target: Knative's default {_DEFAULT_CONCURRENCY:g}")
    )
    return [
        unproven(
            f"{where}: Knative aims each pod at {aim:g} requests in flight ({source} x utilization {fraction:g}), but "
            f"vLLM runs at most {limit} at once ({flags}): the rest wait in its queue, and Knative adds a replica only "
            f"once each pod holds about {aim - limit:g} waiting requests; set {_KNATIVE_TARGET} so that target x "
            f"utilization is at most {limit}"
        )
    ]
