"""llm-serving's CrossGuard policy pack: pure checks for vLLM on Kubernetes.

`evaluate(resources, config)` runs every registered policy on `Resource`s (type token, name,
engine-shaped inputs) and returns sorted `Violation`s; the offline plan and the tests use it.
`policies/__main__.py` wraps the same policies for `pulumi preview --policy-pack policies`.
"""

from policies.framework import Resource, Violation
from policies.registry import POLICIES, evaluate, validate_config

__all__ = ["POLICIES", "Resource", "Violation", "evaluate", "validate_config"]
