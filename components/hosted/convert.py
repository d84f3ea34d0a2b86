"""The hosted components' args (components/hosted/types.py shapes, Python field names) back into the
config models, validated by the same code as a stack file (components.config.load_stack_config).

Pure: pydantic only. Errors are ConfigErrors whose paths start at the component's argument
(``config.models[0].engine.maxModelLen``), in the stack file's camelCase names.
"""

from __future__ import annotations

import enum
import types
import typing
from typing import Any, Mapping

from pydantic import BaseModel

from ..config import StackConfig, load_stack_config
from ..config.base import PROJECT
from ..errors import ConfigError, Problem
from ..secrets import MARKER


def _unwrap(annotation: Any) -> Any:
    """``annotation`` without Annotated[...] and Optional[...] around it."""
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
            if len(args) != 1:
                return annotation
            annotation = args[0]
        else:
            return annotation


def by_alias(value: Any, annotation: Any) -> Any:
    """``value`` shaped for the config model ``annotation`` describes: mappings' Python field names turned into
    the models' aliases, enums into their values, whole numbers into ints where the field is an int.

    The engine sends every number as a float (4 -> 4.0); the models' ints are strict, so a whole
    float becomes an int here and any other value is left for the model to refuse by name. Keys a
    model does not know are kept as given, so the model refuses them too.
    """
    annotation = _unwrap(annotation)
    origin = typing.get_origin(annotation)
    if isinstance(value, enum.Enum):
        return value.value
    if annotation is int and isinstance(value, float) and value.is_integer():
        return int(value)
    if origin in (tuple, list) and isinstance(value, (list, tuple)):
        items = [a for a in typing.get_args(annotation) if a is not Ellipsis]
        return [by_alias(v, items[0] if items else Any) for v in value]
    if origin is dict and isinstance(value, Mapping):
        return {k: by_alias(v, typing.get_args(annotation)[1]) for k, v in value.items()}
    if isinstance(annotation, type) and issubclass(annotation, BaseModel) and isinstance(value, Mapping):
        fields = annotation.model_fields
        out = {}
        for key, item in value.items():
            info = fields.get(key)
            out[(info.alias or key) if info else key] = by_alias(item, info.annotation if info else Any)
        return out
    return value


def stack_config(config: Mapping[str, Any], *, has_hf_token: bool, has_api_key: bool) -> StackConfig:
    """Validate a hosted component's ``config`` argument as a stack file's config; ConfigError naming ``config.<path>``."""
    if not isinstance(config, Mapping):
        raise ConfigError([Problem("config", "must be an object (a StackConfig)", config)])
    data = by_alias(config, StackConfig)
    raw: dict[str, Any] = {}
    for key, value in data.items():
        raw["aws:region" if key == "region" else f"{PROJECT}:{key}"] = value
    # The secrets' values never enter the config: as in a stack file, a marker says the key is set.
    if has_hf_token:
        raw[f"{PROJECT}:hfToken"] = dict(MARKER)
    if has_api_key:
        raw[f"{PROJECT}:apiKey"] = dict(MARKER)
    try:
        return load_stack_config(raw)
    except ConfigError as exc:
        raise ConfigError([_under_config(p) for p in exc.problems]) from None


def _under_config(problem: Problem) -> Problem:
    path = str(problem.path)
    if path == "aws:region":
        path = "region"
    elif path.startswith(f"{PROJECT}:"):
        path = path[len(PROJECT) + 1 :]
    return Problem(f"config.{path}" if path else "config", problem.rule, problem.value, has_value=problem.has_value)


__all__ = ["by_alias", "stack_config"]
