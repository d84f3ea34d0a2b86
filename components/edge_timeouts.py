"""Edge timeouts as data: the rows of edge_timeouts.toml (the request timeout a router, ingress controller, gateway,
load balancer or reverse proxy applies to a backend when the manifests leave it unset) as frozen records.

A row with an unknown or missing field, a wrong type or no source fails the load naming the row and the field.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .parse_cache import read_toml
from .table_rows import exact_fields, text

TABLE = Path(__file__).with_name("edge_timeouts.toml")
_FIELDS = ("display", "setting", "seconds", "counts", "source")
COUNTS = ("idle", "response", "headers", "route", "none")


@dataclass(frozen=True)
class EdgeDefault:
    """One edge's default timeout (a row of edge_timeouts.toml); seconds 0: no such timeout by default."""

    name: str
    display: str
    setting: str
    seconds: int
    counts: str
    source: str


def _row(name: str, row: Any) -> EdgeDefault:
    where = f"{TABLE.name} [edges.{name}]"
    row = exact_fields(where, row, _FIELDS)
    for field in ("display", "setting", "source"):
        text(where, row, field)
    seconds = row["seconds"]
    if not isinstance(seconds, int) or isinstance(seconds, bool) or seconds < 0:
        raise ValueError(f"{where}: seconds must be a whole number >= 0")
    if row["counts"] not in COUNTS or (seconds == 0) != (row["counts"] == "none"):
        raise ValueError(f"{where}: counts must be one of {list(COUNTS)}, and 'none' exactly when seconds is 0")
    return EdgeDefault(name, row["display"], row["setting"], seconds, row["counts"], row["source"])


def load(path: Path = TABLE) -> dict[str, EdgeDefault]:
    """The rows of the table at ``path``, by id."""
    edges = read_toml(path).get("edges")
    if not isinstance(edges, dict):
        raise ValueError(f"{path.name}: no [edges] table")
    return {name: _row(name, row) for name, row in edges.items()}


EDGES = load()


def default_seconds(name: str) -> int:
    """The default of edge `name` in seconds (0: none); KeyError for an id the table does not hold."""
    return EDGES[name].seconds
