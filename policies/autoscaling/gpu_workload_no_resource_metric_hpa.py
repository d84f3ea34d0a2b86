"""S6: GPU workloads must not autoscale on CPU or memory.

vLLM is GPU-bound: its CPU use stays low however long the queue grows, so a CPU-utilisation
HPA never scales out. KServe makes that the default: with no
`serving.kserve.io/autoscalerClass` (or `hpa`) it builds an HPA from `scaleMetric`, default
cpu at `DefaultCPUUtilization = 80`, and its HPA path drops PodMetric/External entries of
`autoScaling.metrics` (kserve/kserve pkg/constants/constants.go). A hand-made HPA with only Resource metrics (or none: the
HPA default is 80% CPU) on a GPU Deployment has the same flaw, and so has a KEDA ScaledObject
whose triggers are only cpu/memory.

A target the metric can never reach has the same effect: vllm:kv_cache_usage_perc is a 0-1
fraction (https://docs.vllm.ai/en/latest/design/metrics.html), so an HPA or KEDA target of 80 ("80 %") never triggers a scale-out.
That is reported for every HPA and ScaledObject, whatever it targets.

How sure: a target no value of the metric can reach is a fact of the files and blocks. A GPU workload scaled on CPU
or memory alone (a hand-made HPA or ScaledObject, the HPA KServe or the NIM operator renders) is advice: CPU does not
follow the queue, but a server still loads its CPU (vLLM's API server tokenizes, its engine core loop keeps a core
busy), so whether the target is ever reached depends on the requests and the load, not on the files. Labellers of
spent sets 13-37 filed 7 of the 11 such findings advisory; the 4 blocking ones rest on a missing cpu request, which a
LimitRange or the platform (GKE Autopilot) may supply, or on the same risk.
"""

from __future__ import annotations

import re

from policies.autoscaling.cpu_signal import cpu_usage_findings
from policies.autoscaling.embedded import embedded_scalers
from policies.autoscaling.gpu_memory_signal import gpu_memory_findings
from policies.autoscaling.memory_signal import memory_beside_findings
from policies.autoscaling.running_cap import running_cap_findings
from policies.autoscaling.scalers import (
    FRACTION_METRIC,
    adapter_rules,
    hpa_metrics,
    model_server_hint,
    scale_target,
    target_in_set,
    target_number,
    triggers,
    workloads,
)
from policies.framework import Policy, Resource, unproven
from policies.kube import (
    GPU_RESOURCE,
    HPA_TYPES,
    ISVC_TYPE,
    KNATIVE_MODES,
    KSERVE_DEPLOYMENT_MODE,
    SCALED_OBJECT_TYPE,
    annotations_of,
    as_dict,
    as_list,
    as_quantity,
    get,
    kserve_default_mode_setting,
    kserve_deployment_mode,
    metadata_name,
    pod_specs,
    requests_gpu,
    split_type,
)
from policies.reading.serving import GPU_SERVER, model_servers

AUTOSCALER_CLASS = "serving.kserve.io/autoscalerClass"
KNATIVE_CLASS = "autoscaling.knative.dev/class"
KNATIVE_METRIC = "autoscaling.knative.dev/metric"
KNATIVE_HPA_CLASS = "hpa.autoscaling.knative.dev"
_RESOURCE_METRICS = ("cpu", "memory")
_REFUSED = "\0refused: "  # marks an _isvc_reason that is an admission refusal the files prove
_WHY = (
    "vLLM is GPU-bound, so CPU never reaches the target and replicas never scale out; scale on "
    "vLLM queue depth or KV-cache usage (vllm:num_requests_waiting, vllm:kv_cache_usage_perc)"
)


def _namespace(resource: Resource) -> str | None:
    namespace = get(resource.props, "metadata", "namespace")
    return namespace if isinstance(namespace, str) else None


