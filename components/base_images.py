"""Public base images as data: the rows of base_images.toml (distribution and tool images that ship no folder of an
application, so nothing a pod's ConfigMap volume is mounted at) as frozen records, for G46's unmounted programs
(policies/reading/unmounted_programs.py).

A row with an unknown or missing field, a blank repository or source, or a library flag that is not true or false
fails the load naming the row and the field (components/table_rows.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Optional

from .images import image_repository
from .parse_cache import read_toml
from .table_rows import exact_fields, text

TABLE = Path(__file__).with_name("base_images.toml")
_FIELDS = ("repository", "library", "source")


@dataclass(frozen=True)
class BaseImage:
    """One row: a Docker Hub repository (``library``: a Docker Official Image) and where its contents were read."""

    repository: str
    library: bool
    source: str


def _row(index: int, row: Any) -> BaseImage:
    where = f"{TABLE.name} [[image]] #{index + 1}"
    row = exact_fields(where, row, _FIELDS)
    repository = text(where, row, "repository")
    where = f"{where} ({repository})"
    text(where, row, "source")
    if not isinstance(row["library"], bool):
        raise ValueError(f"{where}: library must be true or false")
    return BaseImage(repository, row["library"], row["source"])


def load(path: Path = TABLE) -> dict[str, BaseImage]:
    """The rows of the table at ``path``, by repository."""
    rows = read_toml(path).get("image", [])
    if not isinstance(rows, list):
        raise ValueError(f"{path.name}: image must be an array of tables ([[image]])")
    return {row.repository: row for row in (_row(i, r) for i, r in enumerate(rows))}


@cache
def _rows() -> dict[str, BaseImage]:
    return load()


def base_image(image: object) -> Optional[BaseImage]:
    """The row of an image reference (``ubuntu:22.04``, ``docker.io/library/python@sha256:...``,
    ``curlimages/curl``), None for any other image: another registry, a mirror path, a repository's own build."""
    if not isinstance(image, str) or not image:
        return None
    repository = image_repository(image)
    if repository.startswith("docker.io/"):
        repository = repository[len("docker.io/") :]
    library = repository.startswith("library/")
    row = _rows().get(repository[len("library/") :] if library else repository)
    return row if row is not None and (row.library or not library) else None
