"""Where well-known annotation and label keys are read: the rows of setting_homes.toml as records.

A key such as ``prometheus.io/scrape`` or ``karpenter.sh/do-not-disrupt`` configures something only on the objects its
controller reads (a pod, a Service, an Ingress, a Namespace's labels); written anywhere else it is kept and ignored.
G107 ``setting-where-read`` reports it on the places each row judges. Pure: no policy import.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from .parse_cache import read_toml
from .table_rows import exact_fields, text

TABLE = Path(__file__).with_name("setting_homes.toml")
_FIELDS = ("key", "except", "form", "read_on", "judged_on", "controller", "source")
FORMS = ("annotation", "label", "either")
READ_ON = ("pod", "service", "ingress", "namespace", "node")
JUDGED_ON = ("workload", "pod", "service", "ingress", "route", "namespace")


@dataclass(frozen=True)
class Home:
    """One key (or prefix) and the places its controller reads."""

    key: str
    excepted: frozenset[str]
    form: str
    read_on: tuple[str, ...]
    judged_on: frozenset[str]
    controller: str
    source: str

    def covers(self, key: str) -> bool:
        """True when ``key`` is this row's key, or under its prefix and not one of its exceptions."""
        if key in self.excepted:
            return False
        return key.startswith(self.key[:-1]) if self.key.endswith("*") else key == self.key


def _places(where: str, row: dict, field: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
    value = row.get(field)
    if not isinstance(value, list) or any(v not in allowed for v in value):
        raise ValueError(f"{where}: {field} must be a list of {allowed}, got {value!r}")
    return tuple(value)


def _home(index: int, row: Any) -> Home:
    where = f"setting_homes.toml key[{index}]"
    row = exact_fields(where, row, _FIELDS)
    excepted = row.get("except")
    if not isinstance(excepted, list) or not all(isinstance(k, str) for k in excepted):
        raise ValueError(f"{where}: except must be a list of keys")
    if row.get("form") not in FORMS:
        raise ValueError(f"{where}: form must be one of {FORMS}, got {row.get('form')!r}")
    return Home(
        key=text(where, row, "key"),
        excepted=frozenset(excepted),
        form=row["form"],
        read_on=_places(where, row, "read_on", READ_ON),
        judged_on=frozenset(_places(where, row, "judged_on", JUDGED_ON)),
        controller=text(where, row, "controller"),
        source=text(where, row, "source"),
    )


def load(data: Any) -> tuple[Home, ...]:
    """The rows of a parsed table, refused with the row and field named when one is malformed."""
    rows = data.get("key") if isinstance(data, dict) else None
    if not isinstance(rows, list) or not rows:
        raise ValueError("setting_homes.toml: no [[key]] rows")
    return tuple(_home(i, row) for i, row in enumerate(rows))


HOMES = load(read_toml(TABLE))
# The first character of every row's key: most annotation keys of an object start with none, and are skipped at once.
_FIRST = frozenset(home.key[0] for home in HOMES)


def home_of(key: str) -> Optional[Home]:
    """The row that covers ``key``, or None."""
    if not key or key[0] not in _FIRST:
        return None
    return next((home for home in HOMES if home.covers(key)), None)
