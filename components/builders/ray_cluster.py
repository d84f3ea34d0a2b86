"""Manifests of a multi-node vLLM engine on KubeRay: a RayCluster, its API Service, the EFA rules.

Pure functions from a model's config and its capacity plan (``plan.layout``) to Kubernetes objects
and AWS resource arguments as dicts. Field names follow the KubeRay v1 CRD
(ray-project/kuberay v1.7.0, ray-operator/config/crd/bases/ray.io_rayclusters.yaml); what the operator adds to the pods is
read from its source at that tag (ray-operator/controllers/ray/common/pod.go):

- The head runs ``vllm serve ... --distributed-executor-backend ray`` itself, so the RayCluster
  (not a RayService, which runs Ray Serve applications) is the object. The head's pod template
  carries ``ray.io/overwrite-container-cmd: "true"``: KubeRay then keeps our command and only
  hands us its generated ``ray start`` line in ``$KUBERAY_GEN_RAY_START_CMD`` (which always ends
  in ``--block``; we start Ray without it, wait for the workers' GPUs, then exec vLLM).
- Workers keep KubeRay's generated ``ray start --address=... --block`` command.
- The head requests no GPU but runs on the model's GPU pool (its toleration and node selection):
  vLLM picks its platform by counting GPUs through NVML (vllm 0.33.0 platforms/__init__.py
  ``cuda_platform_plugin``), and the vLLM image exposes the node's GPUs to a container that asks
  for none (NVIDIA_VISIBLE_DEVICES=all), so on a CPU node ``vllm serve`` would not start as a CUDA
  engine. ``num-gpus: "0"`` keeps Ray from placing any rank on those GPUs, which belong to a worker.
- KubeRay mounts a memory emptyDir at /dev/shm sized to the whole memory limit when the Ray
  container mounts none; we mount our own, sized by the capacity plan inside the limit, and cap
  Ray's object store (which lives there) at half of it so NCCL keeps the rest.
- KubeRay injects readiness/liveness probes that run ``wget`` unless the container has its own;
  we set our own (vLLM's /health on the head, the raylet process through python3 on the workers:
  ``_raylet_probe``), so nothing depends on wget, or on ray[default], being in the vLLM image.
"""

from __future__ import annotations

import shlex
from typing import Any, Mapping, Optional

from ..builders.labels import recommended_labels
from ..builders.scheduling import karpenter_gpu_name, pod_drain, serving_pod_scheduling
from ..builders.vllm_service import (
    CACHE_PATH,
    CACHE_VOLUME,
    GPU_ANNOTATION,
    HF_TOKEN_KEY,
    SHM_VOLUME,
    api_key_env,
    capacity_summary,
    no_privilege_escalation,
    vllm_args,
    vllm_env,
)
from ..capacity.plan import ServingPlan
from ..config import ModelConfig
from ..config.placement import distributed
from ..image_facts import ray_default
from ..images import image_tag

