"""Whether a container can use the GPU it holds, as data: the rows of device_fit.toml (publishers' CPU builds, the words
that tell an HTTP client of a model server from a program that runs a model, and the node label keys GPU vendors'
components set) as frozen records. Read by G102 (policies/gpu/gpu_unusable.py) and G103 (policies/gpu/gpu_label_unset.py).

A row with an unknown or missing field, a wrong type, a tag pattern that does not compile or no source fails the load
naming the row and the field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from .images import image_repository, image_tag, is_published
from .parse_cache import read_toml
from .table_rows import exact_fields as _fields
from .table_rows import text as _text

TABLE = Path(__file__).with_name("device_fit.toml")


@dataclass(frozen=True)
class CpuBuild:
    """A publisher's CPU build of an engine (a row of [cpu_builds])."""

    name: str
    display: str
    repositories: tuple[str, ...]
    tags: Optional[re.Pattern[str]]
    source: str

    def names(self, image: str) -> bool:
        """True when ``image`` is this build: one of its repositories, at a tag the pattern takes (any when none)."""
        if not is_published(image, self.repositories):
            return False
        if self.tags is None:
            return True
        tag = (image_tag(image) or "").lower()
        return bool(tag) and self.tags.fullmatch(tag) is not None


@dataclass(frozen=True)
class ModelClients:
    """The words that tell an HTTP client of a model server from a program that runs a model ([model_clients])."""

    server_words: frozenset[str]
    model_words: frozenset[str]
    gateway_apps: frozenset[str]
    local_model_env: frozenset[str]
    source: str


@dataclass(frozen=True)
class NodeLabels:
    """A GPU vendor's node labels ([node_labels.NAME]): its namespace and its device resource names."""

    name: str
    namespace: str
    resources: tuple[str, ...]
    source: str


def _words(where: str, row: dict, field: str) -> tuple[str, ...]:
    value = row.get(field)
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError(f"{where}: {field} must be a non-empty list of text")
    return tuple(value)


def _table(table: dict, key: str, path: Path) -> dict:
    value = table.get(key)
    if not isinstance(value, dict) or not value:
        raise ValueError(f"{path.name}: no [{key}] table")
    return value


def _cpu_build(name: str, row: object, path: Path) -> CpuBuild:
    where = f"{path.name} [cpu_builds.{name}]"
    fields = ("display", "repositories", "source") + (("tags",) if isinstance(row, dict) and "tags" in row else ())
    row = _fields(where, row, fields)
    pattern = None
    if "tags" in row:
        try:
            pattern = re.compile(_text(where, row, "tags"))
        except re.error as e:
            raise ValueError(f"{where}: tags does not compile: {e}") from None
    repositories = tuple(r.lower() for r in _words(where, row, "repositories"))
    return CpuBuild(name, _text(where, row, "display"), repositories, pattern, _text(where, row, "source"))


def load(path: Path = TABLE) -> tuple[tuple[CpuBuild, ...], ModelClients, tuple[NodeLabels, ...]]:
    """The CPU builds, the model-client words and the vendors' node labels of the table at ``path``."""
    table = read_toml(path)
    builds = tuple(_cpu_build(name, row, path) for name, row in _table(table, "cpu_builds", path).items())
    where = f"{path.name} [model_clients]"
    row = _fields(where, table.get("model_clients"), ("server_words", "model_words", "gateway_apps", "local_model_env", "source"))
    clients = ModelClients(
        frozenset(w.lower() for w in _words(where, row, "server_words")),
        frozenset(w.lower() for w in _words(where, row, "model_words")),
        frozenset(_words(where, row, "gateway_apps")),
        frozenset(_words(where, row, "local_model_env")),
        _text(where, row, "source"),
    )
    labels = []
    for name, row in _table(table, "node_labels", path).items():
        where = f"{path.name} [node_labels.{name}]"
        row = _fields(where, row, ("namespace", "resources", "source"))
        labels.append(
            NodeLabels(name, _text(where, row, "namespace"), _words(where, row, "resources"), _text(where, row, "source"))
        )
    return builds, clients, tuple(labels)


CPU_BUILDS, MODEL_CLIENTS, NODE_LABELS = load()


def cpu_build(image: object) -> Optional[CpuBuild]:
    """The publisher's CPU build ``image`` is, or None."""
    if not isinstance(image, str) or not image:
        return None
    return next((b for b in CPU_BUILDS if b.names(image)), None)


_WORD_SPLIT = re.compile(r"[/\-_.]+")


def repository_words(image: str) -> set[str]:
    """The lower-case words of an image's repository path (registry host left out): split at / - _ and ."""
    repository = image_repository(image).lower()
    first, slash, rest = repository.partition("/")
    if slash and ("." in first or ":" in first):
        repository = rest
    return {w for w in _WORD_SPLIT.split(repository) if w}


def names_itself_cpu(image: object) -> bool:
    """True when an image names itself a CPU build: the word ``cpu`` in the last segment of its repository or in its tag
    (vllm-cpu, vllm-cpu-only, :v0.9.1-cpu), split at - _ and ."""
    if not isinstance(image, str) or not image:
        return False
    last = image_repository(image).lower().rsplit("/", 1)[-1]
    tag = (image_tag(image) or "").lower()
    return "cpu" in _WORD_SPLIT.split(last) or "cpu" in _WORD_SPLIT.split(tag)
