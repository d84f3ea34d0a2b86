"""An app's own timeout for its calls to a model, written beside the model's address.

A gateway, agent or RAG backend is often configured by environment variables: the model's URL (``OLLAMA_BASE_URL``,
``VLLM_URL``, ``OPENAI_API_BASE``) and a timeout for the call (``REQUEST_TIMEOUT_SECONDS``, ``LLM_TIMEOUT``). A
timeout at or below a minute cuts a generation that runs longer: a non-streamed completion of a few hundred tokens,
a model loaded on first use, any generation on a CPU. Read from a ConfigMap's data or a container's literal ``env``
that also holds a URL or host:port addressing a model's Service (policies/reading/model_callers.py: a model server's or
a serving-path app's, or the name a model workload's Service conventionally takes where the files leave it out). Spent
set 68 jakepage91/operating-llms-on-kubernetes llm-gateway/k8s/configmap.yaml: ``REQUEST_TIMEOUT_SECONDS: "30"``
beside ``OLLAMA_BASE_URL`` of a CPU-only Ollama.

A value is seconds when the name ends in ``_SECONDS``/``_SECS``/``_SEC``/``_S`` or carries no unit and the value is a
bare number up to 600 (a bare number above that is likely milliseconds and is not judged), milliseconds when it ends
in ``_MS``/``_MILLIS``; a Go-style duration (``30s``, ``2m``) is read as such. Timeouts of other things (connect,
keep-alive, idle, health, database, cache, startup, shutdown) are left alone, and so are an app server's own read and
write timeouts (``GATEWAY_READ_TIMEOUT``, ``SERVER_WRITE_TIMEOUT``: how long it reads its callers' requests).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Optional

from policies.framework import Resource
from policies.kube import as_dict, as_list, container_label, containers, get, metadata_name, pod_specs, split_type
from policies.reading.model_callers import addresses, model_callers
from policies.reading.route_path import duration_seconds

_TIMEOUT_NAME = re.compile(r"TIMEOUT(?:_(SECONDS|SECS|SEC|S|MS|MILLIS))?$")
_OTHER = re.compile(
    r"CONNECT|KEEP_?ALIVE|IDLE|HEALTH|PROBE|DB|DATABASE|SQL|REDIS|CACHE|SESSION|LOCK|POLL|DNS|SHUTDOWN|GRACE|STARTUP|"
    r"READINESS|LIVENESS|WEBHOOK|AUTH|LOGIN|TOKEN_TTL|QUEUE|WORKER|TOOL|SEARCH|EMBED|QDRANT|VECTOR|WRITE|"
    r"^(?:GATEWAY|SERVER|HTTP|HTTP_SERVER|UVICORN|GUNICORN)_READ"
)


def _seconds(name: str, value: str) -> Optional[float]:
    m = _TIMEOUT_NAME.search(name)
    if m is None or _OTHER.search(name):
        return None
    unit, text = m.group(1), value.strip()
    if re.fullmatch(r"\d+(\.\d+)?", text):
        number = float(text)
        if unit in ("MS", "MILLIS"):
            return number / 1000.0
        return number if unit is not None or number <= 600 else None
    return duration_seconds(text) if unit is None else None


def _short(data: Mapping, models: dict[str, str], minimum: float) -> list[tuple[str, float, str, str]]:
    """(variable, seconds, the model Service addressed, what stands behind it) of each short call timeout of a map."""
    targets = [h for v in data.values() if isinstance(v, str) for h in addresses(v) if h in models]
    if not targets:
        return []
    found = []
    for name, value in data.items():
        if isinstance(name, str) and isinstance(value, (str, int)) and not isinstance(value, bool):
            seconds = _seconds(name.upper(), str(value))
            if seconds is not None and 0 < seconds <= minimum:
                found.append((name, seconds, targets[0], models[targets[0]]))
    return found


def short_call_timeouts(resources: list[Resource], minimum: float) -> list[tuple[str, str]]:
    """(resource name, message) for each app call timeout at or below ``minimum`` seconds beside a model's address."""
    if not any("TIMEOUT" in str(k).upper() for r in resources for k in _names(r)):
        return []
    models = {name: what for name, (what, _, caller) in model_callers(resources).items() if not caller}
    if not models:
        return []
    findings = []
    for r in resources:
        if r.type == "kubernetes:core/v1:ConfigMap":
            places = [(f"ConfigMap {metadata_name(r.props)} data", as_dict(get(r.props, "data")))]
        elif split_type(r.type) != ("", "Service"):
            places = [
                (f"{split_type(r.type)[1]} {metadata_name(r.props)} {container_label(where, c)} env", _literal_env(c))
                for where, spec in pod_specs(r)
                for c in containers(spec)
            ]
        else:
            continue
        for where, data in places:
            for name, seconds, target, what in _short(data, models, minimum):
                findings.append(
                    (
                        r.name,
                        f"{where}: {name} {seconds:g}s beside the address of Service {target} ({what}): the app reading "
                        f"it gives up on a model call that runs longer (a non-streamed completion, a model loaded on "
                        f"first use, a generation on CPU) and, with retries, sends it again; set it above the longest "
                        f"generation",
                    )
                )
    return findings


def _literal_env(container: Mapping) -> dict[str, str]:
    return {
        e["name"]: e["value"]
        for e in as_list(container.get("env"))
        if isinstance(e, dict) and isinstance(e.get("name"), str) and isinstance(e.get("value"), str)
    }


def _names(r: Resource) -> list:
    """The variable names a ConfigMap's data or a workload's literal env holds (the prefilter's cheap look)."""
    if r.type == "kubernetes:core/v1:ConfigMap":
        return list(as_dict(get(r.props, "data")))
    return [name for _, spec in pod_specs(r) for c in containers(spec) for name in _literal_env(c)]
