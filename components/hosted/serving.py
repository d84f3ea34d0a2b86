"""``VllmService`` and ``RayVllmService`` for every Pulumi language: one model, served alone.

Each takes the model and its GPU pool as a stack file writes them (validated by the same config
models, components/hosted/convert.py ``parts_config``), the namespace and Secrets' names as Inputs
(an LlmPlatform's outputs, or names of your own), and sizes the model with the library's capacity
plan (``plan_model``), as the library's ``VllmService`` does without a plan. The cluster comes from
the ``providers`` resource option or a ``kubeconfig`` input (components/hosted/common.py).

No ``from __future__ import annotations`` here: the analyzer reads the annotations as types. Fields
the components share (``kubeconfig``, ``namespace``...) are written out in each Args class: the
analyzer takes a field's description only from its own class's source (``Analyzer.get_docstring``
parses ``inspect.getsource`` of that class), so a field inherited from a base TypedDict would have none.
"""

from pathlib import Path
from typing import NotRequired, Optional, TypedDict

import pulumi

from ..capacity.plan import plan_model
from ..config import KubeRayConfig as _KubeRayConfig
from ..kuberay import KubeRay as _KubeRay
from ..kuberay import KubeRayArgs as _KubeRayArgs
from ..kuberay import RayVllmService as _RayVllmService
from ..kuberay import RayVllmServiceArgs as _RayVllmServiceArgs
from ..vllm_service import VllmService as _VllmService
from ..vllm_service import VllmServiceArgs as _VllmServiceArgs
from .common import inner_opts, set_outputs
from .convert import library_args, parts_config, validated
from .platform import PACKAGE
from .types import GpuPoolConfig, KubeRayConfig, ModelConfig


class VllmServiceArgs(TypedDict):
    """The inputs of a VllmService."""

    model: ModelConfig
    """The model, as one entry of a stack file's llm-serving:models (camelCase). Validated by the library's config models: an error names model.<path> and the rule."""
    gpu_pool: GpuPoolConfig
    """The GPU pool the model runs on, as one entry of llm-serving:gpuPools (its name is model.pool): its instance types decide the GPU the capacity plan sizes the model for. Validated like model (gpuPool.<path>)."""
    namespace: pulumi.Input[str]
    """Namespace of the InferenceService (required; it must exist, e.g. an LlmPlatform's namespace output)."""
    pool_name: NotRequired[pulumi.Input[str]]
    """Karpenter NodePool the pods select (e.g. a GpuPool's poolName output). Default: model.pool."""
    hf_token_secret: NotRequired[pulumi.Input[str]]
    """Name of the Kubernetes Secret with key HF_TOKEN (e.g. an LlmPlatform's hfTokenSecret output), never the token: the model's ServiceAccount lists it for KServe's storage initializer and the pod reads it as HF_TOKEN. Default: none (public model)."""
    api_key_secret: NotRequired[pulumi.Input[str]]
    """Name of the Kubernetes Secret with key 'key' holding the API key vLLM requires on /v1 (VLLM_API_KEY; e.g. an LlmPlatform's apiKeySecret output). Default: none (no key)."""
    wait_for_ready: NotRequired[bool]
    """`pulumi up` waits until the model serves (its readiness condition, within a timeout from its startup budget); false returns once the object is accepted. Default true."""
    kserve_cpu_limit_cleared: NotRequired[bool]
    """True when the cluster's KServe sets no default CPU limit (inferenceservice-config resource.cpuLimit empty, as LlmPlatform's kserve release does): the vLLM container then has no CPU limit. Default false: its CPU limit equals its CPU request."""
    base_dir: NotRequired[str]
    """The folder model.architecture.configPath is relative to. Default: the program's working directory."""
    kubeconfig: NotRequired[pulumi.Input[str]]
    """A kubeconfig of the cluster (a secret; e.g. an LlmPlatform's kubeconfig output): the component makes its own Kubernetes provider <name>-k8s from it. Default: the kubernetes provider of the component's providers resource option."""


