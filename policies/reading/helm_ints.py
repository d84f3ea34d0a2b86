"""Sprig's integer functions as Helm runs them: every operand converted by toInt64 (sprig v3 numeric.go, spf13/cast
ToInt64) and the result an int64 (sprig v3 functions.go add/sub/mul/div/mod/add1/max/min), so overflow wraps and a
float truncates; int parameters (until, indent, repeat, trunc) refuse a float64 as Go's call does.
"""

from __future__ import annotations

import re
from typing import Any

from policies.reading.gotemplate import UNKNOWN, CannotRender, Func, go_text


def _known(*values: Any) -> bool:
    return all(v is not UNKNOWN for v in values)


_DECIMAL = re.compile(r"[+-]?\d{1,19}")


def wrap(n: int) -> int:
    """``n`` as Go's int64 holds it (two's complement: overflow wraps)."""
    n &= (1 << 64) - 1
    return n - (1 << 64) if n >= 1 << 63 else n


def int64(value: Any) -> int:
    """Sprig's toInt64 (sprig v3 numeric.go, spf13/cast ToInt64): a float truncated toward zero, a decimal string read;
    what cast would read otherwise (hex or octal strings, floats beyond int64) stops the render rather than a guess."""
    if value is None or isinstance(value, bool):
        return int(bool(value))
    if isinstance(value, int):
        return wrap(value)
    if isinstance(value, float) and value == value and abs(value) < 2.0**63:
        return int(value)
    if isinstance(value, str) and _DECIMAL.fullmatch(value) and abs(int(value)) < 1 << 63:
        return int(value)
    raise CannotRender(f"{go_text(value)[:40]!r} as an integer is not rendered")


def to_int(value: Any) -> Any:
    """Sprig int/int64: toInt64, UNKNOWN kept."""
    return UNKNOWN if value is UNKNOWN else int64(value)


def atoi(value: Any) -> Any:
    """Sprig atoi."""
    # sprig: func(a string) int { i, _ := strconv.Atoi(a); return i }: what Atoi refuses is 0.
    if value is UNKNOWN:
        return UNKNOWN
    text = go_text(value)
    return int(text) if _DECIMAL.fullmatch(text) and abs(int(text)) < 1 << 63 else 0


def arith(op: str) -> Func:
    """Sprig v3 functions.go add/sub/mul/div/mod/add1: every operand toInt64, the result an int64 (wrapping);
    a division by zero panics in Go, which fails helm's render."""

    def run(*values: Any) -> Any:
        if not _known(*values):
            return UNKNOWN
        nums = [int64(v) for v in values]
        if op == "add":
            return wrap(sum(nums))
        if op == "add1":
            return wrap(nums[0] + 1)
        if op == "mul":
            out = 1
            for n in nums:
                out = wrap(out * n)
            return out
        if op in ("max", "min"):
            return max(nums) if op == "max" else min(nums)
        a, b = nums[0], nums[1]
        if op == "sub":
            return wrap(a - b)
        if b == 0:
            raise CannotRender(f"{op} by zero")
        quotient = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # Go truncates toward zero
        return wrap(quotient) if op == "div" else a - b * quotient

    return run


def count(value: Any) -> int:
    """An int parameter of a sprig function: a float64 (every values number) fails Go's call ("wrong type for
    value; expected int; got float64"), which fails helm's render."""
    if isinstance(value, float):
        raise CannotRender(f"{go_text(value)} given for an int parameter (helm fails: expected int; got float64)")
    return int64(value)
