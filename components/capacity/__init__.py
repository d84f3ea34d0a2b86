"""Pure capacity planning: the model catalogue, vLLM's memory model, the multi-node layout, derived settings.

It reads the config it plans (components/config/), the GPU and instance records (components/hardware.py) and the
declared traffic (components/traffic/), all below it; nothing below imports it back (pyproject.toml library-layers).

Nothing here imports Pulumi, so other tools (the policy pack, `python -m stacks size`) use it too.
"""

from ..capacity.architecture import Architecture, parse_config
from ..capacity.memory import EngineArgs, Gpu, MemoryPlan, plan_memory

__all__ = ["Architecture", "EngineArgs", "Gpu", "MemoryPlan", "parse_config", "plan_memory"]
