"""llm-serving: typed Pulumi components that serve vLLM on EKS without OOMs and without 504s.

Import the components from here in your own Pulumi programs::

    from components import LlmPlatform, LlmPlatformArgs, VllmService, VllmServiceArgs, load_stack_config

The capacity plan (``components.capacity``) and the builders (``components.builders``) are pure
and import no Pulumi; the component classes are loaded on first use so that pure users (the
policy pack, ``python -m stacks size``) do not pay for the Pulumi SDK.
"""

from importlib import import_module
from typing import Any

_EXPORTS = {
    "ConfigError": "components.errors",
    "StackConfig": "components.config",
    "load_stack_config": "components.config",
    "LlmPlatform": "components.platform",
    "LlmPlatformArgs": "components.platform",
    "VllmService": "components.vllm_service",
    "VllmServiceArgs": "components.vllm_service",
    "KubeRay": "components.kuberay",
    "KubeRayArgs": "components.kuberay",
    "RayVllmService": "components.kuberay",
    "RayVllmServiceArgs": "components.kuberay",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'components' has no attribute {name!r}")
