"""Generic rows on availability and isolation (G18 G19 G21 G22 G23 G25 G26 G30 G31 G32 G36 G38 G39 G41)."""

import copy

import pytest
from policy_fixtures import (
    DEPLOYMENT_TYPE,
    PDB_TYPE,
    SERVICE_TYPE,
    deployment_props,
    isvc,
    isvc_props,
    pdb_props,
    resource,
    vllm_container,
)

from policies.k8s_generic import (
    capabilities_allow_list,
    host_path_read_only,
    job_ttl,
    memory_emptydir_size_limit,
    no_bare_pods,
    no_default_namespace,
    no_host_namespaces,
    no_load_balancer_service,
    no_privileged,
    pdb_allows_disruption,
    pdb_below_replicas,
    pdb_unhealthy_pod_eviction,
    serving_app_pdb,
    serving_app_service,
    serving_priority_class,
    serving_topology_spread,
)
from policies.registry import evaluate

SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "chat-8b-raw", "namespace": "llm"},
    "spec": {"type": "ClusterIP", "selector": {"app": "chat-8b-raw"}, "ports": [{"port": 8080.0}]},
}
RAW_PDB = {
    "apiVersion": "policy/v1",
    "kind": "PodDisruptionBudget",
    "metadata": {"name": "raw", "namespace": "llm"},
    "spec": {
        "maxUnavailable": 1.0,
        "unhealthyPodEvictionPolicy": "AlwaysAllow",
        "selector": {"matchLabels": {"app": "chat-8b-raw"}},
    },
}


def stack(**overrides):
    """The compliant set: InferenceService + its PDB, a raw Deployment + its Service and PDB."""
    parts = {
        "isvc": isvc_props(),
        "pdb": pdb_props(),
        "deployment": deployment_props(),
        "service": copy.deepcopy(SERVICE),
        "raw_pdb": copy.deepcopy(RAW_PDB),
    }
    parts["deployment"]["spec"]["template"]["metadata"] = {"labels": {"app": "chat-8b-raw"}}
    deployment = parts["deployment"]["spec"]["template"]["spec"]
    deployment["priorityClassName"] = "llm-serving"
    deployment["topologySpreadConstraints"] = parts["isvc"]["spec"]["predictor"]["topologySpreadConstraints"]
    parts.update(overrides)
    types = {
        "isvc": "kubernetes:serving.kserve.io/v1beta1:InferenceService",
        "pdb": PDB_TYPE,
        "deployment": DEPLOYMENT_TYPE,
        "service": SERVICE_TYPE,
        "raw_pdb": PDB_TYPE,
    }
    return [resource(types[k], v) for k, v in parts.items() if v is not None]


ALL = (
    serving_app_pdb,
    serving_app_service,
    pdb_allows_disruption,
    pdb_below_replicas,
    pdb_unhealthy_pod_eviction,
    serving_priority_class,
    serving_topology_spread,
    no_host_namespaces,
    no_privileged,
    capabilities_allow_list,
    host_path_read_only,
    no_load_balancer_service,
    memory_emptydir_size_limit,
    no_default_namespace,
    no_bare_pods,
    job_ttl,
)


@pytest.mark.parametrize("module", ALL, ids=[m.POLICY.name for m in ALL])
def test_compliant_stack_passes(module):
    assert evaluate(stack(), policies=[module.POLICY]) == []


def found(module, resources):
    return [(v.resource, v.message) for v in evaluate(resources, policies=[module.POLICY])]


def test_serving_app_without_pdb():
    assert found(serving_app_pdb, stack(pdb=None)) == [
        (
            "chat-8b",
            "InferenceService chat-8b: no PodDisruptionBudget selects its pods, so a node drain or Karpenter "
            "consolidation can evict every replica at once; add a PDB with maxUnavailable: 1",
        )
    ]


def test_pdb_in_another_namespace_does_not_count():
    other = pdb_props()
    other["metadata"]["namespace"] = "other"
    assert [r for r, _ in found(serving_app_pdb, stack(pdb=other))] == ["chat-8b"]


def test_a_job_is_not_a_serving_app():
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "warm", "namespace": "llm"},
        "spec": {"ttlSecondsAfterFinished": 60.0, "template": deployment_props()["spec"]["template"]},
    }
    assert found(serving_app_pdb, stack() + [resource("kubernetes:batch/v1:Job", job)]) == []


