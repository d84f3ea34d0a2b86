"""The row checks every fact table's loader shares (edge_timeouts, scale_subresources, serving_apps, stream_buffering):
a row is a TOML table with exactly its fields, and a text field holds words. Each error names the row and the field."""

from __future__ import annotations

from typing import Any


def exact_fields(where: str, row: Any, fields: Any) -> dict:
    """The row, refused when it is not a table or its fields are not exactly ``fields``, naming the row."""
    if not isinstance(row, dict):
        raise ValueError(f"{where}: not a table")
    unknown, missing = sorted(set(row) - set(fields)), sorted(set(fields) - set(row))
    if unknown or missing:
        raise ValueError(f"{where}: unknown fields {unknown}, missing fields {missing}")
    return row


def text(where: str, row: dict, field: str) -> str:
    """The row's ``field``, refused unless it is non-blank text."""
    value = row.get(field)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where}: {field} must be text")
    return value
