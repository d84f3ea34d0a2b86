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

__all__ = ["merged_values", "set_text", "set_value", "typed"]


_INT = re.compile(r"[+-]?[0-9]+")


def set_text(value: Any) -> str:
    """The text a YAML or HCL scalar is on helm's command line: ``true``, not Python's ``True`` (helmfile's
    ``SetValue.Value``, Argo CD's ``HelmParameter.Value`` and the Terraform provider's ``value`` are strings)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else str(value)


def typed(text: str) -> Any:
    """``text`` as ``helm --set`` types it (helm v3.16.4 pkg/strvals/parser.go:528-560 typedVal): true, false and null
    in any case, an integer not led by a zero (``0`` itself) as a number; anything else stays text (``1.5``, ``007``)."""
    folded = text.lower()
    if folded in ("true", "false"):
        return folded == "true"
    if folded == "null":
        return None
    if text == "0" or (_INT.fullmatch(text) and text[0] != "0" and -(2**63) <= int(text) < 2**63):
        return int(text)
    return text


def set_value(values: dict, dotted: str, value: Any, string: bool = False) -> None:
    """Set ``dotted`` (``a.b.c``, ``\\.`` an escaped dot) in ``values`` as ``helm --set`` does for one plain path: a
    scalar typed from its text (``"true"`` a boolean), or, ``string`` (``--set-string``: helmfile ``setString``, Argo CD
    ``forceString``, Terraform ``type = "string"``), kept as text (``true`` the string ``"true"``). A list or map (what
    the pack read of an expression) is set as it is."""
    parts = [p.replace("\\.", ".") for p in re.split(r"(?<!\\)\.", dotted)]
    if len(parts) > MANIFESTS.max_depth:  # deeper than any file the pack reads: every rule would recurse past Python's
        return  # limit on it (a name of 200,000 parts was an internal error, review56a); not a value helm would use
    if not isinstance(value, (list, dict)):
        value = set_text(value) if string else typed(set_text(value))
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