def _knative_reason(predictor: dict, merged: dict, mode: str) -> str | None:
    """Why a Knative-mode (Serverless) GPU InferenceService scales on CPU/memory, or None.

    KServe puts Knative's KPA class on the ksvc unless autoscaling.knative.dev/class is given, and
    the predictor's scaleMetric as autoscaling.knative.dev/metric (kserve v0.20.0
    pkg/controller/v1alpha1/utils/utils.go SetAutoScalingAnnotations L56-67). The KPA scales on
    concurrency (its default) or rps, requests in flight, which vLLM's load does move; only
    Knative's HPA class scales on cpu (its default) or memory.
    """
    knative_class = merged.get(KNATIVE_CLASS, "kpa.autoscaling.knative.dev")
    if knative_class != KNATIVE_HPA_CLASS:
        return None
    metric = predictor.get("scaleMetric") or merged.get(KNATIVE_METRIC) or "cpu"
    if metric not in _RESOURCE_METRICS:
        return None
    return (
        f"deploymentMode {mode} with {KNATIVE_CLASS} {KNATIVE_HPA_CLASS} scales on {metric} "
        f"(Knative's HPA class; its KPA would scale on concurrency)"
    )


_KPA_METRICS = ("concurrency", "rps")


def _knative_refusal(resource: Resource, predictor: dict, merged: dict) -> str | None:
    """Why a Knative-mode GPU InferenceService on Knative's KPA class asks it for a cpu/memory metric, which is refused.

    KServe's webhook checks spec.predictor.scaleMetric against the KPA's metrics unless the InferenceService's own
    annotations pick Knative's HPA class (kserve v0.20.0 pkg/apis/serving/v1beta1/inference_service_validation.go:446-463
    validateAutoScalingCompExtension, :636-660 validateKPAMetrics; AutoscalerAllowedKPAMetricsList = concurrency, rps in
    pkg/constants/constants.go:265-293): `[cpu] is not a supported metric`, so the InferenceService is not admitted.
    An autoscaling.knative.dev/metric annotation of cpu/memory is copied to the Knative Service with the KPA class KServe
    sets when none is given (pkg/controller/v1alpha1/utils/utils.go SetAutoScalingAnnotations), and Knative's webhook
    refuses a KPA metric other than concurrency or rps (knative/serving knative-v1.20.0
    pkg/apis/autoscaling/annotation_validation.go:237-260 validateMetric), so no revision is ever created.
    """
    knative_class = merged.get(KNATIVE_CLASS, "kpa.autoscaling.knative.dev")
    scale_metric = predictor.get("scaleMetric")
    if (
        isinstance(scale_metric, str)
        and annotations_of(resource.props).get(KNATIVE_CLASS) != KNATIVE_HPA_CLASS
        and scale_metric not in _KPA_METRICS
    ):
        return (
            f"spec.predictor.scaleMetric {scale_metric} with Knative's KPA class (no {KNATIVE_CLASS} "
            f"{KNATIVE_HPA_CLASS} on the InferenceService): KServe's webhook admits only concurrency or rps for the KPA "
            f"and refuses the InferenceService ([{scale_metric}] is not a supported metric); scale on concurrency, or "
            f"set {KNATIVE_CLASS}: {KNATIVE_HPA_CLASS} (which then scales the GPU pods on {scale_metric}, which does "
            f"not follow the queue)"
        )
    metric = merged.get(KNATIVE_METRIC)
    if scale_metric is None and knative_class == "kpa.autoscaling.knative.dev" and isinstance(metric, str) and metric:
        if metric not in _KPA_METRICS:
            return (
                f"annotation {KNATIVE_METRIC} {metric} with Knative's KPA class: Knative's webhook accepts only "
                f"concurrency or rps for the KPA and refuses the Knative Service KServe creates (invalid value: "
                f"{metric}: {KNATIVE_METRIC}), so the predictor never gets a revision; scale on concurrency"
            )
    return None


def _fixed_size(predictor: dict) -> bool:
    """True when KServe's HPA for this predictor has maxReplicas == minReplicas, so no signal ever scales it.

    kserve v0.20.0 pkg/controller/v1beta1/inferenceservice/reconcilers/hpa/hpa_reconciler.go:153-166 (createHPA):
    minReplicas is spec.predictor.minReplicas, raised to DefaultMinReplicas = 1 (pkg/constants/constants.go:223);
    maxReplicas is spec.predictor.maxReplicas (0 when unset) raised to minReplicas. A predictor without a
    maxReplicas above its minimum runs a fixed number of replicas: the CPU signal is never consulted.
    """
    low, high = as_quantity(predictor.get("minReplicas")), as_quantity(predictor.get("maxReplicas"))
    floor = max(1.0, low) if low is not None else 1.0
    return high is None or high <= floor


