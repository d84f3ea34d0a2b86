"""S5: LLM serving must not scale to zero.

A replica comes back only after node provisioning, a multi-GB image pull and the weight load:
minutes, not seconds, so the first request after an idle spell times out.
KServe's own default is DefaultMinReplicas = 1 (kserve/kserve v0.20.0), so an InferenceService without
minReplicas is fine; KEDA's default minReplicaCount is 0, so a ScaledObject must set it, and
must not set idleReplicaCount: 0 (scale to zero while idle).

A committed ``serving.kserve.io/stop: "true"`` annotation is a scale to zero that never ends (advice: it may be a model
parked on purpose): KServe marks the
InferenceService's predictor stopped and deletes its workload (kserve/kserve v0.20.0 pkg/constants/constants.go:121
StopAnnotationKey; pkg/utils/utils.go:333-351 GetForceStopRuntime, case-insensitive "true";
pkg/controller/v1beta1/inferenceservice/components/predictor.go:247, controller.go:318; reconcilers/deployment/
deployment_reconciler.go:224-247 creates no Deployment and deletes an existing one), and an
LLMInferenceService's main workload likewise (pkg/controller/v1alpha2/llmisvc/workload.go:58-60).
"""

from __future__ import annotations

from collections.abc import Iterable

from policies.autoscaling.scalers import Workload, namespace_of, scale_target, workloads
from policies.framework import Policy, Resource, unproven
from policies.kube import (
    HPA_TYPES,
    ISVC_TYPE,
    KNATIVE_MODES,
    KNATIVE_SERVICE_TYPE,
    SCALED_OBJECT_TYPE,
    annotations_of,
    as_dict,
    as_int,
    as_list,
    containers,
    get,
    kserve_deployment_mode,
    memoized,
    pod_specs,
    split_type,
    viewed_resources,
)
from policies.operators import OPERATOR_TYPES, operator_server
from policies.reading.label_selectors import selector_matches
from policies.reading.scalers_ext import KUBEAI_MODEL, SCALER_TYPES, ray_serve_zero_floors, replica_floor
from policies.reading.serving import GPU_SERVER, model_servers

_WHY = (
    "an LLM replica takes minutes to return (GPU node, image pull, weight load), "
    "so the first request after idling times out; set it to at least 1"
)


_LLMISVC_TYPES = (
    "kubernetes:serving.kserve.io/v1alpha1:LLMInferenceService",
    "kubernetes:serving.kserve.io/v1alpha2:LLMInferenceService",
)
STOP_ANNOTATION = "serving.kserve.io/stop"
RAY_SERVICE_TYPES = ("kubernetes:ray.io/v1:RayService", "kubernetes:ray.io/v1alpha1:RayService")


def _stopped(resource: Resource) -> list[str]:
    """The finding for a KServe model committed stopped (see the module docstring), or none."""
    group, _ = split_type(resource.type)
    value = get(resource.props, "metadata", "annotations", STOP_ANNOTATION)
    if group != "serving.kserve.io" or not (isinstance(value, str) and value.strip().lower() == "true"):
        return []
    # A deliberate off switch (a model parked in GitOps, an exported stopped model) is not a cold-start problem, and
    # whether it was meant is not in the files (review 32 R12): advice that says what it does.
    return [
        unproven(
            f'metadata.annotations: {STOP_ANNOTATION} is "{value}", so KServe keeps this model stopped and deletes its '
            f"pods: it serves nothing until the annotation is removed; if the model is not parked on purpose, drop it "
            f"from the committed manifest"
        )
    ]


# Knative's per-revision floor (autoscaling.knative.dev/min-scale, legacy alias minScale; Knative's own default is 0
# with the KPA class, https://knative.dev/docs/serving/autoscaling/scale-bounds/). KServe v0.20.0 writes min-scale
# itself from spec.predictor.minReplicas, or DefaultMinReplicas 1 when unset (pkg/controller/v1alpha1/utils/utils.go:
# 69-74, called from reconcilers/knative/ksvc_reconciler.go:104-111), so on an InferenceService the annotation is
# the author's stated intent but the floor depends on the KServe release: advice. On a Knative Service nothing
# rewrites it, so "0" on a model server's revision template scales that server to zero.
_MIN_SCALE_KEYS = ("autoscaling.knative.dev/min-scale", "autoscaling.knative.dev/minScale")


