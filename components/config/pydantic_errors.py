"""Pydantic's validation errors as this project's problems: the stack file's path, the rule, the value.

Field names become the stack file's keys (``gpuPools``, ``aws:region``, ``hfToken``), an unknown key
lists the keys allowed there, and a rule about secrets never echoes the value that broke it.

Pure: pydantic only.
"""

from __future__ import annotations

from typing import Any, Mapping, get_args

from pydantic import BaseModel, ValidationError

from ..errors import Problem, format_path
from .stack import StackConfig

# StackConfig fields that a key of another name fills: errors name the key of the stack file.
_TOP_PATH = {
    "gpuPools": "gpuPools",
    "hasHfToken": "hfToken",
    "hasApiKey": "apiKey",
    "region": "aws:region",
    "awsProfile": "aws:profile",
    "awsRoleArn": "aws:assumeRoles",
}


def problems_from(exc: ValidationError, data: Mapping[str, Any]) -> list[Problem]:
    out = []
    for err in exc.errors(include_url=False):
        loc = list(err["loc"])
        # Model validators report at the object; field validators at the field.
        if loc and loc[0] in _TOP_PATH:
            loc[0] = _TOP_PATH[loc[0]]
        path = format_path(loc)
        etype = err["type"]
        value = err.get("input")
        if etype == "extra_forbidden":
            out.append(Problem(path, f"unknown key; allowed keys here: {_allowed_here(loc)}", has_value=False))
        elif etype == "missing":
            out.append(Problem(path, "is required", has_value=False))
        else:
            msg = err["msg"]
            msg = msg.removeprefix("Value error, ")
            # A rule about secrets must not echo the value that broke it.
            out.append(Problem(path, msg[:1].lower() + msg[1:], value, has_value="secret" not in msg))
    return out


def _allowed_here(loc: list[Any]) -> str:
    """The keys the model at ``loc[:-1]`` accepts, for 'did you mean' style help."""
    model: Any = StackConfig
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        field = next((f for f in model.model_fields.values() if f.alias == part), None)
        if field is None:
            return "?"
        ann = field.annotation
        model = _model_of(ann)
        if model is None:
            return "?"
    return ", ".join(
        f.alias for f in model.model_fields.values() if f.alias not in ("hasHfToken", "hasApiKey", "awsProfile", "awsRoleArn")
    )


def _model_of(annotation: Any) -> Any:
    """The pydantic model inside ``annotation`` (``Optional[X]``, ``tuple[X, ...]``), or None."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = _model_of(arg)
        if found is not None:
            return found
    return None
