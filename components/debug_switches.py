"""Debug-only switches of model servers as data: the rows of debug_switches.toml as frozen records (S36).

Each row names an environment variable, the values that turn it on, whether it blocks or is advice, the engines whose
own code reads it (none: a library every server loads, CUDA, PyTorch, NCCL) and, where only some releases read it, the
first and last (LocalAI's DEBUG from v1.1.0). A program may also be a serving-path app of serving_apps.toml (LiteLLM's
proxy reads LITELLM_LOG): its rows apply to that app's containers; so may a chat UI of chat_uis.toml (Open WebUI's
GLOBAL_LOG_LEVEL). A row's ``flag`` is the programs' command-line
option that sets the same switch (LiteLLM's --detailed_debug, read from the env DETAILED_DEBUG too). A field the loader does not know, an engine id serving_engines.toml does
not know, a level or matcher it cannot read, or a row without its source fails the import naming the row and field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Optional

from .engine_options import version_key
from .parse_cache import read_toml
from .serving_apps import APPS
from .serving_engines import ENGINES, Engine

TABLE = Path(__file__).with_name("debug_switches.toml")
# Chat front ends (components/chat_uis.toml [apps.NAME]) whose own switches a row may name: Open WebUI's GLOBAL_LOG_LEVEL.
_CHAT_UIS = Path(__file__).with_name("chat_uis.toml")
_FIELDS = ("name", "on", "level", "programs", "releases", "flag", "cost", "source")
_MATCHERS = ("<non-zero>", "<positive>")


class DebugSwitchError(ValueError):
    """A row of debug_switches.toml that cannot be used; the message names the row and the field."""


def _number(text: str) -> Optional[Decimal]:
    try:
        return Decimal(text)
    except (InvalidOperation, ValueError):
        return None


@dataclass(frozen=True)
class EnvSwitch:
    """One environment variable that turns a debugging aid on."""

    name: str
    on: tuple[str, ...]
    blocks: bool
    programs: tuple[str, ...]
    releases: Optional[tuple[str, str]]
    cost: str
    source: str
    flag: str = ""  # the programs' command-line flag that sets the same switch (a bare flag: click's envvar option)

    def switched_on(self, value: str) -> bool:
        """True when ``value`` turns the switch on."""
        text = value.strip().lower()
        if text in self.on:
            return True
        number = _number(text) if any(m in self.on for m in _MATCHERS) else None
        if number is None or not number.is_finite():
            return False
        return ("<non-zero>" in self.on and number != 0) or ("<positive>" in self.on and number > 0)

    def read_at(self, release: Optional[str]) -> bool:
        """True unless ``release`` (the image's, None when unknown) is outside the releases that read the switch."""
        if release is None or self.releases is None:
            return True
        key = version_key(release)
        return version_key(self.releases[0]) <= key <= version_key(self.releases[1])


def _switch(index: int, row: Any, engines: tuple[Engine, ...]) -> EnvSwitch:
    where = f"debug_switches.toml [[env]] #{index + 1}"
    if not isinstance(row, dict):
        raise DebugSwitchError(f"{where}: must be a table")
    unknown = sorted(set(row) - set(_FIELDS))
    if unknown:
        raise DebugSwitchError(f"{where}: unknown field {unknown[0]!r} (known: {', '.join(_FIELDS)})")
    name = row.get("name")
    if not isinstance(name, str) or not re.fullmatch(r"[A-Z][A-Z0-9_]*", name):
        raise DebugSwitchError(f"{where}.name: {name!r} is not a variable name")
    where = f"debug_switches.toml [[env]] {name}"
    on = row.get("on")
    if not isinstance(on, list) or not on or not all(isinstance(v, str) and v == v.strip().lower() for v in on):
        raise DebugSwitchError(f"{where}.on: a non-empty list of lower-case values (or {', '.join(_MATCHERS)})")
    if any(v.startswith("<") and v not in _MATCHERS for v in on):
        raise DebugSwitchError(f"{where}.on: the matchers are {', '.join(_MATCHERS)}")
    level = row.get("level")
    if level not in ("blocking", "advice"):
        raise DebugSwitchError(f"{where}.level: {level!r} is neither 'blocking' nor 'advice'")
    programs = row.get("programs")
    known = {e.name for e in engines} | {a.name for a in APPS} | _chat_ui_ids()
    if not isinstance(programs, list) or not all(isinstance(p, str) and p in known for p in programs):
        raise DebugSwitchError(
            f"{where}.programs: a list of engine ids of serving_engines.toml, app ids of serving_apps.toml or chat UI ids "
            "of chat_uis.toml ([] for any server)"
        )
    releases = row.get("releases")
    if releases is not None and (
        not isinstance(releases, list)
        or len(releases) != 2
        or not all(isinstance(r, str) and re.fullmatch(r"\d+(?:\.\d+)*", r) for r in releases)
        or version_key(releases[0]) > version_key(releases[1])
        or not programs
    ):
        raise DebugSwitchError(f"{where}.releases: [FIRST, LAST] releases of the programs named (0.1.21)")
    for field in ("cost", "source"):
        if not isinstance(row.get(field), str) or not row[field].strip():
            raise DebugSwitchError(f"{where}.{field}: required (the source: where the owner documents it)")
    flag = row.get("flag", "")
    if not isinstance(flag, str) or (flag and (not programs or not re.fullmatch(r"--[a-z][a-z0-9_-]*", flag))):
        raise DebugSwitchError(f"{where}.flag: a long option of the programs named (--detailed_debug)")
    span = (releases[0], releases[1]) if releases else None
    return EnvSwitch(name, tuple(on), level == "blocking", tuple(programs), span, row["cost"], row["source"], flag)


def _chat_ui_ids() -> set[str]:
    """The ids of components/chat_uis.toml's [apps.NAME] rows (the UIs are read by policies/reading/chat_ui_backends)."""
    return {str(k) for k in dict(read_toml(_CHAT_UIS).get("apps") or {})}


def debug_switches_of(data: dict, engines: tuple[Engine, ...] = ENGINES) -> tuple[EnvSwitch, ...]:
    """The checked rows of a parsed debug_switches.toml."""
    unknown = sorted(set(data) - {"env"})
    if unknown:
        raise DebugSwitchError(f"debug_switches.toml: unknown table {unknown[0]!r} (known: env)")
    rows = data.get("env", [])
    if not isinstance(rows, list):
        raise DebugSwitchError("debug_switches.toml: [[env]] must be an array of tables")
    switches = tuple(_switch(i, row, engines) for i, row in enumerate(rows))
    names = [s.name for s in switches]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise DebugSwitchError(f"debug_switches.toml [[env]] {twice[0]}: listed twice")
    return switches


ENV_SWITCHES: tuple[EnvSwitch, ...] = debug_switches_of(read_toml(TABLE))

__all__ = ["DebugSwitchError", "ENV_SWITCHES", "EnvSwitch", "debug_switches_of"]