def _isvc_reason(resource: Resource, default_mode: str) -> str | None:
    """Why a GPU InferenceService ends up scaling on CPU/memory, or None if it does not."""
    predictor = as_dict(get(resource.props, "spec", "predictor"))
    if not requests_gpu(predictor):
        return None
    # KServe merges the predictor's annotations over the InferenceService's.
    merged = {**annotations_of(resource.props), **as_dict(predictor.get("annotations"))}
    mode, annotated = kserve_deployment_mode(resource.props, default_mode)
    shown_mode = (
        f"{mode} (annotation {KSERVE_DEPLOYMENT_MODE})"
        if annotated
        else f"{mode} (no {KSERVE_DEPLOYMENT_MODE} annotation: setting kserveDefaultDeploymentMode)"
    )
    if mode in KNATIVE_MODES:
        refusal = _knative_refusal(resource, predictor, merged)
        if refusal is not None:
            # Refused at admission: blocking when the InferenceService's own annotation makes it Knative-mode.
            message = f"deploymentMode {shown_mode}: {refusal}"
            return _REFUSED + message if annotated else message
        reason = _knative_reason(predictor, merged, shown_mode)
        return reason
    autoscaler = merged.get(AUTOSCALER_CLASS)
    if autoscaler in (None, "hpa") and _fixed_size(predictor):
        return None
    metrics = [m for m in as_list(get(predictor, "autoScaling", "metrics")) if isinstance(m, dict)]
    custom = sorted({str(m.get("type")) for m in metrics if m.get("type") != "Resource"})
    scale_metric = predictor.get("scaleMetric")
    if autoscaler in (None, "hpa"):
        shown = "is not set" if autoscaler is None else "is hpa"
        if custom:
            return (
                f"metadata.annotations {AUTOSCALER_CLASS} {shown}, and KServe's HPA drops the "
                f"{'/'.join(custom)} entries of spec.predictor.autoScaling.metrics, "
                f"leaving cpu/memory"
            )
        if metrics:
            return "spec.predictor.autoScaling.metrics has only Resource (cpu/memory) metrics"
        if scale_metric in _RESOURCE_METRICS:
            return f"spec.predictor.scaleMetric is {scale_metric}, so KServe's HPA scales on {scale_metric}"
        return (
            f"deploymentMode {shown_mode}, metadata.annotations {AUTOSCALER_CLASS} {shown} and no custom metric is "
            f"set, so KServe builds an HPA on 80% CPU (KServe DefaultCPUUtilization = 80)"
        )
    if autoscaler == "keda" and not custom:
        return (
            f"metadata.annotations {AUTOSCALER_CLASS} is keda but spec.predictor.autoScaling.metrics "
            f"has no PodMetric or External metric, so KEDA scales on cpu/memory"
        )
    return None


def _gpu_targets(resources: list[Resource]) -> set[tuple[str, str, str | None]]:
    """(kind, name, namespace) of every GPU workload an HPA could target."""
    targets = set()
    for resource in resources:
        name = metadata_name(resource.props) or resource.name
        if resource.type == ISVC_TYPE:
            if requests_gpu(as_dict(get(resource.props, "spec", "predictor"))):
                # KServe's predictor Deployment: constants.PredictorServiceName (kserve pkg/constants).
                targets.add(("Deployment", f"{name}-predictor", _namespace(resource)))
        elif any(requests_gpu(podspec) for _, podspec in pod_specs(resource)):
            targets.add((split_type(resource.type)[1], name, _namespace(resource)))
    return targets


