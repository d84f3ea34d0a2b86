"""Helm's two ways of giving a chart values, as data: ``--values`` files merged in order and ``--set`` paths.

One reading for every release the pack renders from values it assembles itself: helmfile releases
(policies/reading/helmfile.py), Argo CD and Flux releases of local charts (gitops_charts.py) and Terraform
``helm_release`` resources (terraform.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from components.loading import MANIFESTS

__all__ = ["merged_values", "set_value"]


def set_value(values: dict, dotted: str, value: Any) -> None:
    """Set ``dotted`` (``a.b.c``, ``\\.`` an escaped dot) in ``values`` as ``helm --set`` does for one plain path."""
    parts = [p.replace("\\.", ".") for p in re.split(r"(?<!\\)\.", dotted)]
    if len(parts) > MANIFESTS.max_depth:  # deeper than any file the pack reads: every rule would recurse past Python's
        return  # limit on it (a name of 200,000 parts was an internal error, review56a); not a value helm would use
    here = values
    for part in parts[:-1]:
        nxt = here.get(part)
        if not isinstance(nxt, dict):
            nxt = here[part] = {}
        here = nxt
    here[parts[-1]] = value


def merged_values(into: dict, new: Mapping) -> dict:
    """``new`` merged over ``into`` as Helm merges two ``--values`` files (maps key by key, anything else replaces)."""
    out = dict(into)
    for key, value in new.items():
        out[key] = merged_values(out[key], value) if isinstance(value, Mapping) and isinstance(out.get(key), Mapping) else value
    return out