RAY_API_VERSION = "ray.io/v1"
# vLLM's own default port (entrypoints/common/cli_args.py, vllm-project/vllm v0.33.0 section 4). KServe's 8080 is taken
# on a Ray pod: KubeRay exports Ray's metrics there (utils.DefaultMetricsPort = 8080).
API_PORT = 8000
GCS_PORT = 6379
DASHBOARD_PORT = 8265
CLIENT_PORT = 10001
RAY_METRICS_PORT = 8080
DASHBOARD_AGENT_PORT = 52365  # KubeRay's DefaultDashboardAgentListenPort, which serves the raylet health
HEAD_CONTAINER = "ray-head"
WORKER_CONTAINER = "ray-worker"
WORKER_GROUP = "gpu-workers"
OVERWRITE_CMD_ANNOTATION = "ray.io/overwrite-container-cmd"
# Labels KubeRay puts on every pod of a cluster (utils/constant.go).
RAY_CLUSTER_LABEL = "ray.io/cluster"
RAY_NODE_TYPE_LABEL = "ray.io/node-type"
MODEL_LABEL = "llm-serving.io/model"
EFA_RESOURCE = "vpc.amazonaws.com/efa"
GPU_RESOURCE = "nvidia.com/gpu"
# The policy whose exemption annotation carries the reason for hostNetwork (catalogue rows 24-25:
# policies/k8s_generic/no_host_namespaces.py refuses hostNetwork unless exempted with a reason).
HOST_NETWORK_POLICY = "no-host-namespaces"
EXEMPTION_PREFIX = "llm-serving.io/exempt-"
# policies/gpu/efa_device_plugin.py DECLARED; the release builders/addons.py installs.
EFA_PLUGIN_ANNOTATION = "llm-serving.io/efa-device-plugin"
EFA_PLUGIN_SOURCE = "Helm release kube-system/aws-efa-k8s-device-plugin (eks-charts aws-efa-k8s-device-plugin v0.5.30)"
# KubeRay v1.7.0 RayCluster upgrade strategy (raycluster_types.go:86-99): delete every pod on a spec change.
UPGRADE_STRATEGY = "Recreate"
# Seconds between two checks of the Ray cluster's GPUs while the head waits for its workers.
JOIN_POLL_SECONDS = 10
# Karpenter never voluntarily disrupts a node running a pod with this annotation (consolidation, drift);
# losing any one pod of the engine stops the whole model for a multi-node cold start.
DO_NOT_DISRUPT = {"karpenter.sh/do-not-disrupt": "true"}


def service_name(m: ModelConfig) -> str:
    """The Service in front of the head's OpenAI API (the name clients and the ingress use)."""
    return m.name


def service_url(m: ModelConfig, namespace: str) -> str:
    """In-cluster URL of the head's OpenAI-compatible API (clients send ``model: <name>``)."""
    return f"http://{service_name(m)}.{namespace}.svc.cluster.local:{API_PORT}"


def head_selector(m: ModelConfig) -> dict[str, str]:
    """Labels that select this model's Ray head pod (set by KubeRay from the RayCluster's name)."""
    return {RAY_CLUSTER_LABEL: m.name, RAY_NODE_TYPE_LABEL: "head"}


def zone_labels(m: ModelConfig) -> dict[str, str]:
    """Labels of every pod of the model's RayCluster, which the pods' zone affinity selects (head and workers).

    A RayCluster here is the model's one replica (capacity/layout.py: a multi-node model runs exactly one),
    so there are no replicas to spread, and within it nothing to spread over nodes either: each worker
    requests all of its node's GPUs, so no two share a node. What matters is the zone. Every pipeline
    stage hands its activations to the next over NCCL at every step, on EFA where the workers request it,
    and EFA traffic stays inside one Availability Zone; over TCP a zone boundary adds latency to every
    token and inter-zone transfer charges. So every pod of the cluster must land in one zone: a required
    podAffinity on topology.kubernetes.io/zone over ``ray.io/cluster`` (builders/scheduling.py). KubeRay
    v1.7.0 puts that label on every pod and lets no template override it (ray-operator/controllers/ray/
    common/pod.go labelPod, lines 1167-1191, called for the head at 236 and the workers at 671), and copies
    the template's spec, affinity included, to the pod untouched (pod.go 218 and 596; BuildPod 846-853).
    The pods select themselves, so whichever is placed first picks the zone and the rest follow: Karpenter
    v1.14.1 bootstraps a self-selecting affinity in an empty domain (kubernetes-sigs/karpenter
    pkg/controllers/provisioning/scheduling/topologygroup.go nextDomainAffinity, lines 365-367). Required,
    not preferred: an engine split over zones does not serve, so a Pending worker is the honest state.
    """
    return {RAY_CLUSTER_LABEL: m.name}


