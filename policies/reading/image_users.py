"""The fixed user well-known images run as, and what they must write (components/image_users.toml, each row with the
Dockerfile or chart read): for rules that judge whether a volume mounted over those folders is writable (G84)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Optional

import components
from components.images import image_repository
from components.parse_cache import read_toml

TABLE = Path(components.__file__).resolve().with_name("image_users.toml")  # installed as llm_serving too


@dataclass(frozen=True)
class ImageUser:
    """One non-root row: the image's user and the folders it must write (the first moved by ``env`` or ``flag``)."""

    repository: str
    uid: int
    writes: tuple[str, ...]
    env: str
    flag: str


@cache
def _rows() -> dict[str, ImageUser]:
    found = {}
    for row in read_toml(TABLE)["image"]:
        if int(row["uid"]) > 0 and row.get("writes"):
            name = str(row["repository"])
            found[name] = ImageUser(
                name,
                int(row["uid"]),
                tuple(str(w) for w in row["writes"]),
                str(row.get("writes_env", "")),
                str(row.get("writes_flag", "")),
            )
    return found


def repository_of(image: str) -> str:
    """The image's repository as the table spells it (docker.io and library/ prefixes dropped)."""
    repository = image_repository(image.strip())
    for prefix in ("docker.io/library/", "docker.io/", "index.docker.io/"):
        if repository.startswith(prefix):
            return repository[len(prefix) :]
    return repository


def non_root_image(image: object) -> Optional[ImageUser]:
    """The table's non-root row for a container image, or None (root images, unknown ones, unreadable values)."""
    if not isinstance(image, str) or not image.strip():
        return None
    return _rows().get(repository_of(image))


__all__ = ["ImageUser", "non_root_image", "repository_of"]
