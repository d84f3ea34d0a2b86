"""The bounds of a Helm template's best-effort render (policies/reading/gotemplate.py, helm_funcs.py, helm_regex.py).

A template is input anyone can write, so rendering is bounded like reading: the text emitted, the steps taken, the
depth of includes, and the values functions make, so a helper that multiplies its input refuses (CannotRender)
before it allocates.
"""

from __future__ import annotations

from typing import Any


class CannotRender(ValueError):
    """The template cannot be rendered best-effort (``str(exc)`` says why)."""


MAX_OUTPUT = 4 << 20
MAX_DEPTH = 40
MAX_STEPS = 200_000
# Values too: no string a function makes may exceed MAX_OUTPUT characters, no list or map MAX_ITEMS entries, and the
# text all function calls of one render make together stays under MAX_MADE, so a helper that multiplies its input
# (indent, printf's width, repeat, until, a string doubled in a range) refuses before it allocates.
MAX_ITEMS = 100_000
MAX_MADE = 16 * MAX_OUTPUT
_MAX_NESTING = 100


def measure(value: Any, limit: int = MAX_OUTPUT) -> int:
    """About how many characters ``value`` prints as (strings' lengths, one per scalar, entry and container), counted
    no further than just past ``limit`` (a list holding itself many times is not walked whole)."""
    total = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        total += len(item) if isinstance(item, str) else 1
        if total > limit or depth > _MAX_NESTING:
            return limit + 1
        if isinstance(item, dict):
            stack.extend((k, depth + 1) for k in item)
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend((v, depth + 1) for v in item)
    return total


def bounded(*values: Any, what: str = "a value") -> None:
    """CannotRender when ``values`` together print as more than MAX_OUTPUT characters."""
    left = MAX_OUTPUT
    for value in values:
        left -= measure(value, left)
        if left < 0:
            raise CannotRender(f"{what} would exceed {MAX_OUTPUT >> 20} MiB")


def within(size: int, what: str) -> None:
    """CannotRender when a result of ``size`` characters (or entries) would exceed MAX_OUTPUT."""
    if size > MAX_OUTPUT:
        raise CannotRender(f"{what} would exceed {MAX_OUTPUT >> 20} MiB")
