"""The code of the regular expressions compiled while the pack loads, kept beside the bytecode cache.

Loading the pack compiles ~150 regular expressions at module level (the pack's own, and PyYAML's, argparse's and
others' on the way): ~15-20 ms of each ~220 ms ``python -m policies check`` (benchmarks/policies_check.py), ~7 ms of
it one character class of PyYAML's pure-Python reader, which the C parser the pack uses never runs. The ``re`` module
caches a compiled expression for the process only.

``cached_regex_code`` keeps, across runs, what ``re`` computes for an expression: inside it, the first compilation of
a (pattern, flags) pair records the arguments ``re._compiler.compile`` hands ``_sre.compile`` (the flags, the
expression's code, its groups) and later runs hand ``_sre.compile`` the same arguments without parsing the pattern
again: the same call, so the same Pattern. The key is the whole pattern and its flags; the file is per interpreter
(its bytecode magic number inside) and rewritten, with only this run's expressions, after a run that compiled any;
nothing is written where Python writes no bytecode. Where ``re`` is not laid out as in CPython 3.11-3.13
(``re._compiler.compile`` calling ``_sre.compile``), nothing is cached.
"""

from __future__ import annotations

import contextlib
import importlib.util
import marshal
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from components.parse_cache import cache_folder, store

__all__ = ["cache_file", "cached_regex_code"]


def cache_file() -> Path:
    """Where the compiled expressions are kept: beside the pack's own bytecode."""
    return cache_folder(Path(__file__)) / f"regex-code.{sys.implementation.cache_tag}.marshal"


def _read(path: Path) -> dict[Any, Any]:
    try:
        magic, codes = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return {}  # absent, torn, or not this interpreter's: compile
    if magic != importlib.util.MAGIC_NUMBER or not isinstance(codes, dict):
        return {}
    return codes


class _Recording:
    """``_sre`` as ``re._compiler`` sees it while one expression compiles: ``compile`` notes its arguments."""

    def __init__(self, sre: Any) -> None:
        self._sre = sre
        self.arguments: tuple[Any, ...] | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sre, name)

    def compile(self, pattern: Any, flags: int, code: list, groups: int, groupindex: dict, indexgroup: tuple) -> Any:
        # Plain ints (the code holds re's named opcode constants, an int subclass marshal does not take).
        self.arguments = (pattern, int(flags), [int(c) for c in code], int(groups), dict(groupindex), tuple(indexgroup))
        return self._sre.compile(pattern, flags, code, groups, groupindex, indexgroup)


@contextlib.contextmanager
def cached_regex_code(path: Path | None = None) -> Iterator[None]:
    """While inside, ``re`` reuses the code of expressions an earlier run compiled (see the module docstring)."""
    compiler = getattr(re, "_compiler", None)
    original = getattr(compiler, "compile", None)
    sre = getattr(compiler, "_sre", None)
    debug = getattr(compiler, "SRE_FLAG_DEBUG", None)
    if original is None or sre is None or not callable(getattr(sre, "compile", None)) or debug is None:
        yield
        return
    path = path or cache_file()
    known = _read(path)
    used: dict[Any, Any] = {}
    missed = False

    def compile_(p: Any, flags: int = 0) -> Any:
        nonlocal missed
        if type(p) not in (str, bytes) or type(flags) is not int or flags & debug:
            return original(p, flags)
        key = (p, flags)
        arguments = known.get(key)
        if arguments is not None:
            used[key] = arguments
            return sre.compile(*arguments)
        recording = _Recording(sre)
        compiler._sre = recording  # type: ignore[union-attr]
        try:
            pattern = original(p, flags)
        finally:
            compiler._sre = sre  # type: ignore[union-attr]
        if recording.arguments is not None:
            used[key] = recording.arguments
            missed = True
        return pattern

    compiler.compile = compile_  # type: ignore[union-attr]
    try:
        yield
    finally:
        compiler.compile = original  # type: ignore[union-attr]
    if missed:
        try:
            store(path, marshal.dumps((importlib.util.MAGIC_NUMBER, used)))
        except ValueError:
            pass  # an argument marshal does not take: compiled on each run, as before