# Knative's cluster defaults (knative/serving knative-v1.23.0 pkg/autoscaler/config/config.go:44,60-64): scale to
# zero enabled, min-scale 0, initial-scale 1, allow-zero-initial-scale false; an initial-scale annotation of 0 is
# refused by the webhook unless the cluster allows it (pkg/apis/autoscaling/annotation_validation.go:265-276).
_INITIAL_SCALE = "autoscaling.knative.dev/initial-scale"
_KNATIVE_CLASS = "autoscaling.knative.dev/class"


def _knative_annotations(resource: Resource, config: dict) -> tuple[str, dict] | None:
    """(where, annotations) of the Knative revision a model server runs in: a Knative Service's template, or a GPU
    InferenceService in Knative mode (KServe puts its annotations on the revision), else None."""
    if resource.type == ISVC_TYPE:
        mode, _ = kserve_deployment_mode(resource.props, str(config.get("kserveDefaultDeploymentMode") or "Serverless"))
        return ("metadata.annotations", annotations_of(resource.props)) if mode in KNATIVE_MODES else None
    if resource.type == KNATIVE_SERVICE_TYPE and model_servers(resource):
        return "spec.template.metadata.annotations", annotations_of(as_dict(get(resource.props, "spec", "template")))
    return None


def _initial_scale(where: str, found: dict) -> list[str]:
    if as_int(found.get(_INITIAL_SCALE)) != 0:
        return []
    return [
        unproven(
            f'{where}: {_INITIAL_SCALE} is "0": Knative refuses it unless the cluster sets allow-zero-initial-scale '
            f"(default false), and where allowed each new revision of this model server starts with no pod, so the first "
            f"request waits for a GPU node, the image and the weights; drop it (Knative's default initial scale is 1)"
        )
    ]


def _knative_floor(resource: Resource, config: dict) -> list[str]:
    """The findings for a Knative min-scale (or initial-scale) of 0 on a model server, or for a Knative Service running
    one with no min-scale at all (the cluster's default, 0 as shipped)."""
    read = _knative_annotations(resource, config)
    if read is None:
        return []
    where, found = read
    out = _initial_scale(where, found)
    if resource.type == ISVC_TYPE and get(resource.props, "spec", "predictor", "minReplicas") is not None:
        return out
    key = next((k for k in _MIN_SCALE_KEYS if k in found), None)
    if key is None:
        if resource.type == KNATIVE_SERVICE_TYPE and found.get(_KNATIVE_CLASS, "kpa.autoscaling.knative.dev") == (
            "kpa.autoscaling.knative.dev"
        ):
            # The cluster's config-autoscaler may raise min-scale or turn scale to zero off: not in the files.
            out.append(
                unproven(
                    f"{where}: no {_MIN_SCALE_KEYS[0]}, so the revision takes the cluster's default, 0 as Knative ships "
                    f"it (config-autoscaler min-scale 0, enable-scale-to-zero true), and the model server scales to zero "
                    f"when idle; {_WHY}"
                )
            )
        return out
    if as_int(found[key]) != 0:
        return out
    message = f'{where}: {key} is "0", so Knative scales the model server to zero when idle; {_WHY}'
    if resource.type == KNATIVE_SERVICE_TYPE:
        return [*out, message]
    return [
        *out,
        unproven(
            f"{message} (KServe v0.20.0 writes min-scale from spec.predictor.minReplicas, default 1, over it; a release "
            f"that passes the annotation through to Knative scales to zero: set spec.predictor.minReplicas: 1 and drop it)"
        ),
    ]


