"""What every config model shares: strict scalar types, the frozen camelCase base model, name rules.

Pure: pydantic only.
"""

from __future__ import annotations

import re
from typing import Annotated, Optional, overload

from pydantic import BaseModel, ConfigDict, Strict
from pydantic.alias_generators import to_camel

# The namespace of this project's keys in a stack file (llm-serving:models, ...).
PROJECT = "llm-serving"

# Kubernetes object names we derive from user names (InferenceService "<name>", its
# Deployment "<name>-predictor", "<name>-hf-token"...) must stay DNS-1035 labels of at
# most 63 characters, so user names are capped lower to leave room for the suffixes.
_DNS_LABEL = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
_NAME_MAX = 40


# Strict scalars: a stack file's "8192" (a string) or true (a bool) is not a number here, as
# the Pulumi CLI's typed config would not make it one either.
Int = Annotated[int, Strict()]
Float = Annotated[float, Strict()]
Bool = Annotated[bool, Strict()]
Str = Annotated[str, Strict()]


class _Model(BaseModel):
    """Base of every config model: frozen, camelCase keys only, unknown keys rejected."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, alias_generator=to_camel, validate_by_name=False, validate_by_alias=True
    )


def _dns_name(value: str) -> str:
    """``value`` when it is a DNS-1035 label short enough to carry our suffixes; ValueError otherwise."""
    if not _DNS_LABEL.fullmatch(value) or len(value) > _NAME_MAX:
        raise ValueError(
            f"must be a DNS-1035 label (lowercase letters, digits and '-', starting with a letter) "
            f"of at most {_NAME_MAX} characters"
        )
    return value


@overload
def matching(value: str, pattern: str, rule: str) -> str: ...
@overload
def matching(value: None, pattern: str, rule: str) -> None: ...
@overload
def matching(value: Optional[str], pattern: str, rule: str) -> Optional[str]: ...
def matching(value: Optional[str], pattern: str, rule: str) -> Optional[str]:
    """``value`` when ``pattern`` matches all of it (None passes: the field is unset); ValueError(``rule``) otherwise,
    which pydantic reports under the field's path."""
    if value is not None and not re.fullmatch(pattern, value):
        raise ValueError(rule)
    return value
