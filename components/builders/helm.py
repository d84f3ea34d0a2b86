"""Helm releases as plain data: a pinned chart and the values one release passes to it.

Every chart the stack installs is pinned to a released version (each pin names its source
repository and tag); tests check the values each release passes against that chart's defaults.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping


@dataclass(frozen=True)
class Chart:
    """A pinned Helm chart: its name, version and repository (an https index or an oci:// registry)."""

    name: str
    version: str
    repository: str

    @property
    def is_oci(self) -> bool:
        """True when the chart lives in an OCI registry (helm takes ``oci://.../<name>`` as the chart, no repo)."""
        return self.repository.startswith("oci://")


def release(chart: Chart, name: str, namespace: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """A Helm release as plain data: what helm.v3.Release is given."""
    return {
        "name": name,
        "chart": chart.name,
        "version": chart.version,
        "repository": chart.repository,
        "namespace": namespace,
        "values": dict(values),
    }
