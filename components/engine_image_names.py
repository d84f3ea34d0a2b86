"""Engines recognised by the name of an image's repository: the optional ``image_names`` of each row of
serving_engines.toml and the table's ``other_program_words`` (the file's header says what each means), read by
policies/reading/engine_flags.py ``runs_engine_image`` through components/images.py ``names_repository``.

A row's ``image_names`` that is not a list of lower-case names, or ``other_program_words`` that is not a list of
lower-case words (no - _ .), fails the import, naming the engine or the key.
"""

from __future__ import annotations

import re
from typing import Any

from .parse_cache import read_toml
from .serving_engines import TABLE, Engine

_NAME = re.compile(r"[a-z0-9][a-z0-9._-]*")
_WORD = re.compile(r"[a-z0-9]+")


def other_program_words(data: dict) -> frozenset[str]:
    """The table's ``other_program_words``: words of a repository name that mean another program than the engine it is
    named after (vllm-router), so ``image_names`` does not match it."""
    words = data.get("other_program_words", [])
    if not isinstance(words, list) or not all(isinstance(w, str) and _WORD.fullmatch(w) for w in words):
        raise ValueError(f"{TABLE.name}: other_program_words must be a list of lower-case words (no - _ .)")
    return frozenset(words)


def image_names_of(data: dict) -> dict[str, tuple[str, ...]]:
    """Engine id -> its ``image_names`` (rows without the field are left out)."""
    out: dict[str, tuple[str, ...]] = {}
    for name, row in (data.get("engines") or {}).items():
        names: Any = row.get("image_names") if isinstance(row, dict) else None
        if names is None:
            continue
        if not isinstance(names, list) or not all(isinstance(n, str) and _NAME.fullmatch(n) for n in names):
            raise ValueError(f"{TABLE.name} [engines.{name}].image_names: a list of lower-case repository names")
        out[str(name)] = tuple(names)
    return out


_DATA = read_toml(TABLE)
OTHER_PROGRAM_WORDS: frozenset[str] = other_program_words(_DATA)
IMAGE_NAMES: dict[str, tuple[str, ...]] = image_names_of(_DATA)


def image_names(engine: Engine) -> tuple[str, ...]:
    """The repository names that mean ``engine``'s server (empty for a row that states none)."""
    return IMAGE_NAMES.get(engine.name, ())
