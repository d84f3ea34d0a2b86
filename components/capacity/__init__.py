"""Pure capacity planning: model and GPU catalogues, vLLM's memory model, derived settings.

Nothing here imports Pulumi, so other tools (the policy pack, `python -m stacks size`) use it too.
"""

from ..capacity.architecture import Architecture, parse_config
from ..capacity.memory import EngineArgs, Gpu, MemoryPlan, plan_memory

__all__ = ["Architecture", "EngineArgs", "Gpu", "MemoryPlan", "parse_config", "plan_memory"]