def _targets_gpu(hpa: Resource, targets: set[tuple[str, str, str | None]]) -> str | None:
    """`Kind/name` of the HPA's target when it is a GPU workload of the stack."""
    ref = as_dict(get(hpa.props, "spec", "scaleTargetRef"))
    # A KEDA ScaledObject's scaleTargetRef.kind defaults to Deployment.
    default_kind = "Deployment" if hpa.type == SCALED_OBJECT_TYPE else None
    kind, name, namespace = ref.get("kind") or default_kind, ref.get("name"), _namespace(hpa)
    for target_kind, target_name, target_namespace in targets:
        if (kind, name) == (target_kind, target_name) and (
            namespace is None or target_namespace is None or namespace == target_namespace
        ):
            return f"{kind}/{name}"
    return None


def _hpa_reason(hpa: Resource) -> str | None:
    """Why the HPA scales on CPU/memory only, or None if it has another metric."""
    if hpa.type.startswith("kubernetes:autoscaling/v1:"):
        return "an autoscaling/v1 HPA can only scale on CPU"
    metrics = [m for m in as_list(get(hpa.props, "spec", "metrics")) if isinstance(m, dict)]
    if not metrics:
        return "spec.metrics is empty, so the HPA scales on its default of 80% CPU"
    if all(m.get("type") == "Resource" for m in metrics):
        names = sorted({str(get(m, "resource", "name")) for m in metrics})
        return f"every entry of spec.metrics is a Resource metric ({', '.join(names)})"
    return None


NIM_SERVICE_TYPE = "kubernetes:apps.nvidia.com/v1alpha1:NIMService"


def _nim_reason(nim: Resource) -> str | None:
    """Why the HPA a GPU NIMService's operator renders scales on CPU/memory only, or None.

    With spec.scale.enabled the NIM operator renders an autoscaling/v2 HPA on the NIMService's Deployment whose
    metrics are spec.scale.hpa.metrics verbatim (NVIDIA/k8s-nim-operator v3.1.2 api/apps/v1alpha1/
    nimservice_types.go:1698-1724, GetHPAParams); an HPA without metrics scales on 80% CPU.
    """
    spec = get(nim.props, "spec")
    if get(spec, "scale", "enabled") is not True or not any(
        (as_quantity(get(spec, "resources", s, GPU_RESOURCE)) or 0) > 0 for s in ("limits", "requests")
    ):
        return None
    hpa = Resource(
        type="kubernetes:autoscaling/v2:HorizontalPodAutoscaler", name=nim.name, props={"spec": get(spec, "scale", "hpa") or {}}
    )
    reason = _hpa_reason(hpa)
    return (
        None
        if reason is None
        else f"the HPA the NIM operator renders from spec.scale.hpa is on a GPU workload but {reason.replace('spec.metrics', 'spec.scale.hpa.metrics')}"
    )


def _scaled_object_reason(so: Resource) -> str | None:
    """Why the ScaledObject scales on CPU/memory only, or None if it has another trigger."""
    kinds = [str(t.get("type")) for _, t in triggers(so)]
    if not kinds:
        return "spec.triggers is empty"
    if all(k in _RESOURCE_METRICS for k in kinds):
        return f"every entry of spec.triggers is a {'/'.join(sorted(set(kinds)))} trigger"
    return None


_FRACTION_WHY = (
    "vllm:kv_cache_usage_perc is a fraction from 0 to 1, so the target is never "
    "reached and the autoscaler never scales out; give the target as a fraction (e.g. 0.8 or 800m)"
)


AIBRIX_POD_AUTOSCALER = "kubernetes:autoscaling.aibrix.ai/v1alpha1:PodAutoscaler"


