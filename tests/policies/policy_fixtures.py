"""Compliant fixtures for the policy tests, shaped as the Pulumi engine sends them.

Every number the engine would send as a float is a float here (2.0, 10.0); Kubernetes
quantities stay strings. Tests take a fresh copy, apply one mutation, and assert the exact
messages.
"""

from __future__ import annotations

import copy
from pathlib import Path

from policies.framework import Policy, Resource
from policies.registry import POLICIES, evaluate

ISVC_TYPE = "kubernetes:serving.kserve.io/v1beta1:InferenceService"
DEPLOYMENT_TYPE = "kubernetes:apps/v1:Deployment"
HPA_TYPE = "kubernetes:autoscaling/v2:HorizontalPodAutoscaler"
SCALED_OBJECT_TYPE = "kubernetes:keda.sh/v1alpha1:ScaledObject"
RAY_CLUSTER_TYPE = "kubernetes:ray.io/v1:RayCluster"
LWS_TYPE = "kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet"

_LABELS = {
    "app.kubernetes.io/name": "chat-8b",
    "app.kubernetes.io/instance": "chat-8b",
    "app.kubernetes.io/component": "inference",
    "app.kubernetes.io/part-of": "llm-serving",
    "app.kubernetes.io/managed-by": "pulumi",
}

_VLLM_CONTAINER = {
    "name": "kserve-container",
    "image": "vllm/vllm-openai:v0.33.0",
    "command": ["vllm", "serve"],
    "args": [
        "meta-llama/Llama-3.1-8B-Instruct",
        "--revision=0e9e39f249a16976918f6564b8830bc894c89659",
        "--served-model-name=chat-8b",
        "--port=8080",
        "--tensor-parallel-size=1",
        "--pipeline-parallel-size=1",
        "--max-model-len=8192",
        "--gpu-memory-utilization=0.9",
        "--max-num-seqs=64",
        "--max-num-batched-tokens=8192",
        "--dtype=bfloat16",
        "--kv-cache-dtype=auto",
        # vLLM >= 0.18 aborts in-flight requests on SIGTERM unless this is > 0 (S10).
        "--shutdown-timeout=300",
    ],
    "env": [
        {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "chat-8b-hf-token", "key": "token"}}},
        {"name": "VLLM_HTTP_TIMEOUT_KEEP_ALIVE", "value": "75"},
    ],
    "ports": [{"containerPort": 8080.0, "name": "http", "protocol": "TCP"}],
    "resources": {
        "requests": {"cpu": "8", "memory": "48Gi", "nvidia.com/gpu": "1", "ephemeral-storage": "60Gi"},
        "limits": {"memory": "48Gi", "nvidia.com/gpu": "1"},
    },
    "startupProbe": {"httpGet": {"path": "/health", "port": 8080.0}, "periodSeconds": 10.0, "failureThreshold": 90.0},
    "readinessProbe": {"httpGet": {"path": "/health", "port": 8080.0}, "periodSeconds": 5.0, "failureThreshold": 3.0},
    "livenessProbe": {"httpGet": {"path": "/health", "port": 8080.0}, "periodSeconds": 10.0, "failureThreshold": 6.0},
    "lifecycle": {"preStop": {"sleep": {"seconds": 15.0}}},
    "volumeMounts": [{"name": "dshm", "mountPath": "/dev/shm"}],
    # The restricted Pod Security Standard's container field (G27), as the product's own predictor sets it.
    "securityContext": {"allowPrivilegeEscalation": False},
}

