"""The ``[engines.NAME.options]`` sub-table of components/serving_engines.toml as records (serving_engines.py checks
its fields; this module only builds them): where an engine's option table is, which images name its release and how
their tags do, and vendors' forks built on one release."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Fork:
    """A vendor's build of the engine whose image path names the vendor's release, each built on one engine release
    (Intel Gaudi's vllm-fork: vault.habana.ai/gaudi-docker/1.19.0/.../habanalabs/vllm-fork, vLLM 0.6.4.post2)."""

    image: str  # a substring of the image repository that means this fork (habanalabs/vllm-fork)
    after: str  # the path segment the vendor's release follows (gaudi-docker/)
    releases: tuple[tuple[str, str], ...]  # (vendor release, engine release it is built on)
    source: str  # where the pairs were read


@dataclass(frozen=True)
class Options:
    """Where the options each release of the engine accepts are listed, and which images name that release."""

    file: str  # a JSON file beside serving_engines.toml (components.engine_options reads it)
    images: tuple[str, ...]  # image repositories whose tag is the engine release inside (vllm/vllm-openai)
    forks: tuple[Fork, ...] = ()  # vendors' builds whose image path names the engine release they are built on
    # the full match of an image's lower-case tag whose first group is the release as ``file`` names it
    # (``server-cuda-b4500`` -> ``b4500``); "" for vLLM's and SGLang's release tags (engine_options.tagged_release)
    release_tag: str = ""
    # the tags of ``images`` (``latest`` where none) whose ENTRYPOINT hands the container's args to the server's
    # parser (TGI's tgi-entrypoint.sh exec text-generation-launcher $@): args alone are then its options; "" none
    args_tags: str = ""


def options_row(table: dict) -> Options:
    """The record of a checked options sub-table."""
    forks = tuple(
        Fork(f["image"].lower(), f["after"].lower(), tuple(sorted(f["releases"].items())), f["source"])
        for f in table.get("forks", ())
    )
    return Options(
        table["file"],
        tuple(i.lower() for i in table["images"]),
        forks,
        table.get("release_tag", ""),
        table.get("args_tags", ""),
    )


def pattern_error(where: str, pattern: object) -> str | None:
    """Why ``pattern`` is not a non-empty regular expression (release_tag: with a group, the release), or None."""
    try:
        compiled = re.compile(pattern) if isinstance(pattern, str) and pattern else None
    except re.error as error:
        return f"{where}: {error}"
    if compiled is None or (where.endswith("release_tag") and compiled.groups < 1):
        return f"{where}: a regular expression is required (release_tag: its first group the release)"
    return None
