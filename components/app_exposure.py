"""Settings of LLM apps that open access or leak data, as data: the rows of app_exposure.toml as frozen records (G101).

Each row names the program that reads the setting (an engine of serving_engines.toml, a serving-path app of
serving_apps.toml, a chat UI of chat_uis.toml, or "*" for any container), where it lives (an env variable, a
dotted key of the app's configuration file, or an engine's command-line option), the risky values, the default, why and where the program reads it. A
field the loader does not know, an app id no table knows, a pattern that does not compile, a matcher of the wrong
type or a row without its source fails the import naming the row and the field. Patterns are compiled here, once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

from .parse_cache import read_toml
from .serving_apps import APPS
from .serving_engines import ENGINES

TABLE = Path(__file__).with_name("app_exposure.toml")
_CHAT_UIS = Path(__file__).with_name("chat_uis.toml")
_FIELDS = (
    "id",
    "app",
    "where",
    "name",
    "pattern",
    "risky",
    "items",
    "published",
    "until",
    "since",
    "needs",
    "also",
    "default",
    "why",
    "fix",
    "source",
)
_ALSO = ("name", "default", "on")
_TEXTS = ("default", "why", "fix", "source")


class AppExposureError(ValueError):
    """A row of app_exposure.toml that cannot be used; the message names the row and the field."""


@dataclass(frozen=True)
class Also:
    """Another variable of the same container the risk needs: its default when unset and the values it holds under."""

    name: str
    default: str
    on: tuple[str, ...]


@dataclass(frozen=True)
class Setting:
    """One risky setting of an LLM app."""

    id: str
    app: str  # engine, serving-app or chat-UI id, or "*"
    where: str  # "env", "config" or "flag"
    name: str  # the variable, the dotted key path or the engine option without dashes ("" for a pattern row)
    pattern: Optional[re.Pattern[str]]
    risky: tuple[Union[str, bool], ...]
    items: bool
    published: bool
    also: tuple[Also, ...]
    default: str
    why: str
    fix: str
    source: str
    until: str = ""  # flag rows: the last release the row holds at (read only on an image naming one up to it)
    since: str = ""  # flag rows: the first release the row holds at (read on an image naming one from it, or none)
    needs: tuple[str, ...] = ()  # flag rows: the options the row's option is void without

    @property
    def path(self) -> tuple[str, ...]:
        """The config row's key path."""
        return tuple(self.name.split("."))

    def names(self, variable: str) -> bool:
        """True when ``variable`` is this env row's variable (its name, or a whole match of its pattern)."""
        return variable == self.name if self.pattern is None else self.pattern.fullmatch(variable) is not None

    def risky_value(self, value: Any, *, config: bool) -> bool:
        """True when ``value`` is one of the risky values: a YAML boolean of a config file matches a boolean only; an env
        value (text) matches a string, or "true"/"false" for a boolean; with ``items``, one comma-separated item."""
        if isinstance(value, bool):
            return config and value in [r for r in self.risky if isinstance(r, bool)]
        if not isinstance(value, (str, int, float)):
            return False
        text = str(value).strip().lower()
        words = [w.strip() for w in text.split(",")] if self.items else [text]
        strings = {r for r in self.risky if isinstance(r, str)}
        if not config:
            strings |= {str(r).lower() for r in self.risky if isinstance(r, bool)}
        return any(w in strings for w in words)


def _known_apps() -> set[str]:
    uis = {str(k) for k in dict(read_toml(_CHAT_UIS).get("apps") or {})}
    return {e.name for e in ENGINES} | {a.name for a in APPS} | uis | {"*"}


def _also(where: str, row: Any) -> Also:
    if not isinstance(row, dict) or set(row) != set(_ALSO):
        raise AppExposureError(f"{where}.also: each entry has exactly {', '.join(_ALSO)}")
    name, default, on = row["name"], row["default"], row["on"]
    if not isinstance(name, str) or not re.fullmatch(r"[A-Z][A-Z0-9_]*", name):
        raise AppExposureError(f"{where}.also.name: {name!r} is not a variable name")
    if not isinstance(default, str) or not isinstance(on, list) or not all(isinstance(v, str) and v == v.lower() for v in on):
        raise AppExposureError(f"{where}.also {name}: default is a string and on a list of lower-case strings")
    return Also(name, default, tuple(on))