def test_serving_deployment_without_service():
    assert found(serving_app_service, stack(service=None)) == [
        (
            "chat-8b-raw",
            "Deployment chat-8b-raw: no Service or InferencePool selects its pods, so clients have no "
            "stable address and readiness takes no failing replica out of rotation; add a ClusterIP Service",
        )
    ]


def test_inference_pool_counts_as_the_front_end():
    pool = {
        "apiVersion": "inference.networking.k8s.io/v1",
        "kind": "InferencePool",
        "metadata": {"name": "pool", "namespace": "llm"},
        "spec": {"selector": {"matchLabels": {"app": "chat-8b-raw"}}},
    }
    resources = stack(service=None) + [resource("kubernetes:inference.networking.k8s.io/v1:InferencePool", pool)]
    assert found(serving_app_service, resources) == []


@pytest.mark.parametrize(
    "spec, shown",
    [
        ({"maxUnavailable": 0.0}, "maxUnavailable 0.0"),
        ({"maxUnavailable": "0%"}, "maxUnavailable 0%"),
        ({"minAvailable": "100%"}, "minAvailable 100%"),
    ],
)
def test_pdb_blocking_every_eviction(spec, shown):
    pdb = pdb_props()
    pdb["spec"].pop("maxUnavailable")
    pdb["spec"].update(spec)
    assert found(pdb_allows_disruption, stack(pdb=pdb)) == [
        (
            "chat-8b",
            f"PodDisruptionBudget chat-8b: {shown}: no voluntary eviction is ever allowed, so GPU nodes cannot "
            f"be drained, consolidated or patched",
        )
    ]


def test_pdb_min_available_at_the_replica_count():
    pdb = pdb_props()
    pdb["spec"].pop("maxUnavailable")
    pdb["spec"]["minAvailable"] = 2.0
    assert found(pdb_below_replicas, stack(pdb=pdb)) == [
        (
            "chat-8b",
            "PodDisruptionBudget chat-8b: minAvailable 2 is not below the 2 replicas of InferenceService "
            "chat-8b: no voluntary eviction is ever allowed, so GPU nodes cannot be drained, consolidated or "
            "patched",
        )
    ]


def test_pdb_without_unhealthy_pod_eviction_policy():
    pdb = pdb_props()
    pdb["spec"].pop("unhealthyPodEvictionPolicy")
    assert found(pdb_unhealthy_pod_eviction, stack(pdb=pdb)) == [
        (
            "chat-8b",
            "spec.unhealthyPodEvictionPolicy is not set (IfHealthyBudget): crash-looping or never-ready model "
            "pods then block node drains; set AlwaysAllow",
        )
    ]


def test_serving_pods_without_priority_class():
    props = isvc_props()
    props["spec"]["predictor"].pop("priorityClassName")
    assert found(serving_priority_class, [isvc(props)]) == [
        (
            "chat-8b",
            "spec.predictor: no priorityClassName, so this InferenceService's model pods rank with batch work "
            "on the GPU pool and cannot preempt it; set a serving priority class",
        )
    ]


def test_replicas_without_spread():
    props = isvc_props()
    props["spec"]["predictor"].pop("topologySpreadConstraints")
    assert found(serving_topology_spread, [isvc(props)]) == [
        (
            "chat-8b",
            "spec.predictor: 2 replicas with no topologySpreadConstraints or podAntiAffinity can all land on "
            "one GPU node and fail together; spread them over hostnames with whenUnsatisfiable: ScheduleAnyway",
        )
    ]


def test_hard_spread_constraint():
    props = isvc_props()
    props["spec"]["predictor"]["topologySpreadConstraints"][0]["whenUnsatisfiable"] = "DoNotSchedule"
    assert found(serving_topology_spread, [isvc(props)]) == [
        (
            "chat-8b",
            "spec.predictor.topologySpreadConstraints: whenUnsatisfiable DoNotSchedule on kubernetes.io/hostname "
            "leaves replicas Pending when free GPUs are only where a replica already runs; use ScheduleAnyway",
        )
    ]


