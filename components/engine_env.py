"""What serving engines read from their environment: the tables of engine_env.toml (and of engine_env_names.json,
which holds [settings] and [foreign]) as frozen records.

``[homes.ENGINE]`` names the HOME of non-root users in the engine's publisher images (uid 1000 is /home/ubuntu in
ollama/ollama since it is built FROM ubuntu:24.04). ``[settings.ENGINE]`` names every variable under the engine's
own prefix some release reads, with the first and last release read naming it (OLLAMA_GPU_OVERHEAD from 0.3.10 on,
never OLLAMA_GPU_MEMORY; OLLAMA_PORT in 0.0.x only). ``[env_only.ENGINE]`` says the engine reads its settings from
its environment only (Ollama: envconfig/config.go Var is os.Getenv), so a mounted file of its settings does nothing. ``[tokens.ENGINE]`` names, per release, the variables an
engine reads its model-download token from (TEI 1.5 reads
HF_API_TOKEN only, vLLM HF_TOKEN and HUGGING_FACE_HUB_TOKEN through huggingface_hub). ENGINE is an id of
serving_engines.toml. A table, engine or field the loader does not know, a release that is no version, or a row
without its source fails the import naming the table, the engine and the field.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from .engine_options import version_key
from .images import TAG_MAX_LENGTH, named_release, names_image
from .parse_cache import read_toml
from .serving_engines import ENGINES, Engine

TABLE = Path(__file__).with_name("engine_env.toml")
# The [settings] and [foreign] tables: ~1,000 names, JSON (parsed in C; written by tools/read_engine_env.py).
NAMES = Path(__file__).with_name("engine_env_names.json")
_TABLES = ("tokens", "homes", "settings", "foreign", "env_only")
_FIELDS = {
    "env_only": ("files", "source"),
    "tokens": ("releases", "source"),
    "homes": ("images", "since", "users", "source"),
    "settings": ("prefix", "images", "release_tag", "releases", "names", "source"),
    "foreign": ("names", "source"),
}
_RELEASE = re.compile(r"\d+(?:\.\d+)*")
# A release in an image tag: cpu-1.5, 86-1.7.2, v0.10.1, 3.3.7 (a flavour before it, a build suffix after it).
_TAG_RELEASE = re.compile(r"(?:^|[-_])v?(\d+\.\d+(?:\.\d+)*)(?=$|[-_+])")


class EngineEnvError(ValueError):
    """A row of engine_env.toml that cannot be used; the message names the table, the engine and the field."""


def release_key(release: str) -> tuple[int, ...]:
    """``"1.7.0"`` as (1, 7, 0), for ordering releases; a tag's ``1.7`` (the newest 1.7.x) orders as 1.7.0."""
    parts = tuple(int(part) for part in release.split("."))
    return parts + (0,) * (3 - len(parts))


@dataclass(frozen=True)
class Tokens:
    """The token variables one engine reads, from each release on (release order)."""

    engine: str
    releases: tuple[tuple[str, tuple[str, ...]], ...]
    source: str

    def read(self, release: Optional[str]) -> frozenset[str]:
        """The variables read at ``release``: its list, the first list before the first release, every list's names
        when the release is unknown (a moving tag may run any of them)."""
        if release is None:
            return frozenset(name for _, names in self.releases for name in names)
        chosen = self.releases[0][1]
        for first, names in self.releases:
            if release_key(first) <= release_key(release):
                chosen = names
        return frozenset(chosen)

    @property
    def ever(self) -> frozenset[str]:
        """Every variable some release reads."""
        return self.read(None)


@dataclass(frozen=True)
class Homes:
    """The HOME of non-root users in an engine's publisher images, from release ``since`` on."""

    engine: str
    images: tuple[str, ...]
    since: str
    users: tuple[tuple[int, str], ...]
    source: str


def _checked(table: str, engine: str, row: Any) -> str:
    """The row's place for messages, once its fields are known and its source stated."""
    where = f"engine_env.toml [{table}.{engine}]"
    if not isinstance(row, dict):
        raise EngineEnvError(f"{where}: must be a table")
    unknown = sorted(set(row) - set(_FIELDS[table]))
    if unknown:
        raise EngineEnvError(f"{where}: unknown field {unknown[0]!r} (known: {', '.join(_FIELDS[table])})")
    if not isinstance(row.get("source"), str) or not row["source"].strip():
        raise EngineEnvError(f"{where}.source: every fact needs its source (file and line at a pinned release)")
    return where


@dataclass(frozen=True)
class EnvOnly:
    """An engine that reads its settings from its environment only: a file of NAME=VALUE lines mounted into its
    container sets nothing. ``files`` are the only files its server reads settings from (none of NAME=VALUE form)."""

    engine: str
    files: tuple[str, ...]
    source: str