def ray_vllm_args(m: ModelConfig, plan: ServingPlan) -> list[str]:
    """`vllm serve` arguments of the head: the single-node flags (each checked against the image's
    release by vllm_args) plus the Ray executor, checked here the same way."""
    flag = "--distributed-executor-backend"
    if not plan.release.has(flag):  # pragma: no cover - every release the table was read from has it
        raise ValueError(f"vLLM {plan.release.version} has no {flag}")
    return [*vllm_args(m, plan, port=API_PORT), f"{flag}=ray"]


def head_script(m: ModelConfig, plan: ServingPlan) -> str:
    """The head container's shell script: start Ray, wait until every worker GPU joined, exec vLLM.

    vLLM would also wait for its placement group (vllm/v1/executor/ray_utils.py, up to 1800 s),
    but waiting here first keeps the engine from starting before the cluster is whole, and the
    log says what it waits for. The startup probe bounds the whole wait.
    """
    layout = plan.layout
    assert layout is not None, "a Ray head needs the capacity plan's layout"
    gpus = layout.gpus
    check = (
        f'import ray, sys; ray.init(address="auto", logging_level="ERROR"); '
        f'sys.exit(0 if ray.cluster_resources().get("GPU", 0) >= {gpus} else 1)'
    )
    command = " ".join(shlex.quote(a) for a in ["vllm", "serve", *ray_vllm_args(m, plan)])
    return (
        "\n".join(
            [
                "set -eu",
                # As KubeRay's own command line does; not fatal where the runtime forbids raising it.
                'ulimit -n "${RAY_START_ULIMIT_OPEN_FILES:-65536}" || echo "open-file limit left at $(ulimit -n)"',
                # KubeRay's generated line ends in --block (pod.go generateRayStartParams); drop it to go on.
                'eval "${KUBERAY_GEN_RAY_START_CMD/--block/}"',
                f"until python3 -c {shlex.quote(check)}; do",
                f'  echo "waiting for {layout.nodes} workers ({gpus} GPUs) to join the Ray cluster"; sleep {JOIN_POLL_SECONDS}',
                "done",
                f"exec {command}",
            ]
        )
        + "\n"
    )


def efa_interfaces(m: ModelConfig, plan: ServingPlan) -> int:
    """EFA interfaces each worker requests: all of its node's, unless distributed.efa is false (0 without EFA)."""
    return plan.layout.efa_interfaces_per_node if distributed(m).efa and plan.layout is not None else 0


