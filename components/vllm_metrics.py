"""Which vLLM Prometheus metrics exist in which release, for every series an alert, adapter rule or scaler names.

How the table was made (as components/vllm_flags.py's): the wheel of each release below was
downloaded from PyPI (``pip download vllm==X --no-deps``) and ``vllm/v1/metrics/loggers.py``
(PrometheusStatLogger, the V1 engine, vLLM's default since 0.8) read, not run, with
tools/read_vllm_metrics.py: every ``name="vllm:..."`` given to a Gauge, Counter or Histogram.
Releases read: 0.8.5, 0.9.0, 0.9.1, 0.9.2, 0.10.0, 0.29.0, 0.30.0, 0.31.0, 0.32.0, 0.33.0 (plus 0.28.0
for the names below). Each family's first release is the first of those that defines it; each was
defined in every release read after it. The line is where 0.33.0 defines it.

prometheus_client exposes a Counter ``x`` as ``x_total`` (0.8.5 already named some counters
``..._total``; the exposed series is the same) and a Histogram as ``x_bucket``, ``x_sum`` and
``x_count``.

``vllm:admission_rejections`` first appears in 0.32.0 (absent from 0.31.0), although
``--max-num-queued-reqs`` came in 0.29.0: releases 0.29-0.31 reject with 503 but count nothing.
``vllm:kv_cache_usage_perc`` first appears in 0.9.2 (0.9.1 has only ``vllm:gpu_cache_usage_perc``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from .vllm_flags import NEWEST_READ, OLDEST_READ, parse_version

LOGGERS = "vllm/v1/metrics/loggers.py"


@dataclass(frozen=True)
class Family:
    """One metric family: its kind, the first release read that defines it, its line in 0.33.0's loggers.py."""

    name: str
    kind: str  # gauge | counter | histogram
    first_release: str
    line: int

    def series(self) -> tuple[str, ...]:
        """The series names Prometheus scrapes for this family."""
        if self.kind == "counter":
            return (self.name.removesuffix("_total") + "_total",)
        if self.kind == "histogram":
            return tuple(f"{self.name}_{s}" for s in ("bucket", "sum", "count"))
        return (self.name,)


FAMILIES: tuple[Family, ...] = (
    Family("vllm:num_requests_running", "gauge", OLDEST_READ, 527),
    Family("vllm:num_requests_waiting", "gauge", OLDEST_READ, 537),
    Family("vllm:kv_cache_usage_perc", "gauge", "0.9.2", 619),
    Family("vllm:num_preemptions", "counter", OLDEST_READ, 738),
    Family("vllm:prompt_tokens", "counter", OLDEST_READ, 747),
    Family("vllm:generation_tokens", "counter", OLDEST_READ, 798),
    Family("vllm:request_success", "counter", OLDEST_READ, 808),
    Family("vllm:admission_rejections", "counter", "0.32.0", 847),
    Family("vllm:time_to_first_token_seconds", "histogram", OLDEST_READ, 930),
    Family("vllm:e2e_request_latency_seconds", "histogram", OLDEST_READ, 960),
    Family("vllm:request_queue_time_seconds", "histogram", OLDEST_READ, 970),
)
SERIES: dict[str, Family] = {s: f for f in FAMILIES for s in f.series()}
_SERIES_RE = re.compile(r"vllm:[a-z0-9_]+")


def family_of(series: str) -> Family:
    """The family a scraped series belongs to; KeyError for a name outside the table (nothing renders unchecked)."""
    if series not in SERIES:
        raise KeyError(f"{series} is not in the vLLM metric table (components/vllm_metrics.py); add it from the wheels")
    return SERIES[series]


def has_series(series: str, version: str) -> bool:
    """True when vLLM ``version`` exports ``series`` (releases newer than the table: as the newest read)."""
    v = min(parse_version(version), parse_version(NEWEST_READ))
    return v >= parse_version(family_of(series).first_release)


