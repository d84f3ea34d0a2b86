"""policies/dataclass_code.py: the methods @dataclass compiles are reused only for their exact source text, the
classes behave as without the cache, the hook ends with the block, and nothing is written where Python writes no
bytecode."""

from __future__ import annotations

import dataclasses
import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

from policies.dataclass_code import cached_dataclass_code

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def writing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)


def _record(default: int = 0) -> type:
    @dataclasses.dataclass(frozen=True)
    class Record:
        name: str
        count: int = default

    return Record


def _behaves(record: type, default: int = 0) -> None:
    a, b = record("x"), record("x", default)
    assert a == b and hash(a) == hash(b) and a != record("y")
    assert repr(a) == f"_record.<locals>.Record(name='x', count={default})"
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.name = "z"  # type: ignore[misc]


def test_a_miss_is_compiled_and_stored_and_a_hit_behaves_the_same(writing: None, tmp_path: Path) -> None:
    path = tmp_path / "methods.marshal"
    with cached_dataclass_code(path):
        _behaves(_record())
    _magic, codes = marshal.loads(path.read_bytes())
    assert any("def __init__(self,name:_type_name" in text for text in codes)
    stored = path.read_bytes()
    with cached_dataclass_code(path):
        _behaves(_record())
    assert path.read_bytes() == stored  # all hits: nothing rewritten


def test_a_changed_class_is_compiled_afresh_never_served_stale(writing: None, tmp_path: Path) -> None:
    path = tmp_path / "methods.marshal"
    with cached_dataclass_code(path):
        _record()
    with cached_dataclass_code(path):
        _behaves(_record(default=7), default=7)  # a default is passed in, not written in the text

        @dataclasses.dataclass(frozen=True)
        class Record:  # one more field: other texts, compiled
            name: str
            count: int = 0
            unit: str = "s"

        assert Record("x").unit == "s" and repr(Record("x")).endswith("Record(name='x', count=0, unit='s')")
    _magic, codes = marshal.loads(path.read_bytes())
    assert any("unit" in text for text in codes)


def test_a_wrong_code_object_under_a_text_is_never_looked_up_by_another_text(writing: None, tmp_path: Path) -> None:
    # The key is the whole text: an entry for some other text does not serve this one.
    path = tmp_path / "methods.marshal"
    import importlib.util

    path.write_bytes(marshal.dumps((importlib.util.MAGIC_NUMBER, {"x = 1": compile("raise SystemExit", "<string>", "exec")})))
    with cached_dataclass_code(path):
        _behaves(_record())


def test_a_torn_file_or_another_interpreters_file_is_compiled_over(writing: None, tmp_path: Path) -> None:
    path = tmp_path / "methods.marshal"
    for content in (b"\x00torn", marshal.dumps((b"\x00\x00\r\n", {}))):
        path.write_bytes(content)
        with cached_dataclass_code(path):
            _behaves(_record())


def test_the_hook_ends_with_the_block_even_on_an_error(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError):
        with cached_dataclass_code(tmp_path / "methods.marshal"):
            assert "exec" in vars(dataclasses)
            raise RuntimeError
    assert "exec" not in vars(dataclasses)


def test_nothing_is_written_where_python_writes_no_bytecode(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    with cached_dataclass_code(tmp_path / "methods.marshal"):
        _behaves(_record())
    assert not (tmp_path / "methods.marshal").exists()


def test_a_check_reads_the_same_with_the_cache_cold_and_warm(tmp_path: Path) -> None:
    manifest = tmp_path / "deployment.yaml"
    manifest.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: vllm, namespace: llm}\nspec:\n"
        "  selector: {matchLabels: {app: vllm}}\n  template:\n    metadata: {labels: {app: vllm}}\n    spec:\n"
        "      containers:\n      - name: vllm\n        image: vllm/vllm-openai:v0.10.1\n"
        "        args: [--model, meta-llama/Llama-3.1-8B-Instruct, --max-model-len, '8192']\n"
        "        resources: {limits: {nvidia.com/gpu: 1}}\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(tmp_path / "pycache")
    runs = [
        subprocess.run(
            [sys.executable, "-m", "policies", "check", str(manifest), "--format", "json"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        for _ in range(2)
    ]
    assert list((tmp_path / "pycache").rglob("dataclass-methods.*.marshal"))
    assert runs[0].returncode == runs[1].returncode and runs[0].stdout == runs[1].stdout and runs[0].stdout
