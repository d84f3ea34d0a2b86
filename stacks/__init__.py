"""Stack files (Pulumi.<env>.yaml), the `python -m stacks plan|size` tools, and the offline engine.

``plan_program`` (stacks/program_plan.py) plans and policy-checks any Pulumi program offline;
installed, this package is ``llm_serving_plan``. Loaded on first use, so ``python -m stacks``
imports nothing it does not need.
"""

from typing import Any

__all__ = ["ProgramPlan", "plan_program"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import program_plan

        return getattr(program_plan, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
