"""``GpuPool`` and ``ModelAutoscaling`` for every Pulumi language: a pool's GPU capacity and a model's scaling, alone.

Both take the pool and models as a stack file writes them (validated by the same config models,
components/hosted/convert.py ``parts_config``) and size them with the library's capacity plan; what
the library's components take as live objects becomes plain data or an Input: the cluster's name,
the node role's name, the namespace, the VPC, and (for ModelAutoscaling) the models whose metric
the cluster's Prometheus Adapter serves, e.g. an LlmPlatform's ``modelNames`` output.

No ``from __future__ import annotations`` here: the analyzer reads the annotations as types. Fields
the components share (``kubeconfig``, ``namespace``...) are written out in each Args class: the
analyzer takes a field's description only from its own class's source (``Analyzer.get_docstring``
parses ``inspect.getsource`` of that class), so a field inherited from a base TypedDict would have none.
"""

from pathlib import Path
from typing import Any, NotRequired, Optional, TypedDict, cast

import pulumi

from ..autoscaling import ModelAutoscaling as _ModelAutoscaling
from ..autoscaling import ModelAutoscalingArgs as _ModelAutoscalingArgs
from ..backends import serving_backend
from ..builders.autoscaling import in_flight_metric_name
from ..capacity.plan import plan_model, plan_stack
from ..capacity.pools import plan_pools
from ..cluster import own_depends_on
from ..config import ModelConfig as _ModelConfig
from ..errors import ConfigError, Problem
from ..gpu_pool import GpuPool as _GpuPool
from ..gpu_pool import GpuPoolArgs as _GpuPoolArgs
from .common import inner_opts, set_outputs
from .convert import library_args, parts_config
from .platform import PACKAGE
from .types import GpuPoolConfig, ModelConfig, MonitoringConfig, SecurityGroupSelectorConfig, SubnetSelectorConfig


class GpuPoolArgs(TypedDict):
    """The inputs of a GpuPool."""

    pool: GpuPoolConfig
    """The pool, as one entry of a stack file's llm-serving:gpuPools (camelCase). Validated by the library's config models: an error names pool.<path> and the rule."""
    models: NotRequired[list[ModelConfig]]
    """The models served on the pool (each model's pool is pool.name), as llm-serving:models entries: the capacity plan sizes the pool's warm buffer, its image pre-pull and its model caches (models with source localCache) from them. Default: none."""
    cluster_name: pulumi.Input[str]
    """EKS cluster name (required): the pool's subnets and security groups are discovered by its tag, and the default node role is named after it."""
    node_role: NotRequired[pulumi.Input[str]]
    """Name of the node IAM role. Default: KarpenterNodeRole-<clusterName>, the role Karpenter's getting-started guide creates."""
    node_labels: NotRequired[dict[str, str]]
    """Extra labels on the pool's nodes. Default: none."""
    namespace: NotRequired[pulumi.Input[str]]
    """Namespace of the pool's buffer and pre-pull objects (it must exist, e.g. an LlmPlatform's namespace output). Default llm."""
    subnets: NotRequired[SubnetSelectorConfig]
    """Subnets of the nodes, as a stack file's cluster.subnets. Default: tagged karpenter.sh/discovery=<clusterName>."""
    security_groups: NotRequired[SecurityGroupSelectorConfig]
    """Security groups of the nodes, as a stack file's cluster.securityGroups. Default: tagged karpenter.sh/discovery=<clusterName>."""
    efa_vpc_id: NotRequired[pulumi.Input[str]]
    """VPC of the cluster (vpc-...): when set, the pool gets its own EFA security group there (all traffic to and from itself), which its EC2NodeClass selects besides securityGroups; the cluster security group is never edited. Needs an aws provider (the providers resource option, or the program's default). Default: none (no EFA group)."""
    cache_credentials: NotRequired[bool]
    """The model caches name each model's ServiceAccount in KServe's job namespace (which must hold it and the Hugging Face Secret, as LlmPlatform creates them), so the download jobs get HF_TOKEN. Default false (public models)."""
    base_dir: NotRequired[str]
    """The folder a model's architecture.configPath is relative to. Default: the program's working directory."""
    kubeconfig: NotRequired[pulumi.Input[str]]
    """A kubeconfig of the cluster (a secret; e.g. an LlmPlatform's kubeconfig output): the component makes its own Kubernetes provider <name>-k8s from it. Default: the kubernetes provider of the component's providers resource option."""


