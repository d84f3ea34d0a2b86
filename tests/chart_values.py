"""Helm values checked against a pinned chart's default values.yaml (the reference folder's charts/, see tests/conftest.py).

A key path the chart's defaults do not have is most likely a typo the chart ignores in silence.
A default of ``{}``, ``[]`` or null is free-form below (charts/PROVENANCE.md, "Limits of a
key-path check"), and so is any key named in ``free_form`` (maps whose keys are the user's).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from pathlib import Path
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


def read_values_used(path: Path) -> list[tuple[str, ...]]:
    """The value paths a chart's templates read, from its values-used.tsv (../shared/charts/<chart>/<version>/)."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            rows.append(tuple(line.split("\t", 1)[0].split(".")))
    return rows


def read_by_templates(path: tuple[str, ...], used: Collection[tuple[str, ...]]) -> bool:
    """Whether a value path we set is read: the same path, a prefix of it (read whole: toYaml, with,
    range), or a path under it (we set a map whose keys the templates read one by one)."""
    return any(path[: len(u)] == u or u[: len(path)] == path for u in used)


def unread_value_paths(values: Mapping[str, Any], used: Collection[tuple[str, ...]]) -> list[str]:
    """The dotted leaf paths of ``values`` that no template of the chart reads (Helm ignores them)."""
    return [".".join(p) for p in value_paths(values) if not read_by_templates(p, used)]
