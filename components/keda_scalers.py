"""The trigger metadata each KEDA scaler requires, read from kedacore/keda at one release
(components/keda_scalers.json, written by tools/read_keda_scalers.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

_FILE = Path(__file__).with_name("keda_scalers.json")


@dataclass(frozen=True)
class ScalerParam:
    """One parameter of a scaler's typed config: its names (any one will do), where KEDA looks it up
    (triggerMetadata, resolvedEnv through ``<name>FromEnv``, authParams from the TriggerAuthentication), and the
    deprecation message of a parameter KEDA refuses when given."""

    names: tuple[str, ...]
    order: tuple[str, ...]
    message: str = ""


@dataclass(frozen=True)
class Scaler:
    """A trigger type's parameters and the scaler file they are read from."""

    file: str
    required: tuple[ScalerParam, ...]
    deprecated: tuple[ScalerParam, ...]


@dataclass(frozen=True)
class ScalerTable:
    release: str
    scalers: dict[str, Scaler]


def _param(entry: dict) -> ScalerParam:
    return ScalerParam(tuple(entry["names"]), tuple(entry["order"]), entry.get("message", ""))


@lru_cache(maxsize=1)
def scaler_table() -> ScalerTable:
    """The table of components/keda_scalers.json (read once, on first use)."""
    data = json.loads(_FILE.read_text())
    return ScalerTable(
        release=data["release"],
        scalers={
            trigger: Scaler(
                file=row["file"],
                required=tuple(_param(p) for p in row["required"]),
                deprecated=tuple(_param(p) for p in row.get("deprecated", ())),
            )
            for trigger, row in data["scalers"].items()
        },
    )


__all__ = ["Scaler", "ScalerParam", "ScalerTable", "scaler_table"]
