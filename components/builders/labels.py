"""Kubernetes recommended labels (app.kubernetes.io/*) shared by every object the library renders."""

from __future__ import annotations

import re
from typing import Optional

PART_OF = "llm-serving"
# Kubernetes label values: at most 63 characters, alphanumerics with '-', '_' or '.' inside.
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")


def recommended_labels(name: str, component: str, version: Optional[str] = None) -> dict[str, str]:
    """The app.kubernetes.io/* labels for an object of ``component`` belonging to ``name``."""
    labels = {
        "app.kubernetes.io/name": name,
        "app.kubernetes.io/instance": name,
        "app.kubernetes.io/component": component,
        "app.kubernetes.io/part-of": PART_OF,
        "app.kubernetes.io/managed-by": "pulumi",
    }
    if version and len(version) <= 63 and _LABEL_VALUE.match(version):
        labels["app.kubernetes.io/version"] = version
    return labels