class GpuPool(pulumi.ComponentResource):
    """One Karpenter GPU pool: its EC2NodeClass and NodePool (GPU limit, disruption budget and drain from the capacity plan), its warm GPU buffer when it has one, the pre-pull of its models' vLLM images, KServe model caches on its NVMe, and its EFA security group when asked."""

    pool_name: pulumi.Output[str]
    """The NodePool's name, which the pool's models select (a VllmService's poolName)."""
    gpu_limit: pulumi.Output[int]
    """GPUs the pool may launch in total."""
    buffer_gpus: pulumi.Output[int]
    """GPUs kept warm for the next scale-out (0 without a buffer)."""

    SECRET_INPUTS = ("kubeconfig",)

    def __init__(self, name: str, args: GpuPoolArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(f"{PACKAGE}:index:GpuPool", name, {}, opts)
        cfg = parts_config(
            pools=[("pool", args.get("pool"))],
            models=[(f"models[{i}]", m) for i, m in enumerate(args.get("models") or [])],
            cluster={
                "subnets": ("subnets", args.get("subnets")),
                "securityGroups": ("securityGroups", args.get("security_groups")),
            },
        )
        pool = cfg.gpu_pools[0]
        base_dir = Path(args.get("base_dir") or ".")
        plans = plan_stack(cfg, base_dir)
        plan = plan_pools(cfg.gpu_pools, cfg.models, plans)[pool.name]
        waits = own_depends_on(opts)
        extra: dict[str, Any] = {"namespace": args["namespace"]} if args.get("namespace") is not None else {}
        if args.get("node_labels"):
            extra["node_labels"] = dict(args["node_labels"])
        gpu_pool = _GpuPool(
            name,
            library_args(
                _GpuPoolArgs,
                pool=pool,
                plan=plan,
                cluster_name=args.get("cluster_name"),
                node_role=args.get("node_role"),
                cache_models=tuple((m, plans[m.name].model.checkpoint_gib) for m in cfg.models if m.source.type == "localCache"),
                cache_credentials=bool(args.get("cache_credentials", False)),
                cache_depends_on=waits,
                depends_on=waits,
                network_depends_on=waits,
                subnets=cfg.cluster.subnets,
                security_groups=cfg.cluster.security_groups,
                efa_vpc_id=args.get("efa_vpc_id"),
                **extra,
            ),
            opts=inner_opts(self, name, args.get("kubeconfig"), opts),
        )
        self.pool = gpu_pool
        set_outputs(self, {"pool_name": gpu_pool.pool_name, "gpu_limit": gpu_pool.gpu_limit, "buffer_gpus": plan.buffer_gpus})


class ModelAutoscalingArgs(TypedDict):
    """The inputs of a ModelAutoscaling."""

    model: ModelConfig
    """The model, as one entry of a stack file's llm-serving:models (camelCase); its autoscaling and replicas say how it scales. Validated by the library's config models: an error names model.<path> and the rule."""
    gpu_pool: GpuPoolConfig
    """The GPU pool the model runs on, as one entry of llm-serving:gpuPools (its name is model.pool): the capacity plan's per-pod target of requests in flight comes from the model on this pool's GPU. Validated like model (gpuPool.<path>)."""
    namespace: pulumi.Input[str]
    """Namespace of the model's InferenceService (required; e.g. a VllmService's namespace output)."""
    monitoring: NotRequired[MonitoringConfig]
    """Where metrics live, as a stack file's llm-serving:monitoring (Prometheus URL, the labels its monitors carry, alert thresholds). Default: kube-prometheus-stack in monitoring."""
    metrics_models: NotRequired[pulumi.Input[list[str]]]
    """The models whose in-flight metric (vllm_requests_in_flight_<model>) the cluster's Prometheus Adapter serves: an LlmPlatform's modelNames output (its metrics stack serves every model of the platform), or the models of your own adapter's rules. With autoscaling.backend prometheus-adapter the model must be one of them, or its HPA would never scale. Default: none."""
    base_dir: NotRequired[str]
    """The folder model.architecture.configPath is relative to. Default: the program's working directory."""
    kubeconfig: NotRequired[pulumi.Input[str]]
    """A kubeconfig of the cluster (a secret; e.g. an LlmPlatform's kubeconfig output): the component makes its own Kubernetes provider <name>-k8s from it. Default: the kubernetes provider of the component's providers resource option."""


class ModelAutoscaling(pulumi.ComponentResource):
    """One model's autoscaling on serving load: an autoscaling/v2 HPA on vLLM's requests in flight per pod (or a KEDA ScaledObject), its PodMonitor and its PrometheusRule alerts, each sized by the capacity plan. A model the library does not autoscale (one multi-node engine) gets the monitor and alerts only."""

    hpa_target: pulumi.Output[int]
    """In-flight requests per pod the autoscaler holds."""
    autoscaler_name: pulumi.Output[Optional[str]]
    """The HPA's (or ScaledObject's) name; absent when the model is not autoscaled."""
    backend: pulumi.Output[Optional[str]]
    """The autoscaling back-end (prometheus-adapter or keda); absent when the model is not autoscaled."""

    SECRET_INPUTS = ("kubeconfig",)

    def __init__(self, name: str, args: ModelAutoscalingArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(f"{PACKAGE}:index:ModelAutoscaling", name, {}, opts)
        cfg = parts_config(
            pools=[("gpuPool", args.get("gpu_pool"))],
            models=[("model", args.get("model"))],
            sections={"monitoring": ("monitoring", args.get("monitoring"))},
        )
        m = cfg.models[0]
        plan = plan_model(m, cfg.gpu_pools[0], "model", Path(args.get("base_dir") or "."))
        served = _metric_served(m, args.get("metrics_models"))
        scaling = _ModelAutoscaling(
            name,
            library_args(
                _ModelAutoscalingArgs,
                model=m,
                plan=plan,
                namespace=args.get("namespace"),
                monitoring=cfg.monitoring,
                # Checked above (or once metricsModels resolves), by this component's argument names.
                metric_served_elsewhere=True,
            ),
            opts=inner_opts(self, name, args.get("kubeconfig"), opts),
        )
        self.scaling = scaling
        scaled = scaling.scaler is not None
        set_outputs(
            self,
            {
                "hpa_target": pulumi.Output.all(scaling.hpa_target, served).apply(lambda values: values[0]),
                "autoscaler_name": scaling.autoscaler_name,
                "backend": m.autoscaling.backend if scaled else None,
            },
        )


def _metric_served(m: _ModelConfig, served: Optional[pulumi.Input[list[str]]]) -> pulumi.Output[bool]:
    """True once ``served`` (metricsModels) is known to include ``m`` where its HPA needs the adapter; a ConfigError otherwise.

    A plain list (or none) is checked now; an Output (another resource's modelNames) when it
    resolves, which fails the deployment with the same message before the HPA is relied on.
    """
    needs = serving_backend(m).scale_target(m) is not None and m.autoscaling.backend == "prometheus-adapter"

    def check(names: Optional[list[str]]) -> bool:
        if not needs or (names is not None and m.name in names):
            return True
        metric = in_flight_metric_name(m.name)
        if names is None:
            problem = Problem(
                "metricsModels",
                f"model {m.name!r} scales on the Pods metric {metric} (autoscaling.backend prometheus-adapter), which no "
                "adapter is said to serve, so its HPA would never scale: pass the models the cluster's Prometheus "
                "Adapter serves (an LlmPlatform's modelNames output), or set autoscaling.backend: keda",
                has_value=False,
            )
        else:
            problem = Problem(
                "metricsModels",
                f"does not include model {m.name!r}, whose HPA scales on the Pods metric {metric}: it would never scale",
                list(names),
            )
        raise ConfigError([problem])

    if served is None or isinstance(served, list):
        return pulumi.Output.from_input(check(served))
    return pulumi.Output.from_input(cast(Any, served)).apply(check)


__all__ = ["GpuPool", "GpuPoolArgs", "ModelAutoscaling", "ModelAutoscalingArgs"]
