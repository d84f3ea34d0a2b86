"""policies/regex_code.py: an expression's code is reused only for its exact pattern and flags, the Pattern behaves as
a fresh compile, the hook ends with the block, and nothing is written where Python writes no bytecode."""

from __future__ import annotations

import importlib.util
import marshal
import re
import sys
from pathlib import Path

import pytest

from policies.regex_code import cached_regex_code

PATTERN = r"(?P<name>[a-z]+)-(\d{2,})(?:\.(?P<ext>gguf|bin))?$"
TEXTS = ("model-12.gguf", "MODEL-12", "model-1", "model-123.bin", "x-99.pt")


@pytest.fixture
def writing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)


def _same_as_fresh(flags: int = 0) -> None:
    re.purge()  # re's own per-process cache would answer before the hook is asked
    cached = re.compile(PATTERN, flags)
    fresh = re._compiler.compile(PATTERN, flags)  # type: ignore[attr-defined]
    assert (cached.pattern, cached.flags, cached.groups, cached.groupindex) == (
        fresh.pattern,
        fresh.flags,
        fresh.groups,
        fresh.groupindex,
    )
    for text in TEXTS:
        a, b = cached.search(text), fresh.search(text)
        assert (a and (a.span(), a.groups(), a.groupdict())) == (b and (b.span(), b.groups(), b.groupdict()))


def test_a_miss_is_recorded_and_a_hit_behaves_as_a_fresh_compile(writing: None, tmp_path: Path) -> None:
    path = tmp_path / "regex.marshal"
    with cached_regex_code(path):
        _same_as_fresh()
    _magic, codes = marshal.loads(path.read_bytes())
    assert (PATTERN, 0) in codes
    stored = path.read_bytes()
    with cached_regex_code(path):
        _same_as_fresh()
    assert path.read_bytes() == stored  # all hits: nothing rewritten


def test_other_flags_are_another_expression(writing: None, tmp_path: Path) -> None:
    path = tmp_path / "regex.marshal"
    with cached_regex_code(path):
        _same_as_fresh()
    with cached_regex_code(path):
        _same_as_fresh(re.IGNORECASE)
        assert re.compile(PATTERN, re.IGNORECASE).search("MODEL-12")
    _magic, codes = marshal.loads(path.read_bytes())
    assert (PATTERN, int(re.IGNORECASE)) in codes


def test_a_torn_file_or_another_interpreters_file_is_compiled_over(writing: None, tmp_path: Path) -> None:
    path = tmp_path / "regex.marshal"
    for content in (b"\x00torn", marshal.dumps((b"\x00\x00\r\n", {}))):
        path.write_bytes(content)
        with cached_regex_code(path):
            _same_as_fresh()


def test_an_entry_is_used_only_for_its_own_pattern(writing: None, tmp_path: Path) -> None:
    path = tmp_path / "regex.marshal"
    re.purge()
    with cached_regex_code(path):
        re.compile("abc")
    _magic, codes = marshal.loads(path.read_bytes())
    path.write_bytes(marshal.dumps((importlib.util.MAGIC_NUMBER, {(PATTERN, 0): codes[("abc", 0)]})))
    # A wrong entry under this very key would be served (the file is trusted as __pycache__ is); any other key is not.
    with cached_regex_code(path):
        re.purge()
        assert re.compile("abd").search("xabdx")


def test_the_hook_ends_with_the_block_even_on_an_error(tmp_path: Path) -> None:
    original = re._compiler.compile  # type: ignore[attr-defined]
    with pytest.raises(RuntimeError):
        with cached_regex_code(tmp_path / "regex.marshal"):
            assert re._compiler.compile is not original  # type: ignore[attr-defined]
            raise RuntimeError
    assert re._compiler.compile is original  # type: ignore[attr-defined]


def test_nothing_is_written_where_python_writes_no_bytecode(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    with cached_regex_code(tmp_path / "regex.marshal"):
        _same_as_fresh()
    assert not (tmp_path / "regex.marshal").exists()
