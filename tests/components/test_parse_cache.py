"""components/parse_cache.py: a table's parse is reused only while the file's text is unchanged, and never written where
Python writes no bytecode."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest

from components import hardware, serving_engines
from components.parse_cache import cache_path, read_toml


@pytest.fixture
def writing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Bytecode (and so the cache) written, under a prefix of this test's own."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path / "prefix"))
    return tmp_path


def test_the_cache_is_written_and_read_back_equal(writing: Path) -> None:
    table = writing / "t.toml"
    table.write_text('[a]\nx = 1\ny = [1.5, "z", true]\n')
    first = read_toml(table)
    assert cache_path(table).is_file()
    assert cache_path(table).parent.is_relative_to(writing / "prefix")
    assert read_toml(table) == first == tomllib.loads(table.read_text())


def test_an_edited_table_is_parsed_again_never_read_stale(writing: Path) -> None:
    table = writing / "t.toml"
    table.write_text("x = 1\n")
    assert read_toml(table) == {"x": 1}
    table.write_text("x = 2\n")
    assert read_toml(table) == {"x": 2}
    assert read_toml(table) == {"x": 2}


def test_a_broken_cache_file_is_parsed_over(writing: Path) -> None:
    table = writing / "t.toml"
    table.write_text("x = 1\n")
    read_toml(table)
    cache_path(table).write_bytes(b"\x00garbage")
    assert read_toml(table) == {"x": 1}


def test_an_invalid_table_still_raises_tomllibs_error_and_caches_nothing(writing: Path) -> None:
    table = writing / "t.toml"
    table.write_text("x = \n")
    with pytest.raises(tomllib.TOMLDecodeError):
        read_toml(table)
    assert not cache_path(table).exists()


def test_a_table_holding_a_date_is_parsed_each_time(writing: Path) -> None:
    table = writing / "t.toml"
    table.write_text("when = 2026-12-05\n")
    assert str(read_toml(table)["when"]) == "2026-12-05"
    assert not cache_path(table).exists()


def test_nothing_is_written_where_python_writes_no_bytecode(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.setattr(sys, "pycache_prefix", None)
    table = tmp_path / "t.toml"
    table.write_text("x = 1\n")
    assert read_toml(table) == {"x": 1}
    assert not (tmp_path / "__pycache__").exists()


def test_the_packaged_tables_read_through_the_cache_equal_a_fresh_parse(writing: Path) -> None:
    for _ in range(2):  # a miss that writes, then a hit
        assert serving_engines.read_engines() == serving_engines.load_engines(serving_engines.TABLE.read_text())
        path = Path(hardware.__file__).with_name(hardware.DATA_FILE)
        assert hardware.hardware_of(read_toml(path)) == hardware.load_hardware(path.read_text())
