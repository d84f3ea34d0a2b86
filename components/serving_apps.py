"""Serving-path apps as data: the rows of serving_apps.toml (LLM proxies, routers and gateways in front of model
servers) as frozen records, and the table's config consumers (programs that read a mounted configuration file, with
the variable forms they expand) as CONSUMERS.

A row says how the app is recognised (image markers, repository names, command words, modules), the port and
readiness endpoint it serves when nothing moves them, and where each fact was read. A row with an unknown or missing
field, a wrong type, or no ``recognise`` source fails the load naming the row and the field.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .parse_cache import read_toml
from .table_rows import exact_fields

TABLE = Path(__file__).with_name("serving_apps.toml")
_LISTS = ("images", "names", "commands", "modules")
_FIELDS = (
    "display",
    *_LISTS,
    "port",
    "readiness",
    "alive_only",
    "calls_models",
    "readiness_env",
    "readiness_config",
    "root_segments",
    "root_path_env",
    "param_segments",
    "sources",
)
_SOURCES = ("recognise", "endpoints", "paths", "probes")


@dataclass(frozen=True)
class App:
    """One serving-path app (a row of serving_apps.toml)."""

    name: str
    display: str
    images: tuple[str, ...]
    names: tuple[str, ...]
    commands: tuple[str, ...]
    modules: tuple[str, ...]
    port: int
    readiness: str
    alive_only: tuple[str, ...]
    # HTTP paths that call every configured model before they answer (LiteLLM's /health): a probe there (G6).
    calls_models: tuple[str, ...]
    # What gives the readiness path more to check than the alive_only ones (env variables; dotted keys of the app's
    # config file); empty: the readiness path checks something whatever is set.
    readiness_env: tuple[str, ...]
    readiness_config: tuple[str, ...]
    # The top-level path segments the app serves at its root ("" the bare root); empty: not established. The env
    # variables that move its root under a prefix, and the second segments its parametric first-segment routes take
    # (LiteLLM's /{provider}/v1/files: a prefix followed by one of them may still be served).
    root_segments: tuple[str, ...]
    root_path_env: tuple[str, ...]
    param_segments: tuple[str, ...]
    sources: tuple[tuple[str, str], ...]


def _row(name: str, row: Any) -> App:
    where = f"{TABLE.name} [apps.{name}]"
    if isinstance(row, dict):
        # optional: most apps state no liveness-only path
        row = {
            "alive_only": [],
            "calls_models": [],
            "readiness_env": [],
            "readiness_config": [],
            "root_segments": [],
            "root_path_env": [],
            "param_segments": [],
            **row,
        }
    exact_fields(where, row, _FIELDS)
    for field in _LISTS:
        value = row[field]
        if not isinstance(value, list) or not all(isinstance(v, str) and v and v == v.lower() for v in value):
            raise ValueError(f"{where}: {field} must be a list of lower-case strings")
    if not isinstance(row["display"], str) or not row["display"]:
        raise ValueError(f"{where}: display must be a string")
    if not isinstance(row["port"], int) or isinstance(row["port"], bool) or not 0 <= row["port"] < 65536:
        raise ValueError(f"{where}: port must be a port number (0: not established)")
    if not isinstance(row["readiness"], str) or (row["readiness"] and not row["readiness"].startswith("/")):
        raise ValueError(f"{where}: readiness must be an HTTP path or empty")
    alive = row["alive_only"]
    if not isinstance(alive, list) or not all(isinstance(v, str) and v.startswith("/") for v in alive):
        raise ValueError(f"{where}: alive_only must be a list of HTTP paths")
    calls = row["calls_models"]
    if not isinstance(calls, list) or not all(isinstance(v, str) and v.startswith("/") for v in calls):
        raise ValueError(f"{where}: calls_models must be a list of HTTP paths")
    if calls and not (isinstance(row["sources"], dict) and "probes" in row["sources"]):
        raise ValueError(f"{where}: sources.probes required with calls_models")
    for field in ("readiness_env", "readiness_config", "root_path_env", "param_segments"):
        if not isinstance(row[field], list) or not all(isinstance(v, str) and v for v in row[field]):
            raise ValueError(f"{where}: {field} must be a list of names")
    if not isinstance(row["root_segments"], list) or not all(isinstance(v, str) and "/" not in v for v in row["root_segments"]):
        raise ValueError(f"{where}: root_segments must be a list of path segments")
    sources = row["sources"]
    if (
        not isinstance(sources, dict)
        or set(sources) - set(_SOURCES)
        or not all(isinstance(v, str) and v for v in sources.values())
    ):
        raise ValueError(f"{where}: sources must map {list(_SOURCES)} to text")
    if "recognise" not in sources or ((row["port"] or row["readiness"] or row["alive_only"]) and "endpoints" not in sources):
        raise ValueError(f"{where}: sources.recognise (and sources.endpoints with a port or readiness) required")
    if row["root_segments"] and "paths" not in sources:
        raise ValueError(f"{where}: sources.paths required with root_segments")
    if not any(row[f] for f in _LISTS):
        raise ValueError(f"{where}: nothing recognises the app")
    return App(
        name=name,
        display=row["display"],
        images=tuple(row["images"]),
        names=tuple(row["names"]),
        commands=tuple(row["commands"]),
        modules=tuple(row["modules"]),
        port=row["port"],
        readiness=row["readiness"],
        alive_only=tuple(row["alive_only"]),
        calls_models=tuple(row["calls_models"]),
        readiness_env=tuple(row["readiness_env"]),
        readiness_config=tuple(row["readiness_config"]),
        root_segments=tuple(row["root_segments"]),
        root_path_env=tuple(row["root_path_env"]),
        param_segments=tuple(row["param_segments"]),
        sources=tuple(sorted(sources.items())),
    )


def load(path: Path = TABLE) -> tuple[App, ...]:
    """The apps of the table at ``path``."""
    apps = read_toml(path).get("apps")
    if not isinstance(apps, dict):
        raise ValueError(f"{path.name}: no [apps] table")
    return tuple(_row(name, row) for name, row in apps.items())


_CONSUMER_LISTS = ("images", "names", "not_names", "expands", "template_dirs", "template_suffixes", "template_env")
_CONSUMER_FIELDS = ("display", *_CONSUMER_LISTS, "own_variables", "own_prefixes", "sources")
_CONSUMER_SOURCES = ("expansion", "templates", "variables")


@dataclass(frozen=True)
class Consumer:
    """One config consumer (a [consumers.NAME] row of serving_apps.toml)."""

    name: str
    display: str
    images: tuple[str, ...]
    names: tuple[str, ...]
    not_names: tuple[str, ...]
    expands: tuple[str, ...]
    template_dirs: tuple[str, ...]
    template_suffixes: tuple[str, ...]
    template_env: tuple[str, ...]
    own_variables: frozenset[str]
    own_prefixes: tuple[str, ...]
    sources: tuple[tuple[str, str], ...]


def _consumer(name: str, row: Any) -> Consumer:
    where = f"{TABLE.name} [consumers.{name}]"
    exact_fields(where, row, _CONSUMER_FIELDS)
    for field in (*_CONSUMER_LISTS, "own_variables", "own_prefixes"):
        value = row[field]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError(f"{where}: {field} must be a list of strings")
    if len(row["template_env"]) != 2:
        raise ValueError(f"{where}: template_env names the folder's and the suffix's variables (\"\" for none)")
    if not isinstance(row["display"], str) or not row["display"] or not (row["images"] or row["names"]):
        raise ValueError(f"{where}: display and images or names are required")
    sources = row["sources"]
    if (
        not isinstance(sources, dict)
        or set(sources) - set(_CONSUMER_SOURCES)
        or not all(isinstance(v, str) and v for v in sources.values())
        or "expansion" not in sources
        or (row["template_dirs"] and "templates" not in sources)
        or ((row["own_variables"] or row["own_prefixes"]) and "variables" not in sources)
    ):
        raise ValueError(f"{where}: sources must give expansion (and templates, variables where those are set)")
    return Consumer(
        name=name,
        display=row["display"],
        images=tuple(row["images"]),
        names=tuple(row["names"]),
        not_names=tuple(row["not_names"]),
        expands=tuple(row["expands"]),
        template_dirs=tuple(row["template_dirs"]),
        template_suffixes=tuple(row["template_suffixes"]),
        template_env=tuple(row["template_env"]),
        own_variables=frozenset(v.lower() for v in row["own_variables"]),
        own_prefixes=tuple(p.lower() for p in row["own_prefixes"]),
        sources=tuple(sorted(sources.items())),
    )


def load_consumers(path: Path = TABLE) -> tuple[Consumer, ...]:
    """The config consumers of the table at ``path``."""
    rows = read_toml(path).get("consumers")
    if not isinstance(rows, dict):
        raise ValueError(f"{path.name}: no [consumers] table")
    return tuple(_consumer(name, row) for name, row in rows.items())


APPS = load()
CONSUMERS = load_consumers()
