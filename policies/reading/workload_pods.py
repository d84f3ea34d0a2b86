"""Every running container of every workload pod template, for the generic hygiene rows (G8, G10, G4).

The model-server rows judge the containers the engine table and the apps tables recognise, with messages of their
own; the generic rows judge every other container the readers reach (policies.kube.pod_specs: Deployment,
StatefulSet, DaemonSet, ReplicaSet, Job, CronJob, Pod, LeaderWorkerSet, Ray groups, AIBrix kinds, and any custom
resource's pod templates found generically): a Streamlit or FastAPI front end, an MLflow server, an eval Job, a
server the tables do not name.

A running container is one of ``containers`` or a native sidecar (an init container with ``restartPolicy: Always``,
which runs beside them for the pod's life: https://kubernetes.io/docs/concepts/workloads/pods/sidecar-containers/);
other init containers run before the pod serves and are not read.

Kinds whose controller completes the pod's resources and probes from objects or defaults the files may not show are
left to the model-server rows: KServe's InferenceService (its defaulter fills requests and limits into the predictor's
containers, kserve/kserve v0.20.0 pkg/apis/serving/v1beta1/inference_service_defaults.go:59-95) and the
ServingRuntimes it merges in, LLMInferenceService (presets merged by the controller) and Dynamo's
DynamoGraphDeployment (the operator's component defaults).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from policies.kube import as_list, container_label, containers, get, memoized, pod_specs, split_type
from policies.reading.gateway_apps import app_containers
from policies.reading.lws_groups import presumed_servers
from policies.reading.serving import model_servers

# (group, kind) whose controller fills the pod's resources or probes from what the files may not hold.
_COMPLETED = frozenset(
    {
        ("serving.kserve.io", "InferenceService"),
        ("serving.kserve.io", "ServingRuntime"),
        ("serving.kserve.io", "ClusterServingRuntime"),
        ("serving.kserve.io", "LLMInferenceService"),
        ("serving.kserve.io", "LLMInferenceServiceConfig"),
        ("nvidia.com", "DynamoGraphDeployment"),
    }
)


@dataclass(frozen=True)
class WorkloadContainer:
    """One running container of a workload's pod template: where it is, its pod spec, and whether it is a native
    sidecar."""

    path: str
    podspec: dict
    container: dict
    sidecar: bool

    @property
    def label(self) -> str:
        """How messages name this container."""
        return container_label(self.path, self.container)

    @property
    def name(self) -> str:
        name = self.container.get("name")
        return name if isinstance(name, str) else ""


def native_sidecars(podspec: Mapping) -> list[dict]:
    """The init containers that run for the pod's life (``restartPolicy: Always``)."""
    return [c for c in as_list(podspec.get("initContainers")) if isinstance(c, dict) and c.get("restartPolicy") == "Always"]


def workload_containers(resource: Any) -> list[WorkloadContainer]:
    """Every running container of the resource's pod templates that no model-server or serving-app row judges (see the
    module docstring), in document order; none for the kinds whose controller completes the pod."""
    return list(memoized(resource, "workload_containers", _workload_containers))


def _workload_containers(resource: Any) -> list[WorkloadContainer]:
    if split_type(getattr(resource, "type", "")) in _COMPLETED or not isinstance(getattr(resource, "props", None), dict):
        return []
    specs = pod_specs(resource)
    if not specs:
        return []
    judged = {id(s.container) for s in model_servers(resource) + presumed_servers(resource)}
    judged |= {id(a.container) for a in app_containers(resource)}
    found = []
    for path, podspec in specs:
        for container in containers(podspec):
            if id(container) not in judged:
                found.append(WorkloadContainer(path, podspec, container, False))
        for container in native_sidecars(podspec):
            if id(container) not in judged:
                found.append(WorkloadContainer(path, podspec, container, True))
    return found


def sets_none(container: Mapping, wanted: str, sections: tuple[str, ...] = ("requests", "limits")) -> bool:
    """True when the container's ``resources`` is readable and sets ``wanted`` in none of ``sections`` (a limit alone
    counts as a request: the API server defaults the request to it). A value a rule cannot read (a template
    placeholder) is not judged."""
    resources = container.get("resources")
    if resources is None:
        return True
    if not isinstance(resources, dict):
        return False
    for section in sections:
        value = resources.get(section)
        if value is None:
            continue
        if not isinstance(value, dict) or value.get(wanted) is not None:
            return False
    return True


def pod_sets(podspec: Mapping, wanted: str, sections: tuple[str, ...] = ("requests", "limits")) -> bool:
    """True when the pod-level ``resources`` (Kubernetes 1.32+, PodLevelResources) set ``wanted`` in one of
    ``sections``: the pod's containers share that budget."""
    return any(get(podspec, "resources", section, wanted) is not None for section in sections)


__all__ = ["WorkloadContainer", "native_sidecars", "pod_sets", "sets_none", "workload_containers"]