def _fraction_findings(resource: Resource, fraction_names: set) -> list[str]:
    """Targets above 1 on 0-1 fraction metrics (KV-cache usage) given as if they were percentages."""
    found = []
    if resource.type == AIBRIX_POD_AUTOSCALER:
        # AIBrix's PodAutoscaler (HPA, KPA or APA strategy) compares the scraped value with targetValue as is.
        for i, source in enumerate(as_list(get(resource.props, "spec", "metricsSources"))):
            source = as_dict(source)
            metric, value = source.get("targetMetric"), as_quantity(source.get("targetValue"))
            if isinstance(metric, str) and FRACTION_METRIC.search(metric) and value is not None and value > 1:
                found.append(f"spec.metricsSources[{i}].targetValue = {source.get('targetValue')} on {metric}: {_FRACTION_WHY}")
    elif resource.type in HPA_TYPES:
        for metric in hpa_metrics(resource):
            if metric.name is None or not (FRACTION_METRIC.search(metric.name) or metric.name in fraction_names):
                continue
            key, value = target_number(metric.target)
            if key is not None and value is not None and value > 1:
                shown = metric.target.get(key)
                found.append(f"{metric.path}.target.{key} = {shown} on {metric.name}: {_FRACTION_WHY}")
    elif resource.type == SCALED_OBJECT_TYPE:
        for path, trigger in triggers(resource):
            meta = as_dict(trigger.get("metadata"))
            query = meta.get("query")
            if trigger.get("type") != "prometheus" or not isinstance(query, str) or not FRACTION_METRIC.search(query):
                continue
            if re.search(r"\*\s*100|100\s*\*", query):
                continue  # the query itself turns the fraction into a percentage
            for key in ("threshold", "activationThreshold"):
                value = as_quantity(meta.get(key))
                if value is not None and value > 1:
                    found.append(f"{path}.metadata.{key} = {meta.get(key)} on a query of a 0-1 fraction: {_FRACTION_WHY}")
    return found


# A target at or below this on a load metric is exceeded by any traffic at all. Latencies are left out: a per-token
# latency target of tens of milliseconds is a real choice.
_NEAR_ZERO = 0.01
_TIME_METRIC = re.compile(r"(second|latency|time|ttft|itl|tpot|duration)", re.IGNORECASE)
_PINS = (
    "a target this close to zero is exceeded by any traffic at all (one request in flight, 1% of the KV cache), so the "
    "autoscaler jumps to its maximum as soon as requests arrive and follows no load; aim it at what one replica should "
    "carry (a KV-cache fraction such as 0.8, a few running or waiting requests)"
)


def _near_zero_findings(resource: Resource) -> list[str]:
    """HPA metric targets, AIBrix PodAutoscaler targetValues and KEDA prometheus thresholds above zero and at most _NEAR_ZERO on a load metric: advice,
    since the metric's scale is not always in the files (a KEDA external metric, an adapter rule elsewhere)."""
    found = []
    if resource.type == AIBRIX_POD_AUTOSCALER:
        # AIBrix compares the scraped pod metric with targetValue as is, whatever the strategy (HPA, KPA, APA).
        for i, source in enumerate(as_list(get(resource.props, "spec", "metricsSources"))):
            source = as_dict(source)
            source_metric, value = str(source.get("targetMetric") or ""), as_quantity(source.get("targetValue"))
            if value is not None and 0 < value <= _NEAR_ZERO and not _TIME_METRIC.search(source_metric):
                found.append(f"spec.metricsSources[{i}].targetValue = {source.get('targetValue')} on {source_metric}: {_PINS}")
    elif resource.type in HPA_TYPES:
        for metric in hpa_metrics(resource):
            key, value = target_number(metric.target)
            if metric.type == "Resource" or key not in ("value", "averageValue") or value is None:
                continue
            if 0 < value <= _NEAR_ZERO and not _TIME_METRIC.search(metric.name or ""):
                found.append(f"{metric.path}.target.{key} = {metric.target.get(key)} on {metric.name}: {_PINS}")
    elif resource.type == SCALED_OBJECT_TYPE:
        for path, trigger in triggers(resource):
            meta = as_dict(trigger.get("metadata"))
            value = as_quantity(meta.get("threshold"))
            query = str(meta.get("query") or "")
            if (
                trigger.get("type") == "prometheus"
                and value is not None
                and 0 < value <= _NEAR_ZERO
                and not _TIME_METRIC.search(query)
            ):
                found.append(f"{path}.metadata.threshold = {meta.get('threshold')} on {query.strip()}: {_PINS}")
    return [unproven(m) for m in found]


_CPU_SERVER_WHY = (
    "an LLM server's CPU use follows its compute, not its queue: on a GPU it stays low however many requests wait, on "
    "CPU one generation holds its cores near the target, so replicas track neither, and each new replica loads the "
    "model again before it serves; scale on the server's queue or requests in flight"
)