_ISVC = {
    "apiVersion": "serving.kserve.io/v1beta1",
    "kind": "InferenceService",
    "metadata": {
        "name": "chat-8b",
        "namespace": "llm",
        "labels": _LABELS,
        "annotations": {
            "serving.kserve.io/deploymentMode": "RawDeployment",
            "serving.kserve.io/autoscalerClass": "external",
        },
    },
    "spec": {
        "predictor": {
            "minReplicas": 2.0,
            "maxReplicas": 8.0,
            "terminationGracePeriodSeconds": 330.0,
            "nodeSelector": {"karpenter.sh/nodepool": "l40s"},
            "priorityClassName": "llm-serving",
            "topologySpreadConstraints": [
                {
                    "maxSkew": 1.0,
                    "topologyKey": "kubernetes.io/hostname",
                    "whenUnsatisfiable": "ScheduleAnyway",
                    "labelSelector": {"matchLabels": {"serving.kserve.io/inferenceservice": "chat-8b"}},
                }
            ],
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
            "volumes": [{"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}}],
            "containers": [_VLLM_CONTAINER],
        },
    },
}

_HPA = {
    "apiVersion": "autoscaling/v2",
    "kind": "HorizontalPodAutoscaler",
    "metadata": {"name": "chat-8b", "namespace": "llm", "labels": _LABELS},
    "spec": {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "chat-8b-predictor"},
        "minReplicas": 2.0,
        "maxReplicas": 8.0,
        "metrics": [
            {
                "type": "Pods",
                "pods": {
                    "metric": {"name": "vllm_num_requests_waiting"},
                    "target": {"type": "AverageValue", "averageValue": "4"},
                },
            }
        ],
    },
}

_SCALED_OBJECT = {
    "apiVersion": "keda.sh/v1alpha1",
    "kind": "ScaledObject",
    "metadata": {"name": "chat-8b", "namespace": "llm"},
    "spec": {
        "scaleTargetRef": {"name": "chat-8b-predictor"},
        "minReplicaCount": 2.0,
        "maxReplicaCount": 8.0,
        "triggers": [
            {
                "type": "prometheus",
                "metadata": {
                    "serverAddress": "http://prometheus.monitoring:9090",
                    "query": 'sum(vllm:num_requests_waiting{model_name="chat-8b"})',
                    "threshold": "4",
                },
            }
        ],
    },
}


def isvc_props() -> dict:
    """A fresh copy of the compliant InferenceService our components render."""
    return copy.deepcopy(_ISVC)


def vllm_container(props: dict) -> dict:
    """The vLLM container inside an InferenceService's props (to mutate in place)."""
    return props["spec"]["predictor"]["containers"][0]


def set_arg(container: dict, flag: str, value: str | None) -> None:
    """Replace (value) or drop (None) a `--flag=value` argument of a container."""
    args = [a for a in container["args"] if not a.startswith(f"--{flag}=")]
    if value is not None:
        args.append(f"--{flag}={value}")
    container["args"] = args


def deployment_props() -> dict:
    """A compliant GPU Deployment running the same vLLM container."""
    isvc = isvc_props()
    predictor = isvc["spec"]["predictor"]
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "chat-8b-raw", "namespace": "llm", "labels": _LABELS},
        "spec": {
            "replicas": 2.0,
            "selector": {"matchLabels": {"app.kubernetes.io/instance": "chat-8b"}},
            "template": {
                "metadata": {"labels": _LABELS},
                "spec": {
                    k: predictor[k]
                    for k in ("containers", "volumes", "nodeSelector", "tolerations", "terminationGracePeriodSeconds")
                },
            },
        },
    }


_PDB = {
    "apiVersion": "policy/v1",
    "kind": "PodDisruptionBudget",
    "metadata": {"name": "chat-8b", "namespace": "llm", "labels": _LABELS},
    "spec": {
        "maxUnavailable": 1.0,
        "selector": {"matchLabels": {"serving.kserve.io/inferenceservice": "chat-8b"}},
        "unhealthyPodEvictionPolicy": "AlwaysAllow",
    },
}
PDB_TYPE = "kubernetes:policy/v1:PodDisruptionBudget"
SERVICE_TYPE = "kubernetes:core/v1:Service"


def pdb_props() -> dict:
    """The compliant PodDisruptionBudget of the InferenceService (what the components render)."""
    return copy.deepcopy(_PDB)


def hpa_props() -> dict:
    """A compliant autoscaling/v2 HPA on a vLLM queue-depth Pods metric."""
    return copy.deepcopy(_HPA)


def scaled_object_props() -> dict:
    """A compliant KEDA ScaledObject on a Prometheus vLLM query."""
    return copy.deepcopy(_SCALED_OBJECT)


RAY_SERVICE_TYPE = "kubernetes:ray.io/v1:RayService"


