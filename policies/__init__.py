"""llm-serving's CrossGuard policy pack: pure checks for vLLM on Kubernetes.

`evaluate(resources, config)` runs every registered policy on `Resource`s (type token, name,
engine-shaped inputs) and returns sorted `Violation`s; the offline plan and the tests use it.
`policies/__main__.py` wraps the same policies for `pulumi preview --policy-pack policies`.

The names below load the pack on first use (PEP 562), not when the package is imported: `python -m
policies check` imports the package before its __main__ runs, and loads the pack itself, with the
cyclic garbage collector paused while it does (policies/__main__.py says why).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from policies.framework import Resource, Violation
    from policies.registry import POLICIES, evaluate, validate_config

__all__ = ["POLICIES", "Resource", "Violation", "evaluate", "validate_config"]

_EXPORTS = {
    "POLICIES": "policies.registry",
    "evaluate": "policies.registry",
    "validate_config": "policies.registry",
    "Resource": "policies.framework",
    "Violation": "policies.framework",
}


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(_EXPORTS[name]), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
