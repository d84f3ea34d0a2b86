"""VllmService: one model served by vLLM under KServe (a thin shell over builders/vllm_service.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import pulumi
import pulumi_kubernetes as k8s
from pydantic import BaseModel, ConfigDict, Field, model_validator

from .builders import awaiting, credentials
from .builders import vllm_service as build
from .capacity.plan import ServingPlan, plan_model
from .cluster import KubernetesComponent, own_depends_on
from .config import GpuPoolConfig, ModelConfig
from .inputs import InputName, InputStr, part, resolve


class VllmServiceArgs(BaseModel):
    """Inputs of a VllmService: the model's config, where it runs, and (optionally) its capacity plan.

    ``namespace``, ``pool_name`` and ``hf_token_secret`` may be Outputs of another stack (a
    ``StackReference``) or resource; the rest is plain data, validated here.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    model: ModelConfig = Field(description="The model's stack configuration (required).")
    namespace: InputName = Field(description="Namespace of the InferenceService (required; pulumi.Input[str]).")
    gpu_pool: Optional[GpuPoolConfig] = Field(
        default=None,
        description="The GPU pool the model runs on: its instance types decide the GPU the plan sizes for. "
        "Default null: required unless `plan` is given.",
    )
    plan: Optional[ServingPlan] = Field(
        default=None,
        description="The model's capacity plan. Default null: computed from `model` and `gpu_pool` (capacity.plan.plan_model).",
    )
    pool_name: Optional[InputName] = Field(
        default=None, description="Karpenter NodePool the pods select (pulumi.Input[str]). Default null: `model.pool`."
    )
    hf_token_secret: Optional[InputStr] = Field(
        default=None,
        description="Name of the Secret with key 'HF_TOKEN' (pulumi.Input[str]); the model's ServiceAccount lists it for "
        "KServe's storage initializer and the pod reads it as HF_TOKEN. Default null (public model).",
    )
    api_key_secret: Optional[InputStr] = Field(
        default=None,
        description="Name of the Secret with key 'key' holding the API key vLLM requires on /v1 (VLLM_API_KEY; "
        "pulumi.Input[str], e.g. the platform's apiKeySecret output). Default null (no key).",
    )
    wait_for_ready: bool = Field(
        default=True,
        description="`pulumi up` waits until the model serves (its readiness condition, within a timeout from its "
        "startup budget: components/builders/awaiting.py); false returns once the object is accepted. Default true.",
    )
    base_dir: Optional[Path] = Field(
        default=None,
        description="Directory that `model.architecture.configPath` is relative to. Default null: the working directory.",
    )
    kserve_cpu_limit_cleared: bool = Field(
        default=False,
        description="True when the cluster's KServe sets no default CPU limit (inferenceservice-config "
        "resource.cpuLimit empty, as the platform's own kserve release does): the vLLM container then has no CPU "
        "limit, so it is never throttled. Default false: its CPU limit equals its CPU request, because KServe's "
        "defaulter fills a missing limit from that config (1 CPU in the chart) and a request above the limit makes "
        "the predictor Deployment invalid.",
    )

    @model_validator(mode="after")
    def _plan_or_pool(self) -> "VllmServiceArgs":
        if self.plan is None and self.gpu_pool is None:
            raise ValueError("gpu_pool is required when plan is not given (the plan sizes the model for the pool's GPU)")
        if self.plan is not None and self.plan.name != self.model.name:
            raise ValueError(f"plan is the plan of model {self.plan.name!r}, not of {self.model.name!r}")
        return self


