"""The plan's YAML text: PyYAML's bytes, written without PyYAML's per-node machinery.

The plan writes one YAML document per rendered object (docs/cli.md, `plan`), with sorted keys,
block style and no line folding. PyYAML's representer and serializer build and resolve a node for
every value in Python, which made YAML the plan's largest cost after the Pulumi engine. The
documents the plan writes are plain data (string keys; strings, numbers, booleans, null, lists,
mappings), and for those PyYAML's output follows a few fixed rules:

- a mapping is ``key: value`` lines at its indentation, nested mappings 2 spaces deeper; a list
  inside a mapping is not indented (``key:\\n- item``); a list item that is a mapping or a list
  starts on the dash's line; empty ones are ``{}`` and ``[]``;
- numbers, booleans and null are written as the SafeRepresenter writes them;
- a one-line string is written plain or quoted exactly as PyYAML chooses for it; the choice does
  not depend on where the string stands, so it is asked of PyYAML once per distinct string.

Anything else (a string with a line break or a character PyYAML would escape, a key over 127
characters, a value that is not plain data) makes :func:`dump` hand the whole document to PyYAML.
tests/plan/test_plan_yaml.py checks the bytes against PyYAML on every rendered document of every
stack, and on generated documents.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, Callable, Optional

import yaml

# libyaml's emitter when PyYAML has it (the same bytes as the pure one; a test compares them).
DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
# Long scalars are never folded: the two emitters fold differently.
NO_FOLDING = 1 << 30
# PyYAML writes a key of 128 characters or more as a complex key (``? key``).
_SIMPLE_KEY_MAX = 127


class _Fallback(Exception):
    """The document holds something these rules do not cover: PyYAML writes it."""


def pyyaml_dump(body: Any) -> str:
    """One YAML document as PyYAML writes it: sorted keys, block style, no folding."""
    return yaml.dump(body, Dumper=DUMPER, sort_keys=True, default_flow_style=False, width=NO_FOLDING)


@lru_cache(maxsize=65536)
def _string(text: str) -> str:
    """How PyYAML writes a one-line, printable ASCII string as a block value (plain or quoted)."""
    if not text.isascii() or not text.isprintable():
        raise _Fallback
    # As a list item: block context, not a simple key; the item's text is what follows "- ".
    dumped = pyyaml_dump([text])
    if not dumped.startswith("- ") or dumped.count("\n") != 1:
        raise _Fallback
    return dumped[2:-1]


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        return _string(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) is int:
        return str(value)
    if type(value) is float:
        if not math.isfinite(value):
            raise _Fallback
        # SafeRepresenter.represent_float for finite values.
        text = repr(value).lower()
        if "." not in text and "e" in text:
            text = text.replace("e", ".0e", 1)
        return text
    raise _Fallback


def _key(key: Any) -> str:
    if not isinstance(key, str) or len(key) > _SIMPLE_KEY_MAX or not key:
        raise _Fallback
    return _string(key)


def _mapping(body: dict, indent: str, out: Callable[[str], None]) -> None:
    """``body`` (non-empty) as block lines at ``indent``; the first line's indent is the caller's."""
    first = True
    for key in sorted(body):
        value = body[key]
        prefix = ("" if first else indent) + _key(key) + ":"
        first = False
        if isinstance(value, dict) and value:
            out(prefix + "\n" + indent + "  ")
            _mapping(value, indent + "  ", out)
        elif isinstance(value, list) and value:
            out(prefix + "\n" + indent)
            _sequence(value, indent, out)
        else:
            out(prefix + " " + _flow_empty_or_scalar(value) + "\n")


def _sequence(items: list, indent: str, out: Callable[[str], None]) -> None:
    """``items`` (non-empty) as ``- item`` lines at ``indent``; the first dash's indent is the caller's."""
    first = True
    for item in items:
        out(("" if first else indent) + "- ")
        first = False
        if isinstance(item, dict) and item:
            _mapping(item, indent + "  ", out)
        elif isinstance(item, list) and item:
            _sequence(item, indent + "  ", out)
        else:
            out(_flow_empty_or_scalar(item) + "\n")


def _flow_empty_or_scalar(value: Any) -> str:
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    return _scalar(value)


def _fast(body: Any) -> Optional[str]:
    if not isinstance(body, dict) or not body:
        return None  # a top-level scalar or empty document: PyYAML adds markers; let it
    parts: list[str] = []
    try:
        _mapping(body, "", parts.append)
    except (_Fallback, TypeError):
        return None
    return "".join(parts)


def dump(body: Any) -> str:
    """One YAML document, byte for byte what :func:`pyyaml_dump` writes."""
    text = _fast(body)
    return pyyaml_dump(body) if text is None else text