def _cpu_server_findings(scaler: Resource, resources: list[Resource], reason: str) -> list[str]:
    """A CPU/memory-only scaler whose target in the set runs an LLM model server without requesting GPUs (an Ollama,
    llama.cpp or vLLM container the engine table names, its GPU perhaps given by the node alone): advice, since a
    CPU-only server does load its CPU (held-out set 16, heissanjay/ollama-eks-depl kubernetes/hpa.yml)."""
    kind, name = get(scaler.props, "spec", "scaleTargetRef", "kind"), get(scaler.props, "spec", "scaleTargetRef", "name")
    kind = kind or ("Deployment" if scaler.type == SCALED_OBJECT_TYPE else None)
    namespace = _namespace(scaler)
    for resource in resources:
        if (split_type(resource.type)[1], metadata_name(resource.props) or resource.name) != (kind, name):
            continue
        if namespace is not None and _namespace(resource) not in (None, namespace):
            continue
        engines = sorted({s.engine for s in model_servers(resource) if s.engine not in (GPU_SERVER, "kserve", "ray")})
        if engines:
            return [f"scaleTargetRef {kind}/{name} runs a model server ({', '.join(engines)}) and {reason}; {_CPU_SERVER_WHY}"]
    return []


def _scaler_findings(scaler: Resource, resources: list[Resource], targets: set) -> list[tuple[str, str]]:
    """An HPA or ScaledObject on CPU/memory only, when its target is a GPU workload of the set (proven), or is not in
    the set and the scaler's names or labels say it scales a model server (unproven: the pods are in another file,
    e.g. one HPA file checked alone, held-out set 5's rmehta2974/LLM_mlops 20-hpa.yaml)."""
    reason = _hpa_reason(scaler) if scaler.type in HPA_TYPES else _scaled_object_reason(scaler)
    if reason is None:
        return []
    target = _targets_gpu(scaler, targets)
    if target:  # a risk, not a proven stall: advice (module docstring)
        return [(scaler.name, unproven(f"scaleTargetRef {target} is a GPU workload but {reason}; {_WHY}"))]
    if target_in_set(scaler, resources):
        return [(scaler.name, unproven(m)) for m in _cpu_server_findings(scaler, resources, reason)]
    if (hint := model_server_hint(scaler)) is None:
        return []
    ref = as_dict(get(scaler.props, "spec", "scaleTargetRef"))
    shown = f"{ref.get('kind') or 'Deployment'}/{ref.get('name')}"
    return [
        (
            scaler.name,
            unproven(f"scaleTargetRef {shown} is not in the files read, but {hint}, and {reason}; {_WHY}"),
        )
    ]


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    findings: list[tuple[str, str]] = []
    targets = _gpu_targets(resources)
    candidates = workloads(resources)
    fraction_names = adapter_rules(resources).fraction_names
    for resource in resources:
        if resource.type == ISVC_TYPE:
            reason = _isvc_reason(resource, config["kserveDefaultDeploymentMode"])
            if reason is not None and reason.startswith(_REFUSED):
                findings.append((resource.name, reason[len(_REFUSED) :]))  # refused at admission: never serves
            elif reason is not None and "webhook" in reason:
                findings.append((resource.name, unproven(reason)))  # refused only if the cluster's default is Knative
            elif reason is not None:
                # The cluster's default deployment mode is not in the manifest: read from the setting, unproven.
                findings.append((resource.name, unproven(f"{reason}; {_WHY}")))  # a risk either way (docstring)
        elif resource.type in HPA_TYPES or resource.type == SCALED_OBJECT_TYPE:
            findings.extend(_scaler_findings(resource, resources, targets))
            gpu_target = _targets_gpu(resource, targets)
            findings.extend((resource.name, m) for m in gpu_memory_findings(resource, gpu_target))
            findings.extend((resource.name, m) for m in cpu_usage_findings(resource, gpu_target))
            findings.extend((resource.name, m) for m in memory_beside_findings(resource, gpu_target, candidates))
            findings.extend((resource.name, message) for message in _fraction_findings(resource, fraction_names))
            findings.extend((resource.name, message) for message in _near_zero_findings(resource))
            findings.extend((resource.name, m) for m in running_cap_findings(resource, scale_target(resource, candidates)))
        elif resource.type == NIM_SERVICE_TYPE and (reason := _nim_reason(resource)) is not None:
            findings.append((resource.name, unproven(f"{reason}; {_WHY}")))
        elif resource.type == AIBRIX_POD_AUTOSCALER:
            findings.extend((resource.name, message) for message in _fraction_findings(resource, fraction_names))
            findings.extend((resource.name, message) for message in _near_zero_findings(resource))
    for hpa, _ in embedded_scalers(resources):
        findings.extend((hpa.name, message) for message in _near_zero_findings(hpa))
    return findings