def _ray_serve(resource: Resource) -> list[str]:
    """Advice for each model deployment of a RayService that Ray Serve scales to zero (policies/reading/scalers_ext.py
    ray_serve_zero_floors): Serve holds the first request while it starts a replica, so whether it times out depends on
    the client's and the proxy's timeouts and on whether a worker node is up, which the files do not prove."""
    return [
        unproven(
            f"{field} is 0, so Ray Serve scales this model to zero when idle and the first request waits for a new "
            f"replica (a worker node if none is free, then the weight load); {_WHY}"
        )
        for field in ray_serve_zero_floors(resource)
    ]


# Workloads whose spec.replicas a manifest may commit at 0 while their pods serve a model: Deployments (a StatefulSet
# would make this a pod rule, which must then be open to every custom resource: test_policy_pod_rules_every_template).
_REPLICATED_TYPES = ("kubernetes:apps/v1:Deployment",)


def _parked(resource: Resource) -> list[str]:
    """Advice on a model server's Deployment committed with spec.replicas 0 that no autoscaler of the
    files scales (set 41: AurelioAguirre/multi-model-orchestrator k8s/inference/vllm-deployment.yaml, "replicas: 0 #
    Start with 0, scale up when needed", scaled by the project's orchestrator): it runs no pod until something outside
    the files scales it, and the first request then waits the cold start. An HPA or ScaledObject of the files that
    targets it is judged on its own floor instead."""
    if resource.type not in _REPLICATED_TYPES or get(resource.props, "spec", "replicas") != 0:
        return []
    if not model_servers(resource):
        return []
    view = viewed_resources()
    if view is not None:
        found = memoized(view, "scaler_workloads", workloads)
        for scaler in (r for r in view if r.type in _GENERIC_SCALERS):
            target = scale_target(scaler, found)
            if target is not None and target.resource is resource:
                disabled = _disabled_hpa(scaler)
                # A kustomization's `replicas:` entry sets the count the overlay applies (review 45 #8).
                return [_rescaled_note(m) for m in disabled] if resource.rescaled else disabled
    return [
        unproven(
            "spec.replicas is 0, so this model server runs no pod until something outside these files scales it up, "
            f"and each first request then waits for a pod to start and load the model; {_WHY}"
        )
    ]


def _rescaled_note(message: str) -> str:
    """Advice in place of the ScalingDisabled finding on a Kustomize base whose count a ``replicas:`` entry sets."""
    return unproven(
        "a kustomization's replicas: entry sets this Deployment's count in the build, so the 0 written here applies "
        f"only to the base applied alone; there: {message}"
    )


def _disabled_hpa(scaler: Resource) -> list[str]:
    """The finding for a model server's Deployment committed at replicas 0 under an HPA whose floor is not 0 (set 47:
    SecureCloudOps/llm-rag-infra-platform k8s/vllm/deployment.yaml with k8s/vllm/hpa.yaml, minReplicas 1). The HPA
    controller does not scale a target whose replicas are 0 while its minReplicas is not 0: it keeps 0 and reports
    ScalingActive False, reason ScalingDisabled, "scaling is disabled since the replica count of the target is zero"
    (kubernetes/kubernetes pkg/controller/podautoscaler/horizontal.go reconcileAutoscaler, ``scale.Spec.Replicas == 0
    && minReplicas != 0``, minReplicas defaulting to 1; the code index's stored version 00067268), and each apply of
    the file writes 0 again, so no pod ever runs. KEDA's ScaledObject and HTTPScaledObject activate a target from 0
    themselves, and an HPA whose minReplicas is 0 (HPAScaleToZero) goes on scaling: both silent."""
    if scaler.type not in HPA_TYPES:
        return []
    floor = get(scaler.props, "spec", "minReplicas")
    minimum = 1 if floor is None else as_int(floor)
    if minimum is None or minimum == 0:
        return []
    name = get(scaler.props, "metadata", "name") or scaler.name
    return [
        f"spec.replicas is 0 and the HorizontalPodAutoscaler {name} (minReplicas {minimum}"
        f"{'' if floor is not None else ', the default'}) scales it: the HPA controller leaves a target at 0 "
        f'replicas alone (ScalingActive False, ScalingDisabled: "scaling is disabled since the replica count of the '
        f'target is zero"), so this model server never runs a pod; drop spec.replicas (the HPA then sets it) or set it '
        f"to 1"
    ]


