"""The context window a model server serves per request, per engine: the optional ``[engines.NAME.context]`` tables of
serving_engines.toml (``beyond``, ``defaults``, ``model_sets``, ``source``), read by policies/reading/served_context.py
for S54 client-context-within-server. The setting itself is the row's ``max-model-len`` spelling (settings).

A table with an unknown field, a wrong type, a default that is no release = whole number, or no source fails the
import, naming the engine and the field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Optional

from .parse_cache import read_toml
from .serving_engines import TABLE

_FIELDS: dict[str, type] = {"beyond": str, "defaults": dict, "model_sets": str, "source": str}
_REQUIRED = ("beyond", "source")


def _release(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split("."))


@dataclass(frozen=True)
class EngineContext:
    """One engine's context facts (the table's header in serving_engines.toml says what each means)."""

    beyond: str  # what the server does with a longer request
    defaults: tuple[tuple[str, int], ...] = ()  # (release, tokens) in release order; 0: not one figure
    model_sets: str = ""  # what a model's own configuration may set instead ("" nothing)
    source: str = ""

    def default_at(self, release: Optional[str]) -> Optional[int]:
        """The context served with the setting unset at ``release`` (an image tag's release), None where the table
        gives no figure: no defaults, a release before the first, an unknown release, or a default that is no figure."""
        if not self.defaults or release is None or not re.fullmatch(r"\d{1,9}(\.\d{1,9}){0,3}", release):
            return None
        found = None
        for since, tokens in self.defaults:
            if _release(release) >= _release(since):
                found = tokens
        return found or None


def _row(name: str, table: Any) -> EngineContext:
    where = f"{TABLE.name} [engines.{name}.context]"
    if not isinstance(table, dict) or set(table) - set(_FIELDS) or any(f not in table for f in _REQUIRED):
        raise ValueError(f"{where}: fields are {list(_FIELDS)}, {list(_REQUIRED)} required")
    for field, kind in _FIELDS.items():
        if field in table and not isinstance(table[field], kind):
            raise ValueError(f"{where}.{field}: must be {kind.__name__}")
    pairs = []
    for release, tokens in table.get("defaults", {}).items():
        if (
            not re.fullmatch(r"\d+(\.\d+)*", str(release))
            or not isinstance(tokens, int)
            or isinstance(tokens, bool)
            or tokens < 0
        ):
            raise ValueError(f"{where}.defaults: {release!r} = {tokens!r} is not RELEASE = tokens")
        pairs.append((str(release), tokens))
    pairs.sort(key=lambda p: _release(p[0]))
    return EngineContext(table["beyond"], tuple(pairs), table.get("model_sets", ""), table["source"])


def load(path: Any = TABLE) -> dict[str, EngineContext]:
    """Engine name -> its context facts, for every engine row of the table at ``path`` with a context table."""
    engines = read_toml(path).get("engines")
    rows = engines.items() if isinstance(engines, dict) else ()
    return {name: _row(name, row["context"]) for name, row in rows if isinstance(row, dict) and "context" in row}


CONTEXT = load()


def engine_context(engine: str) -> Optional[EngineContext]:
    """The context facts of ``engine``, None where the table states none."""
    return CONTEXT.get(engine)


__all__ = ["CONTEXT", "EngineContext", "engine_context", "load"]
