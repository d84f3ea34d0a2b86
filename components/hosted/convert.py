"""The hosted components' args (components/hosted/types.py shapes, Python field names) back into the
config models, validated by the same code as a stack file (components.config.load_stack_config).

Pure: pydantic only. Errors are ConfigErrors whose paths start at the component's argument
(``config.models[0].engine.maxModelLen``), in the stack file's camelCase names.
"""

from __future__ import annotations

import enum
import types
import typing
from typing import Any, Mapping, Optional, Sequence

from pydantic import BaseModel, ValidationError

from ..config import ClusterConfig, GpuPoolConfig, ModelConfig, StackConfig, load_stack_config
from ..config.base import PROJECT
from ..errors import ConfigError, Problem, format_path
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


# The cluster a component's parts are validated in: only its name is read (the parts' cross-checks name no cluster).
PARTS_CLUSTER = "hosted-component"


def parts_config(
    *,
    pools: Sequence[tuple[str, Any]] = (),
    models: Sequence[tuple[str, Any]] = (),
    sections: Optional[Mapping[str, tuple[str, Any]]] = None,
    cluster: Optional[Mapping[str, tuple[str, Any]]] = None,
) -> StackConfig:
    """A hosted component's config-shaped arguments (``(argument path, value)`` each), validated as a stack file of them alone.

    The same code as a stack file's (``load_stack_config``: every field's rule, the scan for clear-text
    tokens, the cross-checks such as a model's pool being a listed pool), so a component used alone
    accepts and refuses what the platform does. Problems name the component's argument
    (``model.engine.maxModelLen``, ``models[1].pool``) instead of the stack file's key.
    """
    raw: dict[str, Any] = {f"{PROJECT}:cluster": {"name": PARTS_CLUSTER}}
    where: dict[str, str] = {}
    # Fields of the cluster entry (``subnets``: (argument path, value)), as a stack file's cluster holds them.
    for key, (path, value) in (cluster or {}).items():
        if value is not None:
            raw[f"{PROJECT}:cluster"][key] = by_alias(value, ClusterConfig.model_fields[_snake(key)].annotation)
            where[f"cluster.{key}"] = path
    shapes: list[tuple[str, str, Sequence[tuple[str, Any]], type[BaseModel]]] = [
        ("gpuPools", f"{PROJECT}:gpuPools", pools, GpuPoolConfig),
        ("models", f"{PROJECT}:models", models, ModelConfig),
    ]
    problems: list[Problem] = []
    for key, stack_key, parts, model in shapes:
        items = []
        for i, (path, value) in enumerate(parts):
            if not isinstance(value, Mapping):
                problems.append(Problem(path, f"must be an object (a {model.__name__})", value))
            where[f"{key}[{i}]"] = path
            items.append(by_alias(value, model))
        raw[stack_key] = items
    # Other top-level keys (``monitoring``, ``kuberay``: (argument path, value)), as a stack file holds them.
    for key, (path, value) in (sections or {}).items():
        if value is None:
            continue
        section = _model_of(StackConfig.model_fields[_snake(key)].annotation)
        if not isinstance(value, Mapping):
            problems.append(Problem(path, f"must be an object (a {section.__name__ if section else key})", value))
        raw[f"{PROJECT}:{key}"] = by_alias(value, section or Any)
        where[key] = path
    if problems:
        raise ConfigError(problems)
    try:
        return load_stack_config(raw)
    except ConfigError as exc:
        raise ConfigError([_renamed(p, where) for p in exc.problems]) from None


def _renamed(problem: Problem, where: Mapping[str, str]) -> Problem:
    """``problem`` with the stack file's key of a part (``models[0]``) replaced by the component's argument."""
    path = str(problem.path).removeprefix(f"{PROJECT}:")
    for key in sorted(where, key=len, reverse=True):
        if path == key or path.startswith((key + ".", key + "[")):
            path = where[key] + path[len(key) :]
            break
    return Problem(path, problem.rule, problem.value, has_value=problem.has_value)


def validated(model: type[BaseModel], value: Any, path: str) -> Any:
    """``value`` (Python field names, as Construct maps it) validated as the config model ``model``; ConfigError under ``path``.

    For a part that is not a stack file's pool or model (which :func:`parts_config` validates with the
    stack's cross-checks), e.g. the operator settings a KubeRay component takes alone.
    """
    if not isinstance(value, Mapping):
        raise ConfigError([Problem(path, f"must be an object (a {model.__name__})", value)])
    try:
        return model.model_validate(by_alias(value, model))
    except ValidationError as exc:
        problems = []
        for err in exc.errors(include_url=False):
            where = format_path([path, *err["loc"]])
            if err["type"] == "extra_forbidden":
                problems.append(Problem(where, "unknown key", has_value=False))
            else:
                problems.append(Problem(where, str(err["msg"]).removeprefix("Value error, "), err.get("input")))
        raise ConfigError(problems) from None


def library_args(args_model: type[BaseModel], /, **fields: Any) -> Any:
    """``args_model(**fields)`` (a library component's Args); a ValidationError becomes a ConfigError naming the argument."""
    try:
        return args_model(**fields)
    except ValidationError as exc:
        problems = []
        for err in exc.errors(include_url=False):
            loc = [_camel(str(part)) if isinstance(part, str) else part for part in err["loc"]]
            path = ".".join(str(part) for part in loc) or args_model.__name__
            problems.append(Problem(path, str(err["msg"]).removeprefix("Value error, "), err.get("input")))
        raise ConfigError(problems) from None


def _model_of(annotation: Any) -> Optional[type[BaseModel]]:
    """The pydantic model ``annotation`` holds (through Optional)."""
    inner = _unwrap(annotation)
    return inner if isinstance(inner, type) and issubclass(inner, BaseModel) else None


def _snake(name: str) -> str:
    """The Python field name of a camelCase key."""
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


def _camel(name: str) -> str:
    """The analyzer's camel case of a Python argument name (the name a program of another language writes)."""
    head, *rest = name.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def _under_config(problem: Problem) -> Problem:
    path = str(problem.path)
    if path == "aws:region":
        path = "region"
    elif path.startswith(f"{PROJECT}:"):
        path = path[len(PROJECT) + 1 :]
    return Problem(f"config.{path}" if path else "config", problem.rule, problem.value, has_value=problem.has_value)


__all__ = ["by_alias", "library_args", "parts_config", "stack_config", "validated"]
