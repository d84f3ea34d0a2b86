"""KubeRay components: the operator, and one multi-node vLLM engine.

Thin shells over components/builders/kuberay_operator.py and components/builders/ray_cluster.py.
Autoscaling a multi-node replica is out of scope (as in KServe and NIM): a RayVllmService is one
fixed-size RayCluster, and policy ``ray-multi-node-not-autoscaled`` refuses an HPA aimed at one.
"""

from __future__ import annotations

from typing import Any, Optional

import pulumi
import pulumi_kubernetes as k8s
from pydantic import BaseModel, ConfigDict, Field, model_validator

from .builders import awaiting
from .builders import kuberay_operator as operator
from .builders import ray_cluster as build
from .capacity.plan import ServingPlan
from .cluster import KubernetesComponent, own_depends_on
from .config import KubeRayConfig, ModelConfig
from .helm import helm_release_with_crds
from .inputs import InputName, InputStr, part, resolve


class KubeRayArgs(BaseModel):
    """Inputs of a KubeRay component."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    config: KubeRayConfig = Field(
        default_factory=KubeRayConfig, description="Operator settings. Default: install in kuberay-system."
    )


class KubeRay(KubernetesComponent):
    """The KubeRay operator Helm release (unless already installed). EFA's security group belongs to the pool (GpuPool).

    Pass the cluster's Kubernetes provider as ``opts.provider`` (``LlmPlatform.k8s_opts()`` does).
    """

    def __init__(self, name: str, args: KubeRayArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("llm-serving:ray:KubeRay", name, None, opts)
        self.release: Optional[k8s.helm.v3.Release] = None
        self.crds: list[Any] = []
        if args.config.install:
            # The chart's crds/ are never upgraded by Helm: Pulumi owns them, one ConfigFile per CRD registered by
            # helm_release (builders/chart_crds.py), named <name>-crd-<plural> as before.
            rel = operator.operator_release(args.config)
            self.release, self.crds = helm_release_with_crds(f"{name}-operator", rel, self.child_opts(), crds_name=name)
        self.register_outputs({"operatorNamespace": args.config.namespace, "installed": args.config.install})


class RayVllmServiceArgs(BaseModel):
    """Inputs of a RayVllmService: a distributed model's config and capacity plan, and where it runs.

    ``namespace``, ``pool_name`` and ``hf_token_secret`` may be Outputs of another stack or resource.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    model: ModelConfig = Field(description="The model's stack configuration (required; distributed must be set).")
    plan: ServingPlan = Field(description="Its capacity plan (required; plan.layout holds the nodes and stages).")
    namespace: InputName = Field(description="Namespace of the RayCluster and its Service (required; pulumi.Input[str]).")
    pool_name: Optional[InputName] = Field(
        default=None, description="Karpenter NodePool every Ray pod selects (pulumi.Input[str]). Default null: `model.pool`."
    )
    hf_token_secret: Optional[InputStr] = Field(
        default=None, description="Name of the Secret with key 'HF_TOKEN' (pulumi.Input[str]). Default null (public model)."
    )
    api_key_secret: Optional[InputStr] = Field(
        default=None,
        description="Name of the Secret with key 'key' holding the API key the head's vLLM requires on /v1 (VLLM_API_KEY; "
        "pulumi.Input[str]). Default null (no key).",
    )
    wait_for_ready: bool = Field(
        default=True,
        description="`pulumi up` waits until the model serves (its readiness condition, within a timeout from its "
        "startup budget: components/builders/awaiting.py); false returns once the object is accepted. Default true.",
    )

    @model_validator(mode="after")
    def _multi_node(self) -> "RayVllmServiceArgs":
        if self.model.distributed is None or self.plan.layout is None:
            raise ValueError(f"model {self.model.name!r} is not distributed; serve it with VllmService")
        if self.plan.name != self.model.name:
            raise ValueError(f"plan is the plan of model {self.plan.name!r}, not of {self.model.name!r}")
        return self


class RayVllmService(KubernetesComponent):
    """One vLLM engine over several nodes: a KubeRay RayCluster and the Service of its head's API.

    Pass the cluster's Kubernetes provider as ``opts.provider`` (``LlmPlatform.k8s_opts()`` does).
    Outputs other stacks need: ``url`` (in-cluster URL of the head's OpenAI API), ``model_name``,
    ``namespace``, ``pool_name`` and ``queue_budget`` (the admission queue beyond maxNumSeqs;
    --max-num-queued-reqs is maxNumSeqs + it). It has no autoscaler.
    """

    url: pulumi.Output[str]
    model_name: pulumi.Output[str]
    namespace: pulumi.Output[str]
    pool_name: pulumi.Output[str]
    queue_budget: pulumi.Output[Any]
    ray_cluster: k8s.apiextensions.CustomResource
    service: k8s.core.v1.Service

    def __init__(self, name: str, args: RayVllmServiceArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__("llm-serving:ray:RayVllmService", name, None, opts)
        m, plan = args.model, args.plan
        assert plan.layout is not None  # RayVllmServiceArgs checked it
        child = self.child_opts()
        pool_name = args.pool_name if args.pool_name is not None else m.pool
        cluster = resolve(
            lambda ns, pool, secret, key: build.ray_cluster(m, plan, ns, secret, pool, key),
            args.namespace,
            pool_name,
            args.hf_token_secret,
            args.api_key_secret,
        )
        awaits = awaiting.ray_cluster(plan, args.wait_for_ready)
        self.ray_cluster = k8s.apiextensions.CustomResource(
            f"{name}-raycluster",
            api_version=build.RAY_API_VERSION,
            kind="RayCluster",
            metadata=resolve(lambda md: awaiting.annotated(md, awaits.annotations), part(cluster, "metadata")),
            spec=part(cluster, "spec"),
            # The pods start after what the service was told to wait for (the operator, an S3 model's reader).
            opts=self.child_opts(depends_on=own_depends_on(opts), custom_timeouts=pulumi.CustomTimeouts(**awaits.timeouts)),
        )
        pdb = resolve(lambda ns: build.pod_disruption_budget(m, ns), args.namespace)
        self.pod_disruption_budget = k8s.policy.v1.PodDisruptionBudget(
            f"{name}-pdb", metadata=part(pdb, "metadata"), spec=part(pdb, "spec"), opts=child
        )
        svc = resolve(lambda ns: build.api_service(m, ns), args.namespace)
        self.service = k8s.core.v1.Service(f"{name}-service", metadata=part(svc, "metadata"), spec=part(svc, "spec"), opts=child)
        self.service_name = build.service_name(m)
        self.port = build.API_PORT
        self.namespace = pulumi.Output.from_input(args.namespace)
        self.url = self.namespace.apply(lambda ns: build.service_url(m, ns))
        self.model_name = pulumi.Output.from_input(m.name)
        self.pool_name = pulumi.Output.from_input(pool_name)
        self.queue_budget = pulumi.Output.from_input(plan.max_num_queued_reqs)
        self.register_outputs(
            {
                "url": self.url,
                "modelName": self.model_name,
                "namespace": self.namespace,
                "poolName": self.pool_name,
                "queueBudget": self.queue_budget,
                "rayClusterName": m.name,
                "serviceName": self.service_name,
                "port": self.port,
                "nodes": plan.layout.nodes,
                "kvCacheTokens": plan.memory.kv_cache_tokens,
            }
        )
