"""Manifests of one vLLM service: a KServe InferenceService (Standard mode) and its PodDisruptionBudget.

Pure functions from the model's config and its capacity plan to Kubernetes objects as dicts.
Field names follow the KServe v1beta1 CRD (kserve/kserve v0.20.0,
config/crd/full/serving.kserve.io_inferenceservices.yaml):
``spec.predictor`` is a pod spec plus replica fields, so the vLLM container goes under
``spec.predictor.containers`` with KServe's container name ``kserve-container``.
"""

from __future__ import annotations

import json
from typing import Any

from ..builders.credentials import HF_TOKEN_KEY, model_service_account_name
from ..builders.karpenter import GPU_NAME_LABEL, NODEPOOL_LABEL  # noqa: F401 (policies read them from here)
from ..builders.labels import recommended_labels
from ..builders.model_source import cache_wait, model_args, model_env
from ..builders.scheduling import ISVC_LABEL, karpenter_gpu_name, pod_drain, replicas_per_node, serving_pod_scheduling
from ..capacity.plan import ServingPlan
from ..config import ModelConfig
from ..images import image_tag

DEPLOYMENT_MODE = "Standard"  # pkg/constants/constants.go: Standard; RawDeployment is the deprecated alias
CONTAINER_NAME = "kserve-container"  # KServe's name for the predictor's serving container
HTTP_PORT = 8080  # the port KServe's runtimes and probes use for vLLM (kserve/kserve v0.20.0)
# The stack's API key: Secret key, and the variable vLLM reads it from (0.33.0 envs.py VLLM_API_KEY;
# serve/middleware/register.py adds the AuthenticationMiddleware when it is set).
API_KEY_KEY = "key"
API_KEY_ENV = "VLLM_API_KEY"
SHM_VOLUME = "dshm"
CACHE_VOLUME = "model-cache"
CACHE_PATH = "/models-cache"
# Endpoints vLLM's access log skips (--disable-access-log-for-endpoints): probes and scrapes.
QUIET_ENDPOINTS = "/health,/metrics"


from ..builders.labels import CAPACITY_ANNOTATION, GPU_ANNOTATION  # noqa: E402,F401 (defined beside the labels)

# What KServe's defaulting webhook writes into our InferenceService (kserve/kserve v0.20.0
# pkg/apis/serving/v1beta1/inference_service_defaults.go DefaultInferenceService, 163-214), as Pulumi property paths
# the component ignores so that `pulumi refresh` shows no diff and `pulumi up` never strips them:
# the LocalModelCache match (setLocalModelLabel, 504-593: a label and two annotations; the namespace label of a
# LocalModelNamespaceCache, 537-538) and automountServiceAccountToken where the cluster's config turns it off
# (211-222). The rest of what it defaults we set ourselves to the value it would write: the deploymentMode
# annotation (Standard, 166-186), the container name (kserve-container, predictor_custom.go:69-71), CPU and memory
# requests and the memory limit, and the CPU limit where KServe's default is not cleared (59-96).
# tests/derive/test_kserve_refresh.py derives the stored object for each stack and checks this list covers it.
KSERVE_DEFAULTED_FIELDS = (
    'metadata.labels["internal.serving.kserve.io/localmodel"]',
    'metadata.labels["internal.serving.kserve.io/localmodel-namespace"]',
    'metadata.annotations["internal.serving.kserve.io/localmodel-sourceuri"]',
    'metadata.annotations["internal.serving.kserve.io/localmodel-pvc-name"]',
    "spec.predictor.automountServiceAccountToken",
)


def capacity_summary(plan: ServingPlan) -> str:
    """The plan's verdict and key figures as compact, stable JSON."""
    mem = plan.memory
    summary = {
        "accounting": mem.accounting,
        "fits": mem.fits,
        "gpusPerReplica": mem.gpus_per_replica,
        "kvCacheGib": round(mem.kv_cache_gib, 2),
        "kvCacheTokens": mem.kv_cache_tokens,
        "reason": mem.reason,
    }
    if mem.startup_rule:
        # The policy row that reports this refusal (components.capacity.startup), for models policies cannot size.
        summary["startupRule"] = mem.startup_rule
    return json.dumps(summary, sort_keys=True, separators=(",", ":"))


