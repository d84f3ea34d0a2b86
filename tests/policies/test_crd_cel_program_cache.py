"""policies/crd/cel.py keeps compiled CEL rules beside the bytecode cache: a stored program is used only for its exact
rule text, library and module, gives the verdicts a fresh compile gives, and nothing is written where Python writes
no bytecode."""

from __future__ import annotations

import marshal
import sys
from pathlib import Path

import pytest

from policies.crd import cel

RULE = "self.minValues <= self.values.size()"
PASSES = {"minValues": 1, "values": ["a", "b"]}
FAILS = {"minValues": 3, "values": ["a"]}


@pytest.fixture
def writing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path))
    cel.compiled.cache_clear()
    yield tmp_path
    cel.compiled.cache_clear()


def _verdict(program) -> bool:
    return [program.eval(data={"self": v}).value() for v in (PASSES, FAILS)] == [True, False]


def test_a_compiled_rule_is_stored_and_read_back_with_the_same_verdicts(writing: Path) -> None:
    program, error = cel.compiled(RULE)
    assert not error and _verdict(program)
    assert cel._program_file(RULE).is_file() and cel._program_file(RULE).is_relative_to(writing)
    cel.compiled.cache_clear()
    stored = cel._stored(RULE)
    assert stored is not None and _verdict(stored)
    assert _verdict(cel.compiled(RULE)[0])


def test_a_stored_program_of_another_rule_text_is_not_used(writing: Path) -> None:
    # Two rules whose checksums collide share a file name: the text stored with the program tells them apart.
    cel.compiled("self.minValues > 100")
    other = cel._program_file("self.minValues > 100").read_bytes()
    cel._program_file(RULE).write_bytes(other)
    assert cel._stored(RULE) is None
    cel.compiled.cache_clear()
    assert _verdict(cel.compiled(RULE)[0])


def test_a_program_stored_under_another_library_or_module_is_compiled_again(writing: Path) -> None:
    cel.compiled(RULE)
    stamp, text, serialized = marshal.loads(cel._program_file(RULE).read_bytes())
    cel._program_file(RULE).write_bytes(marshal.dumps((tuple(n + 1 for n in stamp), text, serialized)))
    assert cel._stored(RULE) is None


def test_a_torn_file_is_compiled_over(writing: Path) -> None:
    cel.compiled(RULE)
    cel._program_file(RULE).write_bytes(b"\x00torn")
    cel.compiled.cache_clear()
    assert _verdict(cel.compiled(RULE)[0])


def test_a_rule_the_library_cannot_compile_is_reported_not_stored(writing: Path) -> None:
    program, error = cel.compiled("self.values.noSuchFunction()")
    assert program is None and error
    assert not cel._program_file("self.values.noSuchFunction()").exists()


def test_nothing_is_stored_where_python_writes_no_bytecode(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path))
    cel.compiled.cache_clear()
    try:
        assert _verdict(cel.compiled(RULE)[0])
        assert not cel._program_file(RULE).exists()
    finally:
        cel.compiled.cache_clear()
