"""Kubernetes recommended labels (app.kubernetes.io/*) shared by every object the library renders."""

from __future__ import annotations

from typing import Optional

PART_OF = "llm-serving"


def recommended_labels(name: str, component: str, version: Optional[str] = None) -> dict[str, str]:
    """The app.kubernetes.io/* labels for an object of ``component`` belonging to ``name``."""
    labels = {
        "app.kubernetes.io/name": name,
        "app.kubernetes.io/instance": name,
        "app.kubernetes.io/component": component,
        "app.kubernetes.io/part-of": PART_OF,
        "app.kubernetes.io/managed-by": "pulumi",
    }
    if version:
        labels["app.kubernetes.io/version"] = version[:63]
    return labels
