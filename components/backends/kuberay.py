"""KubeRay multi-node back-end: one vLLM engine over several nodes, a RayCluster whose head runs ``vllm serve``.

Its manifests are built by components/builders/ray_cluster.py and registered by the RayVllmService
component (components/kuberay.py), after the KubeRay operator (the KubeRay component, once per stack).
A multi-node replica is not autoscaled (out of scope, as in KServe and NIM): no scale target.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from ..builders import ray_cluster as ray
from ..builders.serving_backend import Controller, RouteTarget, ServeRequest, ServingBackend
from ..capacity.plan import ServingPlan
from ..config import ModelConfig, StackConfig

if TYPE_CHECKING:
    import pulumi


class KubeRayBackend(ServingBackend):
    """A model larger than one node: a fixed-size KubeRay RayCluster and the Service of its head's API."""

    key = "ray"
    multi_node = True
    modules = ("components/kuberay.py", "components/builders/ray_cluster.py", "components/builders/kuberay_operator.py")

    def route_target(self, m: ModelConfig) -> RouteTarget:
        """The head's API Service (builders/ray_cluster.py api_service)."""
        return RouteTarget(ray.service_name(m), ray.API_PORT)

    def service_url(self, m: ModelConfig, namespace: str) -> str:
        """The head Service's URL (builders/ray_cluster.py service_url)."""
        return ray.service_url(m, namespace)

    def workload_name(self, m: ModelConfig) -> str:
        """The head's Service (the RayCluster has the model's name too)."""
        return ray.service_name(m)

    def metrics_pods(self, m: ModelConfig) -> dict[str, str]:
        """The head: a multi-node engine has one API server, and its /metrics covers every rank."""
        return ray.head_selector(m)

    def pod_matcher(self, m: ModelConfig) -> str:
        """Every Ray pod: KubeRay names them <cluster>-head-<id> and <cluster>-<group>-worker-<id> (utils.PodName, v1.7.0)."""
        return f'pod=~"{m.name}-(head|{ray.WORKER_GROUP}-worker)-.+",container=~"{ray.HEAD_CONTAINER}|{ray.WORKER_CONTAINER}"'

    def scale_target(self, m: ModelConfig) -> Optional[dict[str, str]]:
        """None: one fixed-size RayCluster (policy ray-multi-node-not-autoscaled refuses an HPA aimed at one)."""
        return None

    def disruption_budget(self, m: ModelConfig, namespace: str) -> dict[str, Any]:
        """At most one Ray pod at a time (builders/ray_cluster.py pod_disruption_budget)."""
        return ray.pod_disruption_budget(m, namespace)

    def efa_interfaces(self, m: ModelConfig, plan: ServingPlan) -> int:
        """Every EFA interface of the worker's node, unless distributed.efa is false."""
        return ray.efa_interfaces(m, plan)

    def notes(self, m: ModelConfig, plan: ServingPlan) -> list[dict[str, Any]]:
        """The engine's NCCL transport: EFA when the workers request EFA interfaces, else TCP sockets."""
        if plan.layout is None:
            return []
        d = ray.distributed(m)
        efa = self.efa_interfaces(m, plan)
        if efa:
            value = f"EFA ({efa} interfaces per node)"
            reason = (
                "workers request vpc.amazonaws.com/efa, served by the aws-efa-k8s-device-plugin release; NCCL uses EFA "
                "through libfabric and the aws-ofi-nccl plugin in the image, and falls back to TCP sockets on "
                f"{d.nccl_socket_ifname} where the image has no such plugin"
            )
        else:
            value = f"TCP sockets on {d.nccl_socket_ifname}"
            reason = (
                "no EFA requested (distributed.efa false, or the pool's instance types have none): "
                "NCCL_SOCKET_IFNAME carries the pipeline-parallel traffic"
            )
        return [{"setting": "NCCL transport", "value": value, "reason": reason}]

    def controller(self, name: str, cfg: StackConfig, opts: "pulumi.ResourceOptions") -> Optional[Controller]:
        """The KubeRay operator (its Helm release, unless kuberay.install is false); the RayClusters wait for it."""
        from ..kuberay import KubeRay, KubeRayArgs  # the Pulumi shell, as in serve()

        operator = KubeRay(f"{name}-kuberay", KubeRayArgs(config=cfg.kuberay), opts=opts)
        return Controller(operator, (operator.release,) if operator.release is not None else ())

    def serve(self, request: ServeRequest) -> "pulumi.ComponentResource":
        """A RayVllmService (RayCluster, head Service, PodDisruptionBudget)."""
        from ..kuberay import RayVllmService, RayVllmServiceArgs  # the Pulumi shell sits above the pure back-ends

        return RayVllmService(
            request.name,
            RayVllmServiceArgs(**request.component_args()),
            opts=request.opts,
        )
