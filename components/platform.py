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
        None, description="Hugging Face token (pulumi.Input[str], kept secret). Default null (public models only)."
    )
    base_dir: Optional[Path] = Field(None, description="Directory that architecture.configPath is relative to. Default null: the working directory.")
    plans: Optional[dict[str, ServingPlan]] = Field(None, description="Precomputed capacity plans. Default null: computed here.")


class LlmPlatform(pulumi.ComponentResource):
    """Namespace, credentials, one VllmService and one ModelAutoscaling per configured model, and the metrics stack.

    Outputs other stacks need (the program exports them as stack outputs): ``namespace``,
    ``service_urls``, ``model_names``, ``pool_names``, ``queue_budgets``, ``hpa_targets`` and
    ``hf_token_secret``. Pass a Kubernetes provider through ``opts`` (``provider=`` or
    ``providers=``): every child inherits it through ``parent=self``.
    """

    namespace: pulumi.Output[str]
    service_urls: pulumi.Output[dict[str, str]]
    model_names: pulumi.Output[list[str]]
    pool_names: pulumi.Output[dict[str, str]]
    queue_budgets: pulumi.Output[dict[str, int]]
    hpa_targets: pulumi.Output[dict[str, int]]
    hf_token_secret: pulumi.Output[Optional[str]]

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
                VllmServiceArgs(model=m, plan=self.plans[m.name], namespace=cfg.namespace, pool_name=m.pool, hf_token_secret=secret_name),
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
        # Plain values (known at plan time) so other stacks and the report read them without waiting.
        self.namespace = pulumi.Output.from_input(cfg.namespace)
        self.service_urls = pulumi.Output.from_input({n: build.service_url(n, cfg.namespace) for n in self.services})
        self.model_names = pulumi.Output.from_input(list(self.services))
        self.pool_names = pulumi.Output.from_input({p.name: p.name for p in cfg.gpu_pools})
        self.queue_budgets = pulumi.Output.from_input({n: p.max_num_queued_reqs for n, p in self.plans.items()})
        self.hpa_targets = pulumi.Output.from_input({n: p.target_in_flight_per_pod for n, p in self.plans.items()})
        self.hf_token_secret = pulumi.Output.from_input(secret_name)
        self.register_outputs({**self.stack_outputs(), "services": {n: s.deployment_name for n, s in self.services.items()}})

    def stack_outputs(self) -> dict[str, Any]:
        """The outputs a program exports for other stacks (camelCase keys, as ``pulumi stack output`` shows them)."""
        return {
            "namespace": self.namespace,
            "serviceUrls": self.service_urls,
            "modelNames": self.model_names,
            "poolNames": self.pool_names,
            "queueBudgets": self.queue_budgets,
            "hpaTargets": self.hpa_targets,
            "hfTokenSecret": self.hf_token_secret,
        }