def _check(resource: Resource, config: dict) -> list[str]:
    found = _stopped(resource) + _weighed(resource, _floor(resource)) + _knative_floor(resource, config)
    return found + _ray_serve(resource) + _parked(resource)


# Autoscalers that scale whatever they name: a floor of 0 matters only where that is a model server.
_GENERIC_SCALERS = (*HPA_TYPES, SCALED_OBJECT_TYPE, "kubernetes:http.keda.sh/v1alpha1:HTTPScaledObject")


def _weighed(resource: Resource, found: list[str]) -> list[str]:
    """A generic autoscaler's floor of 0, kept where its target is a GPU workload of the files (or it reads a model
    server's series), advice where its target is in no file read but its names or series suggest a model server, and
    dropped where it scales something else (a CPU workload of the files, or nothing says model server): an ingestion
    worker or a web tier may scale to zero. Without a view of the files (a resource alone, as under the Pulumi CLI)
    the finding stands as it is."""
    view = viewed_resources()
    if not found or resource.type not in _GENERIC_SCALERS or view is None:
        return found
    from policies.autoscaling.hpa_behavior import llm_scaler

    target = scale_target(resource, memoized(view, "scaler_workloads", workloads))
    relevance = llm_scaler(resource, list(view), target)
    if relevance is None:
        return []
    if relevance == "" and target is not None and _scaled_on_queue(resource) and _answers_no_request(target, view):
        return [unproven(f"{m} ({_QUEUE_WORKER})") for m in found]
    return found if relevance == "" else [unproven(f"{m} ({relevance})") for m in found]


# KEDA trigger types whose metric is the backlog of a queue, stream or job queue (kedacore/keda v2.20.2
# pkg/scaling/scalers_builder.go buildScaler, L126-279: each `case` is a trigger type). A worker scaled only on these
# pulls its work; prometheus, metrics-api, cpu and the other metric scalers may be request traffic, and an
# HTTPScaledObject routes HTTP requests through KEDA's interceptor to the target's Service: both serve requests.
_QUEUE_TRIGGERS = frozenset(
    {
        "activemq",
        "apache-kafka",
        "artemis-queue",
        "aws-dynamodb-streams",
        "aws-kinesis-stream",
        "aws-sqs-queue",
        "azure-eventhub",
        "azure-pipelines",
        "azure-queue",
        "azure-servicebus",
        "beanstalkd",
        "forgejo-runner",
        "gcp-cloudtasks",
        "gcp-pubsub",
        "github-runner",
        "ibmmq",
        "kafka",
        "liiklus",
        "nats-jetstream",
        "nsq",
        "pulsar",
        "rabbitmq",
        "redis",
        "redis-cluster",
        "redis-cluster-streams",
        "redis-sentinel",
        "redis-sentinel-streams",
        "redis-streams",
        "solace-direct-messaging",
        "solace-event-queue",
        "temporal",
    }
)


def _scaled_on_queue(scaler: Resource) -> bool:
    """True for a KEDA ScaledObject whose every trigger is a queue or stream scaler (_QUEUE_TRIGGERS). Never for an
    HTTPScaledObject (it scales on the HTTP requests it routes), an HPA, or a ScaledObject with a metric trigger such as
    prometheus on a request rate: a GPU target scaled on request traffic serves requests, whatever its manifest shows."""
    if scaler.type != SCALED_OBJECT_TYPE:
        return False
    kinds = [get(t, "type") for t in as_list(get(scaler.props, "spec", "triggers"))]
    return bool(kinds) and all(isinstance(k, str) and k.strip().lower() in _QUEUE_TRIGGERS for k in kinds)


