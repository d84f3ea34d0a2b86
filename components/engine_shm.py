"""What a model server needs of /dev/shm when it runs several ranks, per engine: the optional ``[engines.NAME.shm]``
tables of serving_engines.toml (``fails``, ``size``, ``ranks_unset``, ``multiprocess``, ``source``), read by S4
tensor-parallel-requires-dshm through policies/reading/shm.py.

A table with an unknown field, a wrong type, a size that is no quantity, or no source fails the import, naming the
engine and the field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .parse_cache import read_toml
from .quantities import parse_quantity
from .serving_engines import TABLE, flag_name

_FIELDS: dict[str, type] = {"fails": bool, "size": str, "ranks_unset": str, "multiprocess": list, "source": str}


@dataclass(frozen=True)
class EngineShm:
    """One engine's /dev/shm facts (the table's header in serving_engines.toml says what each means)."""

    fails: bool = False  # several ranks fail to start on the runtime's 64Mi /dev/shm
    size: str = ""  # the /dev/shm the publisher asks for with several ranks ("1Gi"), "" none stated
    ranks_unset: str = ""  # "gpus": an unset tensor-parallel setting means one rank per GPU
    multiprocess: tuple[tuple[str, str], ...] = ()  # (flag, value) settings that run the workers as processes
    source: str = ""

    @property
    def size_bytes(self) -> float | None:
        """``size`` in bytes, None when not stated."""
        return parse_quantity(self.size) if self.size else None


def _row(name: str, table: Any) -> EngineShm:
    where = f"{TABLE.name} [engines.{name}.shm]"
    if not isinstance(table, dict) or set(table) - set(_FIELDS) or "source" not in table:
        raise ValueError(f"{where}: fields are {list(_FIELDS)}, source required")
    for field, kind in _FIELDS.items():
        if field in table and not isinstance(table[field], kind):
            raise ValueError(f"{where}.{field}: must be {kind.__name__}")
    if not table["source"].strip():
        raise ValueError(f"{where}.source: must be text")
    if table.get("ranks_unset", "gpus") != "gpus":
        raise ValueError(f'{where}.ranks_unset: only "gpus" is known')
    try:
        parse_quantity(table.get("size", "0"))
    except ValueError:
        raise ValueError(f"{where}.size: {table['size']!r} is not a quantity") from None
    pairs = []
    for item in table.get("multiprocess", []):
        if not isinstance(item, str) or "=" not in item.strip("="):
            raise ValueError(f"{where}.multiprocess: {item!r} is not FLAG=VALUE")
        flag, value = item.split("=", 1)
        pairs.append((flag_name(flag), value.strip().lower()))
    return EngineShm(
        table.get("fails", False), table.get("size", ""), table.get("ranks_unset", ""), tuple(pairs), table["source"]
    )


def load(path: Any = TABLE) -> dict[str, EngineShm]:
    """Engine name -> its /dev/shm facts, for every engine row of the table at ``path`` with a shm table."""
    engines = read_toml(path).get("engines")
    rows = engines.items() if isinstance(engines, dict) else ()
    return {name: _row(name, row["shm"]) for name, row in rows if isinstance(row, dict) and "shm" in row}


SHM = load()
NONE = EngineShm()


def engine_shm(engine: str) -> EngineShm:
    """The /dev/shm facts of ``engine`` (nothing stated: one rank when its parallel settings are unset, no figure)."""
    return SHM.get(engine, NONE)


__all__ = ["SHM", "EngineShm", "engine_shm", "load"]
