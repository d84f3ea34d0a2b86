"""Strict JSON within the bounds of components/loading.py: a model's config.json, a stack's JSON, the policy pack's
config. NaN, Infinity and numbers that overflow to infinity are refused naming the field, a repeated key is refused, and
the depth is counted before parsing (the json module recurses per level); the size and node budgets are the caller's
``Limits`` (``JSON_FILE`` by default). Errors are loading.LoadError, as for YAML.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, BinaryIO, Optional, Union

from .loading import JSON_FILE, Limits, LoadError, _show, _size_text, read_bounded

_JSON_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


class _JsonProblem(ValueError):
    pass


def _json_pairs(pairs: list[tuple[str, Any]]) -> dict:
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise _JsonProblem(f"repeats the key {_show(key)}")
        out[key] = value
    return out


def load_json(
    source: Union[str, Path, BinaryIO], limits: Limits = JSON_FILE, *, name: Optional[str] = None, text: Optional[str] = None
) -> Any:
    """A strict JSON file (or ``text``) within ``limits``: no NaN/Infinity, no repeated keys. Raises LoadError."""
    label = name or str(source)
    if text is None:
        text = read_bounded(source, limits, label)
    elif len(text) > limits.max_bytes:
        raise LoadError(label, f"is larger than {_size_text(limits.max_bytes)} (the limit for {limits.what})")
    # Depth before parsing: the json module recurses per level. Strings are skipped whole.
    depth = 0
    for match in _JSON_TOKENS.finditer(text):
        ch = match.group(0)
        if ch in "[{":
            depth += 1
            if depth > limits.max_depth:
                line = text.count("\n", 0, match.start()) + 1
                raise LoadError(label, f"nested deeper than {limits.max_depth} levels (the limit for {limits.what})", line)
        elif ch in "]}":
            depth -= 1
    try:
        data = json.loads(text, object_pairs_hook=_json_pairs)
    except _JsonProblem as exc:
        raise LoadError(label, str(exc)) from None
    except json.JSONDecodeError as exc:
        raise LoadError(label, f"is not valid JSON: {exc.msg}", exc.lineno) from None
    except (ValueError, RecursionError) as exc:  # e.g. an integer of more than 4,300 digits
        raise LoadError(label, f"is not valid JSON: {str(exc).split(';')[0][:100]}") from None
    _check_json_values(data, label, limits)
    return data


def _check_json_values(data: Any, label: str, limits: Limits) -> None:
    """Refuse non-finite numbers (naming the field) and more values than the node budget."""
    stack: list[tuple[tuple[Any, ...], Any]] = [((), data)]
    nodes = 0
    while stack:
        path, value = stack.pop()
        nodes += 1
        if nodes > limits.max_nodes:
            raise LoadError(label, f"holds more than {limits.max_nodes:,} values (the limit for {limits.what})")
        if isinstance(value, float) and not math.isfinite(value):
            raise LoadError(
                label, f"{json_path(path)} = {value}: not a finite number (NaN, Infinity and overflowing numbers are not JSON)"
            )
        elif isinstance(value, dict):
            stack.extend(((*path, k), v) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend(((*path, i), v) for i, v in enumerate(value))


def json_path(path: tuple[Any, ...]) -> str:
    """``('rope_scaling', 'factor')`` -> ``rope_scaling.factor``; list indexes in brackets."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else ("." if out else "") + _show(str(part), 60).strip("'\"")
    return out or "(root)"


__all__ = ["json_path", "load_json"]
