"""S6: an autoscaler that scales a model server on GPU memory used.

Model servers take their GPU memory at start, not per request: vLLM allocates ``--gpu-memory-utilization`` of each
GPU (default 0.9: vllm v0.33.0 vllm/engine/arg_utils.py EngineArgs, components/serving_engines.toml
[engines.vllm.sources] settings) for weights and KV cache before it serves; TGI ``--cuda-memory-fraction`` (default
1.0 of the visible memory: text-generation-inference v3.3.7 launcher/src/main.rs L811-813); SGLang
``--mem-fraction-static``; NIM (vLLM inside) the same. Every replica therefore reads ~90% GPU memory used while idle,
so a target below that scales out to the maximum and never scales in, and one above it never scales out. The engine
table's ``memory_fraction_of`` says which engines preallocate.

Read generically, whatever the scaler: a KEDA trigger of any type whose metadata names GPU memory used (a Prometheus
query on ``DCGM_FI_DEV_FB_USED``, ``nvidia_gpu_memory_used``, an external scaler's ``metricType:
memory_used_percent``), a known external scaler profile that scales on it (pmady/keda-gpu-scaler pkg/profiles/
profiles.go builtinProfiles: ``vllm-inference`` is MetricMemoryUsedPercent target 80 at 1b65d4e, and ``tgi-inference``
MetricMemoryUsedPercent target 75 at 5f0e6c1 :206-216, as the set 10 labellers read it), and an HPA metric so named.
NVML's "memory utilization" (``DCGM_FI_DEV_MEM_COPY_UTIL``, keda-gpu-scaler ``memory_utilization``) is memory
bandwidth, which follows load: not read here.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Optional

from policies.autoscaling.scalers import hpa_metrics, is_hpa, is_scaled_object, model_server_hint, triggers
from policies.framework import Resource, unproven
from policies.kube import as_dict, get, metadata_name

# GPU framebuffer memory used (not bandwidth utilisation): DCGM's FB_USED (and its ratio with FB_FREE/FB_TOTAL),
# the NVIDIA GPU exporter's nvidia_gpu_memory_used*, and names spelled gpu_memory_used / memory_used_percent.
GPU_MEMORY_USED = re.compile(
    r"(DCGM_FI_DEV_FB_USED|FB_USED|nvidia_gpu_memory_used|gpu_mem(?:ory)?_(?:used|usage)|memory_used_(?:percent|mib|bytes)"
    r"|gpu_memory_percent)",
    re.IGNORECASE,
)
# pmady/keda-gpu-scaler built-in profiles on GPU memory used (pkg/profiles/profiles.go, see above).
MEMORY_PROFILES = {"vllm-inference": "80", "tgi-inference": "75", "batch": "70"}


@lru_cache(maxsize=1)
def _preallocating() -> re.Pattern:
    """A word naming an engine that takes its GPU memory at start (engine table: memory_fraction_of set)."""
    from components.serving_engines import ENGINES

    names = sorted({e.name for e in ENGINES if e.memory_fraction_of}, key=len, reverse=True)
    return re.compile(r"(?<![a-z0-9])(" + "|".join(re.escape(n) for n in names) + r")(?![a-z0-9])", re.IGNORECASE)


def _trigger_signal(trigger: dict) -> Optional[str]:
    """What in one KEDA trigger's metadata scales on GPU memory used, or None."""
    meta = as_dict(trigger.get("metadata"))
    profile = meta.get("profile")
    if isinstance(profile, str) and profile in MEMORY_PROFILES:
        return f"profile {profile!r} (GPU memory used percent, target {MEMORY_PROFILES[profile]})"
    for key, value in sorted(meta.items()):
        if isinstance(value, str) and (match := GPU_MEMORY_USED.search(value)):
            return f"metadata.{key} names {match.group(0)} (GPU memory used)"
    return None


def _signals(scaler: Resource) -> list[tuple[str, str]]:
    """(path, what) of every trigger or HPA metric on GPU memory used."""
    found = []
    if is_scaled_object(scaler):
        for path, trigger in triggers(scaler):
            if (what := _trigger_signal(trigger)) is not None:
                found.append((path, what))
    elif is_hpa(scaler):
        for metric in hpa_metrics(scaler):
            if metric.type != "Resource" and metric.name and (match := GPU_MEMORY_USED.search(metric.name)):
                found.append((metric.path, f"metric {metric.name} names {match.group(0)} (GPU memory used)"))
    return found


def _engine_named(scaler: Resource, path_whats: list[tuple[str, str]]) -> Optional[str]:
    """A preallocating engine the scaler's own text names: its profiles, name, target's name, labels."""
    ref = get(scaler.props, "spec", "scaleTargetRef", "name")
    labels = as_dict(get(scaler.props, "metadata", "labels"))
    texts = [what for _, what in path_whats] + [metadata_name(scaler.props), ref] + list(labels.values())
    for text in texts:
        if isinstance(text, str) and (m := _preallocating().search(text)):
            return m.group(1)
    return None


def _name_hint(scaler: Resource) -> Optional[str]:
    """model_server_hint on the scaler's names and labels only: a GPU series (DCGM's) is not a model server's."""
    spec = {k: v for k, v in as_dict(get(scaler.props, "spec")).items() if k not in ("triggers", "metrics")}
    return model_server_hint(Resource(type=scaler.type, name=scaler.name, props={**scaler.props, "spec": spec}))


_WHY = (
    "model servers allocate their GPU memory at start (vLLM --gpu-memory-utilization, 0.9 of each GPU by default; "
    "TGI --cuda-memory-fraction, 1.0; SGLang --mem-fraction-static) and hold it idle or busy, so the signal reads "
    "~90% with no traffic: the autoscaler goes to its maximum and never scales in (or never scales out, with a target "
    "above it); scale on queue depth (vllm:num_requests_waiting) or running requests"
)


def gpu_memory_findings(scaler: Resource, gpu_target: Optional[str]) -> list[str]:
    """Findings for one HPA/ScaledObject scaling on GPU memory used: blocking when its target is a GPU workload of the
    set (``gpu_target``) or its own text names a preallocating engine; advice when only a model server is hinted."""
    signals = _signals(scaler)
    if not signals:
        return []
    engine = _engine_named(scaler, signals)
    hint = None if (gpu_target or engine) else _name_hint(scaler)
    if not (gpu_target or engine or hint):
        return []
    who = f"scaleTargetRef {gpu_target} is a GPU workload" if gpu_target else (f"it scales {engine}" if engine else hint)
    out = []
    for path, what in signals:
        message = f"{path}: {what}; {who}: {_WHY}"
        out.append(message if (gpu_target or engine) else unproven(message))
    return out
