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
"""

from __future__ import annotations

from policies.framework import Resource, unproven
from policies.kube import (
    ISVC_TYPE,
    KNATIVE_MODES,
    annotations_of,
    as_dict,
    get,
    kserve_deployment_mode,
    requests_gpu,
)
from policies.reading.serving import model_servers

KNATIVE_SERVICE_TYPE = "kubernetes:serving.knative.dev/v1:Service"
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
