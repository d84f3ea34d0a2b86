"""Helm values checked against a pinned chart's default values.yaml (the reference folder's charts/, see tests/conftest.py).

A key path the chart's defaults do not have is most likely a typo the chart ignores in silence.
A default of ``{}``, ``[]`` or null is free-form below (charts/PROVENANCE.md, "Limits of a
key-path check"), and so is any key named in ``free_form`` (maps whose keys are the user's).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from typing import Any


def value_paths(values: Mapping[str, Any], prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every leaf key path of a values mapping (lists and empty maps are leaves)."""
    for key, value in values.items():
        if isinstance(value, dict) and value:
            yield from value_paths(value, prefix + (key,))
        else:
            yield prefix + (key,)


def known_path(defaults: Any, path: tuple[str, ...], free_form: Collection[str] = ()) -> bool:
    """Whether the chart's defaults have ``path`` (or a free-form map above it)."""
    node = defaults
    for part in path:
        if not isinstance(node, dict) or part not in node:
            return False
        if node[part] in ({}, [], None) or part in free_form:
            return True
        node = node[part]
    return True


def unknown_value_paths(values: Mapping[str, Any], defaults: Any, free_form: Collection[str] = ()) -> list[str]:
    """The dotted key paths of ``values`` that the chart's defaults do not have."""
    return [".".join(p) for p in value_paths(values) if not known_path(defaults, p, free_form)]
