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
from components.config import StackConfig
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


class LlmPlatform(pulumi.ComponentResource):
    """Namespace, credentials, one VllmService and one ModelAutoscaling per configured model, and the metrics stack."""

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
            opts=pulumi.ResourceOptions(parent=self),
        )
        self.autoscaling = model_autoscalers(
            name,
            cfg.models,
            self.plans,
            cfg.namespace,
            cfg.monitoring,
            pulumi.ResourceOptions(parent=self, depends_on=[namespace, self.metrics]),
        )
        self.register_outputs(
            {
                "namespace": cfg.namespace,
                "services": {n: s.deployment_name for n, s in self.services.items()},
            }
        )
