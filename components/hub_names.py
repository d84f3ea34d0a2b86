"""Which Hugging Face Hub repository ids name no repository, by a family's naming rule: the rows of hub_names.toml.

Each row holds a pattern that only misnamed ids match, the family it was meant to name, how that family's repositories
are named and the page that says so. A row with an unknown or missing field, or a pattern that does not compile, fails
the load naming the row and the field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from .parse_cache import read_toml

TABLE = Path(__file__).with_name("hub_names.toml")
_FIELDS = ("pattern", "family", "names", "source")


@dataclass(frozen=True)
class Misnamed:
    """One naming rule: ids matching ``pattern`` name no repository of ``family``, whose repositories are ``names``."""

    pattern: re.Pattern[str]
    family: str
    names: str
    source: str


def _load(path: Path = TABLE) -> tuple[Misnamed, ...]:
    found = []
    for i, row in enumerate(read_toml(path).get("misnamed", [])):
        where = f"{path.name} [[misnamed]] row {i + 1}"
        unknown = sorted(set(row) - set(_FIELDS))
        missing = [f for f in _FIELDS if not isinstance(row.get(f), str) or not row[f].strip()]
        if unknown or missing:
            raise ValueError(f"{where}: unknown fields {unknown}, missing or empty {missing}")
        try:
            pattern = re.compile(row["pattern"], re.IGNORECASE)
        except re.error as error:
            raise ValueError(f"{where}: pattern {row['pattern']!r} does not compile: {error}") from None
        found.append(Misnamed(pattern, row["family"], row["names"], row["source"]))
    return tuple(found)


MISNAMED = _load()


def misnamed(repository: Optional[str]) -> Optional[Misnamed]:
    """The rule by which a Hub repository id (``org/name``) names no repository, or None."""
    if not isinstance(repository, str):
        return None
    return next((row for row in MISNAMED if row.pattern.match(repository.strip())), None)


__all__ = ["MISNAMED", "Misnamed", "misnamed"]