def ray_serve_llm(llm_config: str) -> Resource:
    """A Ray Serve LLM RayService as KubeRay's samples write it (ray-service.llm-serve.yaml), with
    ``llm_config`` (a YAML line such as ``engine_kwargs: {...}``) in its one ``llm_configs`` entry."""
    serve = (
        "applications:\n- name: llms\n  import_path: ray.serve.llm:build_openai_app\n  args:\n    llm_configs:\n"
        "    - model_loading_config: {model_id: qwen, model_source: Qwen/Qwen2.5-7B-Instruct}\n"
        f"      {llm_config}\n"
    )
    head = {"spec": {"containers": [{"name": "ray-head", "image": "rayproject/ray-llm:2.52.0-py311-cu128"}]}}
    props = {
        "apiVersion": "ray.io/v1",
        "kind": "RayService",
        "metadata": {"name": "llm"},
        "spec": {"serveConfigV2": serve, "rayClusterConfig": {"headGroupSpec": {"template": head}}},
    }
    return resource(RAY_SERVICE_TYPE, props)


def resource(type_: str, props: dict, name: str | None = None) -> Resource:
    """A Resource named after its metadata.name unless `name` is given."""
    return Resource(
        type=type_,
        name=name or props["metadata"]["name"],
        props=props,
        urn=f"urn:pulumi:test::llm-serving::{type_}::{name or props['metadata']['name']}",
    )


def isvc(props: dict | None = None) -> Resource:
    """The InferenceService as a Resource (the compliant one by default)."""
    return resource(ISVC_TYPE, props if props is not None else isvc_props())


def messages(policy: Policy, *resources: Resource, config: dict | None = None) -> list[str]:
    """The messages one policy reports over the resources, in evaluate's order."""
    pack_config = {policy.name: config} if config is not None else None
    return [v.message for v in evaluate(list(resources), pack_config, policies=[policy])]


def manifest(obj: dict) -> Resource:
    """A plain manifest as `policies check` reads it: type kubernetes:<apiVersion>:<kind> (core/<v> for the core group)."""
    group_version = obj["apiVersion"]
    token = f"core/{group_version}" if "/" not in group_version else group_version
    return Resource(type=f"kubernetes:{token}:{obj['kind']}", name=f"{obj['kind']}/{obj['metadata']['name']}", props=obj)


def found_by(objs: list[dict], policy: str, config: dict | None = None) -> list[tuple[str, str]]:
    """(enforcement, message) of one policy's findings when the whole pack checks these manifests. A name no policy has
    is an error, not an empty list: a misspelt name would make every "stays silent" assertion pass (review 43 #16)."""
    if policy not in {p.name for p in POLICIES}:
        raise KeyError(f"no policy is named {policy!r}")
    return [(v.enforcement, v.message) for v in evaluate([manifest(o) for o in objs], config) if v.policy == policy]


# An HTTPRoute on Gateway external-http (in another file) to the Ray LLM head Service rayllm-head-svc:8000, no timeouts:
# GoogleCloudPlatform/kubernetes-engine-samples ai-ml/gke-ray/rayserve/ingress/httproute.yaml at
# 2b5036514162a489145c5e5570bc320efbcb37bf, and GoogleCloudPlatform/ai-on-gke applications/ray/rayservice-examples/
# ingress/httproute.yaml at 13552122339d612475d88050459f68ea81bee237 (held-out set 4).
RAY_ROUTE = {
    "apiVersion": "gateway.networking.k8s.io/v1beta1",
    "kind": "HTTPRoute",
    "metadata": {"name": "serve-api-endpoint"},
    "spec": {
        "parentRefs": [{"kind": "Gateway", "name": "external-http"}],
        "rules": [{"backendRefs": [{"name": "rayllm-head-svc", "port": 8000}]}],
    },
}