def series_in(expr: str) -> list[str]:
    """Every ``vllm:`` series a PromQL expression (or adapter query) names, in order."""
    return _SERIES_RE.findall(expr)


def missing_series(expr: str, version: str) -> list[str]:
    """The series of ``expr`` that vLLM ``version`` does not export."""
    return [s for s in series_in(expr) if not has_series(s, version)]


@dataclass(frozen=True)
class Retired:
    """A family vLLM renamed, then stopped exporting by default: from ``hidden_from`` on it is created only when the
    server runs with ``--show-hidden-metrics-for-version`` naming the previous minor release, and from ``removed_in``
    on no flag brings it back."""

    name: str
    replacement: str
    hidden_from: str
    removed_in: str


# vLLM's V1 stat logger in the 0.11 line (the PyPI wheel vllm 0.11.0, vllm/v1/metrics/loggers.py:210-245, the "GPU
# cache" block of PrometheusStatLogger.__init__): "Deprecated in 0.9.2 - Renamed as vllm:kv_cache_usage_perc /
# With 0.11.x you can enable with --show-hidden-metrics-for-version=0.10 / TODO: remove in 0.12.0", each gauge or
# counter created only `if self.show_hidden_metrics:`; the same for gpu_prefix_cache_queries and _hits (renamed
# vllm:prefix_cache_queries / _hits). The wheels of 0.12.0 and 0.13.0 define none of the three names (their
# loggers.py read whole): removed in 0.12.0. The replacements exist from 0.9.2 (FAMILIES).
RETIRED: tuple[Retired, ...] = (
    Retired("vllm:gpu_cache_usage_perc", "vllm:kv_cache_usage_perc", "0.11.0", "0.12.0"),
    Retired("vllm:gpu_prefix_cache_queries", "vllm:prefix_cache_queries", "0.11.0", "0.12.0"),
    Retired("vllm:gpu_prefix_cache_hits", "vllm:prefix_cache_hits", "0.11.0", "0.12.0"),
)
# Every series name of a retired family (a counter's _total too), to its family.
RETIRED_SERIES: dict[str, Retired] = {s: r for r in RETIRED for s in (r.name, r.name + "_total")}
# The server flag that keeps hidden families (vllm/config: --show-hidden-metrics-for-version).
SHOW_HIDDEN_FLAG = "show-hidden-metrics-for-version"


def retired_in(expr: str) -> list[Retired]:
    """The retired families a PromQL expression names (``{__name__=~"vllm:gpu_cache_usage_perc"}`` too), in order."""
    out: list[Retired] = []
    for series in series_in(expr):
        family = RETIRED_SERIES.get(series)
        if family is not None and family not in out:
            out.append(family)
    return out


def _previous_minor(version: str) -> str:
    major, minor = parse_version(version)[:2]
    return f"{major}.{minor - 1}"


def exports_retired(family: Retired, version: str, shown_for: Optional[str] = None) -> bool:
    """True when vLLM ``version`` exports ``family``: a release before it was hidden; or one before it was removed, run
    with ``--show-hidden-metrics-for-version`` = ``shown_for`` naming the release's previous minor, the only value that
    shows hidden metrics (0.11.0 wheel vllm/config/observability.py:29-35 show_hidden_metrics, vllm/version.py:17-34
    ``_prev_minor_version_was``: ``version_str == f"0.{minor - 1}"``, so 0.11.x takes "0.10" and nothing else)."""
    v = parse_version(version)
    if v < parse_version(family.hidden_from):
        return True
    if v >= parse_version(family.removed_in) or shown_for is None:
        return False
    return shown_for.strip().strip("\"'") == _previous_minor(version)


def shown_by(family: Retired, shown_for: Optional[str]) -> bool:
    """True when ``--show-hidden-metrics-for-version`` = ``shown_for`` keeps ``family`` on some release (the minor
    before the one that hid it), so a server of unknown release run with it may well export the family."""
    return shown_for is not None and exports_retired(family, family.hidden_from, shown_for)
