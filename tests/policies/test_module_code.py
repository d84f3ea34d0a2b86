"""policies/module_code.py: a module is served from the kept code only while its source is the one recorded and sits
where the path finder would look; a served module is the one the ordinary import makes; the finder ends with the block;
nothing is written where Python writes no bytecode; and `policies check` prints the same with the file as without it."""

from __future__ import annotations

import importlib
import marshal
import os
import subprocess
import sys
from importlib.machinery import SourceFileLoader
from pathlib import Path

import pytest

from policies.module_code import cached_module_code

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A package ``mcpkg`` (a module, a subpackage and its module) on sys.path, bytecode written beside it."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.setattr(sys, "pycache_prefix", None)
    root = tmp_path / "src"
    (root / "mcpkg" / "sub").mkdir(parents=True)
    (root / "mcpkg" / "__init__.py").write_text("")
    (root / "mcpkg" / "mod.py").write_text("VALUE = 1\n")
    (root / "mcpkg" / "sub" / "__init__.py").write_text("from mcpkg.sub import leaf\n")
    (root / "mcpkg" / "sub" / "leaf.py").write_text("WORD = 'leaf'\n")
    monkeypatch.syspath_prepend(str(root))
    yield root
    for name in [n for n in sys.modules if n == "mcpkg" or n.startswith("mcpkg.")]:
        del sys.modules[name]
    importlib.invalidate_caches()


def _forget() -> None:
    for name in [n for n in sys.modules if n.startswith("mcpkg.")]:
        del sys.modules[name]


def _load(cache: Path, root: Path) -> dict:
    importlib.import_module("mcpkg")  # a top-level package is the path finder's, never served
    with cached_module_code(cache, folders=[str(root / "mcpkg") + os.sep]) as _:
        mod = importlib.import_module("mcpkg.mod")
        sub = importlib.import_module("mcpkg.sub")
    return {"mod": mod, "sub": sub, "leaf": sys.modules["mcpkg.sub.leaf"]}


def _served(module: object) -> bool:
    loader = module.__spec__.loader  # type: ignore[attr-defined]
    return isinstance(loader, SourceFileLoader) and type(loader) is not SourceFileLoader


def test_a_load_stores_and_the_next_serves_the_same_modules(package: Path, tmp_path: Path) -> None:
    cache = tmp_path / "modules.marshal"
    first = _load(cache, package)
    assert not any(_served(m) for m in first.values()) and cache.exists()
    shown = {k: (m.__file__, m.__cached__, m.__spec__.origin, getattr(m, "__path__", None)) for k, m in first.items()}
    _forget()
    second = _load(cache, package)
    assert all(_served(m) for m in second.values())
    assert {k: (m.__file__, m.__cached__, m.__spec__.origin, getattr(m, "__path__", None)) for k, m in second.items()} == shown
    assert second["mod"].VALUE == 1 and second["leaf"].WORD == "leaf"
    assert not any(f for f in sys.meta_path if type(f).__name__ == "_Finder")  # the finder ends with the block


def test_an_edited_source_is_imported_afresh_and_kept_again(package: Path, tmp_path: Path) -> None:
    cache = tmp_path / "modules.marshal"
    _load(cache, package)
    _forget()
    (package / "mcpkg" / "mod.py").write_text("VALUE = 22\n")  # another size: never the kept code
    importlib.invalidate_caches()
    loaded = _load(cache, package)
    assert loaded["mod"].VALUE == 22 and not _served(loaded["mod"]) and _served(loaded["leaf"])
    _forget()
    again = _load(cache, package)
    assert again["mod"].VALUE == 22 and _served(again["mod"])


def test_a_removed_source_is_not_served(package: Path, tmp_path: Path) -> None:
    cache = tmp_path / "modules.marshal"
    _load(cache, package)
    _forget()
    (package / "mcpkg" / "mod.py").unlink()
    importlib.invalidate_caches()
    with cached_module_code(cache, folders=[str(package / "mcpkg") + os.sep]):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module("mcpkg.mod")


def test_a_damaged_entry_is_read_the_ordinary_way(package: Path, tmp_path: Path) -> None:
    cache = tmp_path / "modules.marshal"
    _load(cache, package)
    _forget()
    magic, entries = marshal.loads(cache.read_bytes())
    file, is_package, mtime, size, _code = entries["mcpkg.mod"]
    entries["mcpkg.mod"] = (file, is_package, mtime, size, b"not code")
    cache.write_bytes(marshal.dumps((magic, entries)))
    assert _load(cache, package)["mod"].VALUE == 1


def test_nothing_is_written_where_python_writes_no_bytecode(
    package: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    cache = tmp_path / "modules.marshal"
    assert _load(cache, package)["mod"].VALUE == 1
    assert not cache.exists()


DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm, namespace: llm}
spec:
  selector: {matchLabels: {app: vllm}}
  template:
    metadata: {labels: {app: vllm}}
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        args: [--model, meta-llama/Llama-3.1-8B-Instruct, --max-model-len, "8192"]
        resources: {limits: {nvidia.com/gpu: 1}}
"""


def test_policies_check_prints_the_same_with_the_kept_code(tmp_path: Path) -> None:
    target = tmp_path / "deployment.yaml"
    target.write_text(DEPLOYMENT)
    plain = {k: v for k, v in os.environ.items() if k != "PYTHONPYCACHEPREFIX"}
    plain["PYTHONDONTWRITEBYTECODE"] = "1"
    kept = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    kept["PYTHONPYCACHEPREFIX"] = str(tmp_path / "pycache")
    runs = [
        subprocess.run(
            [sys.executable, "-m", "policies", "check", str(target), "--format", "json"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )
        for env in (plain, kept, kept)
    ]
    files = list((tmp_path / "pycache").rglob("module-code.*.marshal"))
    assert files, "the first run with bytecode keeps the modules' code"
    _magic, entries = marshal.loads(files[0].read_bytes())
    assert "policies.registry" in entries and "components.loading" in entries
    assert runs[0].returncode == 1 and "vllm" in runs[0].stdout
    assert all(run.stdout == runs[0].stdout and run.returncode == runs[0].returncode for run in runs[1:])


def test_each_optimisation_level_keeps_its_own_file() -> None:
    # Review 45 #18: code kept by a `python -OO` run (no asserts, no docstrings) must not serve a plain run.
    from policies.module_code import cache_file

    names = {cache_file(level).name for level in (0, 1, 2)}
    assert len(names) == 3 and cache_file(0).name == f"module-code.{sys.implementation.cache_tag}.marshal"
    assert cache_file().name == cache_file(sys.flags.optimize).name