def _setting(index: int, row: Any, known: set[str]) -> Setting:
    where = f"app_exposure.toml [[setting]] #{index + 1}"
    if not isinstance(row, dict):
        raise AppExposureError(f"{where}: must be a table")
    unknown = sorted(set(row) - set(_FIELDS))
    if unknown:
        raise AppExposureError(f"{where}: unknown field {unknown[0]!r} (known: {', '.join(_FIELDS)})")
    ident = row.get("id")
    if not isinstance(ident, str) or not re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", ident):
        raise AppExposureError(f"{where}.id: {ident!r} is not a kebab-case id")
    where = f"app_exposure.toml [[setting]] {ident}"
    app = row.get("app")
    if app not in known:
        raise AppExposureError(f"{where}.app: {app!r} is no engine, serving-path app or chat UI id (or '*')")
    kind = row.get("where")
    if kind not in ("env", "config", "flag"):
        raise AppExposureError(f"{where}.where: {kind!r} is not 'env', 'config' or 'flag'")
    if kind == "flag" and app not in {e.name for e in ENGINES}:
        raise AppExposureError(f"{where}.app: a flag row names an engine of serving_engines.toml")
    until, since = row.get("until", ""), row.get("since", "")
    for field, release in (("until", until), ("since", since)):
        if not isinstance(release, str) or (release and (kind != "flag" or not re.fullmatch(r"\d+(\.\d+)+", release))):
            raise AppExposureError(f"{where}.{field}: a release (0.11.0), on flag rows only")
    needs = row.get("needs", [])
    if not isinstance(needs, list) or not all(isinstance(n, str) and re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", n) for n in needs):
        raise AppExposureError(f"{where}.needs: a list of options without their dashes")
    if needs and kind != "flag":
        raise AppExposureError(f"{where}.needs: on flag rows only")
    name, pattern = row.get("name", ""), row.get("pattern")
    if (pattern is None) == (not name) or not isinstance(name, str):
        raise AppExposureError(f"{where}: exactly one of name and pattern")
    compiled = None
    if pattern is not None:
        if app != "*" or kind != "env" or not isinstance(pattern, str):
            raise AppExposureError(f"{where}.pattern: only an env row of app '*' matches names by a pattern")
        try:
            compiled = re.compile(pattern)
        except re.error as error:
            raise AppExposureError(f"{where}.pattern: does not compile ({error})") from None
    risky = row.get("risky")
    if (
        not isinstance(risky, list)
        or not risky
        or not all(isinstance(v, bool) or (isinstance(v, str) and v == v.strip().lower()) for v in risky)
    ):
        raise AppExposureError(f"{where}.risky: a non-empty list of lower-case strings or booleans")
    for flag in ("items", "published"):
        if not isinstance(row.get(flag, False), bool):
            raise AppExposureError(f"{where}.{flag}: true or false")
    for field in _TEXTS:
        if not isinstance(row.get(field), str) or not row[field].strip():
            raise AppExposureError(f"{where}.{field}: required text")
    also = row.get("also", [])
    if not isinstance(also, list) or (also and kind == "config"):
        raise AppExposureError(f"{where}.also: a list of [[setting.also]] tables, on env and flag rows only")
    return Setting(
        ident,
        app,
        kind,
        name,
        compiled,
        tuple(risky),
        row.get("items", False),
        row.get("published", False),
        tuple(_also(where, a) for a in also),
        row["default"],
        row["why"],
        row["fix"],
        row["source"],
        until,
        since,
        tuple(needs),
    )


def settings_of(data: dict) -> tuple[Setting, ...]:
    """The checked rows of a parsed app_exposure.toml."""
    unknown = sorted(set(data) - {"setting"})
    if unknown:
        raise AppExposureError(f"app_exposure.toml: unknown table {unknown[0]!r} (known: setting)")
    rows = data.get("setting", [])
    if not isinstance(rows, list):
        raise AppExposureError("app_exposure.toml: [[setting]] must be an array of tables")
    known = _known_apps()
    settings = tuple(_setting(i, row, known) for i, row in enumerate(rows))
    ids = [s.id for s in settings]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise AppExposureError(f"app_exposure.toml [[setting]] {twice[0]}: listed twice")
    return settings


SETTINGS: tuple[Setting, ...] = settings_of(read_toml(TABLE))

__all__ = ["SETTINGS", "Also", "AppExposureError", "Setting", "settings_of"]
