"""llm-serving: typed Pulumi components that serve vLLM on EKS without OOMs and without 504s.

Installed (``pip install .`` or ``pip install git+<this repository>``) the package is
``llm_serving``; inside this repository the same folder is ``components``. Both names give the
same modules (``_alias.py``)::

    from llm_serving import VllmService, VllmServiceArgs, ModelConfig, GpuPoolConfig

The config models, the capacity plan (``.capacity``) and the builders (``.builders``) are pure
and import no Pulumi; the component classes load on first use, so that pure users (the policy
pack, ``python -m stacks size``) do not pay for the Pulumi SDK. Type checkers and IDEs see every
export through the ``TYPE_CHECKING`` imports below.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from . import _alias

_alias.install(__name__)

if TYPE_CHECKING:
    from .addons import ClusterAddons, ClusterAddonsArgs
    from .autoscaling import MetricsStack, MetricsStackArgs, ModelAutoscaling, ModelAutoscalingArgs
    from .backends import RouteTarget, ServeRequest, ServingBackend, serving_backend
    from .capacity.plan import ServingPlan, plan_model, plan_stack
    from .cluster import KubernetesComponent
    from .config import EngineConfig, GpuPoolConfig, ModelConfig, StackConfig, load_stack_config
    from .deploy_order import DeployOrder
    from .errors import ConfigError, Problem
    from .gpu_pool import GpuPool, GpuPoolArgs
    from .ingress import (
        AwsLoadBalancerController,
        AwsLoadBalancerControllerArgs,
        IstioIngress,
        IstioIngressArgs,
        LlmIngress,
        LlmIngressArgs,
    )
    from .karpenter import Karpenter, KarpenterArgs
    from .kuberay import KubeRay, KubeRayArgs, RayVllmService, RayVllmServiceArgs
    from .model_source import S3ModelReader, S3ModelReaderArgs
    from .platform import LlmPlatform, LlmPlatformArgs
    from .timeouts import TimeoutChain, timeout_chain
    from .vllm_service import VllmService, VllmServiceArgs

# Public name -> the submodule defining it (relative to this package).
_EXPORTS = {
    "ConfigError": "errors",
    "Problem": "errors",
    "StackConfig": "config",
    "ModelConfig": "config",
    "GpuPoolConfig": "config",
    "EngineConfig": "config",
    "load_stack_config": "config",
    "ServingPlan": "capacity.plan",
    "plan_model": "capacity.plan",
    "plan_stack": "capacity.plan",
    "LlmPlatform": "platform",
    "LlmPlatformArgs": "platform",
    "VllmService": "vllm_service",
    "VllmServiceArgs": "vllm_service",
    "MetricsStack": "autoscaling",
    "MetricsStackArgs": "autoscaling",
    "ModelAutoscaling": "autoscaling",
    "ModelAutoscalingArgs": "autoscaling",
    "GpuPool": "gpu_pool",
    "GpuPoolArgs": "gpu_pool",
    "KubernetesComponent": "cluster",
    "DeployOrder": "deploy_order",
    "LlmIngress": "ingress",
    "LlmIngressArgs": "ingress",
    "AwsLoadBalancerController": "ingress",
    "AwsLoadBalancerControllerArgs": "ingress",
    "IstioIngress": "ingress",
    "IstioIngressArgs": "ingress",
    "TimeoutChain": "timeouts",
    "timeout_chain": "timeouts",
    "Karpenter": "karpenter",
    "KarpenterArgs": "karpenter",
    "ClusterAddons": "addons",
    "ClusterAddonsArgs": "addons",
    "S3ModelReader": "model_source",
    "S3ModelReaderArgs": "model_source",
    "KubeRay": "kuberay",
    "KubeRayArgs": "kuberay",
    "RayVllmService": "kuberay",
    "RayVllmServiceArgs": "kuberay",
    # The serving back-end interface (docs/design.md); ``backends.register`` adds one.
    "ServingBackend": "backends",
    "ServeRequest": "backends",
    "RouteTarget": "backends",
    "serving_backend": "backends",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    """Load an export on first use (PEP 562), so that importing the package stays light."""
    if name in _EXPORTS:
        value = getattr(import_module(f"{__name__}.{_EXPORTS[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
