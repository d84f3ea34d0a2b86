"""Custom resource kinds with and without the /scale subresource, as data: the rows of scale_subresources.toml (read
from each CRD at a pinned release, cited per row) as frozen records, keyed by (group, kind).

A row with an unknown or missing field, a wrong type or no source fails the load naming the row and the field.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .parse_cache import read_toml
from .table_rows import exact_fields, text

TABLE = Path(__file__).with_name("scale_subresources.toml")
_FIELDS = ("group", "kind", "scale", "source")


@dataclass(frozen=True)
class ScaleRow:
    """One kind: its group, whether its CRD serves /scale, and where that was read."""

    name: str
    group: str
    kind: str
    scale: bool
    source: str


def _row(name: str, row: Any) -> ScaleRow:
    where = f"{TABLE.name} [kinds.{name}]"
    row = exact_fields(where, row, _FIELDS)
    for field in ("group", "kind", "source"):
        text(where, row, field)
    if not isinstance(row["scale"], bool):
        raise ValueError(f"{where}: scale must be true or false")
    return ScaleRow(name, row["group"], row["kind"], row["scale"], row["source"])


def load(path: Path = TABLE) -> dict[tuple[str, str], ScaleRow]:
    """The rows of the table at ``path``, by (group, kind)."""
    kinds = read_toml(path).get("kinds")
    if not isinstance(kinds, dict):
        raise ValueError(f"{path.name}: no [kinds] table")
    rows = [_row(name, row) for name, row in kinds.items()]
    return {(r.group, r.kind): r for r in rows}


KINDS = load()
