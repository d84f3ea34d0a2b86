"""Launchers that start one process per GPU or rank on a pod (torchrun, deepspeed, mpirun, Triton's TensorRT-LLM
launcher) as data: the rows of rank_launchers.toml, each with its source. A row with an unknown or missing field or a
wrong type fails the load, naming the row and the field."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .parse_cache import read_toml

TABLE = Path(__file__).with_name("rank_launchers.toml")
_FIELDS: dict[str, type | tuple[type, ...]] = {
    "display": str,
    "commands": list,
    "count": list,
    "all_gpus": list,
    "unset": (int, str),
    "source": str,
}


@dataclass(frozen=True)
class Launcher:
    """One launcher (a row of rank_launchers.toml)."""

    name: str
    display: str
    commands: tuple[str, ...]
    count: tuple[str, ...]  # flags (long names, dashes) whose value is the processes started on this pod
    all_gpus: tuple[str, ...]  # values of a count flag meaning one process per GPU
    unset: int | str  # processes with no count flag: a number, or "gpus"
    source: str


def _row(name: str, row: Any) -> Launcher:
    where = f"{TABLE.name} [launchers.{name}]"
    if not isinstance(row, dict) or set(row) != set(_FIELDS):
        raise ValueError(f"{where}: fields must be exactly {sorted(_FIELDS)}")
    for field, kind in _FIELDS.items():
        value = row[field]
        if not isinstance(value, kind) or isinstance(value, bool):
            raise ValueError(f"{where}.{field}: wrong type")
        if isinstance(value, list) and not all(isinstance(v, str) and v for v in value):
            raise ValueError(f"{where}.{field}: must be a list of strings")
    if not row["commands"] or not row["count"] or not row["source"].strip():
        raise ValueError(f"{where}: commands, count and source must not be empty")
    unset = row["unset"]
    if (isinstance(unset, str) and unset != "gpus") or (isinstance(unset, int) and unset < 1):
        raise ValueError(f'{where}.unset: a positive number or "gpus"')
    return Launcher(
        name,
        row["display"],
        tuple(row["commands"]),
        tuple(f.replace("_", "-") for f in row["count"]),
        tuple(v.lower() for v in row["all_gpus"]),
        unset,
        row["source"],
    )


def load_launchers(path: Path = TABLE) -> tuple[Launcher, ...]:
    """The rows of the table at ``path``, in order."""
    table = read_toml(path).get("launchers")
    if not isinstance(table, dict):
        raise ValueError(f"{path.name}: no [launchers] table")
    return tuple(_row(name, row) for name, row in table.items())


LAUNCHERS = load_launchers()

__all__ = ["LAUNCHERS", "Launcher", "load_launchers"]