def _env_only(engine: str, row: Any) -> EnvOnly:
    where = _checked("env_only", engine, row)
    files = row.get("files", [])
    if not isinstance(files, list) or not all(isinstance(f, str) and f.strip() for f in files):
        raise EngineEnvError(f"{where}.files: a list of the files the server reads settings from ([] for none)")
    return EnvOnly(engine, tuple(files), row["source"])


def _homes(engine: str, row: Any) -> Homes:
    where = _checked("homes", engine, row)
    images, since, users = row.get("images"), row.get("since"), row.get("users")
    if not isinstance(images, list) or not images or not all(isinstance(i, str) and i.strip() for i in images):
        raise EngineEnvError(f"{where}.images: a non-empty list of image substrings")
    if not isinstance(since, str) or not _RELEASE.fullmatch(since):
        raise EngineEnvError(f"{where}.since: {since!r} is not a release (0.9.6)")
    if not isinstance(users, dict) or not users:
        raise EngineEnvError(f'{where}.users: a table {{"UID" = "/home/..."}}')
    pairs = []
    for uid, home in users.items():
        if not str(uid).isdigit() or not isinstance(home, str) or not home.startswith("/"):
            raise EngineEnvError(f"{where}.users: {uid!r} = {home!r} is not UID = absolute HOME")
        pairs.append((int(uid), home))
    return Homes(engine, tuple(i.lower() for i in images), since, tuple(pairs), row["source"])


@dataclass(frozen=True)
class EnvSettings:
    """The variables under an engine's own prefix that its releases read, each with the first and the last release
    read that names it (``spans``), and which images' tags name the release (``images``, ``release_tag``)."""

    engine: str
    prefix: str
    images: tuple[str, ...]
    release_tag: str
    releases: tuple[str, ...]
    spans: dict[str, tuple[str, str]]
    source: str

    @property
    def names(self) -> frozenset[str]:
        """Every name some release read names."""
        return frozenset(self.spans)

    @property
    def newest(self) -> str:
        return self.releases[-1]

    def read_at(self, release: str) -> Optional[frozenset[str]]:
        """The names a build of ``release`` may read: those whose span meets the releases read that bound it (a build
        between two read tags may read a name either names); None when ``release`` is outside the releases read (older
        than the first, newer than the newest: the table does not say)."""
        key = version_key(release)
        below = [r for r in self.releases if version_key(r) <= key]
        above = [r for r in self.releases if version_key(r) >= key]
        if not below or not above:
            return None
        low, high = version_key(below[-1]), version_key(above[0])
        return frozenset(n for n, (first, last) in self.spans.items() if version_key(first) <= high and version_key(last) >= low)


