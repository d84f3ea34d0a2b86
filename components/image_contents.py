"""What the publishers' serving images ship, as data: components/image_contents.toml loaded into frozen records.

``contents(image)`` answers, for an image reference, which row describes it and how sure that is: ``proven`` when the
reference is the publisher's own repository (Docker Hub, no mirror in front) at a tag naming a release the row's
Dockerfiles were read at (``first`` .. ``last``) and no other flavour of it; otherwise (``latest``, an untagged or
newer release, a digest, a mirror path) the row still applies but is not proven. ``program(name)`` is True, False
or None (not established) for a program on the image's PATH.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Optional

from .images import TAG_MAX_LENGTH, image_repository, image_tag, named_release
from .parse_cache import read_toml

TABLE = Path(__file__).resolve().with_name("image_contents.toml")  # installed as llm_serving too
_HUB_PREFIXES = ("docker.io/library/", "docker.io/", "index.docker.io/", "registry-1.docker.io/")


@dataclass(frozen=True)
class ImageContents:
    """One [[image]] row of the table, its base's programs merged under its own."""

    family: str
    repositories: tuple[str, ...]
    first: tuple[int, ...]
    last: tuple[int, ...]
    flavours_out: frozenset[str]
    entrypoint: tuple[str, ...]
    cmd: tuple[str, ...]
    programs: dict[str, bool]
    source: str
    # the final stage's WORKDIR ("" not read), and the folders (or files) the image's own ENTRYPOINT/CMD runs from: a
    # volume mounted at one of them, or above it, hides them and the container cannot start (G46)
    workdir: str = ""
    needs: tuple[str, ...] = ()
    # words of a tag one of which the row requires (LocalAI's aio images run their own ENTRYPOINT): empty for any tag
    flavours_in: frozenset[str] = frozenset()
    # the Dockerfile sets no ENTRYPOINT at all (`entrypoint = []` written out): args replace the CMD and args[0] is the
    # program the runtime execs
    no_entrypoint: bool = False

    def program(self, name: str) -> Optional[bool]:
        """True/False when the table says whether ``name`` is on the image's PATH; None when it does not say."""
        return self.programs.get(name)


@dataclass(frozen=True)
class Match:
    """The row an image reference is of, and whether the reference proves the row's facts."""

    row: ImageContents
    proven: bool
    why_not: str  # when not proven: what the reference leaves open
    mirrored: bool = False  # the reference is another registry's or namespace's path ending in the row's repository

    def lookalike(self) -> bool:
        """True for a path that only ends in an official image's bare name (``ghcr.io/acme/python``): someone's own image
        named after it, which may be built any way, rather than a mirror of it."""
        return self.mirrored and not any("/" in r for r in self.row.repositories)


def release(text: str) -> Optional[tuple[int, ...]]:
    """(major, minor, patch) of a release tag ("0.5.7", "v0.32.15", "0.3.12-rocm"), or None for a name (latest)."""
    return _version(text)


def _version(text: str) -> Optional[tuple[int, ...]]:
    match = re.match(r"^v?(\d+)\.(\d+)(?:\.(\d+))?", text) if len(text) <= TAG_MAX_LENGTH else None
    if match is None or named_release(match.group(0)) is None:
        return None
    return tuple(int(g or 0) for g in match.groups())


@cache
def rows() -> tuple[ImageContents, ...]:
    """Every [[image]] row, read once."""
    table = read_toml(TABLE)
    bases = {str(b["image"]): dict(b["programs"]) for b in table.get("base", [])}
    out = []
    for row in table.get("image", []):
        programs: dict[str, bool] = {}
        for base in row.get("bases", []):
            programs.update(bases[base])
        programs.update(row.get("programs", {}))
        out.append(
            ImageContents(
                family=str(row["family"]),
                repositories=tuple(row["repositories"]),
                first=_version(str(row["first"])) or (0,),
                last=_version(str(row["last"])) or (0,),
                flavours_out=frozenset(row.get("flavours_out", ())),
                entrypoint=tuple(row.get("entrypoint", ())),
                cmd=tuple(row.get("cmd", ())),
                programs=programs,
                source=str(row["source"]),
                workdir=str(row.get("workdir", "")),
                needs=tuple(str(n) for n in row.get("needs", ())),
                flavours_in=frozenset(row.get("flavours_in", ())),
                no_entrypoint="entrypoint" in row and not row["entrypoint"],
            )
        )
    return tuple(out)


