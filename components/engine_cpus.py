"""The CPUs a model server's own processes keep busy, per engine: the optional ``[engines.NAME.cpus]`` tables of
serving_engines.toml (``processes``, ``worker_per_gpu_from``, ``source``), read by G9 serving-cpu-limit-floor; and the
optional ``[engines.NAME.cpu_inference]`` tables (``min_cpus``, ``source``) of engines that compute on the CPU when they
hold no GPU.

A table with an unknown or missing field, a count that is not a whole number >= 1, or no source fails the import,
naming the engine and the field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .parse_cache import read_toml
from .serving_engines import TABLE

_FIELDS = ("processes", "worker_per_gpu_from", "source")


@dataclass(frozen=True)
class EngineCpus:
    """One engine's busy processes: ``processes`` whatever the GPUs, plus one per GPU from ``worker_per_gpu_from``."""

    processes: int
    worker_per_gpu_from: int
    source: str

    def min_cpus(self, gpus: int) -> int:
        """The CPUs the server's always-busy processes take with ``gpus`` GPUs."""
        return self.processes + (gpus if gpus >= self.worker_per_gpu_from else 0)


def _row(name: str, table: Any) -> EngineCpus:
    where = f"{TABLE.name} [engines.{name}.cpus]"
    if not isinstance(table, dict) or set(table) != set(_FIELDS):
        raise ValueError(f"{where}: must hold exactly {list(_FIELDS)}")
    for field in _FIELDS[:2]:
        value = table[field]
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{where}.{field}: must be a whole number >= 1")
    if not isinstance(table["source"], str) or not table["source"].strip():
        raise ValueError(f"{where}.source: must be text")
    return EngineCpus(table["processes"], table["worker_per_gpu_from"], table["source"])


def load(path: Any = TABLE) -> dict[str, EngineCpus]:
    """Engine name -> its CPU floor, for every engine row of the table at ``path`` with a cpus table."""
    engines = read_toml(path).get("engines")
    rows = engines.items() if isinstance(engines, dict) else ()
    return {name: _row(name, row["cpus"]) for name, row in rows if isinstance(row, dict) and "cpus" in row}


CPUS = load()


@dataclass(frozen=True)
class CpuInference:
    """An engine that computes the model on the CPU when it holds no GPU: ``min_cpus`` below which every token is
    throttled, and where its thread default was read."""

    min_cpus: int
    source: str


def load_cpu_inference(path: Any = TABLE) -> dict[str, CpuInference]:
    """Engine name -> its ``[engines.NAME.cpu_inference]`` table (min_cpus, source), for every row that has one."""
    engines = read_toml(path).get("engines")
    found = {}
    for name, row in engines.items() if isinstance(engines, dict) else ():
        if not isinstance(row, dict) or "cpu_inference" not in row:
            continue
        table, where = row["cpu_inference"], f"{TABLE.name} [engines.{name}.cpu_inference]"
        if not isinstance(table, dict) or set(table) != {"min_cpus", "source"}:
            raise ValueError(f"{where}: must hold exactly ['min_cpus', 'source']")
        value = table["min_cpus"]
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{where}.min_cpus: must be a whole number >= 1")
        if not isinstance(table["source"], str) or not table["source"].strip():
            raise ValueError(f"{where}.source: must be text")
        found[name] = CpuInference(value, table["source"])
    return found


CPU_INFERENCE = load_cpu_inference()


def min_cpus(engine: str, gpus: int) -> int:
    """The CPUs the always-busy processes of ``engine``'s server take with ``gpus`` GPUs; 0 when not established."""
    row = CPUS.get(engine)
    return row.min_cpus(gpus) if row is not None else 0
