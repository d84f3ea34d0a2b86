"""policies/reading/run_objects.Names.typo_of: the symmetric-delete index (review 44 #6) finds what a scan of every
name of a near length finds, the same name when several match, and in time that does not grow with the namespace."""

from __future__ import annotations

import random
import string

from policies.reading.run_objects import Names, _one_edit, _plain


def _scan(names: list[str], name: str) -> str | None:
    """The former reading: the first name one character shorter, then as long, then longer, one edit apart."""
    plain = {}
    for n in names:
        plain.setdefault(_plain(n), n)
    if _plain(name) in plain:
        return plain[_plain(name)]
    by_length: dict[int, list[str]] = {}
    for n in names:
        by_length.setdefault(len(n), []).append(n)
    near = (n for size in (len(name) - 1, len(name), len(name) + 1) for n in by_length.get(size, ()))
    return next((n for n in near if _one_edit(n, name)), None)


def _mutate(rng: random.Random, name: str) -> str:
    i = rng.randrange(len(name))
    how = rng.choice("irdx")
    letter = rng.choice(string.ascii_lowercase + "-0")
    if how == "i":
        return name[:i] + letter + name[i:]
    if how == "r":
        return name[:i] + letter + name[i + 1 :]
    if how == "d":
        return name[:i] + name[i + 1 :]
    return name + rng.choice(["-x", "", "zz"])


def test_the_index_agrees_with_the_scan():
    rng = random.Random(44)
    for _ in range(200):
        names = ["".join(rng.choice("abc-1") for _ in range(rng.randint(3, 8))) for _ in range(rng.randint(1, 30))]
        index = Names(names)
        for _ in range(10):
            asked = _mutate(rng, rng.choice(names))
            assert index.typo_of(asked) == _scan(names, asked), (names, asked)


def test_known_typos():
    index = Names(["llm-optimized-service", "vllm-qwen", "ollama"])
    assert index.typo_of("llm-optimised-service") == "llm-optimized-service"
    assert index.typo_of("vllm-gwen") == "vllm-qwen"
    assert index.typo_of("VLLM_QWEN") == "vllm-qwen"
    assert index.typo_of("something-else") is None
    assert index.typo_of("olla") is None  # too short to mean a typo
