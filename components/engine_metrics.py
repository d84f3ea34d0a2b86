"""Which Prometheus series each model server exports, for every engine of the table: the data a query is read against.

components/engine_metrics.json holds, per engine row of components/serving_engines.toml, the series its source
registers: ``read`` rows written by tools/read_engine_metrics.py from the engines' repositories at pinned releases
(Hugging Face TGI v3.3.7, Text Embeddings Inference v1.9.3, Triton's core r26.06; each series with its kind, its call
site and the first release read that names it), ``hand`` rows kept by hand with their source (SGLang's collector.py at
a pinned commit, llama.cpp's server README, NVIDIA NIM's documented vLLM-based series, Ollama's routes: none). vLLM's
own families come from components/vllm_metrics.py (its wheels, per release), not repeated here.

prometheus_client and the Rust ``metrics`` exporter expose a counter or histogram under more names than it is
registered with (``_total``; ``_bucket``, ``_sum``, ``_count``; ``_created``): ``exports`` accepts those.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Optional

TABLE = Path(__file__).resolve().with_name("engine_metrics.json")
_SUFFIXES = ("_total", "_bucket", "_sum", "_count", "_created")
# The name prefix an engine's series carry, where it is the engine's own (a bare NIM name could be anyone's).
PREFIXES: dict[str, str] = {
    "vllm": "vllm:",
    "sglang": "sglang:",
    "llama-cpp": "llamacpp:",
    "tgi": "tgi_",
    "tei": "te_",
    "triton": "nv_",
    "lmdeploy": "lmdeploy:",
    "aphrodite": "aphrodite:",
}


@dataclass(frozen=True)
class EngineSeries:
    """The series one engine exports, and where that was read."""

    engine: str  # the row id of components/serving_engines.toml
    source: str
    names: frozenset[str]
    prefix: str  # "" when the engine's names carry none of its own (NIM) or it exports nothing (Ollama)


@lru_cache(maxsize=1)
def table() -> dict[str, EngineSeries]:
    """engine id -> its exported series (vLLM's from components/vllm_metrics.SERIES)."""
    from .vllm_metrics import RETIRED_SERIES, SERIES

    data = json.loads(TABLE.read_text(encoding="utf-8"))
    out: dict[str, EngineSeries] = {}
    for part in ("read", "hand"):
        for engine, row in sorted(data[part].items()):
            names = {s["name"] for s in row["series"]}
            if engine == "vllm":
                names |= set(SERIES) | set(RETIRED_SERIES)
            out[engine] = EngineSeries(engine, row["source"], frozenset(names), PREFIXES.get(engine, ""))
    for engine, prefix in PREFIXES.items():
        out.setdefault(engine, EngineSeries(engine, "components/serving_engines.toml sources.metrics", frozenset(), prefix))
    return out


def _bases(name: str) -> set[str]:
    return {name, *(name[: -len(s)] for s in _SUFFIXES if name.endswith(s))}


def exports(engine: str, name: str) -> bool:
    """True when ``engine`` exports the series ``name`` (a counter's _total, a histogram's _bucket too), or ``name``
    carries the engine's own prefix (the table lists the series read, a prefix is the engine's alone)."""
    row = table().get(engine)
    if row is None:
        return False
    if row.prefix and name.startswith(row.prefix):
        return True
    return bool(_bases(name) & {b for n in row.names for b in _bases(n)})


def engine_of(name: str) -> Optional[str]:
    """The engine whose own prefix ``name`` carries (vllm:, sglang:, llamacpp:, tgi_, te_, nv_, ...), or None."""
    return next((engine for engine, prefix in PREFIXES.items() if name.startswith(prefix) and len(name) > len(prefix)), None)


def exported_by_any(name: str) -> bool:
    """True when some engine of the table exports ``name`` (by its prefix or its listed names)."""
    return any(exports(engine, name) for engine in table())


def shown(engine: str, limit: int = 3) -> str:
    """A few of an engine's load series, for a message (its queue and running gauges first)."""
    from .serving_engines import ENGINES

    row = next((e for e in ENGINES if e.name == engine), None)
    picks = [m for m in (row.queue_metric, row.running_metric) if m] if row is not None else []
    names = sorted(table()[engine].names) if engine in table() else []
    picks += [n for n in names if n not in picks and not n.endswith(("_bucket", "_sum", "_count"))]
    return ", ".join(picks[:limit])
