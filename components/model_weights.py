"""Checkpoint sizes as data: the rows of model_weights.toml (a Hub id or id prefix whose name holds no parameter
count, and the size of its checkpoint in GB) as frozen records, read by S2's weights check
(policies/reading/weights_anywhere.py).

A row with an unknown or missing field, a blank prefix or source, or a size that is no positive number fails the load
naming the row and the field (components/table_rows.py, as every fact table's loader).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .parse_cache import read_toml
from .table_rows import exact_fields, text

TABLE = Path(__file__).with_name("model_weights.toml")
_FIELDS = ("prefix", "gb", "source")


@dataclass(frozen=True)
class CheckpointSize:
    """One row of model_weights.toml: ids starting with ``prefix`` (lower case) have checkpoints of ``gb`` GB."""

    prefix: str
    gb: float
    source: str


def _row(index: int, row: Any) -> CheckpointSize:
    where = f"{TABLE.name} [[model]] #{index + 1}"
    row = exact_fields(where, row, _FIELDS)
    prefix = text(where, row, "prefix")
    where = f"{where} ({prefix})"
    text(where, row, "source")
    gb = row["gb"]
    if isinstance(gb, bool) or not isinstance(gb, (int, float)) or not gb > 0:
        raise ValueError(f"{where}: gb must be a number > 0")
    return CheckpointSize(prefix.strip().lower(), float(gb), row["source"])


def load(path: Path = TABLE) -> tuple[CheckpointSize, ...]:
    """The rows of the table at ``path``, in file order."""
    rows = read_toml(path).get("model", [])
    if not isinstance(rows, list):
        raise ValueError(f"{path.name}: model must be an array of tables ([[model]])")
    return tuple(_row(i, row) for i, row in enumerate(rows))
