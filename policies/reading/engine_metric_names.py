"""Engine metric names a PromQL query spells in a form the engine does not export.

Model servers whose metric names carry a colon-separated prefix (vLLM's ``vllm:``, SGLang's ``sglang:``, llama.cpp's
``llamacpp:``; the engine table's queue and running metrics, components/serving_engines.toml) export every series
under that prefix. Prometheus keeps the colon: a valid metric name matches ``[a-zA-Z_:][a-zA-Z0-9_:]*``
(https://prometheus.io/docs/concepts/data_model/#metric-names-and-labels), and a scrape stores the name as exposed.
The underscore spelling ``vllm_num_requests_running`` therefore selects nothing: the query returns no series and an
autoscaler on it never sees load. (A Prometheus Adapter rule may rename a series without its colon for the HPA's
``metric.name``; that is the adapter's output name, not a PromQL series, and is not read here.)

vLLM's exported series come from components/vllm_metrics.py (read from vLLM's wheels, vllm/v1/metrics/loggers.py at
each release); other engines' from their table rows. A name is a *near miss* when the prefix is spelled with an
underscore and the colon spelling is a series the engine exports: then the right name is certain. A name under an
engine's underscore prefix whose colon spelling the table does not hold is reported as unproven (the table lists
only the series the pack reads).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import components
from components.vllm_metrics import Retired

# Same token rule as policies/reading/promql.py: a metric-name-shaped word not preceded by a name character or quote
# (label values in quotes are skipped).
_NAME = re.compile(r"(?<![A-Za-z0-9_:\"'.])([A-Za-z_][A-Za-z0-9_]*(?::[A-Za-z0-9_]+)*)(?![A-Za-z0-9_:]|\s*=)")


@dataclass(frozen=True)
class Misspelled:
    """One metric name in a query that the engine does not export."""

    name: str
    engine: str
    right: str  # the exported spelling, "" when none is known
    exported: tuple[str, ...]  # the engine's exported series under this prefix (for the message)
    prefix: str = ""  # for a name under a prefix the engine does not use: the prefix its series carry (nv_)


@lru_cache(maxsize=1)
def _exported() -> dict[str, tuple[str, tuple[str, ...]]]:
    """colon prefix (``vllm:``) -> (engine, every exported series name the pack knows under it)."""
    from components.serving_engines import ENGINES
    from components.vllm_metrics import SERIES

    found: dict[str, tuple[str, set[str]]] = {}
    for engine in ENGINES:
        for metric in (engine.queue_metric, engine.running_metric):
            if ":" not in metric:
                continue
            prefix = metric.split(":")[0] + ":"
            found.setdefault(prefix, (engine.name, set()))[1].add(metric)
    if "vllm:" in found:
        found["vllm:"][1].update(SERIES)
    return {p: (e, tuple(sorted(names))) for p, (e, names) in found.items()}


def misspelled(query: str) -> list[Misspelled]:
    """Every engine metric name of ``query`` spelled with ``PREFIX_`` where the engine exports ``PREFIX:`` names."""
    exported = _exported()
    out: list[Misspelled] = []
    seen: set[str] = set()
    for match in _NAME.finditer(query):
        name = match.group(1)
        if ":" in name or name in seen:
            continue
        for prefix, (engine, names) in exported.items():
            under = prefix[:-1] + "_"
            if not name.lower().startswith(under) or len(name) <= len(under):
                continue
            colon = prefix + name[len(under) :]
            right = colon if colon in names else ""
            out.append(Misspelled(name, engine, right, names))
            seen.add(name)
            break
    return out


def foreign_prefixed(query: str) -> list[Misspelled]:
    """Names under ``ENGINE_`` (the row's id: ``triton_server_request_duration_us``) of an engine whose series carry
    another prefix (Triton's ``nv_``, TEI's ``te_``: the row's queue metric, components/serving_engines.toml, each
    row's metrics source): the engine exports no such name, so unless something else defines it the query selects
    nothing (set 35: nbethala/triton-mlops-gpu-platform triton-alerts.yaml, where Triton exports
    nv_inference_request_duration_us and nv_inference_count)."""
    from components.serving_engines import ENGINES

    rows = []
    for engine in ENGINES:
        metric = engine.queue_metric or engine.running_metric
        if not metric or ":" in metric or "_" not in metric:
            continue
        prefix = metric.split("_", 1)[0] + "_"
        if prefix != engine.name + "_":
            rows.append((engine.name + "_", engine.display, prefix, metric))
    out: list[Misspelled] = []
    for match in _NAME.finditer(query):
        name = match.group(1)
        for under, display, prefix, metric in rows:
            if name.lower().startswith(under) and len(name) > len(under) and all(m.name != name for m in out):
                out.append(Misspelled(name, display, "", (metric,), prefix))
    return out


# A namespace equality matcher in a query or an adapter rule's seriesQuery (namespace="llm-serving").
_NAMESPACE = re.compile(r"\bnamespace\s*=\s*[\"']([a-z0-9-]+)[\"']")


def servers_near(query: str, resources: list) -> list:
    """The objects of the namespace a query selects (a namespace="..." matcher), where the files hold some; else every
    object of the run: the servers whose release decides whether the query's series exist."""
    from policies.reading.serving import namespace_of

    scoped = _NAMESPACE.search(query)
    return [r for r in resources if scoped and namespace_of(r) == scoped.group(1)] or resources


def vllm_exports_retired(family: Retired, resources: list) -> bool | None:
    """Whether the vLLM servers of ``resources`` still export a retired family (components/vllm_metrics.RETIRED):
    True when every one runs a release before the family was hidden, or one that keeps it for
    --show-hidden-metrics-for-version (components/vllm_metrics.exports_retired: the previous minor, and only before
    the family was removed); False when some server runs a release that does not export it (a moving tag, latest or
    nightly, of vLLM's own images is the newest release, whatever the flag); None when no server's release is known
    (no server, a digest, a tag that names no release), unless the flag's value is the one that shows the family."""
    from components.images import image_tag, is_vllm_published, vllm_release
    from components.vllm_metrics import SHOW_HIDDEN_FLAG, exports_retired, shown_by
    from policies.kube import containers, pod_specs
    from policies.reading.vllm_args import is_vllm_container, vllm_args

    verdicts: list[bool | None] = []
    for resource in resources:
        for _, podspec in pod_specs(resource):
            for container in containers(podspec, model=True):
                if not is_vllm_container(container):
                    continue
                raw = container.get("image")
                image = raw if isinstance(raw, str) else ""
                tag = (image_tag(image) or "latest").lower()
                flags = vllm_args(container)
                shown = flags.get(SHOW_HIDDEN_FLAG) if SHOW_HIDDEN_FLAG in flags else None
                unknown = True if shown_by(family, shown) else None
                if image and "@" not in image and tag in ("latest", "nightly"):
                    # Docker pulls :latest for an untagged reference: on vLLM's own images the newest release; a
                    # rebuild's moving tag names no vLLM release (set 41: rajyadav9/mlops k8s/vllm/deployment.yaml@37bc3e2
                    # runs ACCOUNT_ID.dkr.ecr.REGION.amazonaws.com/vllm-inference:latest).
                    verdicts.append(False if is_vllm_published(image) else unknown)
                else:
                    release = vllm_release(image) if is_vllm_published(image) else None
                    verdicts.append(unknown if release is None else exports_retired(family, release, shown))
    if False in verdicts:
        return False
    if verdicts and all(v is True for v in verdicts):
        return True
    return None


# Beside components/'s modules in a checkout and in the installed llm_serving package alike (never parents[2]: the
# wheel ships components/ under another name).
_LITELLM = Path(components.__file__).resolve().with_name("litellm_metrics.json")
_CLIENT_SUFFIXES = ("_total", "_created", "_bucket", "_sum", "_count")


@lru_cache(maxsize=1)
def _litellm() -> tuple[frozenset[str], tuple[str, ...]]:
    data = json.loads(_LITELLM.read_text())
    return frozenset(data["series"]), tuple(data["dynamic_suffixes"])


def gateway_unexported(query: str) -> list[Misspelled]:
    """Names under LiteLLM's ``litellm_`` prefix that no LiteLLM release read exports (components/litellm_metrics.json:
    the union of its Prometheus integration's names in four wheels, with prometheus_client's suffixes and the
    per-service names): set 44 ShivSingh96/litellm-gateway-demo keda/scaledobject.yaml queries litellm_requests_total,
    where LiteLLM counts requests as litellm_requests_metric_total and litellm_proxy_total_requests_metric_total."""
    series, dynamic = _litellm()
    out: list[Misspelled] = []
    for match in _NAME.finditer(query):
        name = match.group(1)
        if not name.startswith("litellm_") or ":" in name or any(m.name == name for m in out):
            continue
        bases = {name, *(name[: -len(s)] for s in _CLIENT_SUFFIXES if name.endswith(s))}
        if any(b in series or b.endswith(dynamic) for b in bases):
            continue
        near = tuple(s for s in ("litellm_requests_metric", "litellm_proxy_total_requests_metric") if s in series)
        out.append(Misspelled(name, "LiteLLM", "", tuple(f"{s}_total" for s in near)))
    return out
