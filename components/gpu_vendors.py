"""GPU vendors as data: the rows of gpu_vendors.toml (device resources, the engine platform each needs, the image words
and variables that mark a build or set-up for it, the variables and values that hide every device), each with its
source. A row with an unknown or missing field or a wrong type fails the load, naming the row and the field."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from .parse_cache import read_toml

TABLE = Path(__file__).with_name("gpu_vendors.toml")
_FIELDS: dict[str, type] = {
    "display": str,
    "resources": list,
    "platform": str,
    "image_words": list,
    "env": list,
    "hide": dict,
    "source": str,
}
_WORDS = re.compile(r"[/:@._-]+")


@dataclass(frozen=True)
class Vendor:
    """One vendor (a row of gpu_vendors.toml)."""

    name: str
    display: str
    resources: tuple[str, ...]
    platform: str
    image_words: frozenset[str]
    env: tuple[str, ...]
    hide: tuple[tuple[str, frozenset[str]], ...]  # (variable, the values of it that hide every device)
    source: str

    def gives(self, resource: str) -> bool:
        """True when a device resource name is one of this vendor's (a listed name, or under a listed prefix)."""
        return any(resource == r or (r.endswith(("/", ".", "-")) and resource.startswith(r)) for r in self.resources)

    def hides(self, variable: str, value: object) -> bool:
        """True when ``variable`` set to ``value`` hides every device of this vendor from the container."""
        return any(variable == name and str(value).strip().lower() in values for name, values in self.hide)

    def marks_image(self, image: str) -> bool:
        """True when a word of the image reference names a build for this vendor (``rocm/vllm``, ``:rocm``, ``-rocm``)."""
        return bool(self.image_words) and any(w in self.image_words for w in _WORDS.split(image.lower()))


def _row(name: str, row: Any) -> Vendor:
    where = f"{TABLE.name} [vendors.{name}]"
    if not isinstance(row, dict) or set(row) != set(_FIELDS):
        raise ValueError(f"{where}: fields must be exactly {sorted(_FIELDS)}")
    for field, kind in _FIELDS.items():
        value = row[field]
        if not isinstance(value, kind) or isinstance(value, bool):
            raise ValueError(f"{where}.{field}: wrong type")
        if isinstance(value, list) and not all(isinstance(v, str) for v in value):
            raise ValueError(f"{where}.{field}: must be a list of strings")
    hide = row["hide"]
    if not all(isinstance(k, str) and isinstance(v, list) and all(isinstance(x, str) for x in v) for k, v in hide.items()):
        raise ValueError(f"{where}.hide: a table of variable = [values]")
    if not row["resources"] or not row["source"].strip() or not all(row["resources"]):
        raise ValueError(f"{where}: resources and source must not be empty")
    return Vendor(
        name,
        row["display"],
        tuple(row["resources"]),
        row["platform"],
        frozenset(w.lower() for w in row["image_words"]),
        tuple(row["env"]),
        tuple((str(k), frozenset(x.strip().lower() for x in v)) for k, v in hide.items()),
        row["source"],
    )


def load_vendors(path: Path = TABLE) -> tuple[Vendor, ...]:
    """The rows of the table at ``path``, in order."""
    table = read_toml(path).get("vendors")
    if not isinstance(table, dict):
        raise ValueError(f"{path.name}: no [vendors] table")
    return tuple(_row(name, row) for name, row in table.items())


VENDORS = load_vendors()


def vendor(name: str) -> Vendor:
    """The row named ``name`` (KeyError when there is none)."""
    for row in VENDORS:
        if row.name == name:
            return row
    raise KeyError(name)


def resource_vendor(resource: str) -> Optional[Vendor]:
    """The vendor whose device resource ``resource`` is, or None."""
    return next((v for v in VENDORS if v.gives(resource)), None)


def device_resources(resources: Mapping[str, Any]) -> list[tuple[str, Vendor]]:
    """(name, vendor) of the device resources among a container's limits or requests."""
    return [(n, v) for n in resources if isinstance(n, str) and (v := resource_vendor(n)) is not None]


__all__ = ["VENDORS", "Vendor", "device_resources", "load_vendors", "resource_vendor", "vendor"]
