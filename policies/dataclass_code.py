"""The code of the methods @dataclass writes, compiled once and kept beside the bytecode cache.

Loading the pack creates ~90 frozen dataclasses, and for each the dataclasses module writes the source of
``__init__``, ``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__`` and ``__delattr__`` and compiles it with
``exec``: ~500 compilations, ~35 ms of each ~250 ms ``python -m policies check`` (benchmarks/policies_check.py), the
largest cost of loading the pack. Python keeps a module's compiled code in ``__pycache__``, but not this code.

``cached_dataclass_code`` does for it what ``__pycache__`` does for modules, while the pack loads: inside it, the
dataclasses module's ``exec`` of a source text runs the code object compiled from that exact text
(``compile(text, "<string>", "exec")``, as the builtin compiles it there), read from one file beside the bytecode
cache (components/parse_cache.py) and compiled there on a miss. The key is the whole text, so a changed class, field
or default is compiled afresh, never served stale; the file is per interpreter (its bytecode magic number inside)
and rewritten, with only the texts of this run, after a run that compiled any. Nothing is written where Python
writes no bytecode. The classes are the ones @dataclass makes without it: same methods, same globals, same names.
"""

from __future__ import annotations

import builtins
import contextlib
import dataclasses
import importlib.util
import marshal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from components.parse_cache import cache_folder, store

__all__ = ["cache_file", "cached_dataclass_code"]


def cache_file() -> Path:
    """Where the compiled methods are kept: beside the pack's own bytecode."""
    return cache_folder(Path(__file__)) / f"dataclass-methods.{sys.implementation.cache_tag}.marshal"


def _read(path: Path) -> dict[str, Any]:
    try:
        magic, codes = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return {}  # absent, torn, or not this interpreter's: compile
    if magic != importlib.util.MAGIC_NUMBER or not isinstance(codes, dict):
        return {}
    return codes


@contextlib.contextmanager
def cached_dataclass_code(path: Path | None = None) -> Iterator[None]:
    """While inside, @dataclass reuses the methods' code compiled by an earlier run (see the module docstring)."""
    path = path or cache_file()
    known = _read(path)
    used: dict[str, Any] = {}
    missed = False

    def exec_(source: Any, globals: Any = None, locals: Any = None, /, **kwargs: Any) -> None:
        nonlocal missed
        if type(source) is str:
            code = known.get(source)
            if code is None:
                # What the builtin compiles for a source text in dataclasses, which has no __future__ import.
                code = compile(source, "<string>", "exec", dont_inherit=True)
                missed = True
            used[source] = code
            source = code
        builtins.exec(source, globals, locals, **kwargs)

    had = "exec" in vars(dataclasses)
    before = vars(dataclasses).get("exec")
    dataclasses.exec = exec_  # type: ignore[attr-defined]  # the module's global shadows the builtin it calls
    try:
        yield
    finally:
        if had:
            dataclasses.exec = before  # type: ignore[attr-defined]
        else:
            del dataclasses.exec  # type: ignore[attr-defined]
    if missed:
        store(path, marshal.dumps((importlib.util.MAGIC_NUMBER, used)))