def _settings(engine: str, row: Any) -> EnvSettings:
    where = _checked("settings", engine, row)
    prefix, names, releases = row.get("prefix"), row.get("names"), row.get("releases")
    images, tag = row.get("images"), row.get("release_tag")
    if not isinstance(prefix, str) or not re.fullmatch(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_", prefix):
        raise EngineEnvError(f"{where}.prefix: {prefix!r} is not a variable prefix (OLLAMA_, LLAMA_ARG_)")
    if not isinstance(images, list) or not images or not all(isinstance(i, str) and i.strip() for i in images):
        raise EngineEnvError(f"{where}.images: a non-empty list of the publisher's repositories (ollama/ollama)")
    try:
        compiled = re.compile(tag) if isinstance(tag, str) and tag else None
    except re.error:
        compiled = None
    if compiled is None or compiled.groups < 1:
        raise EngineEnvError(f"{where}.release_tag: a regular expression whose first group is the release")
    if (
        not isinstance(releases, list)
        or not releases
        or not all(isinstance(r, str) and re.fullmatch(r"[a-z]?\d+(?:\.\d+)*", r) for r in releases)
        or [version_key(r) for r in releases] != sorted({version_key(r) for r in releases})
    ):
        raise EngineEnvError(f"{where}.releases: the releases read, oldest first, each once (0.5.4, b6080)")
    if not isinstance(names, dict) or not names:
        raise EngineEnvError(f'{where}.names: a table {{NAME = ["FIRST", "LAST"]}} of names that start with {prefix}')
    spans: dict[str, tuple[str, str]] = {}
    for name, span in names.items():
        if (
            not name.startswith(prefix)
            or not isinstance(span, list)
            or len(span) != 2
            or not all(r in releases for r in span)
            or releases.index(span[0]) > releases.index(span[1])
        ):
            raise EngineEnvError(f"{where}.names: {name} = {span!r} is not a name under {prefix} = [first, last] of releases")
        spans[name] = (span[0], span[1])
    return EnvSettings(engine, prefix, tuple(i.lower() for i in images), tag, tuple(releases), spans, row["source"])


@dataclass(frozen=True)
class Foreign:
    """Variables another engine of the tables reads (name -> that engine's id) that this engine's sources never name:
    set on this engine's container, the setting meant is silently ignored."""

    engine: str
    names: dict[str, str]
    source: str


def _foreign(engine: str, row: Any, engines: frozenset[str]) -> Foreign:
    where = _checked("foreign", engine, row)
    names = row.get("names")
    if not isinstance(names, dict) or not names:
        raise EngineEnvError(f'{where}.names: a table {{NAME = "ENGINE"}} of another engine\'s variables')
    for name, other in names.items():
        if not re.fullmatch(r"[A-Z][A-Z0-9_]*", name) or other not in engines or other == engine:
            raise EngineEnvError(f"{where}.names: {name} = {other!r} is not a variable = another engine's id")
    return Foreign(engine, dict(names), row["source"])


def _tokens(engine: str, row: Any) -> Tokens:
    where = _checked("tokens", engine, row)
    releases = row.get("releases")
    if not isinstance(releases, dict) or not releases:
        raise EngineEnvError(f'{where}.releases: a table {{"RELEASE" = ["VAR", ...]}}')
    pairs = []
    for release, names in releases.items():
        if not _RELEASE.fullmatch(str(release)):
            raise EngineEnvError(f"{where}.releases: {release!r} is not a release (1.7.0)")
        if not isinstance(names, list) or not all(isinstance(n, str) and re.fullmatch(r"[A-Z][A-Z0-9_]*", n) for n in names):
            raise EngineEnvError(f"{where}.releases.{release}: a list of variable names (HF_TOKEN)")
        pairs.append((str(release), tuple(names)))
    return Tokens(engine, tuple(sorted(pairs, key=lambda p: release_key(p[0]))), row["source"])


def engine_env_of(data: dict, engines: tuple[Engine, ...] = ENGINES) -> dict[str, dict[str, Any]]:
    """The checked tables of a parsed engine_env.toml: {table: {engine: record}}."""
    unknown = sorted(set(data) - set(_TABLES))
    if unknown:
        raise EngineEnvError(f"engine_env.toml: unknown table {unknown[0]!r} (known: {', '.join(_TABLES)})")
    names = {e.name for e in engines}
    out: dict[str, dict[str, Any]] = {}
    for table in _TABLES:
        rows = data.get(table, {})
        stray = sorted(set(rows) - names)
        if stray:
            raise EngineEnvError(f"engine_env.toml [{table}.{stray[0]}]: no engine of that id in serving_engines.toml")
        if table == "foreign":
            out[table] = {engine: _foreign(engine, row, frozenset(names)) for engine, row in rows.items()}
            continue
        read = {"tokens": _tokens, "homes": _homes, "settings": _settings, "env_only": _env_only}[table]
        out[table] = {engine: read(engine, row) for engine, row in rows.items()}
    return out


_ENV = engine_env_of({**read_toml(TABLE), **json.loads(NAMES.read_text(encoding="utf-8"))})
TOKENS: dict[str, Tokens] = _ENV["tokens"]
HOMES: dict[str, Homes] = _ENV["homes"]
ENV_SETTINGS: dict[str, EnvSettings] = _ENV["settings"]
FOREIGN: dict[str, Foreign] = _ENV["foreign"]
ENV_ONLY: dict[str, EnvOnly] = _ENV["env_only"]


def image_release(image: Any, row: Engine) -> Optional[str]:
    """The release the tag of one of the engine's own images names (``text-embeddings-inference:cpu-1.5`` -> 1.5),
    None for another image, a moving tag or a digest only."""
    if not isinstance(image, str) or not names_image(image, row.images):
        return None
    name = image.split("@", 1)[0]
    tag = name.rsplit(":", 1)[1] if ":" in name.rsplit("/", 1)[-1] else ""
    match = _TAG_RELEASE.search(tag) if len(tag) <= TAG_MAX_LENGTH else None
    return named_release(match.group(1) if match else None)


def tokens_read(row: Optional[Engine], image: Any) -> Optional[frozenset[str]]:
    """The token variables the engine of ``row`` reads in ``image`` (its tag's release), None when the table does not
    say (no row, or an engine without a [tokens] entry)."""
    tokens = TOKENS.get(row.name) if row is not None else None
    if tokens is None or row is None:
        return None
    return tokens.read(image_release(image, row))


def home_of(row: Optional[Engine], image: Any, uid: int) -> Optional[str]:
    """The HOME user ``uid`` has in ``image`` when it is one of the engine's publisher images the [homes] table covers
    at the image's release (a moving tag: the newest); None when the table does not say."""
    homes = HOMES.get(row.name) if row is not None else None
    if homes is None or row is None or not isinstance(image, str) or not names_image(image, homes.images):
        return None
    release = image_release(image, row)
    if release is not None and release_key(release) < release_key(homes.since):
        return None
    return dict(homes.users).get(uid)


__all__ = [
    "ENV_ONLY",
    "ENV_SETTINGS",
    "EnvOnly",
    "EnvSettings",
    "FOREIGN",
    "Foreign",
    "HOMES",
    "EngineEnvError",
    "Homes",
    "TOKENS",
    "Tokens",
    "engine_env_of",
    "home_of",
    "image_release",
    "release_key",
    "tokens_read",
]