class VllmService(KubernetesComponent):
    """A KServe InferenceService running `vllm serve`, its ServiceAccount and its PodDisruptionBudget.

    The ServiceAccount (``<model>-model``; an S3 model uses its source's account instead) lists the
    Hugging Face Secret, the only place KServe's storage initializer takes ``HF_TOKEN`` from
    (builders/credentials.py).

    Pass the cluster's Kubernetes provider in ``opts`` (``LlmPlatform.k8s_opts()``, or
    ``providers=[...]`` from a program of your own); every child uses it.

    Outputs other stacks need: ``url`` (in-cluster URL of the OpenAI-compatible API),
    ``model_name``, ``namespace``, ``pool_name``, ``queue_budget`` (vLLM's admission queue
    beyond maxNumSeqs; --max-num-queued-reqs is maxNumSeqs + it) and ``hpa_target`` (in-flight requests per pod the autoscaler holds).
    """

    url: pulumi.Output[str]
    model_name: pulumi.Output[str]
    namespace: pulumi.Output[str]
    pool_name: pulumi.Output[str]
    queue_budget: pulumi.Output[Optional[int]]
    hpa_target: pulumi.Output[int]
    inference_service: k8s.apiextensions.CustomResource
    pod_disruption_budget: k8s.policy.v1.PodDisruptionBudget

    def __init__(self, name: str, args: VllmServiceArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("llm-serving:kserve:VllmService", name, None, opts)
        m = args.model
        if args.plan is not None:
            plan = args.plan
        else:
            assert args.gpu_pool is not None  # VllmServiceArgs requires one of them
            plan = plan_model(m, args.gpu_pool, "model", args.base_dir)
        self.plan: ServingPlan = plan
        pool_name = args.pool_name if args.pool_name is not None else m.pool
        child = self.child_opts()
        self.service_account: Optional[k8s.core.v1.ServiceAccount] = None
        # The predictor's ServiceAccount, when KServe's storage initializer needs one (builders/credentials.py;
        # the KServe back-end answers the same, components/backends/kserve.py).
        if credentials.needs_model_service_account(m):
            sa = resolve(
                lambda ns, secret: credentials.model_service_account(m, ns, secret), args.namespace, args.hf_token_secret
            )
            self.service_account = k8s.core.v1.ServiceAccount(
                f"{name}-sa",
                metadata=part(sa, "metadata"),
                automount_service_account_token=False,
                secrets=resolve(lambda s: s.get("secrets"), sa),
                opts=child,
            )
        # KServe reads the ServiceAccount when it injects the storage initializer: it must exist first. The pods also
        # start after what the service was told to wait for (an S3 model's ServiceAccount and Pod Identity association).
        waits = [*own_depends_on(opts), *([self.service_account] if self.service_account is not None else [])]
        awaits = awaiting.inference_service(plan, args.wait_for_ready)
        timeouts = pulumi.CustomTimeouts(**awaits.timeouts)
        isvc_opts = (
            self.child_opts(depends_on=waits, custom_timeouts=timeouts) if waits else self.child_opts(custom_timeouts=timeouts)
        )
        isvc = resolve(
            lambda ns, pool, secret, key: build.inference_service(
                m, plan, ns, pool, secret, key, cpu_limit=not args.kserve_cpu_limit_cleared
            ),
            args.namespace,
            pool_name,
            args.hf_token_secret,
            args.api_key_secret,
        )
        self.inference_service = k8s.apiextensions.CustomResource(
            f"{name}-isvc",
            api_version="serving.kserve.io/v1beta1",
            kind="InferenceService",
            metadata=resolve(lambda md: awaiting.annotated(md, awaits.annotations), part(isvc, "metadata")),
            spec=part(isvc, "spec"),
            # The fields KServe's defaulter writes (builders/vllm_service.py KSERVE_DEFAULTED_FIELDS): no refresh diff.
            opts=pulumi.ResourceOptions.merge(
                isvc_opts, pulumi.ResourceOptions(ignore_changes=list(build.KSERVE_DEFAULTED_FIELDS))
            ),
        )
        pdb = resolve(lambda ns: build.pod_disruption_budget(m, ns), args.namespace)
        self.pod_disruption_budget = k8s.policy.v1.PodDisruptionBudget(
            f"{name}-pdb", metadata=part(pdb, "metadata"), spec=part(pdb, "spec"), opts=child
        )
        self.deployment_name = build.predictor_deployment_name(m.name)
        self.namespace = pulumi.Output.from_input(args.namespace)
        self.url = self.namespace.apply(lambda ns: build.service_url(m.name, ns))
        self.model_name = pulumi.Output.from_input(m.name)
        self.pool_name = pulumi.Output.from_input(pool_name)
        self.queue_budget = pulumi.Output.from_input(plan.max_num_queued_reqs)
        self.hpa_target = pulumi.Output.from_input(plan.target_in_flight_per_pod)
        self.register_outputs(
            {
                "url": self.url,
                "modelName": self.model_name,
                "namespace": self.namespace,
                "poolName": self.pool_name,
                "queueBudget": self.queue_budget,
                "hpaTarget": self.hpa_target,
                "deploymentName": self.deployment_name,
                "kvCacheTokens": plan.memory.kv_cache_tokens,
            }
        )