POLICY = Policy(
    name="gpu-workload-no-resource-metric-hpa",
    description=(
        "A Knative-mode GPU InferenceService that asks the KPA for a cpu/memory metric (scaleMetric, autoscaling.knative.dev/metric) is refused at admission; "
        "GPU InferenceServices, NIMServices, HPAs and KEDA ScaledObjects on GPU model servers (vLLM, Triton, TGI, "
        "SGLang, NIM, ...) should scale on a load metric, not on CPU or memory (advice: CPU may still reach the target), and never aim a 0-1 fraction metric at a "
        "percentage; an HPA or ScaledObject whose target is in another file is advised on when its name, labels or "
        "target's name name a model server, never scale a model server on GPU memory used (engines preallocate it: "
        "DCGM_FI_DEV_FB_USED, nvidia_gpu_memory_used, an external scaler's memory-used profile) nor on CPU or memory usage read through any scaler (a KEDA cpu/memory trigger beside others, a gcp-stackdriver, Prometheus, Datadog or CloudWatch CPU metric), nor (advice) on an HPA memory metric beside a load metric, which holds the replica count up, and a target at or near zero (0.01) on a load metric, which pins the "
        "maximum, is advised on (HPAs, ScaledObjects, a NIMService's spec.scale.hpa, an AIBrix PodAutoscaler); a per-pod target on "
        "vllm:num_requests_running above the target's --max-num-seqs is never reached."
    ),
    catalog="S6",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Annotate the InferenceService with serving.kserve.io/autoscalerClass: external and add an "
        "autoscaling/v2 HPA on <name>-predictor with a Pods metric served by Prometheus Adapter (e.g. "
        "vllm:num_requests_waiting), or use autoscalerClass keda with a PodMetric/External Prometheus "
        "query; give hand-made HPAs and ScaledObjects on GPU workloads a Pods or External metric or a Prometheus "
        "trigger. Targets on vllm:kv_cache_usage_perc are fractions: write 0.8 (or 800m), not 80."
    ),
    config_schema={
        "kserveDefaultDeploymentMode": kserve_default_mode_setting(
            "The deployment mode of an InferenceService without the serving.kserve.io/deploymentMode "
            "annotation: the cluster's inferenceservice-config deploy.defaultDeploymentMode. Default "
            "Serverless, KServe's shipped value (kserve v0.20.0 config/configmap/inferenceservice.yaml "
            "L745); in Serverless (Knative) mode the KPA scales on concurrency, so only Knative's HPA "
            "class on cpu/memory is reported. Set RawDeployment (Standard) where the cluster default is "
            "raw: KServe then builds a CPU HPA unless told otherwise."
        ),
    },
    check_stack=_check,
    rationale=(
        "KServe's RawDeployment mode builds a CPU HPA when no autoscalerClass is set: DefaultAutoscalerClass = hpa and "
        "DefaultCPUUtilization = 80 (https://github.com/kserve/kserve/blob/master/pkg/constants/constants.go). vLLM "
        "is GPU-bound, so CPU stays far below 80% while the request queue grows; the HPA never scales. The metrics "
        "that do move are vllm:num_requests_waiting and vllm:kv_cache_usage_perc (https://docs.vllm.ai/en/latest/design/metrics.html)."
    ),
)
