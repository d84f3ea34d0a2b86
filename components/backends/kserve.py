"""KServe single-node back-end: one InferenceService (Standard mode) whose predictor Deployment runs ``vllm serve``.

Its manifests are built by components/builders/vllm_service.py and registered by the VllmService
component (components/vllm_service.py); the predictor's ServiceAccount by builders/credentials.py.
The autoscaler (builders/autoscaling.py) scales the predictor Deployment KServe creates.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from ..builders import credentials
from ..builders import vllm_service as build
from ..builders.scheduling import ISVC_LABEL
from ..builders.serving_backend import SINGLE_NODE_KEY, RouteTarget, ServeRequest, ServingBackend
from ..config import ModelConfig

if TYPE_CHECKING:
    import pulumi

# KServe's RawDeployment Service of a predictor listens on 80 and forwards to the container port.
PREDICTOR_SERVICE_PORT = 80


class KServeBackend(ServingBackend):
    """A model on one node: a KServe InferenceService, autoscaled on vLLM's in-flight requests."""

    key = SINGLE_NODE_KEY
    modules = ("components/vllm_service.py", "components/builders/vllm_service.py")

    def route_target(self, m: ModelConfig) -> RouteTarget:
        """KServe's predictor Service ``<name>-predictor`` on port 80 (constants.PredictorServiceName, v0.20.0)."""
        return RouteTarget(build.predictor_deployment_name(m.name), PREDICTOR_SERVICE_PORT)

    def service_url(self, m: ModelConfig, namespace: str) -> str:
        """The predictor Service's URL, on its default port (builders/vllm_service.py service_url)."""
        return build.service_url(m.name, namespace)

    def workload_name(self, m: ModelConfig) -> str:
        """The predictor Deployment KServe creates."""
        return build.predictor_deployment_name(m.name)

    def metrics_pods(self, m: ModelConfig) -> dict[str, str]:
        """KServe labels every predictor pod with its InferenceService (the PDB selects on it too)."""
        return {ISVC_LABEL: m.name}

    def pod_matcher(self, m: ModelConfig) -> str:
        """The predictor Deployment's pods, and their vLLM container."""
        return f'pod=~"{build.predictor_deployment_name(m.name)}-.+",container="{build.CONTAINER_NAME}"'

    def scale_target(self, m: ModelConfig) -> Optional[dict[str, str]]:
        """KServe's predictor Deployment (kserve/kserve v0.20.0, constants.PredictorServiceName); the
        InferenceService keeps autoscalerClass external so KServe builds no HPA of its own."""
        return {"apiVersion": "apps/v1", "kind": "Deployment", "name": build.predictor_deployment_name(m.name)}

    def disruption_budget(self, m: ModelConfig, namespace: str) -> dict[str, Any]:
        """A drain never takes the model's last ready replica (builders/vllm_service.py pod_disruption_budget)."""
        return build.pod_disruption_budget(m, namespace)

    def needs_model_service_account(self, m: ModelConfig) -> bool:
        """KServe's storage initializer reads HF_TOKEN only through the predictor's ServiceAccount."""
        return credentials.needs_model_service_account(m)

    def serve(self, request: ServeRequest) -> "pulumi.ComponentResource":
        """A VllmService (InferenceService, ServiceAccount, PodDisruptionBudget)."""
        # The Pulumi shell sits above the pure back-ends: imported when the platform registers, so the builders
        # that ask a back-end for facts (monitoring, ingress, autoscaling) never load Pulumi components.
        from ..vllm_service import VllmService, VllmServiceArgs

        return VllmService(
            request.name,
            VllmServiceArgs(**request.component_args(), kserve_cpu_limit_cleared=request.kserve_cpu_limit_cleared),
            opts=request.opts,
        )