def predictor_deployment_name(name: str) -> str:
    """The Deployment KServe creates for an InferenceService's predictor (constants.PredictorServiceName)."""
    return f"{name}-predictor"


def service_url(name: str, namespace: str) -> str:
    """In-cluster URL of the OpenAI-compatible API: KServe's predictor Service ``<name>-predictor`` on port 80.

    RawDeployment mode creates that Service in front of the predictor Deployment (kserve/kserve v0.20.0,
    constants.PredictorServiceName); clients send ``model: <name>`` (--served-model-name).
    """
    return f"http://{predictor_deployment_name(name)}.{namespace}.svc.cluster.local"


def vllm_args(m: ModelConfig, plan: ServingPlan, port: int = HTTP_PORT) -> list[str]:
    """`vllm serve` arguments: the model, then every engine flag in a stable order."""
    e = m.engine
    release = plan.release
    args = [
        # The model and its loader (S3 mirror, node cache or a Hugging Face download): builders/model_source.py.
        *model_args(m),
        f"--served-model-name={m.name}",
        f"--port={port}",
        f"--tensor-parallel-size={e.tensor_parallel_size}",
        f"--pipeline-parallel-size={e.pipeline_parallel_size}",
        f"--max-model-len={e.max_model_len}",
        f"--gpu-memory-utilization={e.gpu_memory_utilization:g}",
        f"--max-num-seqs={plan.max_num_seqs}",
        f"--max-num-batched-tokens={plan.max_num_batched_tokens}",
        f"--block-size={e.block_size}",
        f"--dtype={e.dtype}",
        f"--kv-cache-dtype={e.kv_cache_dtype}",
    ]
    # The plan leaves the queue unset where the release has no admission control. vLLM counts running requests
    # against the flag too ("Maximum number of requests that can be in-flight (waiting or running) ... Size it as
    # roughly data_parallel_size * max_num_seqs plus the desired queue depth", config/scheduler.py in the 0.33.0
    # wheel; v1/engine/async_llm.py check_admission), so it carries the batch plus the plan's queue.
    if plan.max_num_queued_reqs is not None:
        in_flight = plan.max_num_seqs + plan.max_num_queued_reqs
        args.insert(args.index(f"--block-size={e.block_size}"), f"--max-num-queued-reqs={in_flight}")
    if e.quantization:
        args.append(f"--quantization={e.quantization}")
    if e.enforce_eager:
        args.append("--enforce-eager")
    # Drain: vLLM >= 0.18 aborts in-flight requests on SIGTERM unless --shutdown-timeout > 0 (timeouts.py).
    if plan.timeouts.server_drain:
        args.append(f"--shutdown-timeout={plan.timeouts.shutdown_timeout_seconds}")
    if release.has("--disable-access-log-for-endpoints"):
        args.append(f"--disable-access-log-for-endpoints={QUIET_ENDPOINTS}")
    args.extend(e.extra_args)
    return args


def vllm_env(plan: ServingPlan) -> list[dict[str, Any]]:
    """The timeout chain's environment variables, those the release has."""
    chain = plan.timeouts
    env = [{"name": "VLLM_HTTP_TIMEOUT_KEEP_ALIVE", "value": str(chain.vllm_keep_alive_seconds)}]
    if plan.release.has("VLLM_ENGINE_READY_TIMEOUT_S"):
        env.append({"name": "VLLM_ENGINE_READY_TIMEOUT_S", "value": str(chain.engine_ready_timeout_seconds)})
    return env


def _probe(path: str, period: int, failures: int, timeout: int = 5) -> dict[str, Any]:
    return {
        "httpGet": {"path": path, "port": HTTP_PORT},
        "periodSeconds": period,
        "timeoutSeconds": timeout,
        "failureThreshold": failures,
    }