class VllmService(pulumi.ComponentResource):
    """One model served by vLLM under KServe: an InferenceService (Standard mode) running `vllm serve` with the engine flags, probes, drain and resources of the model's capacity plan, its ServiceAccount (when KServe's storage initializer needs one) and its PodDisruptionBudget."""

    url: pulumi.Output[str]
    """In-cluster URL of the model's OpenAI-compatible API."""
    model_name: pulumi.Output[str]
    """The served model's name."""
    namespace: pulumi.Output[str]
    """The namespace the model is served in."""
    pool_name: pulumi.Output[str]
    """The Karpenter NodePool the pods select."""
    queue_budget: pulumi.Output[Optional[int]]
    """Requests vLLM admits beyond maxNumSeqs (--max-num-queued-reqs is maxNumSeqs + it); absent when the model has no budget."""
    hpa_target: pulumi.Output[int]
    """In-flight requests per pod the autoscaler holds (a ModelAutoscaling's target)."""
    deployment_name: pulumi.Output[str]
    """The predictor Deployment KServe creates (what an autoscaler scales)."""
    kv_cache_tokens: pulumi.Output[int]
    """KV cache tokens of one replica, from the capacity plan."""

    SECRET_INPUTS = ("kubeconfig",)

    def __init__(self, name: str, args: VllmServiceArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(f"{PACKAGE}:index:VllmService", name, {}, opts)
        cfg = parts_config(pools=[("gpuPool", args.get("gpu_pool"))], models=[("model", args.get("model"))])
        base_dir = Path(args.get("base_dir") or ".")
        service = _VllmService(
            name,
            library_args(
                _VllmServiceArgs,
                model=cfg.models[0],
                gpu_pool=cfg.gpu_pools[0],
                namespace=args.get("namespace"),
                pool_name=args.get("pool_name"),
                hf_token_secret=args.get("hf_token_secret"),
                api_key_secret=args.get("api_key_secret"),
                wait_for_ready=args.get("wait_for_ready", True),
                kserve_cpu_limit_cleared=args.get("kserve_cpu_limit_cleared", False),
                base_dir=base_dir,
            ),
            opts=inner_opts(self, name, args.get("kubeconfig"), opts),
        )
        self.service = service
        set_outputs(
            self,
            {
                "url": service.url,
                "model_name": service.model_name,
                "namespace": service.namespace,
                "pool_name": service.pool_name,
                "queue_budget": service.queue_budget,
                "hpa_target": service.hpa_target,
                "deployment_name": service.deployment_name,
                "kv_cache_tokens": service.plan.memory.kv_cache_tokens,
            },
        )


class RayVllmServiceArgs(TypedDict):
    """The inputs of a RayVllmService."""

    model: ModelConfig
    """The model, as one entry of a stack file's llm-serving:models with distributed set (one vLLM engine over several nodes). Validated by the library's config models: an error names model.<path> and the rule."""
    gpu_pool: GpuPoolConfig
    """The GPU pool the model's nodes come from, as one entry of llm-serving:gpuPools (its name is model.pool): the capacity plan lays the engine's tensor x pipeline parallel ranks over its nodes. Validated like model (gpuPool.<path>)."""
    namespace: pulumi.Input[str]
    """Namespace of the RayCluster and its Service (required; it must exist, e.g. an LlmPlatform's namespace output)."""
    pool_name: NotRequired[pulumi.Input[str]]
    """Karpenter NodePool every Ray pod selects (e.g. a GpuPool's poolName output). Default: model.pool."""
    hf_token_secret: NotRequired[pulumi.Input[str]]
    """Name of the Kubernetes Secret with key HF_TOKEN (e.g. an LlmPlatform's hfTokenSecret output), never the token. Default: none (public model)."""
    api_key_secret: NotRequired[pulumi.Input[str]]
    """Name of the Kubernetes Secret with key 'key' holding the API key the head's vLLM requires on /v1 (VLLM_API_KEY). Default: none (no key)."""
    wait_for_ready: NotRequired[bool]
    """`pulumi up` waits until the model serves (its readiness condition, within a timeout from its startup budget); false returns once the object is accepted. Default true."""
    base_dir: NotRequired[str]
    """The folder model.architecture.configPath is relative to. Default: the program's working directory."""
    kubeconfig: NotRequired[pulumi.Input[str]]
    """A kubeconfig of the cluster (a secret; e.g. an LlmPlatform's kubeconfig output): the component makes its own Kubernetes provider <name>-k8s from it. Default: the kubernetes provider of the component's providers resource option."""


class RayVllmService(pulumi.ComponentResource):
    """One vLLM engine over several nodes (the KubeRay cluster of a model too large for one node): a RayCluster sized by the capacity plan's layout, its PodDisruptionBudget and the Service of its head's API. It has no autoscaler (one fixed-size cluster). The KubeRay operator must run in the cluster (LlmPlatform installs it when a model needs it)."""

    url: pulumi.Output[str]
    """In-cluster URL of the head's OpenAI-compatible API."""
    model_name: pulumi.Output[str]
    """The served model's name."""
    namespace: pulumi.Output[str]
    """The namespace the model is served in."""
    pool_name: pulumi.Output[str]
    """The Karpenter NodePool the Ray pods select."""
    queue_budget: pulumi.Output[Optional[int]]
    """Requests vLLM admits beyond maxNumSeqs; absent when the model has no budget."""
    ray_cluster_name: pulumi.Output[str]
    """The RayCluster's name."""
    service_name: pulumi.Output[str]
    """The Service of the head's API."""
    port: pulumi.Output[int]
    """The port of that Service."""
    nodes: pulumi.Output[int]
    """Nodes (Ray pods with GPUs) the engine spans."""
    kv_cache_tokens: pulumi.Output[int]
    """KV cache tokens of the engine, from the capacity plan."""

    SECRET_INPUTS = ("kubeconfig",)

    def __init__(self, name: str, args: RayVllmServiceArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(f"{PACKAGE}:index:RayVllmService", name, {}, opts)
        cfg = parts_config(pools=[("gpuPool", args.get("gpu_pool"))], models=[("model", args.get("model"))])
        model = cfg.models[0]
        plan = plan_model(model, cfg.gpu_pools[0], "model", Path(args.get("base_dir") or "."))
        service = _RayVllmService(
            name,
            library_args(
                _RayVllmServiceArgs,
                model=model,
                plan=plan,
                namespace=args.get("namespace"),
                pool_name=args.get("pool_name"),
                hf_token_secret=args.get("hf_token_secret"),
                api_key_secret=args.get("api_key_secret"),
                wait_for_ready=args.get("wait_for_ready", True),
            ),
            opts=inner_opts(self, name, args.get("kubeconfig"), opts),
        )
        self.service = service
        assert plan.layout is not None  # RayVllmServiceArgs refused a model that is not distributed
        set_outputs(
            self,
            {
                "url": service.url,
                "model_name": service.model_name,
                "namespace": service.namespace,
                "pool_name": service.pool_name,
                "queue_budget": service.queue_budget,
                "ray_cluster_name": model.name,
                "service_name": service.service_name,
                "port": service.port,
                "nodes": plan.layout.nodes,
                "kv_cache_tokens": plan.memory.kv_cache_tokens,
            },
        )


class KubeRayArgs(TypedDict):
    """The inputs of a KubeRay operator."""

    config: NotRequired[KubeRayConfig]
    """The operator's settings, as a stack file's llm-serving:kuberay (install, namespace). Validated by the library's config models: an error names config.<path>. Default: install it in kuberay-system."""
    kubeconfig: NotRequired[pulumi.Input[str]]
    """A kubeconfig of the cluster (a secret; e.g. an LlmPlatform's kubeconfig output): the component makes its own Kubernetes provider <name>-k8s from it. Default: the kubernetes provider of the component's providers resource option."""


class KubeRay(pulumi.ComponentResource):
    """The KubeRay operator a RayVllmService needs: its CRDs (owned by Pulumi, retained on delete) and its pinned Helm release, unless config.install is false (the cluster already runs one)."""

    operator_namespace: pulumi.Output[str]
    """The operator's namespace."""
    installed: pulumi.Output[bool]
    """Whether this component installed the operator."""

    SECRET_INPUTS = ("kubeconfig",)

    def __init__(self, name: str, args: KubeRayArgs, opts: Optional[pulumi.ResourceOptions] = None):
        super().__init__(f"{PACKAGE}:index:KubeRay", name, {}, opts)
        config = validated(_KubeRayConfig, args.get("config") or {}, "config")
        self.operator = _KubeRay(name, _KubeRayArgs(config=config), opts=inner_opts(self, name, args.get("kubeconfig"), opts))
        set_outputs(self, {"operator_namespace": config.namespace, "installed": config.install})


__all__ = ["KubeRay", "KubeRayArgs", "RayVllmService", "RayVllmServiceArgs", "VllmService", "VllmServiceArgs"]