# The advisory hygiene and risk rows raised to mandatory, as a platform may raise them with --config (docs/policies.md
# "Enforcement levels"). Tests that tell a proven finding (it blocks) from an unproven one (advice) on these rows run
# with it, so the distinction stays tested whatever the default level.
RAISED = {
    name: {"enforcementLevel": "mandatory"}
    for name in (
        "image-tag-pinned",
        "serving-readiness-probe",
        "serving-resource-requests",
        "serving-memory-limit",
        "host-path-read-only",
        "no-host-namespaces",
        "no-privileged",
        "capabilities-allow-list",
        "no-bare-pods",
        "pdb-allows-disruption",
        "pdb-below-replicas",
        "kuberay-serving-priority",
        "karpenter-multi-node-pool-never-expires",
        "gpu-pod-ephemeral-storage",
        "model-source-pinned",
        "kuberay-gpu-hygiene",
        "no-load-balancer-service",
        *("karpenter-gpu-nodepool-tainted", "karpenter-gpu-nodepool-disruption-budget", "karpenter-gpu-nodepool-limits"),
        *("karpenter-gpu-expiry", "serving-code-pinned"),
    )
}
# The S rows that advise by default since session 43 (risk rows: docs/policies.md "Enforcement levels"), raised one at a
# time by tests that tell their proven findings from their unproven ones.
RISK_ROWS = {
    name: RAISED[name]
    for name in (
        "karpenter-gpu-nodepool-tainted",
        "karpenter-gpu-nodepool-disruption-budget",
        "karpenter-gpu-nodepool-limits",
        "karpenter-gpu-expiry",
        "serving-code-pinned",
    )
}


def network_policy(
    name: str, namespace: str, selector: dict, types: list, ingress: list | None = None, egress: list | None = None
) -> dict:
    """A networking.k8s.io/v1 NetworkPolicy manifest; ``ingress``/``egress`` rule lists only where given."""
    spec: dict = {"podSelector": selector, "policyTypes": types}
    if ingress is not None:
        spec["ingress"] = ingress
    if egress is not None:
        spec["egress"] = egress
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


def workload(
    name: str,
    containers: list,
    *,
    kind: str = "Deployment",
    namespace: str | None = None,
    volumes: list | None = None,
    init_containers: list | None = None,
    service_name: str | None = None,
) -> dict:
    """An apps/v1 workload manifest (Deployment, StatefulSet, DaemonSet) whose pods carry ``app: NAME`` and its
    selector matches them; metadata.namespace, spec.serviceName (a StatefulSet's), initContainers and volumes only
    where given. The shared builder of the manifest-form tests (ollama, egress, download scripts)."""
    pod: dict = {"containers": containers}
    if init_containers:
        pod["initContainers"] = init_containers
    if volumes:
        pod["volumes"] = volumes
    spec: dict = {"serviceName": service_name} if service_name is not None else {}
    spec["selector"] = {"matchLabels": {"app": name}}
    spec["template"] = {"metadata": {"labels": {"app": name}}, "spec": pod}
    metadata = {"name": name} if namespace is None else {"name": name, "namespace": namespace}
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": metadata, "spec": spec}


def service(name: str, app: str, ports: list, namespace: str | None = None) -> dict:
    """A v1 Service manifest selecting ``app: APP`` pods on ``ports``."""
    metadata = {"name": name} if namespace is None else {"name": name, "namespace": namespace}
    return {"apiVersion": "v1", "kind": "Service", "metadata": metadata, "spec": {"selector": {"app": app}, "ports": ports}}


def config_map(name: str, data: dict, namespace: str | None = None) -> dict:
    """A v1 ConfigMap manifest holding ``data``."""
    metadata = {"name": name} if namespace is None else {"name": name, "namespace": namespace}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": data}


CHART_YAML = "apiVersion: v2\nname: {name}\nversion: 0.1.0\n"


def chart_folder(
    root: Path,
    templates: dict[str, str],
    values: str | None = None,
    chart: str | None = CHART_YAML,
    files: dict[str, str] | None = None,
) -> Path:
    """A chart folder at ``root`` (made with its parents) for the tests of the chart readers: ``templates`` (name ->
    text, under templates/), its ``values.yaml`` when ``values`` is given, its ``Chart.yaml`` (``{name}`` the folder's
    name; None for a chart copied without one) and ``files`` beside them (name -> text: values-<name>.yaml, Chart.yml)."""
    (root / "templates").mkdir(parents=True, exist_ok=True)
    if chart is not None:
        (root / "Chart.yaml").write_text(chart.replace("{name}", root.name))
    if values is not None:
        (root / "values.yaml").write_text(values)
    write_tree(root, {**(files or {}), **{f"templates/{k}": v for k, v in templates.items()}})
    return root


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """``files`` (a path under ``root`` -> its text) written with their folders: a checkout of several charts."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root