def _env(m: ModelConfig, hf_secret: Optional[str]) -> list[dict[str, Any]]:
    d = distributed(m)
    env: list[dict[str, Any]] = [
        {"name": "HF_HOME", "value": f"{CACHE_PATH}/huggingface"},
        # NCCL's and Gloo's bootstrap sockets bind to this interface (the vLLM multi-node docs set
        # both; the pod network's interface under the Amazon VPC CNI is eth0).
        {"name": "NCCL_SOCKET_IFNAME", "value": d.nccl_socket_ifname},
        {"name": "GLOO_SOCKET_IFNAME", "value": d.nccl_socket_ifname},
    ]
    if hf_secret:
        env.insert(0, {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": hf_secret, "key": HF_TOKEN_KEY}}})
    return env


def _volumes(shm_gib: int, cache_gib: int) -> list[dict[str, Any]]:
    return [
        {"name": SHM_VOLUME, "emptyDir": {"medium": "Memory", "sizeLimit": f"{shm_gib}Gi"}},
        {"name": CACHE_VOLUME, "emptyDir": {"sizeLimit": f"{cache_gib}Gi"}},
    ]


_MOUNTS = [{"name": SHM_VOLUME, "mountPath": "/dev/shm"}, {"name": CACHE_VOLUME, "mountPath": CACHE_PATH}]


def _http_probe(path: str, period: int, failures: int) -> dict[str, Any]:
    return {
        "httpGet": {"path": path, "port": API_PORT},
        "periodSeconds": period,
        "timeoutSeconds": 5,
        "failureThreshold": failures,
    }


def _raylet_probe(period: int, failures: int, release: Optional[str] = None) -> dict[str, Any]:
    """The worker's health check: is its raylet alive.

    KubeRay's own check reads the dashboard agent's /api/local_raylet_healthz (utils.BaseWgetHealthCommand, ray-project/
    kuberay v1.7.0 pod.go:732-830), which exists only where the image ships ray[default]. That is not established for
    the pinned images (components/image_facts.py: the vLLM wheel declares no ray at all), so unless it is, the probe
    looks for the raylet process itself through /proc with the image's python3: a worker whose raylet died is restarted,
    and nothing depends on the dashboard being installed.
    """
    if ray_default(release):
        url = f"http://localhost:{DASHBOARD_AGENT_PORT}/api/local_raylet_healthz"
        code = (
            f"import sys, urllib.request; sys.exit(0 if b'success' in urllib.request.urlopen('{url}', timeout=2).read() else 1)"
        )
    else:
        code = (
            "import os, sys; sys.exit(0 if any(open(f'/proc/{p}/comm').read().strip() == 'raylet' "
            "for p in os.listdir('/proc') if p.isdigit() and os.path.exists(f'/proc/{p}/comm')) else 1)"
        )
    return {
        "exec": {"command": ["python3", "-c", code]},
        "periodSeconds": period,
        "timeoutSeconds": 5,
        "failureThreshold": failures,
    }


def _object_store_bytes(shm_gib: int) -> str:
    return str(shm_gib * 1024**3 // 2)


def _pod_spec(
    m: ModelConfig, plan: ServingPlan, pool: str, container: dict[str, Any], shm_gib: int, cache_gib: int
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "terminationGracePeriodSeconds": pod_drain(plan).grace_seconds,
        # Pool, GPU type and the serving priority, as every serving pod (builders/scheduling.py), and packed, not
        # spread: see zone_labels.
        **serving_pod_scheduling(pool, karpenter_gpu_name(plan), zone_labels=zone_labels(m)),
        "volumes": _volumes(shm_gib, cache_gib),
        "containers": [container],
    }
    if distributed(m).host_network_reason:
        spec["hostNetwork"] = True
        # Cluster DNS (the head's Service name) must still resolve from the node's network.
        spec["dnsPolicy"] = "ClusterFirstWithHostNet"
    return spec


def _template_metadata(m: ModelConfig, role: str, annotations: Optional[Mapping[str, str]] = None) -> dict[str, Any]:
    labels = recommended_labels(m.name, component=role, version=image_tag(m.image))
    labels[MODEL_LABEL] = m.name
    return {"labels": labels, "annotations": {**DO_NOT_DISRUPT, **(annotations or {})}}


# The head asks for no GPU but runs on a GPU node, where the vLLM image's NVIDIA_VISIBLE_DEVICES=all would
# show it the GPUs a worker holds. NVIDIA_VISIBLE_DEVICES=void would hide the NVML library too, and vLLM
# 0.33.0 then finds no platform (platforms/__init__.py cuda_platform_plugin: an NVML error leaves is_cuda
# False, so resolve_current_platform_cls_qualname falls back to UnspecifiedPlatform) and `vllm serve` cannot
# start. An empty CUDA_VISIBLE_DEVICES hides every device from CUDA, so no context lands on a worker's GPU,
# while NVML still names the platform; vLLM treats the empty value as unset when it maps devices for NVML
# (platforms/interface.py device_id_to_physical_device_id) and never copies it to its Ray workers
# (v1/executor/ray_utils.py WORKER_SPECIFIC_ENV_VARS).
HEAD_NO_GPU_ENV = {"name": "CUDA_VISIBLE_DEVICES", "value": ""}


def head_group(
    m: ModelConfig, plan: ServingPlan, pool: str, hf_secret: Optional[str], api_key_secret: Optional[str] = None
) -> dict[str, Any]:
    """The head group: no GPU (num-gpus "0"), runs the vLLM API server and engine core."""
    head = plan.head_resources
    assert head is not None and plan.layout is not None
    # The chain's keep-alive and engine-ready timeout: vLLM gives up on its engine after 600 s by
    # default (envs.py, v1/engine/core_client.py "Timed out waiting for engine core processes to
    # start"); the chain raises it to the startup budget, which the plan sized for a multi-node load.
    env = [*_env(m, hf_secret), *vllm_env(plan), HEAD_NO_GPU_ENV]
    if api_key_secret:
        # The head runs the API server; the workers answer no HTTP.
        env.insert(0, api_key_env(api_key_secret))
    container = {
        "name": HEAD_CONTAINER,
        "image": m.image,
        "command": ["/bin/bash", "-c"],
        "args": [head_script(m, plan)],
        "env": env,
        "ports": [
            {"containerPort": GCS_PORT, "name": "gcs-server", "protocol": "TCP"},
            {"containerPort": DASHBOARD_PORT, "name": "dashboard", "protocol": "TCP"},
            {"containerPort": CLIENT_PORT, "name": "client", "protocol": "TCP"},
            {"containerPort": RAY_METRICS_PORT, "name": "metrics", "protocol": "TCP"},
            {"containerPort": API_PORT, "name": "http", "protocol": "TCP"},
        ],
        "resources": {
            "requests": {
                "cpu": str(head.cpu),
                "memory": f"{head.memory_gib}Gi",
                "ephemeral-storage": f"{head.ephemeral_storage_gib}Gi",
            },
            "limits": {"memory": f"{head.memory_gib}Gi"},
        },
        # vLLM answers no HTTP until the engine is built on every worker (vllm-project/vllm v0.33.0 section 3): the
        # startup probe carries the multi-node cold start, readiness gates the Service.
        "startupProbe": _http_probe("/health", plan.startup_period_seconds, plan.startup_failure_threshold),
        "readinessProbe": _http_probe("/health", 5, 3),
        "livenessProbe": _http_probe("/health", 10, 6),
        "lifecycle": {"preStop": {"sleep": {"seconds": pod_drain(plan).pre_stop_seconds}}},
        "securityContext": no_privilege_escalation(),
        "volumeMounts": [dict(v) for v in _MOUNTS],
    }
    return {
        "serviceType": "ClusterIP",
        "rayStartParams": {
            # Ray schedules no GPU work on the head; every engine rank lands on a worker.
            "num-gpus": "0",
            "dashboard-host": "0.0.0.0",
            "object-store-memory": _object_store_bytes(head.shm_gib),
        },
        "template": {
            "metadata": _template_metadata(m, "ray-head", {OVERWRITE_CMD_ANNOTATION: "true"}),
            "spec": _pod_spec(m, plan, pool, container, head.shm_gib, head.ephemeral_storage_gib),
        },
    }


def worker_group(m: ModelConfig, plan: ServingPlan, pool: str, hf_secret: Optional[str]) -> dict[str, Any]:
    """The GPU workers: one pod per node, all of the node's GPUs (and EFA interfaces) each."""
    layout = plan.layout
    assert layout is not None
    r = plan.resources
    limits: dict[str, str] = {"memory": f"{r.memory_gib}Gi", GPU_RESOURCE: str(layout.gpus_per_node)}
    requests: dict[str, str] = {
        "cpu": str(r.cpu),
        "memory": f"{r.memory_gib}Gi",
        GPU_RESOURCE: str(layout.gpus_per_node),
        "ephemeral-storage": f"{r.ephemeral_storage_gib}Gi",
    }
    efa = efa_interfaces(m, plan)
    if efa:
        # Extended resources: request = limit (served by the aws-efa-k8s-device-plugin DaemonSet).
        limits[EFA_RESOURCE] = requests[EFA_RESOURCE] = str(efa)
    container = {
        "name": WORKER_CONTAINER,
        "image": m.image,
        "env": _env(m, hf_secret),
        "resources": {"requests": requests, "limits": limits},
        "readinessProbe": _raylet_probe(5, 10, plan.release.version),
        "livenessProbe": _raylet_probe(10, 30, plan.release.version),
        # The workers hold the engine's stages: they outlive the head's drain (builders/scheduling.py Drain).
        "lifecycle": {"preStop": {"sleep": {"seconds": pod_drain(plan).rank_pre_stop_seconds}}},
        "securityContext": no_privilege_escalation(),
        "volumeMounts": [dict(v) for v in _MOUNTS],
    }
    return {
        "groupName": WORKER_GROUP,
        # Bounded and fixed: the engine needs exactly this many nodes, no more, no fewer.
        "replicas": layout.nodes,
        "minReplicas": layout.nodes,
        "maxReplicas": layout.nodes,
        "numOfHosts": 1,
        "rayStartParams": {
            "num-gpus": str(layout.gpus_per_node),
            "object-store-memory": _object_store_bytes(r.shm_gib),
        },
        "template": {
            "metadata": _template_metadata(m, "ray-worker"),
            "spec": _pod_spec(m, plan, pool, container, r.shm_gib, r.ephemeral_storage_gib),
        },
    }


def ray_cluster(
    m: ModelConfig,
    plan: ServingPlan,
    namespace: str,
    hf_secret: Optional[str],
    pool: Optional[str] = None,
    api_key_secret: Optional[str] = None,
) -> dict[str, Any]:
    """The RayCluster running one multi-node vLLM engine for ``m`` on Karpenter NodePool ``pool`` (default m.pool)."""
    pool = pool or m.pool
    d = distributed(m)
    annotations = {
        "llm-serving.io/model": m.model,
        GPU_ANNOTATION: plan.gpu.name,
        "llm-serving.io/capacity-plan": capacity_summary(plan),
    }
    if d.host_network_reason:
        annotations[EXEMPTION_PREFIX + HOST_NETWORK_POLICY] = d.host_network_reason
    if efa_interfaces(m, plan):
        # Where the EFA device plugin comes from: a Helm release, which a check of plain manifests cannot see
        # (policies/gpu/efa_device_plugin.py reads this only when the set holds no Helm release).
        annotations[EFA_PLUGIN_ANNOTATION] = EFA_PLUGIN_SOURCE
    return {
        "apiVersion": RAY_API_VERSION,
        "kind": "RayCluster",
        "metadata": {
            "name": m.name,
            "namespace": namespace,
            "labels": recommended_labels(m.name, component="inference", version=image_tag(m.image)),
            "annotations": annotations,
        },
        "spec": {
            # Edits apply: KubeRay v1.7.0 recreates pods on a spec change only under Recreate (ray-operator/apis/ray/v1/
            # raycluster_types.go:86-99 allows Recreate and None for a RayCluster; NewCluster and
            # NewClusterWithIncrementalUpgrade are RayService's). Without it a new image or new flags never reach the
            # running pods. What an edit costs: see edit_cost.
            "upgradeStrategy": {"type": UPGRADE_STRATEGY},
            # Fixed size: Ray's autoscaler has nothing to add (autoscaling multi-node replicas is out of scope).
            "enableInTreeAutoscaling": False,
            "headGroupSpec": head_group(m, plan, pool, hf_secret, api_key_secret),
            "workerGroupSpecs": [worker_group(m, plan, pool, hf_secret)],
        },
    }


def api_service(m: ModelConfig, namespace: str) -> dict[str, Any]:
    """A ClusterIP Service for the head's OpenAI API (and its /metrics), ready pods only."""
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": service_name(m),
            "namespace": namespace,
            "labels": {**recommended_labels(m.name, component="inference", version=image_tag(m.image)), MODEL_LABEL: m.name},
        },
        "spec": {
            "type": "ClusterIP",
            "selector": head_selector(m),
            "ports": [{"name": "http", "port": API_PORT, "targetPort": "http", "protocol": "TCP"}],
        },
    }


# The exemption the Ray PDB carries from pdb-allows-disruption (G19), which refuses a PDB that allows no eviction.
PDB_EXEMPTION = EXEMPTION_PREFIX + "pdb-allows-disruption"
PDB_REASON = (
    "one multi-node engine: evicting any of its pods stops the model, so no eviction is allowed while it runs; its "
    "nodes roll by the planned procedure of docs/platform.md (the pool holds drift and sets no terminationGracePeriod)"
)


def pod_disruption_budget(m: ModelConfig, namespace: str) -> dict[str, Any]:
    """A PDB over every pod of the RayCluster that allows no eviction of a running engine.

    KubeRay v1.7.0 creates no PDB for a RayCluster. One evicted pod stops the whole engine (vLLM's Ray executor
    loses a stage), so ``maxUnavailable: 1`` would allow exactly the eviction that takes the model down. Zero
    blocks node drains, consolidation and drift of the engine's nodes (the pool also holds drift:
    builders/karpenter.py holds_drift); deleting pods is not an eviction, so KubeRay's Recreate upgrade
    (raycluster_controller.go:969-981 deleteAllPods) and the planned roll still work. Crash-looping pods never
    block a drain (unhealthyPodEvictionPolicy AlwaysAllow).
    """
    return {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {
            "name": f"{m.name}-ray-pdb",
            "namespace": namespace,
            "labels": recommended_labels(m.name, component="inference", version=image_tag(m.image)),
            "annotations": {PDB_EXEMPTION: PDB_REASON},
        },
        "spec": {
            "maxUnavailable": 0,
            "selector": {"matchLabels": {RAY_CLUSTER_LABEL: m.name}},
            "unhealthyPodEvictionPolicy": "AlwaysAllow",
        },
    }


def edit_cost(m: ModelConfig, plan: ServingPlan) -> dict[str, Any]:
    """What an edit of the RayCluster does under its upgrade strategy, for the report.

    Under Recreate, KubeRay v1.7.0 hashes the spec without the workers' replicas, min/max replicas,
    workersToDelete, the templates' tolerations and scheduling gates and the strategy itself (ray-operator/
    controllers/ray/utils/util.go:645-668 GenerateHashWithoutReplicasAndWorkersToDelete), compares it with the
    head pod's annotation, and on a difference deletes every pod of the cluster (raycluster_controller.go:
    1463-1500, 969-981); a new KubeRay version alone only re-stamps the hash (1484-1492). The model is then down
    for its drain and a whole multi-node cold start: the startup budget the plan sized.
    """
    layout = plan.layout
    assert layout is not None, "an edit cost needs the capacity plan's layout"
    budget = plan.startup_failure_threshold * plan.startup_period_seconds
    pods = layout.nodes + 1
    return {
        "setting": "RayCluster edit",
        "value": f"upgradeStrategy {UPGRADE_STRATEGY}: all {pods} pods deleted and recreated, model down up to "
        f"{pod_drain(plan).grace_seconds + budget} s",
        "reason": (
            f"KubeRay v1.7.0 recreates every pod when the spec hash changes (image, flags, resources, env, probes; not "
            f"replicas or tolerations): a drain of up to {pod_drain(plan).grace_seconds} s, then a {layout.nodes}-node "
            f"cold start within the {budget} s startup budget; there is no rolling update of one engine. While `pulumi "
            "up` waits for the models it replaces the RayCluster on any spec edit for the same cost and waits for the new "
            "pods (builders/awaiting.py ray_cluster)"
        ),
    }
