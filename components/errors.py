"""Configuration errors that name the field path, the offending value and the rule.

Every bad input the library sees ends up as a :class:`ConfigError`: the offline plan
prints its lines and exits 2, a Pulumi program fails with the same text. Nothing here
raises a traceback at the user.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from .secrets import SHOWN_AS, is_secret, redact_tokens


def format_path(loc: Sequence[Any]) -> str:
    """Render a location tuple as ``models[1].engine.maxModelLen``."""
    out = ""
    for part in loc:
        if isinstance(part, int) and not isinstance(part, bool):
            out += f"[{part}]"
        else:
            # A key is the user's text too: bounded, single-line, credentials redacted.
            text = redact_tokens(str(part)[:200])
            if not text.isprintable():
                text = repr(text)
            text = text if len(text) <= 60 else text[:57] + "..."
            out += ("." if out else "") + text
    return out or "(root)"


SECRET_SHOWN_AS = SHOWN_AS
# Longest rendering of a value in a message, and of a rule; longer ones end in "...".
VALUE_CHARS = 80
_RULE_CHARS = 2000
# Above this many bits an integer is described, not printed (str() of one with more than 4,300
# digits raises, and nobody reads 400 digits in an error message).
_INT_BITS = 256


def scrub(value: Any) -> Any:
    """The value with every Pulumi secret (``{secure: ...}``, components.secrets) replaced by a placeholder."""
    if is_secret(value):
        return SECRET_SHOWN_AS
    if isinstance(value, dict):
        return {k: scrub(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub(v) for v in value]
    return value


def format_value(value: Any, limit: int = VALUE_CHARS) -> str:
    """A short, stable rendering of a user value for an error message.

    Bounded: at most ``limit`` characters are produced, however large or deeply nested the value
    (a YAML alias bomb, a 10 MB string), without recursion. Secrets show as ``[secret]`` and
    credential-shaped text is redacted to its public prefix (components.secrets).
    """
    text = redact_tokens(_render(value, limit * 2))
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _scalar(value: Any, top: bool, budget: int) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > _INT_BITS:
        return f"<integer of {value.bit_length()} bits>"
    if isinstance(value, str):
        return repr(value[:budget]) if top else json.dumps(value[:budget])
    if top:
        return repr(value)
    if value is None or isinstance(value, (bool, int, float)):
        return json.dumps(value)
    return json.dumps(str(value)[:budget])


def _render(value: Any, budget: int) -> str:
    """JSON-like text of ``value`` (keys sorted), cut once ``budget`` characters are produced."""
    if is_secret(value):
        return SECRET_SHOWN_AS
    if not isinstance(value, (dict, list, tuple)):
        return _scalar(value, True, budget)
    out: list[str] = []
    size = 0
    # A stack of pending pieces: strings to emit, or values to expand.
    todo: list[Any] = [(value,)]
    while todo and size < budget:
        item = todo.pop()
        if isinstance(item, str):
            piece = item
        else:
            (node,) = item
            if is_secret(node):
                piece = json.dumps(SECRET_SHOWN_AS)
            elif isinstance(node, dict):
                keys = list(node)
                if len(keys) <= 1000:
                    keys.sort(key=str)
                parts: list[Any] = ["}"]
                for i in range(len(keys) - 1, -1, -1):
                    parts.append((node[keys[i]],))
                    parts.append(("" if i == 0 else ", ") + json.dumps(str(keys[i])[:budget]) + ": ")
                parts.append("{")
                todo.extend(parts)
                continue
            elif isinstance(node, (list, tuple)):
                parts = ["]"]
                for i in range(len(node) - 1, -1, -1):
                    parts.append((node[i],))
                    if i:
                        parts.append(", ")
                parts.append("[")
                todo.extend(parts)
                continue
            else:
                piece = _scalar(node, False, budget)
        out.append(piece)
        size += len(piece)
    text = "".join(out)
    return text if not todo else text + "..."


@dataclass(frozen=True)
class Problem:
    """One invalid field: where it is, what it holds, and the rule it breaks."""

    path: str
    rule: str
    value: Any = None
    has_value: bool = True

    def __str__(self) -> str:
        # Rules may quote a piece of input (pydantic's and validators' messages): redact and bound them.
        rule = redact_tokens(self.rule)
        rule = rule if len(rule) <= _RULE_CHARS else rule[: _RULE_CHARS - 3] + "..."
        if self.has_value:
            return f"{self.path} = {format_value(self.value)}: {rule}"
        return f"{self.path}: {rule}"


class ConfigError(ValueError):
    """Invalid stack configuration: one or more :class:`Problem` entries."""

    def __init__(self, problems: Iterable[Problem]):
        self.problems = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems))

    def __str__(self) -> str:
        return "invalid configuration:\n" + "\n".join(f"  {p}" for p in self.problems)
