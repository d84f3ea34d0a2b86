"""Streamed replies behind a buffering proxy, as data: the rows of stream_buffering.toml (which proxies buffer a
backend's reply by default, and which engines' streams tell nginx not to) as frozen records.

A row with an unknown or missing field, a wrong type or no source fails the load naming the row and the field.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .parse_cache import read_toml
from .table_rows import exact_fields as _fields
from .table_rows import text as _text

TABLE = Path(__file__).with_name("stream_buffering.toml")


@dataclass(frozen=True)
class Proxy:
    """One proxy's buffering default (a row of [proxies])."""

    name: str
    display: str
    buffers: bool
    source: str


def load(path: Path = TABLE) -> tuple[dict[str, Proxy], dict[str, str]]:
    """The proxies by id, and the unbuffered engines' ids -> source, of the table at ``path``."""
    table = read_toml(path)
    proxies: dict[str, Proxy] = {}
    for name, row in as_table(table, "proxies", path).items():
        where = f"{path.name} [proxies.{name}]"
        row = _fields(where, row, ("display", "buffers", "source"))
        if not isinstance(row["buffers"], bool):
            raise ValueError(f"{where}: buffers must be true or false")
        proxies[name] = Proxy(name, _text(where, row, "display"), row["buffers"], _text(where, row, "source"))
    engines = {
        name: _text(
            f"{path.name} [unbuffered_engines.{name}]",
            _fields(f"{path.name} [unbuffered_engines.{name}]", row, ("source",)),
            "source",
        )
        for name, row in as_table(table, "unbuffered_engines", path).items()
    }
    return proxies, engines


def as_table(table: dict, key: str, path: Path) -> dict:
    value = table.get(key)
    if not isinstance(value, dict):
        raise ValueError(f"{path.name}: no [{key}] table")
    return value


PROXIES, UNBUFFERED_ENGINES = load()
