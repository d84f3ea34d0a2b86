"""Which Ollama library model names and sizes exist: the rows of ollama_library.toml.

Each row names a library family, the parameter sizes its tags start with, optionally the size its bare name (tag
latest) pulls, and the page that lists them. A row with an
unknown or missing field, or a size that is not a number followed by m or b, fails the load naming the row and the
field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from .parse_cache import read_toml

TABLE = Path(__file__).with_name("ollama_library.toml")
_FIELDS = ("name", "sizes", "source", "latest", "files", "tags", "kv")
_SIZE = re.compile(r"^(\d+(?:\.\d+)?[mb])(?:-|$)")
_LIBRARY = ("registry.ollama.ai/library/", "ollama.com/library/", "library/")


@dataclass(frozen=True)
class Family:
    """One library family: ``name`` is published in ``sizes`` (tags start with one of them), per ``source``."""

    name: str
    sizes: tuple[str, ...]
    source: str
    latest: Optional[str] = None  # the size the bare name (tag latest) pulls, one of sizes
    files: tuple[tuple[str, float], ...] = ()  # (size, published download GB) of the size's default build
    tags: tuple[tuple[str, str], ...] = ()  # (tag word, size) for tags that name a size by a word (phi3:mini)
    kv: tuple[tuple[str, float], ...] = ()  # (size, KV cache KiB per token at f16)


def _sized(row: dict, field: str, sizes: list) -> Optional[tuple[tuple[str, float], ...]]:
    """A row's optional table of size -> positive number (``files``, ``kv``) as pairs, None when malformed."""
    table = row.get(field, {})
    if not isinstance(table, dict):
        return None
    pairs: list[tuple[str, float]] = []
    for size, value in table.items():
        if size not in sizes or isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            return None
        pairs.append((size, float(value)))
    return tuple(pairs)


def _load(path: Path = TABLE) -> dict[str, Family]:
    found: dict[str, Family] = {}
    for i, row in enumerate(read_toml(path).get("family", [])):
        where = f"{path.name} [[family]] row {i + 1}"
        unknown = sorted(set(row) - set(_FIELDS))
        missing = [f for f in ("name", "source") if not isinstance(row.get(f), str) or not row[f].strip()]
        sizes = row.get("sizes")
        if not isinstance(sizes, list) or not sizes or not all(isinstance(s, str) and _SIZE.match(s) for s in sizes):
            missing.append("sizes")
        latest = row.get("latest")
        if latest is not None and latest not in (sizes or ()):
            missing.append("latest")
        files, kv = _sized(row, "files", sizes or []), _sized(row, "kv", sizes or [])
        tags = row.get("tags", {})
        if not isinstance(tags, dict) or not all(isinstance(v, str) and v in (sizes or ()) for v in tags.values()):
            missing.append("tags")
        missing += [f for f, v in (("files", files), ("kv", kv)) if v is None]
        if unknown or missing:
            raise ValueError(f"{where}: unknown fields {unknown}, missing, empty or malformed {missing}")
        found[row["name"]] = Family(row["name"], tuple(sizes), row["source"], latest, files or (), tuple(tags.items()), kv or ())
    return found


FAMILIES = _load()


def _swapped(a: str, b: str) -> bool:
    """True when ``a`` is ``b`` with two adjacent, different characters swapped."""
    if len(a) != len(b) or a == b:
        return False
    diff = [i for i in range(len(a)) if a[i] != b[i]]
    return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]


def library_name(model: str) -> Optional[tuple[str, str]]:
    """(name, tag) of a model of the library namespace (``qwen3:8b``, ``library/qwen3``), or None for another
    namespace (``user/model``) or a reference holding a variable."""
    model = model.strip().strip("\"'")
    for prefix in _LIBRARY:
        if model.startswith(prefix):
            model = model[len(prefix) :]
            break
    if not model or "/" in model or "$" in model or "@" in model:
        return None
    name, _, tag = model.partition(":")
    return name.lower(), tag


def published_size(model: str) -> Optional[tuple[Family, str, float]]:
    """(family, size, bytes) of the default build a library reference pulls by the table's published file sizes:
    the bare name or tag latest (the row's ``latest``), a size tag (``7b``) or a tag word naming one (``mini``);
    None for a tag naming a quantization or variant (``7b-chat-q8_0``), another namespace, or a size with no figure."""
    parsed = library_name(model)
    if parsed is None:
        return None
    name, tag = parsed
    family = FAMILIES.get(name)
    if family is None:
        return None
    tag = tag.lower()
    size = family.latest if tag in ("", "latest") else dict(family.tags).get(tag, tag)
    gb = dict(family.files).get(size or "")
    return (family, size, gb * 1e9) if size is not None and gb is not None else None


def unpublished(model: str) -> Optional[tuple[Family, str]]:
    """(family, why) when an Ollama model reference names no library model by the table: a size the family has no tag
    for, or a family's name with two adjacent letters swapped; None otherwise (or when the table cannot say)."""
    parsed = library_name(model)
    if parsed is None:
        return None
    name, tag = parsed
    family = FAMILIES.get(name)
    if family is not None:
        size = _SIZE.match(tag.lower())
        if size is None or size.group(1) in family.sizes:
            return None
        return family, f"{name} has no {size.group(1)} tag: its sizes are {', '.join(family.sizes)}"
    meant = next((f for f in FAMILIES.values() if len(name) >= 4 and _swapped(name, f.name)), None)
    if meant is None:
        return None
    return meant, f"the library has no model named {name}; {meant.name} is the name with those letters in order"


__all__ = ["FAMILIES", "Family", "library_name", "published_size", "unpublished"]
