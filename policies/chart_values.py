"""What the chart renderers of policies/helm_charts.py and policies/chart_workloads.py share: Go template truth, a
path into the values, the image a chart version renders, env in either written form, the pod-level options most charts
pass through. Pure: no helper of policies.kube.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from components.helm_charts import Chart

# A chart version that names one release (not a range such as ``>=1.0``, ``1.x`` or ``*``).
PINNED = re.compile(r"^v?\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$")


def truthy(value: Any) -> bool:
    """Go template truth: false, 0, "", nil and empty collections are false; anything else (the string "false" too)."""
    return bool(value)


def create_fullname(release: str, name: str) -> str:
    """helm create's fullname helper when ``fullnameOverride`` is not set (pkg/chartutil/create.go:477-482 at v3.16.4):
    the release's name alone when it contains ``name``, else RELEASE-NAME, cut to 63 characters without a trailing
    '-'. The NIM and LiteLLM charts' helpers and the reader's names of rendered objects (reading/chart_names.py)."""
    return (release if name in release else f"{release}-{name}")[:63].rstrip("-")


def value_at(values: Mapping, *keys: str, default: Any = None) -> Any:
    node: Any = values
    for key in keys:
        if not isinstance(node, Mapping) or key not in node:
            return default
        node = node[key]
    return default if node is None else node


def chart_image(chart: Chart, values: Mapping, version: str, amd: bool = False) -> str | None:
    repository = value_at(values, "image", "repository") or chart.image
    tag = value_at(values, "image", "tag")
    if tag in (None, ""):
        if not PINNED.match(version):
            # No chart version pinned: the newest chart installs, with its appVersion (as Chart.probes_at reads it); the
            # range itself is G1 chart-version-pinned's finding, and a values file states no version at all.
            tag = chart.newest_tag()
            return f"{repository}:{tag}" if tag else str(repository)
        # A pinned version the table has not read (newer than the table, or never tagged): the closest one read.
        tag = chart.default_tag(version) or chart.nearest_tag(version)
        if tag is None:
            return str(repository)
        if amd and chart.key == "ollama":
            tag = f"{tag}-rocm"
    return f"{repository}:{tag}"


def env_list(env: Any) -> list:
    if isinstance(env, list):
        return [e for e in env if isinstance(e, Mapping)]
    if isinstance(env, Mapping):  # NAME: {value: ...} or NAME: value
        return [{"name": str(k), **v} if isinstance(v, Mapping) else {"name": str(k), "value": str(v)} for k, v in env.items()]
    return []


def pod_options(values: Mapping, pod: dict) -> None:
    for key, field in (
        ("nodeSelector", "nodeSelector"),
        ("tolerations", "tolerations"),
        ("affinity", "affinity"),
        ("runtimeClassName", "runtimeClassName"),
        ("podSecurityContext", "securityContext"),
        ("imagePullSecrets", "imagePullSecrets"),
        ("topologySpreadConstraints", "topologySpreadConstraints"),
        ("priorityClassName", "priorityClassName"),
    ):
        if truthy(values.get(key)):
            pod[field] = values[key]
    for flag in ("hostNetwork", "hostPID", "hostIPC"):
        if values.get(flag) is True:
            pod[flag] = True


def items_of(value: object) -> list:
    """A values list as written, or none when the release gives another shape (review51b: hostile values)."""
    return value if isinstance(value, list) else []


def coalesced(default: Mapping, given: Any) -> dict:
    """``given`` merged over ``default`` as Helm merges a values map over the chart's (helm v3.16.0
    pkg/chartutil/coalesce.go: maps merge key by key, any other value replaces, a null deletes the key); a ``given``
    that is not a map leaves ``default``."""
    out = dict(default)
    if not isinstance(given, Mapping):
        return out
    for key, value in given.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = coalesced(out[key], value)
        else:
            out[key] = value
    return out