def contents(image: object) -> Optional[Match]:
    """The row of the publisher's image ``image`` names (behind any registry or mirror), or None."""
    if not isinstance(image, str) or not image.strip():
        return None
    reference = image.strip().lower()
    repository = image_repository(reference)
    hub = repository
    for prefix in _HUB_PREFIXES:
        if hub.startswith(prefix):
            hub = hub[len(prefix) :]
            break
    for row in rows():
        mirrored = hub not in row.repositories
        if mirrored and not any(repository.endswith(f"/{r}") for r in row.repositories):
            continue
        tag = image_tag(reference) or ""
        version = _version(tag)
        words = set(re.split(r"[-_.]", tag))
        if row.flavours_in and not words & row.flavours_in:
            continue
        if mirrored:
            return Match(row, False, f"{repository} is a mirror or rebuild path, which may hold another build", True)
        if version is None:
            return Match(row, False, f"tag {tag or '(none: latest)'} names no release the table read")
        if words & row.flavours_out:
            return Match(row, False, f"tag {tag} is a flavour ({', '.join(sorted(words & row.flavours_out))}) not read")
        if not row.first <= version <= row.last:
            return Match(row, False, f"release {tag} is outside the releases read")
        return Match(row, True, "")
    return None


@cache
def provides() -> dict[str, tuple[str, ...]]:
    """The table's [provides]: for each program it records, the package names (or prefixes ending in ".") whose
    install puts it on PATH."""
    return {str(k): tuple(str(p) for p in v) for k, v in read_toml(TABLE).get("provides", {}).items()}


def provided_by(program: str, package: str) -> bool:
    """True when installing ``package`` puts ``program`` on PATH, as far as the table's [provides] says (a program it
    does not list is provided by the package of its own name)."""
    names = provides().get(program, (program,))
    return any(package == n or n.endswith(".") and package.startswith(n) for n in names)


@dataclass(frozen=True)
class ServerRoutes:
    """One [[server]] row: how a model server is recognised, where it listens, and the health routes it answers."""

    family: str
    image_family: str
    commands: tuple[tuple[str, ...], ...]
    modules: tuple[str, ...]
    engine: str
    port: int
    port_flag: str
    port_env: str
    port_env_wins: bool  # the variable overrides the flag (llama-cpp-python's __main__: int(os.getenv("PORT", ...)))
    health_routes: frozenset[str]
    first: tuple[int, ...]
    last: tuple[int, ...]
    source: str


@cache
def servers() -> tuple[ServerRoutes, ...]:
    """Every [[server]] row, read once."""
    return tuple(
        ServerRoutes(
            family=str(row["family"]),
            image_family=str(row.get("image_family", "")),
            commands=tuple(tuple(str(c).split()) for c in row.get("commands", ())),
            modules=tuple(row.get("modules", ())),
            engine=str(row.get("engine", "")),
            port=int(row["port"]),
            port_flag=str(row.get("port_flag", "")),
            port_env=str(row.get("port_env", "")),
            port_env_wins=bool(row.get("port_env_wins", False)),
            health_routes=frozenset(row.get("health_routes", ())),
            first=_version(str(row.get("first", ""))) or (0,),
            last=_version(str(row.get("last", ""))) or (0,),
            source=str(row["source"]),
        )
        for row in read_toml(TABLE).get("server", [])
    )
