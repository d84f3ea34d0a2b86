"""LlmPlatform: the whole serving stack of one environment, built from a validated StackConfig."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import pulumi
import pulumi_kubernetes as k8s
from pydantic import BaseModel, ConfigDict, Field

from components.builders import vllm_service as build
from components.builders.labels import recommended_labels
from components.capacity.plan import ServingPlan, plan_stack
from components.config import StackConfig
from components.kuberay import KubeRay, KubeRayArgs, RayVllmService, RayVllmServiceArgs
from components.vllm_service import VllmService, VllmServiceArgs

HF_SECRET_NAME = "hf-token"


class LlmPlatformArgs(BaseModel):
    """Inputs of an LlmPlatform."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    config: StackConfig = Field(description="The validated stack configuration (required).")
    hf_token: Optional[Any] = Field(
        None, description="Hugging Face token (a str or pulumi.Output, kept secret). Default null (public models only)."
    )
    base_dir: Optional[Path] = Field(None, description="Directory that architecture.configPath is relative to. Default: cwd.")
    plans: Optional[dict[str, ServingPlan]] = Field(None, description="Precomputed capacity plans. Default: computed here.")
    node_security_group_id: Optional[Any] = Field(
        None,
        description="pulumi.Input[str]: security group of the GPU nodes, opened to itself for EFA when a multi-node "
        "model uses EFA. Default: the EKS cluster security group of cluster.name (looked up).",
    )


class LlmPlatform(pulumi.ComponentResource):
    """Namespace, credentials and one VllmService per configured model."""

    def __init__(self, name: str, args: LlmPlatformArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("llm-serving:platform:LlmPlatform", name, None, opts)
        cfg = args.config
        self.plans = args.plans if args.plans is not None else plan_stack(cfg, args.base_dir)
        child = pulumi.ResourceOptions(parent=self)
        namespace = k8s.core.v1.Namespace(
            f"{name}-namespace",
            metadata={"name": cfg.namespace, "labels": recommended_labels(cfg.namespace, component="namespace")},
            opts=child,
        )
        in_ns = pulumi.ResourceOptions(parent=self, depends_on=[namespace])
        secret_name = None
        if args.hf_token is not None:
            secret_name = HF_SECRET_NAME
            meta = build.hf_token_secret(cfg.namespace, HF_SECRET_NAME)
            k8s.core.v1.Secret(
                f"{name}-hf-token",
                metadata=meta["metadata"],
                type=meta["type"],
                string_data={build.HF_TOKEN_KEY: pulumi.Output.secret(args.hf_token)},
                opts=in_ns,
            )
        self.kuberay = self._kuberay(name, args)
        ray_opts = pulumi.ResourceOptions(
            parent=self, depends_on=[namespace, *([self.kuberay.release] if self.kuberay and self.kuberay.release else [])]
        )
        self.services: dict[str, Any] = {}
        for m in cfg.models:
            if m.distributed is not None:
                self.services[m.name] = RayVllmService(
                    f"{name}-{m.name}",
                    RayVllmServiceArgs(model=m, plan=self.plans[m.name], namespace=cfg.namespace, hf_token_secret=secret_name),
                    opts=ray_opts,
                )
            else:
                self.services[m.name] = VllmService(
                    f"{name}-{m.name}",
                    VllmServiceArgs(model=m, plan=self.plans[m.name], namespace=cfg.namespace, pool=m.pool, hf_token_secret=secret_name),
                    opts=in_ns,
                )
        self.register_outputs(
            {
                "namespace": cfg.namespace,
                "services": {
                    n: s.deployment_name if isinstance(s, VllmService) else s.service_name for n, s in self.services.items()
                },
            }
        )

    def _kuberay(self, name: str, args: LlmPlatformArgs) -> Optional[KubeRay]:
        """The KubeRay operator and EFA rules, when some model spreads over several nodes."""
        cfg = args.config
        distributed = [m for m in cfg.models if m.distributed is not None]
        if not distributed:
            return None
        efa = any(m.distributed.efa and self.plans[m.name].layout.efa_interfaces_per_node for m in distributed)
        sg = args.node_security_group_id
        if efa and sg is None:
            import pulumi_aws as aws

            cluster = aws.eks.get_cluster_output(name=cfg.cluster.name, opts=pulumi.InvokeOutputOptions(parent=self))
            sg = cluster.vpc_config.apply(lambda v: v.cluster_security_group_id)
        return KubeRay(
            f"{name}-kuberay",
            KubeRayArgs(config=cfg.kuberay, efa=efa, node_security_group_id=sg),
            opts=pulumi.ResourceOptions(parent=self),
        )
