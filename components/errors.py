"""Configuration errors that name the field path, the offending value and the rule.

Every bad input the library sees ends up as a :class:`ConfigError`: the offline plan
prints its lines and exits 2, a Pulumi program fails with the same text. Nothing here
raises a traceback at the user.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Sequence


def format_path(loc: Sequence[Any]) -> str:
    """Render a location tuple as ``models[1].engine.maxModelLen``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "(root)"


SECRET_SHOWN_AS = "[secret]"


def scrub(value: Any) -> Any:
    """The value with every Pulumi secret (``{secure: ...}``) replaced by a placeholder."""
    if isinstance(value, dict):
        if "secure" in value:
            return SECRET_SHOWN_AS
        return {k: scrub(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub(v) for v in value]
    return value


def format_value(value: Any) -> str:
    """A short, stable rendering of a user value for an error message (secrets never shown)."""
    value = scrub(value)
    if value == SECRET_SHOWN_AS:
        return value
    if isinstance(value, str):
        text = repr(value)
    elif isinstance(value, float) and value.is_integer():
        text = str(int(value))
    else:
        text = repr(value) if not isinstance(value, (dict, list)) else _compact(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _compact(value: Any) -> str:
    import json

    try:
        return json.dumps(value, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return repr(value)


@dataclass(frozen=True)
class Problem:
    """One invalid field: where it is, what it holds, and the rule it breaks."""

    path: str
    rule: str
    value: Any = None
    has_value: bool = True

    def __str__(self) -> str:
        if self.has_value:
            return f"{self.path} = {format_value(self.value)}: {self.rule}"
        return f"{self.path}: {self.rule}"


class ConfigError(ValueError):
    """Invalid stack configuration: one or more :class:`Problem` entries."""

    def __init__(self, problems: Iterable[Problem]):
        self.problems = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems))

    def __str__(self) -> str:
        return "invalid configuration:\n" + "\n".join(f"  {p}" for p in self.problems)
