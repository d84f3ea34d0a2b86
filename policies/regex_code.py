"""The code of the regular expressions the pack compiles, kept beside the bytecode cache between runs.

The re module parses and compiles a pattern in pure Python (``re._parser``, ``re._compiler``) and keeps the result in
memory only: loading the pack compiles ~190 patterns at import (the pack's own, PyYAML's resolver and reader), ~35 ms of
each ~250 ms ``python -m policies check`` (benchmarks/policies_check.py), the largest single cost of loading it.

``cached_regex_code`` does for patterns what ``__pycache__`` does for modules, while the pack loads: inside it,
``re._compiler.compile`` of a pattern text builds the pattern object from the instruction list an earlier run compiled
for that exact (text, flags), read from one file beside the bytecode cache (components/parse_cache.py), and compiles it
as re does on a miss. The pattern object is made by the same call re makes last (``_sre.compile(pattern, flags, code,
groups - 1, groupindex, indexgroup)``: CPython 3.11 Lib/re/_compiler.py:740-764), so it equals the one re would build
(``==`` compares the text, the flags and the code). The key is the whole text and flags, and the file is per
interpreter (its exact version string, patch release and build included, and the engine's ``_sre.MAGIC`` and
``CODESIZE`` inside): a new pattern is compiled afresh, never served stale. An entry the engine refuses (``_sre.compile``
validates the code it is given) is compiled afresh too, and the file rewritten: a damaged file costs time, never the
run (the cache of 104a7a0 was reverted for both: keyed by the bytecode magic only, and a bad entry ended the run). The file is rewritten after a load that compiled any, with the patterns of the earlier loads and of this one
(at most MAX_PATTERNS). Nothing is written where Python writes no bytecode. policies/__main__.py opens it around the
pack's import and keeps it open while the check runs: once the pack is loaded (``Phase.checking``), a pattern compiled
for the first time is kept only when it is a constant of the first function outside ``re`` that compiles it
(``re.search(r"...", text)`` in a check: ~35 patterns, ~3 ms of a corpus run), so the file holds the code's own
patterns, never one a check builds from a manifest's text (a mount path, a variable's name) or fnmatch translates,
which is compiled as re compiles it.
"""

from __future__ import annotations

import contextlib
import marshal
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from components.parse_cache import cache_folder, store

__all__ = ["MAX_PATTERNS", "cache_file", "cached_regex_code"]

# Loading the pack compiles ~190 patterns (~150 KB kept); a file past this holds patterns of code long gone and starts
# afresh.
MAX_PATTERNS = 4096

_compiler: Any = getattr(re, "_compiler", None)  # re's internals by the 3.11 names; none: no cache
_parser: Any = getattr(re, "_parser", None)
_sre: Any = getattr(_compiler, "_sre", None)  # the C engine re._compiler hands the code to
_STAMP = (sys.version, getattr(_sre, "MAGIC", None), getattr(_sre, "CODESIZE", None))


def cache_file() -> Path:
    """Where the compiled patterns are kept: beside the pack's own bytecode."""
    return cache_folder(Path(__file__)) / f"regex-code.{sys.implementation.cache_tag}.marshal"


def _read(path: Path) -> dict[Any, Any]:
    try:
        stamp, codes = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return {}  # absent, torn, or not this interpreter's: compile
    if stamp != _STAMP or not isinstance(codes, dict):
        return {}
    return codes


def _compiled(pattern: Any, flags: int) -> tuple[Any, ...]:
    """What re._compiler.compile hands _sre.compile for a pattern text, after the warnings re's parser gives."""
    parsed = _parser.parse(pattern, flags)
    code = [int(op) for op in _compiler._code(parsed, flags)]  # re's opcodes are int subclasses marshal refuses
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[Any] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    return flags | parsed.state.flags, code, parsed.state.groups - 1, groupindex, tuple(indexgroup)


def _usable() -> bool:
    needed = ((_compiler, "compile"), (_compiler, "_code"), (_parser, "parse"), (_sre, "compile"))
    return all(hasattr(m, a) for m, a in needed)


class Phase:
    """What ``cached_regex_code`` yields: ``checking()`` marks the end of the pack's load, after which a pattern compiled
    for the first time is kept only when it is a constant of the code that compiles it (``_in_code``)."""

    def __init__(self) -> None:
        self.loaded = False

    def checking(self) -> None:
        """The pack is loaded: from here on, keep only the code's own constant patterns."""
        self.loaded = True


def _in_code(pattern: Any) -> bool:
    """True when ``pattern`` is a constant of the first function outside ``re`` on the stack: written in the code that
    compiles it (``re.search(r"...", text)``), never a text a check built from a manifest (a mount path, a name)."""
    frame = sys._getframe(1)
    while frame is not None and (frame.f_globals.get("__name__") == __name__ or _in_re(frame.f_globals.get("__name__"))):
        frame = frame.f_back  # type: ignore[assignment]
    return frame is not None and _among(pattern, frame.f_code.co_consts)


def _in_re(module: Any) -> bool:
    return isinstance(module, str) and (module == "re" or module.startswith("re."))


def _among(pattern: Any, constants: tuple) -> bool:
    for constant in constants:
        if type(constant) is type(pattern) and constant == pattern:
            return True
        if type(constant) in (tuple, frozenset) and _among(pattern, tuple(constant)):
            return True
    return False


@contextlib.contextmanager
def cached_regex_code(path: Path | None = None) -> Iterator[Phase]:
    """While inside, re compiles a pattern an earlier run compiled from that run's code (see the module docstring);
    after the yielded phase's ``checking()``, a new pattern is kept only when it is a constant of its code."""
    phase = Phase()
    if not _usable():
        yield phase
        return
    path = path or cache_file()
    known = _read(path)
    used: dict[Any, Any] = {}
    missed = False
    original = _compiler.compile

    def compile_(p: Any, flags: int = 0) -> Any:
        nonlocal missed
        if isinstance(flags, re.RegexFlag):
            flags = flags.value  # as re._compile passes them
        # Only a text with no debug output asked (re.DEBUG prints while compiling); re's parsed forms go through.
        if type(p) not in (str, bytes) or type(flags) is not int or flags & re.DEBUG:
            return original(p, flags)
        key = (p, flags)
        entry = known.get(key)
        if entry is not None:
            try:
                pattern = _sre.compile(p, *entry)
            except Exception:  # an entry the engine refuses (it validates the code): compiled afresh, file rewritten
                pass
            else:
                used[key] = entry
                return pattern
        if phase.loaded and not _in_code(p):
            return original(p, flags)  # built while checking (from a manifest's text, fnmatch's translation): not kept
        entry = _compiled(p, flags)  # raises re.error as re does
        missed = True
        used[key] = entry
        return _sre.compile(p, *entry)

    _compiler.compile = compile_
    try:
        yield phase
    finally:
        _compiler.compile = original
    if missed:
        kept = {**known, **used} if len(known) + len(used) <= MAX_PATTERNS else used
        try:
            payload = marshal.dumps((_STAMP, kept))
        except ValueError:
            return  # a pattern marshal does not take: compiled every time
        store(path, payload)
