"""Engine routes as data: the rows of engine_routes.toml (the HTTP route paths each model server answers, with the
command-line words that change them) as frozen records, and the test of a client's URL path against them.

A row with an unknown or missing field, a wrong type or no source fails the load naming the row and the field.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .parse_cache import read_toml
from .table_rows import exact_fields, text

TABLE = Path(__file__).with_name("engine_routes.toml")
_FIELDS = ("routes", "unless", "source")


@dataclass(frozen=True)
class EngineRoutes:
    """One engine's routes (a row of engine_routes.toml), each split into its path segments."""

    engine: str
    routes: tuple[tuple[str, ...], ...]
    unless: tuple[str, ...]
    source: str

    def answers(self, path: str) -> bool:
        """Whether a client's URL path can reach a route: the path is the start of a route (a base URL the client adds
        to: /v1) or a route is the start of the path, segment by segment (":x"/"{x}" is any one segment); the root
        route "/" matches only the root."""
        want = _segments(path)
        if not want:
            return True
        for route in self.routes:
            if not route:
                continue
            n = min(len(route), len(want))
            if all(_same(route[i], want[i]) for i in range(n)):
                return True
        return False


def _segments(path: str) -> tuple[str, ...]:
    return tuple(s for s in path.split("/") if s)


def _same(route: str, segment: str) -> bool:
    return route == segment or route.startswith(":") or (route.startswith("{") and route.endswith("}"))


def _row(name: str, row: Any) -> EngineRoutes:
    where = f"{TABLE.name} [engines.{name}]"
    row = exact_fields(where, row, _FIELDS)
    text(where, row, "source")
    for field in ("routes", "unless"):
        value = row[field]
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise ValueError(f"{where}: {field} must be a list of non-empty strings")
    if not row["routes"] or not all(r.startswith("/") for r in row["routes"]):
        raise ValueError(f"{where}: routes must be a non-empty list of paths starting with /")
    return EngineRoutes(name, tuple(_segments(r) for r in row["routes"]), tuple(row["unless"]), row["source"])


def load(path: Path = TABLE) -> dict[str, EngineRoutes]:
    """The rows of the table at ``path``, by engine."""
    engines = read_toml(path).get("engines")
    if not isinstance(engines, dict):
        raise ValueError(f"{path.name}: no [engines] table")
    return {name: _row(name, row) for name, row in engines.items()}


ENGINE_ROUTES = load()