@pytest.mark.parametrize("field", ["hostNetwork", "hostPID", "hostIPC"])
def test_host_namespaces(field):
    props = isvc_props()
    props["spec"]["predictor"][field] = True
    [(name, message)] = found(no_host_namespaces, [isvc(props)])
    assert message.startswith(f"spec.predictor.{field}: true ")


def test_host_ipc_names_the_shm_fix():
    props = isvc_props()
    props["spec"]["predictor"]["hostIPC"] = True
    assert found(no_host_namespaces, [isvc(props)])[0][1] == (
        "spec.predictor.hostIPC: true shares the node's IPC namespace and /dev/shm with the pod; it is the wrong fix for "
        "NCCL shared memory, which needs an emptyDir {medium: Memory, sizeLimit} mounted at /dev/shm"
    )


def test_privileged_container():
    props = isvc_props()
    vllm_container(props)["securityContext"] = {"privileged": True}
    assert found(no_privileged, [isvc(props)]) == [
        (
            "chat-8b",
            "container kserve-container: securityContext.privileged: true gives the container every device of "
            "the node (all GPUs included) and a way out to the host; the GPU device plugin needs no privileges",
        )
    ]


def test_capabilities_beyond_the_allow_list():
    props = isvc_props()
    vllm_container(props)["securityContext"] = {"capabilities": {"add": ["IPC_LOCK", "SYS_ADMIN"]}}
    assert found(capabilities_allow_list, [isvc(props)]) == [
        ("chat-8b", "container kserve-container: adds capabilities SYS_ADMIN, which are not in allowedCapabilities (IPC_LOCK)")
    ]


def test_writable_host_path():
    props = isvc_props()
    props["spec"]["predictor"]["volumes"].append({"name": "models", "hostPath": {"path": "/mnt/models"}})
    vllm_container(props)["volumeMounts"].append({"name": "models", "mountPath": "/models"})
    assert found(host_path_read_only, [isvc(props)]) == [
        (
            "chat-8b",
            "container kserve-container: mounts hostPath /mnt/models (volume models) writable at /models; a pod "
            "that writes to the node outlives itself there; mount it readOnly or use an emptyDir or PVC",
        )
    ]
    vllm_container(props)["volumeMounts"][-1]["readOnly"] = True
    assert found(host_path_read_only, [isvc(props)]) == []


def test_load_balancer_service():
    service = copy.deepcopy(SERVICE)
    service["spec"]["type"] = "LoadBalancer"
    assert found(no_load_balancer_service, stack(service=service)) == [
        (
            "chat-8b-raw",
            "spec.type: LoadBalancer provisions a separate cloud load balancer that bypasses the ingress "
            "gateway's timeouts, auth and rate limits; use ClusterIP behind the ALB/gateway path",
        )
    ]


def test_memory_emptydir_without_size_limit():
    props = isvc_props()
    props["spec"]["predictor"]["volumes"][0]["emptyDir"].pop("sizeLimit")
    assert found(memory_emptydir_size_limit, [isvc(props)]) == [
        (
            "chat-8b",
            "spec.predictor.volumes dshm: emptyDir medium Memory has no sizeLimit; its pages are RAM charged to "
            "the pod, so it can grow until the pod is OOM-killed; bound it",
        )
    ]


def test_default_namespace():
    service = copy.deepcopy(SERVICE)
    service["metadata"]["namespace"] = "default"
    assert found(no_default_namespace, stack(service=service)) == [
        (
            "chat-8b-raw",
            "metadata.namespace: default shares the namespace with everything deployed without one (no "
            "quota, limits or network policy of its own); give the model a namespace",
        )
    ]


def test_bare_pod():
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "llm"},
        "spec": deployment_props()["spec"]["template"]["spec"],
    }
    assert found(no_bare_pods, [resource("kubernetes:core/v1:Pod", pod)]) == [
        (
            "p",
            "a bare Pod is not recreated when its node is drained or reclaimed; run it under a Deployment, "
            "StatefulSet, Job or InferenceService",
        )
    ]


def test_job_without_ttl():
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "warm", "namespace": "llm"},
        "spec": {"template": {"spec": {"containers": []}}},
    }
    assert found(job_ttl, [resource("kubernetes:batch/v1:Job", job)]) == [
        ("warm", "spec.ttlSecondsAfterFinished is not set, so the finished Job and its pods stay forever; set it (e.g. 3600)")
    ]
