"""``load_stack_config``: a stack file's ``config:`` mapping in, a valid frozen StackConfig out, or every problem.

The stages, each its own module: key routing (routing.py), the scan for credentials, control
characters and inexact numbers (scan.py), the per-field rules of the models (base.py ... stack.py)
with pydantic's errors translated (pydantic_errors.py), the long-context siblings inserted, then
the rules that relate objects (cross_checks.py).

Pure: pydantic, no Pulumi.
"""

from __future__ import annotations

from typing import Any, Mapping

from pydantic import ValidationError

from ..errors import ConfigError, Problem
from .cross_checks import cross_checks
from .models import ModelConfig
from .pydantic_errors import problems_from
from .routing import route_keys
from .scan import is_under, text_problems
from .stack import StackConfig


def load_stack_config(raw: Mapping[str, Any]) -> StackConfig:
    """Validate the ``config:`` mapping of a stack file (namespaced keys) into a StackConfig.

    Raises ConfigError listing every problem; never returns a half-valid object.
    """
    if not isinstance(raw, Mapping):
        raise ConfigError([Problem("config", "must be a mapping of namespaced keys", raw)])
    data, problems = route_keys(raw)
    scanned, refused = text_problems(raw)
    problems.extend(scanned)
    try:
        cfg = StackConfig.model_validate(data)
    except ValidationError as exc:
        # A field already refused for a token or a control character is not reported twice.
        problems.extend(p for p in problems_from(exc, data) if not any(is_under(p.path, r) for r in refused))
        raise ConfigError(problems) from None
    if problems:
        raise ConfigError(problems)
    cfg = _with_siblings(cfg)
    cross = cross_checks(cfg)
    if cross:
        raise ConfigError(cross)
    return cfg


def _with_siblings(cfg: StackConfig) -> StackConfig:
    """The stack with each model's long-context sibling as a model of its own, right after it.

    Every later stage (capacity plan, pools, services, autoscaling, routes, report) then sizes and
    renders the sibling like any model; ``StackConfig.sibling_of`` tells routes which is which.
    """
    models: list[ModelConfig] = []
    for m in cfg.models:
        models.append(m)
        sibling = m.long_sibling()
        if sibling is not None:
            models.append(sibling)
    return cfg if len(models) == len(cfg.models) else cfg.model_copy(update={"models": tuple(models)})