_QUEUE_WORKER = (
    "it scales only on a queue's backlog and its target holds GPUs but answers no request: no container port, no "
    "network probe, no engine the engine table knows and no Service of the files selecting its pods, so it reads its "
    "work from the queue, where a cold start after an idle spell delays a job instead of failing a request"
)
_CORE_TARGETS = ("Deployment", "StatefulSet", "ReplicaSet")


def _answers_no_request(target: Workload, view: Iterable[Resource]) -> bool:
    """True for a GPU workload that serves no request (set 48: an async Whisper worker scaled from zero by KEDA on its
    queue's length, held-out labels call that floor right): a core workload whose containers declare no port and no
    HTTP, TCP or gRPC probe, whose model servers are only GPU holders no engine row names, and that no Service of the
    files selects. A queue worker's first job after idling waits the cold start; no client times out on it."""
    if target.kind not in _CORE_TARGETS or target.resource.type == ISVC_TYPE:
        return False
    if any(server.engine != GPU_SERVER for server in model_servers(target.resource)):
        return False
    for _, podspec in pod_specs(target.resource):
        for container in containers(podspec):
            if as_list(get(container, "ports")):
                return False
            for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
                if any(k in as_dict(get(container, probe)) for k in ("httpGet", "tcpSocket", "grpc")):
                    return False
    for other in view:
        if split_type(other.type) != ("", "Service"):
            continue
        # A namespace left out on either side (kustomize's `namespace:`, `kubectl apply -n`) may be the other's.
        space = namespace_of(other)
        if space is not None and target.namespace is not None and space != target.namespace:
            continue
        if selector_matches(get(other.props, "spec", "selector"), target.pod_labels, plain=True):
            return False
    return True


def _kubeai_cold_start(field: str, defaulted: bool) -> str:
    """Advice on a KubeAI Model that scales to zero: scale-from-zero is KubeAI's designed path. Its proxy asks for a
    replica and holds the request until one is Ready (substratusai/kubeai v0.21.0 internal/modelproxy/handler.go:83-99,
    ScaleAtLeastOneReplica then AwaitBestAddress, bounded only by the request's context), and its API server sets no
    timeout (internal/manager/run.go:268). The first request after idling waits the cold start and fails only where a
    client or a proxy in front gives up sooner, which the files do not show."""
    how = f"{field} is not set and KubeAI takes 0" if defaulted else f"{field} is 0"
    return unproven(
        f"{how}, so the Model scales to zero when idle; KubeAI's proxy holds the next request while a replica comes "
        f"back (GPU node, image pull, weight load: minutes), so a client or ingress timeout shorter than that fails "
        f"it; set minReplicas to at least 1 where the first request must not wait"
    )


def _floor(resource: Resource) -> list[str]:
    spec = as_dict(get(resource.props, "spec"))
    if resource.type in _LLMISVC_TYPES:
        return []
    if resource.type in OPERATOR_TYPES:
        server = operator_server(resource)
        if server is not None and server.min_replicas == 0:
            return [f"{server.min_replicas_field} is 0, so the {server.kind} operator scales the model to zero; {_WHY}"]
        return []
    floor = replica_floor(resource)
    if floor is not None:
        if floor.minimum != 0:
            return []
        if split_type(resource.type) == KUBEAI_MODEL and "replicas" not in floor.field:
            return [_kubeai_cold_start(floor.field, floor.defaulted)]
        if floor.defaulted:
            return [f"{floor.field} is not set and the {floor.kind} controller takes 0, scaling to zero when idle; {_WHY}"]
        return [
            f"{floor.field} is {'true' if 'scale-to-zero' in floor.field else '0'}, so the {floor.kind} scales to zero; {_WHY}"
        ]
    if resource.type == ISVC_TYPE:
        field, value = "spec.predictor.minReplicas", get(spec, "predictor", "minReplicas")
    elif resource.type == SCALED_OBJECT_TYPE:
        field, value = "spec.minReplicaCount", spec.get("minReplicaCount")
        found = []
        if "minReplicaCount" not in spec:
            found.append(f"{field} is not set and KEDA defaults it to 0; {_WHY}")
        elif as_int(value) == 0:
            found.append(f"{field} is 0; {_WHY}")
        # KEDA scales to idleReplicaCount whenever every trigger is inactive, whatever minReplicaCount says.
        if as_int(spec.get("idleReplicaCount")) == 0:
            found.append(f"spec.idleReplicaCount is 0, so KEDA scales to zero whenever its triggers are idle; {_WHY}")
        return found
    else:
        field, value = "spec.minReplicas", spec.get("minReplicas")
    if as_int(value) == 0:
        return [f"{field} is 0; {_WHY}"]
    return []


