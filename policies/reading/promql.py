"""What a PromQL query an autoscaler runs returns, as far as its text proves it: one series per model-server pod, or
an aggregate.

Model servers export their load gauges once per engine process, so a bare selector of one of them returns one series
per pod. The series families are the engine table's queue and running metrics (components/serving_engines.toml:
vllm:, sglang:, tgi_, nv_inference_, ...) and DCGM's per-GPU gauges (DCGM_FI_). A recording rule's name
(``level:metric:operations``, two colons or more) is not read: it may already aggregate. No parser: only what the
text shows for certain is said (an aggregation by pod or instance still returns one series per pod; ``without`` and
anything unusual count as unknown, never as per pod).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

_AGGREGATIONS = r"(?:sum|avg|max|min|count|quantile|topk|bottomk|stddev|stdvar|group|count_values|limitk|limit_ratio)"
_AGG_CALL = re.compile(rf"(?<![A-Za-z0-9_:]){_AGGREGATIONS}\s*(?:(by|without)\s*\(([^)]*)\)\s*)?\(", re.IGNORECASE)
_AGG_SUFFIX = re.compile(r"\)\s*(by|without)\s*\(([^)]*)\)", re.IGNORECASE)
# scalar() turns a vector into one number (NaN for more than one element) and absent() returns one element or none:
# not one series per pod.
_SCALAR = re.compile(r"(?<![A-Za-z0-9_:])(?:scalar|absent|absent_over_time)\s*\(", re.IGNORECASE)
_PER_POD_LABELS = {"pod", "pod_name", "kubernetes_pod_name", "instance", "container_id"}
_NAME = re.compile(r"(?<![A-Za-z0-9_:\"'])([A-Za-z_][A-Za-z0-9_]*(?::[A-Za-z0-9_]+)*)")


_VENDOR_WORDS = {"tgi", "nv"}


@lru_cache(maxsize=1)
def _families() -> tuple[tuple[str, str], ...]:
    """(prefix, engine) of every per-pod series family: the engine table's queue and running metrics, and DCGM."""
    from components.serving_engines import ENGINES

    found = {("DCGM_FI_", "DCGM GPU")}
    for engine in ENGINES:
        for metric in (engine.queue_metric, engine.running_metric):
            if not metric:
                continue
            prefix = metric.split(":")[0] + ":" if ":" in metric else "_".join(metric.split("_")[:2]) + "_"
            # Only a prefix that names its exporter: NIM's bare num_requests_running could be anyone's.
            if ":" in prefix or prefix.split("_")[0] in _VENDOR_WORDS:
                found.add((prefix, engine.name))
    return tuple(sorted(found))


def server_series(query: str) -> list[tuple[str, str]]:
    """(series name, engine) of the per-pod model-server series the query selects, in order."""
    found = []
    for match in _NAME.finditer(query):
        name = match.group(1)
        if name.count(":") > 1:
            continue  # a recording rule (level:metric:operations)
        for prefix, engine in _families():
            if name.lower().startswith(prefix.lower()) and len(name) > len(prefix):
                found.append((name, engine))
                break
    return found


def _closing(text: str, start: int) -> int:
    """The index of the parenthesis closing the one at ``start`` (len(text) when unbalanced)."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return i
    return len(text)


def shape(query: str) -> Optional[str]:
    """ "per-pod" when the query's text proves one series per pod (no aggregation at all, or an outermost aggregation
    by pod or instance), "aggregate" when an outermost aggregation (or scalar()) leads the query, None when the text
    does not say (an aggregation inside another function or a binary expression, ``without``)."""
    text = query.strip()
    if _SCALAR.match(text):
        return "aggregate"
    lead = _AGG_CALL.match(text)
    if lead is None:
        return None if _AGG_CALL.search(text) or _SCALAR.search(text) else "per-pod"
    kind, labels = lead.group(1), lead.group(2)
    suffix = _AGG_SUFFIX.match(text, _closing(text, lead.end() - 1))
    if suffix is not None:
        kind, labels = suffix.group(1), suffix.group(2)
    if kind and kind.lower() == "without":
        return None
    return "per-pod" if {label.strip() for label in (labels or "").split(",")} & _PER_POD_LABELS else "aggregate"


# What selects series in a query, once string literals (label values), range and subquery brackets and the label lists
# of by/without/on/ignoring/group_left/group_right are set aside: a name not followed by "(" (a function) nor a keyword.
_STRING = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|`[^`]*`")
_RANGE = re.compile(r"\[[^\]]*\]")
_LABEL_LIST = re.compile(r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", re.IGNORECASE)
_SELECTOR = re.compile(r"(?<![A-Za-z0-9_:.])([A-Za-z_:][A-Za-z0-9_:]*)(?![A-Za-z0-9_:])(\s*\()?(\s*\{[^{}]*\})?")
_KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "offset", "bool", "and", "or", "unless",
             "inf", "nan", "atan2", "start", "end"}  # fmt: skip
# A label matcher inside braces: a label name, then =, !=, =~ or !~.
_MATCHER = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)")


@dataclass(frozen=True)
class Selector:
    """One series a query selects: its metric name and the labels it matches on (``__name__`` left out)."""

    name: str
    labels: tuple[str, ...]


def selectors(query: str) -> list[Selector]:
    """Every metric-name selector of a PromQL query, in order, with the labels its braces match on: ``sum(rate(
    vllm:request_success_total{namespace="llm"}[5m])) by (pod)`` gives one, vllm:request_success_total on
    (namespace,). Functions, keywords, label names and values, durations are not selectors; ``{__name__="x"}`` is read
    as x. No parser: a query this does not follow gives fewer selectors, never a wrong one."""
    text = _LABEL_LIST.sub(" ", _RANGE.sub(" ", query))
    masked = _STRING.sub(lambda m: '"' + "_" * (len(m.group(0)) - 2) + '"', text)
    found: list[Selector] = []
    for match in _SELECTOR.finditer(masked):
        name, call, braces = match.group(1), match.group(2), match.group(3)
        if call or name.lower() in _KEYWORDS or masked[: match.start()].rstrip().endswith(("{", ",")):
            continue
        labels = tuple(sorted(set(_MATCHER.findall(braces or "")) - {"__name__"}))
        found.append(Selector(name, labels))
    for braces in re.finditer(r"(?<![A-Za-z0-9_:])\{([^{}]*)\}", masked):
        named = re.search(r"__name__\s*=\s*\"", braces.group(1))
        if named is not None:
            start = braces.start(1) + named.end()
            value = text[start : text.find('"', start)]
            labels = tuple(sorted(set(_MATCHER.findall(braces.group(1))) - {"__name__"}))
            found.append(Selector(value, labels))
    return found
