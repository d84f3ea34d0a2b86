"""Keys a server checks its callers against, as data: the rows of server_keys.toml (LiteLLM's master key, vLLM's API
key) with where each was read. A value committed under one is the credential the server enforces: the stand-in words
that exempt a client's key (components/secrets.py ``placeholder_value``) do not exempt it. A row with an unknown or
missing field, or a wrong type, fails the load naming the row.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .parse_cache import read_toml

TABLE = Path(__file__).with_name("server_keys.toml")
_LISTS = ("env", "flags", "config")


@dataclass(frozen=True)
class ServerKey:
    """Where one server reads the key it enforces: ``app`` (serving_apps.toml) or ``engine`` (serving_engines.toml)."""

    name: str
    app: str
    engine: str
    env: tuple[str, ...]
    flags: tuple[str, ...]
    config: tuple[str, ...]
    source: str


def _row(name: str, row: Any) -> ServerKey:
    where = f"{TABLE.name} [servers.{name}]"
    if not isinstance(row, dict):
        raise ValueError(f"{where}: not a table")
    fields = {"app", "engine", *_LISTS, "source"}
    unknown = sorted(set(row) - fields)
    if unknown or not all(f in row for f in (*_LISTS, "source")) or ("app" in row) == ("engine" in row):
        raise ValueError(f"{where}: one of app and engine, with env, flags, config and source (unknown: {unknown})")
    for field in _LISTS:
        if not isinstance(row[field], list) or not all(isinstance(v, str) and v for v in row[field]):
            raise ValueError(f"{where}: {field} must be a list of names")
    if not all(isinstance(row.get(f, ""), str) for f in ("app", "engine", "source")) or not row["source"]:
        raise ValueError(f"{where}: app, engine and source must be text")
    return ServerKey(
        name=name,
        app=row.get("app", ""),
        engine=row.get("engine", ""),
        env=tuple(row["env"]),
        flags=tuple(row["flags"]),
        config=tuple(row["config"]),
        source=row["source"],
    )


def load(path: Path = TABLE) -> tuple[ServerKey, ...]:
    """The rows of the table at ``path``."""
    servers = read_toml(path).get("servers")
    if not isinstance(servers, dict):
        raise ValueError(f"{path.name}: no [servers] table")
    return tuple(_row(name, row) for name, row in servers.items())


SERVER_KEYS: tuple[ServerKey, ...] = load()
# Every configuration key (its last two dotted parts, as a config is read) a row names: LiteLLM's master_key.
CONFIG_KEYS: frozenset[tuple[str, ...]] = frozenset(tuple(k.split(".")[-2:]) for s in SERVER_KEYS for k in s.config)
# Every variable a row names: each is a credential by its name, wherever it is set.
SERVER_ENV: tuple[str, ...] = tuple(sorted({n for s in SERVER_KEYS for n in s.env}))