def api_key_env(api_key_secret: str) -> dict[str, Any]:
    """VLLM_API_KEY from the stack's API key Secret (never a literal, never a flag on the command line)."""
    return {"name": API_KEY_ENV, "valueFrom": {"secretKeyRef": {"name": api_key_secret, "key": API_KEY_KEY}}}


def no_privilege_escalation() -> dict[str, Any]:
    """The serving containers' securityContext (a fresh dict each time): allowPrivilegeEscalation false, so no process
    gains more privileges than its parent through a setuid binary of the image. vLLM and Ray need none; the restricted
    Pod Security Standard requires it (policy G27 serving-privilege-escalation)."""
    return {"allowPrivilegeEscalation": False}


def vllm_container(
    m: ModelConfig, plan: ServingPlan, hf_secret: str | None, api_key_secret: str | None = None, cpu_limit: bool = True
) -> dict[str, Any]:
    """The vLLM serving container: image, flags, secret-sourced token and API key, resources, probes and drain.

    ``cpu_limit``: set a CPU limit equal to the request, for a KServe whose ``inferenceservice-config`` may hold a
    default CPU limit: its defaulter fills every missing limit from that config (kserve/kserve v0.20.0
    pkg/apis/serving/v1beta1/inference_service_defaults.go:59-96, predictor_custom.go:65-73; 1 CPU in the chart),
    and a request above the limit makes the predictor Deployment invalid. Without it the container has no CPU
    limit (no throttling), which is right only where that default is cleared (builders/addons.py kserve_values).
    """
    r = plan.resources
    env: list[dict[str, Any]] = [
        {"name": "HF_HOME", "value": f"{CACHE_PATH}/huggingface"},
        *model_env(m),
        *vllm_env(plan),
    ]
    if hf_secret:
        env.insert(0, {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": hf_secret, "key": HF_TOKEN_KEY}}})
    if api_key_secret:
        env.insert(0, api_key_env(api_key_secret))
    return {
        "name": CONTAINER_NAME,
        "image": m.image,
        "command": ["vllm", "serve"],
        "args": vllm_args(m, plan),
        "env": env,
        "ports": [{"containerPort": HTTP_PORT, "name": "http", "protocol": "TCP"}],
        "resources": {
            "requests": {
                "cpu": str(r.cpu),
                "memory": f"{r.memory_gib}Gi",
                "nvidia.com/gpu": str(r.gpus),
                "ephemeral-storage": f"{r.ephemeral_storage_gib}Gi",
            },
            # No CPU limit where KServe adds none: throttling slows tokenization and TTFT (policy catalogue row 9).
            # Ephemeral storage is requested (Karpenter sizes the node's disk from it) and
            # bounded by the cache emptyDir's sizeLimit rather than a container limit.
            "limits": {
                **({"cpu": str(r.cpu)} if cpu_limit else {}),
                "memory": f"{r.memory_gib}Gi",
                "nvidia.com/gpu": str(r.gpus),
            },
        },
        # vLLM answers no HTTP until the engine is built (vllm-project/vllm v0.33.0 section 3), so the startup
        # probe carries the whole download + load budget and the others start after it.
        "startupProbe": _probe("/health", plan.startup_period_seconds, plan.startup_failure_threshold),
        "readinessProbe": _probe("/health", 5, 3),
        "livenessProbe": _probe("/health", 10, 6),
        "lifecycle": {"preStop": {"sleep": {"seconds": pod_drain(plan).pre_stop_seconds}}},
        "securityContext": no_privilege_escalation(),
        "volumeMounts": [
            {"name": SHM_VOLUME, "mountPath": "/dev/shm"},
            {"name": CACHE_VOLUME, "mountPath": CACHE_PATH},
        ],
    }


def inference_service(
    m: ModelConfig,
    plan: ServingPlan,
    namespace: str,
    pool: str,
    hf_secret: str | None,
    api_key_secret: str | None = None,
    cpu_limit: bool = True,
) -> dict[str, Any]:
    """The KServe InferenceService running ``vllm serve`` for one model.

    ``cpu_limit`` (default on): a CPU limit equal to the request, which KServe's defaulting cannot lower
    (vllm_container); the platform turns it off where its own kserve release clears KServe's default.
    """
    r = plan.resources
    labels = recommended_labels(m.name, component="inference", version=image_tag(m.image))
    wait_containers, wait_volumes = cache_wait(m)
    return {
        "apiVersion": "serving.kserve.io/v1beta1",
        "kind": "InferenceService",
        "metadata": {
            "name": m.name,
            "namespace": namespace,
            "labels": labels,
            "annotations": {
                # Standard: a plain Deployment, no Knative (kserve/kserve v0.20.0). KServe 0.20's defaulter rewrites the
                # deprecated "RawDeployment" to "Standard" (pkg/apis/serving/v1beta1/inference_service_defaults.go
                # DefaultInferenceService), so writing it would drift after every refresh.
                "serving.kserve.io/deploymentMode": DEPLOYMENT_MODE,
                # Our HPA scales on vLLM load; KServe's default HPA would scale on CPU 80%.
                "serving.kserve.io/autoscalerClass": "external",
                "llm-serving.io/model": m.model,
                GPU_ANNOTATION: plan.gpu.name,
                # The capacity plan's verdict, for policies that cannot recompute it (a model
                # given by its config.json is not in the catalogue the policy pack carries).
                CAPACITY_ANNOTATION: capacity_summary(plan),
            },
        },
        "spec": {
            "predictor": {
                "minReplicas": m.replicas.min,
                "maxReplicas": m.replicas.max,
                "labels": dict(labels),
                "terminationGracePeriodSeconds": pod_drain(plan).grace_seconds,
                # No spec.predictor.timeout: in Standard mode KServe reads it only when it builds a Gateway API
                # HTTPRoute (pkg/controller/v1beta1/inferenceservice/reconcilers/ingress/httproute_reconciler.go),
                # which this stack does not use; Envoy's per-try timeout is the innermost request timeout.
                # Pool, GPU type, priority above the GPU buffer's placeholders, spread over zones and nodes, or packed
                # where several replicas fill one node (builders/scheduling.py serving_pod_scheduling).
                **serving_pod_scheduling(
                    pool, karpenter_gpu_name(plan), spread_labels={ISVC_LABEL: m.name}, per_node=replicas_per_node(plan)
                ),
                # The model's own account: an S3 reader's role (EKS Pod Identity), or the one that lists the
                # HF_TOKEN Secret for KServe's storage initializer (builders/credentials.py).
                "serviceAccountName": model_service_account_name(m),
                "volumes": [
                    {"name": SHM_VOLUME, "emptyDir": {"medium": "Memory", "sizeLimit": f"{r.shm_gib}Gi"}},
                    {"name": CACHE_VOLUME, "emptyDir": {"sizeLimit": f"{r.ephemeral_storage_gib}Gi"}},
                    *wait_volumes,
                ],
                # A localCache model waits for its node's copy of the files (builders/model_source.py cache_wait).
                **({"initContainers": wait_containers} if wait_containers else {}),
                "containers": [vllm_container(m, plan, hf_secret, api_key_secret, cpu_limit=cpu_limit)],
            }
        },
    }


def pod_disruption_budget(m: ModelConfig, namespace: str) -> dict[str, Any]:
    """A drain never takes a model's last ready replica; crash-looping pods never block a node drain."""
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {
            "name": f"{m.name}-pdb",
            "namespace": namespace,
            "labels": recommended_labels(m.name, component="inference", version=image_tag(m.image)),
        },
        "spec": {
            # maxUnavailable 1 counts unready pods as unavailable: with two replicas and one not ready,
            # no eviction is allowed, so a drain never takes the last ready replica. With one replica
            # nothing can both protect it and let the node drain (policy catalogue row 19 forbids a PDB
            # that blocks every eviction), which is why prod models run at least two (config/cross_checks.py).
            # AlwaysAllow lets crash-looping pods be evicted regardless.
            "maxUnavailable": 1,
            "selector": {"matchLabels": {ISVC_LABEL: m.name}},
            "unhealthyPodEvictionPolicy": "AlwaysAllow",
        },
    }
