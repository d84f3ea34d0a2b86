"""Container image references: the one parser of tags and vLLM releases the library uses."""

from __future__ import annotations

import re
from typing import Iterable, Optional


def image_tag(image: str) -> Optional[str]:
    """The tag of an image reference, or None when it has none.

    A registry port (``host:5000/repo``) is not a tag: only a colon in the last path segment
    is; a digest (``@sha256:...``) is not a tag either (``repo:tag@sha256:...`` keeps its tag).
    """
    last = image.split("@", 1)[0].rsplit("/", 1)[-1]
    return last.partition(":")[2] or None


# A tag is at most 128 characters, [a-zA-Z0-9_][a-zA-Z0-9._-]{0,127} (opencontainers/distribution-spec v1.1.1 spec.md
# L164-166): a longer "tag" is no reference a registry serves, so it names no release.
TAG_MAX_LENGTH = 128
# A release part of more than 9 digits names no release anyone publishes (and int() refuses more than 4,300 digits).
RELEASE_PART_MAX_DIGITS = 9
_RELEASE_PART = re.compile(r"[0-9]+")


def release_tag(image: str) -> Optional[str]:
    """The tag of an image reference when it may name a release: image_tag, None beyond the 128 characters a tag may
    have (TAG_MAX_LENGTH). Read releases through this, not image_tag: an over-long tag is still a tag (not :latest)."""
    tag = image_tag(image)
    return tag if tag is not None and len(tag) <= TAG_MAX_LENGTH else None


def release_numbers(release: str) -> Optional[tuple[int, ...]]:
    """The numbers of a release string, every run of ASCII digits in order (``v0.5.5.post1`` -> (0, 5, 5, 1)); None
    when it names no release: longer than a tag may be, or a part longer than 9 digits. The one place the pack turns a
    release it read from a manifest into numbers."""
    if len(release) > TAG_MAX_LENGTH:
        return None
    parts = _RELEASE_PART.findall(release)
    if any(len(part) > RELEASE_PART_MAX_DIGITS for part in parts):
        return None
    return tuple(int(part) for part in parts)


def major_minor(match: Optional[re.Match[str]]) -> Optional[tuple[int, int]]:
    """(major, minor) of a release pattern's match whose first two groups are those numbers; None for no match, or a
    part release_numbers refuses."""
    numbers = release_numbers(f"{match.group(1)}.{match.group(2)}") if match else None
    return (numbers[0], numbers[1]) if numbers is not None and len(numbers) == 2 else None


def named_release(release: Optional[str]) -> Optional[str]:
    """``release`` (read from a tag) when release_numbers reads it, else None: what every release reader returns."""
    return release if release is not None and release_numbers(release) is not None else None


def image_repository(image: str) -> str:
    """The repository of an image reference, registry and path included, without its tag or digest
    (``registry.local:5000/vllm/vllm-openai:v0.10.2`` -> ``registry.local:5000/vllm/vllm-openai``)."""
    name = image.split("@", 1)[0]
    head, slash, last = name.rpartition("/")
    return head + slash + last.partition(":")[0]


def is_digest(image: str) -> bool:
    """True for a reference pinned by content (``...@sha256:...``)."""
    return "@" in image


def vllm_release(image: str) -> Optional[str]:
    """The vLLM release an image tag names (vllm/vllm-openai:v0.33.0 -> 0.33.0); None for other tags.

    llm-d's images (ghcr.io/llm-d/llm-d-cuda:v0.8.0, the KServe LLMInferenceService presets' image) carry vLLM but
    tag llm-d's own release, so their tag names no vLLM release.
    """
    if "llm-d" in image_repository(image).rsplit("/", 1)[-1]:
        return None
    match = re.match(r"^v?(\d+\.\d+(\.\d+)?)", release_tag(image) or "")
    return named_release(match.group(1) if match else None)


# Repositories vLLM's project publishes (docker.io vllm/vllm-openai and its ROCm builds), with or without a registry or
# mirror in front: their tags are vLLM's releases and their moving tags follow them. A rebuild's tag (acme/vllm-server
# :v1.4.2, :latest) is its owner's version, not vLLM's (review 43 #1).
VLLM_PUBLISHED = ("vllm/vllm-openai", "vllm/vllm-openai-rocm", "rocm/vllm")


def is_published(image: str, repositories: Iterable[str]) -> bool:
    """True when the image's repository is one of ``repositories`` (lower-case, without registry), behind any registry
    or mirror path: equal, or a ``/``-bounded suffix. A rebuild whose path merely contains one
    (``harbor.corp/vllm/vllm-openai-patched``) is not the publisher's image (review 43 #17)."""
    repository = image_repository(image).lower()
    return any(repository == r or repository.endswith(f"/{r}") for r in repositories)


def is_vllm_published(image: str) -> bool:
    """True when the image is one of vLLM's published repositories (VLLM_PUBLISHED), behind any registry."""
    return is_published(image, VLLM_PUBLISHED)


def names_image(image: object, markers: Iterable[str]) -> bool:
    """True when one of ``markers`` (the engine table's lower-case ``images`` substrings) names ``image``, behind any
    registry or mirror path.

    A marker without a registry (``vllm/vllm-openai``, ``tritonserver``) is a substring of the reference, wherever it is
    pulled from. A marker that starts with the publisher's registry (``nvcr.io/nim/``: the first path element holds a
    ``.``, as distribution/reference's splitDockerDomain reads a domain) also names the same repository path pulled
    through a mirror or pull-through cache, which keeps the path and changes the host
    (``harbor.corp/nvcr-proxy/nim/meta/llama3-8b-instruct``): the publisher's whole path ends the mirror's repository,
    so a marker naming a repository ends it, and a marker naming a namespace (``nvcr.io/nim/``) is followed by NGC's
    team/image, two segments. The namespace's name alone elsewhere (``ghcr.io/acme-labs/nim/chat-ui``) is no match
    (review 45 #13)."""
    if not isinstance(image, str):
        return False
    image = image.lower()
    for marker in markers:
        if marker in image:
            return True
        host, slash, path = marker.partition("/")
        if slash and path and ("." in host or ":" in host) and _mirrors(image_repository(image).lower(), path):
            return True
    return False


def names_repository(image: object, names: Iterable[str], other_words: frozenset[str]) -> bool:
    """True when the last path segment of the image's repository (no registry, owner path, tag or digest) is one of
    ``names`` (an engine row's lower-case ``image_names``), or one of them followed by ``-``, ``_`` or ``.`` and words
    none of which is in ``other_words`` (the table's other_program_words): ``myorg/vllm``, ``vllm-cpu:v1``,
    ``ghcr.io/x/sglang@sha256:...`` name the engine; ``vllm-router`` and ``vllm-org/chat-api`` do not."""
    if not isinstance(image, str):
        return False
    last = image_repository(image.strip().lower()).rsplit("/", 1)[-1]
    for name in names:
        if last == name:
            return True
        if last.startswith(name) and last[len(name) : len(name) + 1] in ("-", "_", "."):
            words = {w for w in _NAME_WORDS.split(last[len(name) + 1 :]) if w}
            if words and not words & other_words:
                return True
    return False


# The words of a repository name: split at - _ .
_NAME_WORDS = re.compile(r"[-_.]+")


def _mirrors(repository: str, path: str) -> bool:
    """True when ``repository`` (behind another host and prefix) ends with the publisher's ``path`` (names_image)."""
    want = [p for p in path.split("/") if p]
    segments = repository.split("/")
    tail = len(want) + (2 if path.endswith("/") else 0)
    return len(segments) > tail and segments[-tail:][: len(want)] == want
