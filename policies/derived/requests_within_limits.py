"""S32: every container's request is at most its limit, in our objects and in what the controllers make of them.

The API server refuses a pod template whose request exceeds its limit for any resource
(kubernetes/kubernetes pkg/apis/core/validation/validation.go, ValidateResourceRequirements: "must be
less than or equal to <resource> limit"). On KServe's predictor Deployment this is the failure that
no one sees: KServe's defaulter fills a missing CPU or memory limit from ``inferenceservice-config``
(1 CPU, 2Gi in the chart), our InferenceService is accepted, and the Deployment it creates is refused,
so the model never serves while ``pulumi up`` reports success.

The same holds for a predictor ``model``: KServe merges the ServingRuntime it selects under it key by key
(policies/reading/kserve_runtime.py), so a request the InferenceService raises above a limit it leaves to the
runtime is refused in the predictor's pods. The runtime is the one among the checked objects, else KServe's
built-in ClusterServingRuntime for the model format (components/kserve_runtimes.toml: kserve-huggingfaceserver and
kserve-vllmserver limit the kserve-container to 1 CPU and 2Gi at v0.20.0).
"""

from __future__ import annotations

from policies.derived.common import rule_of, subject
from policies.framework import Policy, Resource
from policies.kube import PRIMARY_POD_PATHS, WORKLOAD_TYPES, as_dict, as_quantity, containers, get, pod_specs
from policies.reading.kserve_runtime import builtin_runtime, merged_resources, predictor_runtime

DERIVED_TYPES = ("kubernetes:apps/v1:Deployment", "kubernetes:core/v1:Pod")


def _model_over_runtime(resource: Resource) -> list[str]:
    """A predictor ``model`` whose request exceeds the limit its ServingRuntime supplies (its own limit unset)."""
    model = as_dict(get(resource.props, "spec", "predictor", "model"))
    if not model or resource.origin is not None:
        return []
    chosen = predictor_runtime(resource)
    runtime, source = (chosen, "among the files read") if chosen is not None else (builtin_runtime(resource) or (None, ""))
    if runtime is None:
        return []
    own_limits = as_dict(as_dict(model.get("resources")).get("limits"))
    merged = merged_resources(runtime, model)
    requests, limits = as_dict(merged.get("requests")), as_dict(merged.get("limits"))
    messages = []
    for key in sorted(set(requests) & (set(limits) - set(own_limits))):
        request, limit = as_quantity(requests[key]), as_quantity(limits[key])
        if request is None or limit is None or request <= limit:
            continue
        messages.append(
            f"{subject(resource)}: spec.predictor.model: resources.requests.{key} {requests[key]} with no "
            f"limits.{key} of its own: KServe merges {runtime.label} ({source}) under it key by key, so the "
            f"predictor's container gets limits.{key} {limits[key]} below its request and the API server refuses "
            f"its pods (a request must be at most its limit): the model never serves; set limits.{key}"
        )
    return messages


def _check(resource: Resource, config: dict) -> list[str]:
    messages = _model_over_runtime(resource)
    specs = pod_specs(resource)
    for path, podspec in specs:
        for index, container in enumerate(containers(podspec)):
            requests = as_dict(as_dict(container.get("resources")).get("requests"))
            limits = as_dict(as_dict(container.get("resources")).get("limits"))
            for key in sorted(set(requests) & set(limits)):
                request, limit = as_quantity(requests[key]), as_quantity(limits[key])
                if request is None or limit is None or request <= limit:
                    continue
                field = f"{path}.containers[{index}].resources"
                where = "" if path in PRIMARY_POD_PATHS else f" {path}"
                message = (
                    f"{subject(resource)}:{where} container {container.get('name')}: resources.requests.{key} "
                    f"{requests[key]} exceeds resources.limits.{key} {limits[key]}; the API server refuses the "
                    f"pod template (a request must be at most its limit)"
                )
                rule = rule_of(resource, f"{field}.limits.{key}")
                if rule:
                    message += f", so the model never serves. The limit is not ours: {rule}"
                messages.append(message)
    return messages


POLICY = Policy(
    name="requests-within-limits",
    description=(
        "Every container's resource request is at most its limit, including in the Deployments KServe creates from our "
        "InferenceServices and in a predictor model with the ServingRuntime KServe merges under it (a built-in one included)."
    ),
    catalog="S32",
    severity="critical",
    enforcement="mandatory",
    remediation_steps=(
        "Set a limit at least as high as the request for every resource you request. On an InferenceService, set "
        "the CPU and memory limits yourself, or clear KServe's defaults (kserve-resources values "
        'kserve.inferenceservice.resources.limits.cpu/memory: ""): KServe fills any missing limit from '
        "inferenceservice-config, and a request above that limit makes its Deployment invalid."
    ),
    # WorkloadTypes + ...: still open to every custom resource (an operator CR, ray.io/v1alpha1), whose pod
    # templates pod_specs finds with the generic walk; a plain tuple here would drop them.
    resource_types=WORKLOAD_TYPES + tuple(t for t in DERIVED_TYPES if t not in WORKLOAD_TYPES),
    check_resource=_check,
    rationale=(
        "Kubernetes refuses a container whose request exceeds its limit "
        "(https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#requests-and-limits; "
        "pkg/apis/core/validation/validation.go ValidateResourceRequirements). KServe v0.20.0 fills every missing "
        "CPU and memory limit of the predictor from inferenceservice-config "
        "(pkg/apis/serving/v1beta1/inference_service_defaults.go:59-96, predictor_custom.go:65-73; chart default "
        "1 CPU / 2Gi, charts/kserve-resources/values.yaml:88-95), so a predictor requesting 6 CPUs without a CPU "
        "limit gets a Deployment the API server refuses. Issue 30."
    ),
)
