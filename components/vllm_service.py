"""VllmService: one model served by vLLM under KServe (a thin shell over builders/vllm_service.py)."""

from __future__ import annotations

from typing import Optional

import pulumi
import pulumi_kubernetes as k8s
from pydantic import BaseModel, ConfigDict, Field

from components.builders import vllm_service as build
from components.capacity.plan import ServingPlan
from components.cluster import KubernetesComponent
from components.config import ModelConfig


class VllmServiceArgs(BaseModel):
    """Inputs of a VllmService: the model's config and its capacity plan."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    model: ModelConfig = Field(description="The model's stack configuration (required).")
    plan: ServingPlan = Field(description="Its capacity plan (required): every derived number comes from here.")
    namespace: str = Field(description="Namespace of the InferenceService (required).")
    pool: str = Field(description="Karpenter NodePool the pods run on (required).")
    hf_token_secret: Optional[str] = Field(None, description="Name of the Secret with key 'token'. Default null (public model).")


class VllmService(KubernetesComponent):
    """A KServe InferenceService running `vllm serve`, and its PodDisruptionBudget.

    Pass the cluster's Kubernetes provider in ``opts`` (``LlmPlatform.k8s_opts()``); every child uses it.
    """

    inference_service: k8s.apiextensions.CustomResource
    pod_disruption_budget: k8s.policy.v1.PodDisruptionBudget

    def __init__(self, name: str, args: VllmServiceArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("llm-serving:kserve:VllmService", name, None, opts)
        child = self.child_opts()
        isvc = build.inference_service(args.model, args.plan, args.namespace, args.pool, args.hf_token_secret)
        self.inference_service = k8s.apiextensions.CustomResource(
            f"{name}-isvc",
            api_version=isvc["apiVersion"],
            kind=isvc["kind"],
            metadata=isvc["metadata"],
            spec=isvc["spec"],
            opts=child,
        )
        pdb = build.pod_disruption_budget(args.model, args.namespace)
        self.pod_disruption_budget = k8s.policy.v1.PodDisruptionBudget(
            f"{name}-pdb", metadata=pdb["metadata"], spec=pdb["spec"], opts=child
        )
        self.deployment_name = build.predictor_deployment_name(args.model.name)
        self.register_outputs(
            {
                "inferenceServiceName": args.model.name,
                "deploymentName": self.deployment_name,
                "kvCacheTokens": args.plan.memory.kv_cache_tokens,
            }
        )
