"""LlmPlatform: the whole serving stack of one environment, built from a validated StackConfig."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import pulumi
import pulumi_kubernetes as k8s
from pydantic import BaseModel, ConfigDict, Field

from components.autoscaling import MetricsStack, MetricsStackArgs, model_autoscalers
from components.builders import vllm_service as build
from components.builders.labels import recommended_labels
from components.capacity.plan import ServingPlan, plan_stack
from components.capacity.pools import PoolPlan, plan_pools
from components.cluster import k8s_child_opts, kubernetes_provider
from components.config import StackConfig
from components.gpu_pool import GpuPool, GpuPoolArgs
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
    k8s_provider: Optional[Any] = Field(
        None,
        description="A pulumi_kubernetes.Provider for the cluster, e.g. from the stack that owns the cluster. Default null: "
        "the platform creates one from config.cluster (see components/cluster.py).",
    )
    aws_provider: Optional[Any] = Field(
        None, description="A pulumi_aws.Provider for the EKS lookup and the AWS resources. Default null (the stack's aws:region)."
    )


class LlmPlatform(pulumi.ComponentResource):
    """The cluster connection, GPU pools, namespace, credentials, one VllmService and one ModelAutoscaling
    per configured model, and the metrics stack.

    Every Kubernetes child goes through one explicit provider (``self.k8s_provider``); child
    components receive it with ``opts=self.k8s_opts(...)``.
    """

    def __init__(self, name: str, args: LlmPlatformArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("llm-serving:platform:LlmPlatform", name, None, opts)
        cfg = args.config
        self.plans = args.plans if args.plans is not None else plan_stack(cfg, args.base_dir)
        self.pool_plans: dict[str, PoolPlan] = plan_pools(cfg.gpu_pools, cfg.models, self.plans)
        self.cluster_name = cfg.cluster.name
        self.k8s_provider = (
            args.k8s_provider
            if args.k8s_provider is not None
            else kubernetes_provider(f"{name}-k8s", cfg.cluster, cfg.region, self, args.aws_provider)
        )
        self.pools = {
            p.name: GpuPool(
                f"{name}-pool-{p.name}",
                GpuPoolArgs(pool=p, plan=self.pool_plans[p.name], cluster_name=cfg.cluster.name),
                opts=self.k8s_opts(),
            )
            for p in cfg.gpu_pools
        }
        namespace = k8s.core.v1.Namespace(
            f"{name}-namespace",
            metadata={"name": cfg.namespace, "labels": recommended_labels(cfg.namespace, component="namespace")},
            opts=self.k8s_opts(),
        )
        in_ns = self.k8s_opts(depends_on=[namespace])
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
        self.services = {
            m.name: VllmService(
                f"{name}-{m.name}",
                VllmServiceArgs(model=m, plan=self.plans[m.name], namespace=cfg.namespace, pool=m.pool, hf_token_secret=secret_name),
                opts=in_ns,
            )
            for m in cfg.models
        }
        # Scaling on serving load: the metrics plumbing once, then each model's autoscaler, monitor and alerts.
        self.metrics = MetricsStack(
            f"{name}-metrics",
            MetricsStackArgs(models=cfg.models, namespace=cfg.namespace, monitoring=cfg.monitoring),
            opts=self.k8s_opts(),
        )
        self.autoscaling = model_autoscalers(
            name,
            cfg.models,
            self.plans,
            cfg.namespace,
            cfg.monitoring,
            self.k8s_opts(depends_on=[namespace, self.metrics]),
        )
        self.register_outputs(
            {
                "clusterName": cfg.cluster.name,
                "namespace": cfg.namespace,
                "gpuPools": sorted(self.pools),
                "services": {n: s.deployment_name for n, s in self.services.items()},
            }
        )

    def k8s_opts(self, *, parent: Optional[pulumi.Resource] = None, **kwargs: Any) -> pulumi.ResourceOptions:
        """ResourceOptions for a Kubernetes child of the platform (or of ``parent``), with the cluster's provider.

        Use it for every Kubernetes object or component the platform creates, e.g.
        ``Autoscaling(f"{name}-autoscaling", args, opts=self.k8s_opts(depends_on=[...]))``; ``kwargs``
        are further ResourceOptions fields.
        """
        return k8s_child_opts(parent or self, self.k8s_provider, **kwargs)
