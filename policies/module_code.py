"""The compiled code of the pack's own modules, kept in one file beside the bytecode cache between runs.

Loading the pack imports ~320 modules of policies/ and components/, each through Python's path finder: its folder
looked up, its source stat()ed, its .pyc file opened, read and checked apart: ~8 ms of each ~215 ms
``python -m policies check`` (benchmarks/policies_check.py) before any of their code runs.

``cached_module_code`` does for the pack what a zip import does for a library, while the pack loads: inside it, a
finder first on ``sys.meta_path`` serves a submodule of the pack from one file that holds each module's compiled code
(its .pyc's code object, read from the bytes after the header as Python wrote them), with the source it was compiled
from: its path, its modification time in nanoseconds and its size. The code objects of all the modules are written
as one marshal stream, so a name or constant the modules share is written once and read back once: ~15M of the
~75M instructions reading each module's code apart took (python -m policies check over manifests-v2, ~1.5G); an entry
holding the .pyc's bytes instead (as the file had before) is read as well. A module is served only when its package's ``__path__`` is the one
folder its recorded source sits in (where the path finder would look) and the source's time and size are those
recorded; anything else (an edited or removed file, a top-level package, another checkout's module) is imported the
ordinary way. The module is the one Python's SourceFileLoader makes (same spec, ``__file__``, ``__cached__``, loader
class): only ``get_code`` reads the file's bytes, and a bad entry falls back to the ordinary reading. After a load that
imported any module of the pack the ordinary way, the file is rewritten with the code of every module of the pack the
load imported, read back from the .pyc files Python validated (a .pyc whose header does not match its source now is
left out). Nothing is written where Python writes no bytecode. policies/__main__.py opens it around the pack's import
only; the Pulumi CLI's path imports the pack the ordinary way.
"""

from __future__ import annotations

import contextlib
import importlib.util
import marshal
import os
import sys
from collections.abc import Iterator, Sequence
from importlib.machinery import ModuleSpec, SourceFileLoader
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any, Optional

from components.parse_cache import cache_folder, store

__all__ = ["cache_file", "cached_module_code"]

# The folders whose modules are kept: the pack and the library beside it (a built pack holds both too).
_ROOT = Path(__file__).resolve().parent.parent
_FOLDERS = tuple(str(_ROOT / name) + os.sep for name in ("policies", "components"))

# What an entry's code may be: a code object (as written since one stream holds them all), or a .pyc's bytes.
_CODE = (CodeType, bytes)

# name -> (source path, is a package, source mtime in ns, source size, the .pyc's code: its code object, or the bytes
# after its 16-byte header)
Entry = tuple[str, bool, int, int, Any]


def cache_file(optimize: int | None = None) -> Path:
    """Where the modules' code is kept: beside the pack's own bytecode, one file per interpreter and optimisation level
    (``python -O``/``-OO`` compile without asserts/docstrings, as their .opt-N.pyc do: review 45 #18)."""
    level = sys.flags.optimize if optimize is None else optimize
    opt = f".opt-{level}" if level else ""
    return cache_folder(Path(__file__)) / f"module-code.{sys.implementation.cache_tag}{opt}.marshal"


def _read(path: Path) -> dict[str, Any]:
    try:
        magic, entries = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return {}  # absent, torn, or not this interpreter's: the ordinary import
    if magic != importlib.util.MAGIC_NUMBER or not isinstance(entries, dict):
        return {}
    return entries


class _Loader(SourceFileLoader):
    """Python's loader for a source file, whose compiled code comes from the file of this module."""

    def __init__(self, fullname: str, path: str, code: Any) -> None:
        super().__init__(fullname, path)
        self._code = code

    def get_code(self, fullname: str) -> Any:  # noqa: D102
        code = self._code
        if type(code) is not CodeType:
            try:
                code = marshal.loads(code)
            except (EOFError, ValueError, TypeError):
                code = None
        return code if type(code) is CodeType else super().get_code(fullname)


