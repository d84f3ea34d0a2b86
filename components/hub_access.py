"""Which Hugging Face repositories need a token to download: the rows of hub_gated.toml as frozen records.

``hub_gated.toml`` beside this module names gated repositories by prefix (a whole organisation such as
``meta-llama/``, or a family such as ``google/gemma``), each with the page that states the gate. A row with an
unknown or missing field, or a scope other than the two the file documents, fails the load naming the row and the
field, so a typo is an import error, never a rule that silently stops applying.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from .parse_cache import read_toml

TABLE = Path(__file__).with_name("hub_gated.toml")
SCOPES = ("organisation", "family")
_FIELDS = ("prefix", "scope", "source")


@dataclass(frozen=True)
class Gated:
    """One gated prefix of the Hub: the repository ids it covers, how (an organisation or a family), and its source."""

    prefix: str
    scope: str
    source: str


def _load(path: Path = TABLE) -> tuple[Gated, ...]:
    rows = read_toml(path).get("gated", [])
    found = []
    for i, row in enumerate(rows):
        where = f"{path.name} [[gated]] row {i + 1}"
        unknown = sorted(set(row) - set(_FIELDS))
        missing = [f for f in _FIELDS if not isinstance(row.get(f), str) or not row[f].strip()]
        if unknown or missing:
            raise ValueError(f"{where}: unknown fields {unknown}, missing or empty {missing}")
        if row["scope"] not in SCOPES:
            raise ValueError(f"{where}: scope {row['scope']!r} is not one of {', '.join(SCOPES)}")
        if row["scope"] == "organisation" and not row["prefix"].endswith("/"):
            raise ValueError(f"{where}: an organisation's prefix ends with '/' ({row['prefix']!r})")
        found.append(Gated(row["prefix"], row["scope"], row["source"]))
    return tuple(found)


GATED = _load()


def gated(repository: Optional[str]) -> Optional[Gated]:
    """The row that makes a Hub repository id (``org/name``) gated, or None (public, or not known to be gated).
    Repository ids are case-insensitive on the Hub."""
    if not isinstance(repository, str):
        return None
    lowered = repository.lower()
    return next((row for row in GATED if lowered.startswith(row.prefix.lower())), None)


__all__ = ["GATED", "Gated", "SCOPES", "gated"]