POLICY = Policy(
    name="llm-no-scale-to-zero",
    description=(
        "InferenceServices, HPAs, KEDA ScaledObjects and HTTPScaledObjects, KubeAI Models, AIBrix PodAutoscalers and "
        "operator-run model servers must keep at least one replica; a KServe model committed stopped "
        "(serving.kserve.io/stop) is advice (it may be parked on purpose); an HPA, ScaledObject or HTTPScaledObject "
        "counts where its target is a GPU workload of the files or it reads a model server's series, and is advice "
        "where the target is elsewhere and only its names suggest a model server, or where the GPU target answers no "
        "request (no container port, network probe, known engine or Service) and a KEDA ScaledObject scales it only on "
        "queue or stream triggers (a queue worker; never an HTTPScaledObject or a request-rate metric); a Knative min-scale annotation of 0 "
        "on a model server's Knative Service counts, and on a Serverless InferenceService is advice (KServe writes "
        "min-scale from minReplicas); a model server's Knative Service with no min-scale (the cluster's default, 0 as "
        "Knative ships it) and an initial-scale of 0 are advice; so is a RayService model deployment whose Ray Serve "
        "autoscaling_config.min_replicas is 0, and a model server's Deployment committed with "
        "replicas 0 that no autoscaler of the files scales; a model server's Deployment committed with replicas 0 under "
        "an HPA of the files whose minReplicas is not 0 blocks (the HPA controller disables scaling for a target at 0)."
    ),
    catalog="S5",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Set InferenceService spec.predictor.minReplicas, HPA spec.minReplicas or ScaledObject "
        "spec.minReplicaCount to 1 or more (the ScaledObject field must be explicit: KEDA defaults to 0). "
        "For a deliberately idle dev model, annotate the resource with "
        'llm-serving.io/exempt-llm-no-scale-to-zero: "<reason>".'
    ),
    config_schema={},
    resource_types=(
        ISVC_TYPE,
        KNATIVE_SERVICE_TYPE,
        *_LLMISVC_TYPES,
        *HPA_TYPES,
        SCALED_OBJECT_TYPE,
        *OPERATOR_TYPES,
        *SCALER_TYPES,
        *RAY_SERVICE_TYPES,
        *_REPLICATED_TYPES,
    ),
    check_resource=_check,
    rationale=(
        "A replica returns only after a GPU node is provisioned, a multi-GB image pulled and the weights loaded: minutes "
        "(https://karpenter.sh/docs/concepts/disruption/, https://docs.vllm.ai/en/latest/configuration/optimization.html). "
        "KServe's own default is DefaultMinReplicas = 1; KEDA's minReplicaCount defaults to 0 "
        "(https://keda.sh/docs/latest/reference/scaledobject-spec/), so a ScaledObject must set it; so do KEDA's "
        "HTTPScaledObject (replicas.min, default 0) and KubeAI's Model (minReplicas, default 0); an AIBrix PodAutoscaler "
        "keeps 1 unless minReplicas is 0 or autoscaling.aibrix.ai/scale-to-zero is true (policies/reading/scalers_ext.py "
        "cites each at its tag)."
    ),
)