class _Finder:
    """Serves the modules of ``entries`` whose source is unchanged where the path finder would find them."""

    def __init__(self, entries: dict[str, Any]) -> None:
        self.entries = entries
        self.served: dict[str, Entry] = {}

    def find_spec(
        self, fullname: str, path: Optional[Sequence[str]] = None, target: Optional[ModuleType] = None
    ) -> Optional[ModuleSpec]:
        """The spec of a submodule kept and unchanged; None (the ordinary import) for anything else."""
        entry = self.entries.get(fullname)
        if entry is None or not path or len(path) != 1 or target is not None:
            return None
        try:
            file, package, mtime_ns, size, code = entry
            tail = fullname.rpartition(".")[2]
            folder = path[0].rstrip("/")
            if file != (f"{folder}/{tail}/__init__.py" if package else f"{folder}/{tail}.py") or type(code) not in _CODE:
                return None
            found = os.stat(file)
        except (OSError, TypeError, ValueError, AttributeError):
            return None
        if found.st_mtime_ns != mtime_ns or found.st_size != size:
            return None
        self.served[fullname] = entry
        locations = [os.path.dirname(file)] if package else None
        return importlib.util.spec_from_file_location(
            fullname, file, loader=_Loader(fullname, file, code), submodule_search_locations=locations
        )


def _pyc_entry(module: ModuleType) -> Optional[Entry]:
    """A module imported the ordinary way, as an entry: its .pyc's code, when the .pyc's header matches the source."""
    spec = getattr(module, "__spec__", None)
    file, cached = getattr(spec, "origin", None), getattr(spec, "cached", None)
    if type(getattr(spec, "loader", None)) is not SourceFileLoader or not isinstance(file, str) or not isinstance(cached, str):
        return None
    try:
        found = os.stat(file)
        with open(cached, "rb") as pyc:
            data = pyc.read()
    except OSError:
        return None
    header = (
        importlib.util.MAGIC_NUMBER
        + (0).to_bytes(4, "little")
        + (int(found.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
        + (found.st_size & 0xFFFFFFFF).to_bytes(4, "little")
    )
    if data[:16] != header:
        return None  # not the one Python validates against this source (or hash-based): left to the ordinary import
    try:
        code = marshal.loads(data[16:])
    except (EOFError, ValueError, TypeError):
        return None
    if type(code) is not CodeType:
        return None
    return file, getattr(spec, "submodule_search_locations", None) is not None, found.st_mtime_ns, found.st_size, code


@contextlib.contextmanager
def cached_module_code(path: Path | None = None, folders: Sequence[str] = _FOLDERS) -> Iterator[None]:
    """While inside, the pack's modules load from the code an earlier run kept (see the module docstring); ``folders``:
    where the modules kept are (each ending with the path separator)."""
    path = path or cache_file()
    finder = _Finder(_read(path))
    before = set(sys.modules)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(finder)
    if sys.dont_write_bytecode:
        return
    loaded = [
        name
        for name in sys.modules
        if name not in before and str(getattr(sys.modules[name], "__file__", "")).startswith(tuple(folders))
    ]
    fresh = {name: _pyc_entry(sys.modules[name]) for name in loaded if name not in finder.served}
    as_bytes = [name for name, entry in finder.served.items() if type(entry[4]) is not CodeType]  # an older file's
    if not any(fresh.values()) and not as_bytes:
        return  # every module served, or none of the others has a .pyc to keep: the file stays as it is
    for name in as_bytes:
        fresh[name] = _code_entry(finder.served.pop(name))
    entries = {name: entry for name in loaded if (entry := finder.served.get(name) or fresh.get(name)) is not None}
    store(path, marshal.dumps((importlib.util.MAGIC_NUMBER, entries)))


def _code_entry(entry: Entry) -> Optional[Entry]:
    """An entry whose code is a .pyc's bytes, with its code object instead (None when the bytes hold none)."""
    try:
        code = marshal.loads(entry[4])
    except (EOFError, ValueError, TypeError):
        return None
    return (*entry[:4], code) if type(code) is CodeType else None
