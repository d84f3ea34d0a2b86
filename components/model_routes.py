"""Model routes as data: the rows of model_routes.toml (where a router or gateway that picks a model server by the
request's model name takes that name: an AIBrix pod label, an Envoy AI Gateway header match, an InferenceModel field)
as frozen records.

A row with an unknown or missing field, a wrong type or no source fails the load naming the row and the field.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .parse_cache import read_toml
from .table_rows import exact_fields, text

TABLE = Path(__file__).with_name("model_routes.toml")
_FIELDS = ("display", "form", "key", "kinds", "rewrite", "effect", "source")
FORMS = ("pod-label", "header-match", "model-field")


@dataclass(frozen=True)
class ModelRoute:
    """One router form (a row of model_routes.toml)."""

    name: str
    display: str
    form: str
    key: str
    kinds: tuple[tuple[str, str], ...]  # (group, Kind)
    rewrite: str
    effect: str
    source: str


def _row(name: str, row: Any) -> ModelRoute:
    where = f"{TABLE.name} [routes.{name}]"
    row = exact_fields(where, row, _FIELDS)
    for field in ("display", "form", "key", "effect", "source"):
        text(where, row, field)
    if not isinstance(row["rewrite"], str):
        raise ValueError(f"{where}: rewrite must be a string ('' for none)")
    if row["form"] not in FORMS:
        raise ValueError(f"{where}: form must be one of {list(FORMS)}")
    kinds = row["kinds"]
    if not isinstance(kinds, list) or not all(isinstance(k, str) and k.count(":") == 1 for k in kinds):
        raise ValueError(f"{where}: kinds must be a list of 'group:Kind' strings")
    if (row["form"] == "pod-label") != (not kinds):
        raise ValueError(f"{where}: kinds is empty exactly for the pod-label form")
    pairs = tuple((k.split(":")[0], k.split(":")[1]) for k in kinds)
    return ModelRoute(name, row["display"], row["form"], row["key"], pairs, row["rewrite"], row["effect"], row["source"])


def load(path: Path = TABLE) -> dict[str, ModelRoute]:
    """The rows of the table at ``path``, by id."""
    routes = read_toml(path).get("routes")
    if not isinstance(routes, dict):
        raise ValueError(f"{path.name}: no [routes] table")
    return {name: _row(name, row) for name, row in routes.items()}


ROUTES = load()
