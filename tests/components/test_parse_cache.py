"""components/parse_cache.py: a table's parse is reused only while the file's text is unchanged, and never written where
Python writes no bytecode."""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

import pytest

from components import hardware, serving_engines
from components.parse_cache import cache_path, read_parsed, read_toml


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


def test_read_parsed_keeps_the_packed_form_and_returns_it_on_a_hit(writing: Path) -> None:
    source = writing / "t.json"
    source.write_text('{"a": [1, 2]}')
    parse = json.loads
    assert read_parsed(source, parse, "form", pack=lambda d: {"packed": d}) == {"a": [1, 2]}  # a miss: as parsed
    assert read_parsed(source, parse, "form", pack=lambda d: {"packed": d}) == {"packed": {"a": [1, 2]}}  # a hit
    source.write_text('{"a": [3]}')
    assert read_parsed(source, parse, "form", pack=lambda d: {"packed": d}) == {"a": [3]}  # edited: parsed again


def test_the_crd_tables_read_through_the_cache_equal_a_fresh_parse(writing: Path) -> None:
    from policies.crd import cel, schema

    fresh_schemas = json.loads(schema.DATA.read_text())
    fresh_rules = json.loads(cel.DATA.read_text())
    for _ in range(2):  # a miss that writes, then a hit
        schema.schemas_by_type.cache_clear()
        cel._table.cache_clear()
        cel.rules_of.cache_clear()
        by_type = schema.schemas_by_type()
        for crd in fresh_schemas["crds"]:
            for version, spec in crd["versions"].items():
                pinned = by_type[f"kubernetes:{crd['group']}/{version}:{crd['kind']}"]
                assert (pinned.crd, pinned.source, pinned.spec) == (crd["crd"], crd["source"], spec)
        for crd in fresh_rules["crds"]:
            for version, rules in crd["versions"].items():
                built = cel.rules_of(f"kubernetes:{crd['group']}/{version}:{crd['kind']}")
                assert [(r.crd, r.source, list(r.path), r.rule) for r in built] == [
                    (crd["crd"], crd["source"], r["path"], r["rule"]) for r in rules
                ]
    schema.schemas_by_type.cache_clear()
    cel._table.cache_clear()
    cel.rules_of.cache_clear()
