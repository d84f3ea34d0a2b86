"""What the product parses from its own data files, kept beside the bytecode cache between runs.

tomllib is pure Python: parsing hardware.toml and serving_engines.toml cost ~11 ms of each ~255 ms
``python -m policies check`` (benchmarks/policies_check.py). ``read_toml`` keeps tomllib's result where Python keeps a
module's compiled code: ``__pycache__`` next to the file (or under PYTHONPYCACHEPREFIX), one file per table and
interpreter (``hardware.toml.cpython-311.marshal``) holding the text it was parsed from and the result. The cached
result is used only when that text equals the file's text now, so an edited table is parsed again and never read
stale. Nothing is written where Python writes no bytecode (PYTHONDONTWRITEBYTECODE, a read-only folder): there every
run parses, as before. The cache holds only tomllib's own result (marshal: tables, arrays, strings, numbers,
booleans; a table holding dates is not cached); the callers check every row of it on every import, as they check a
fresh parse. ``cache_folder`` and ``store`` serve other parsed forms the same way (policies/crd/cel.py: compiled CEL
rules).
"""

from __future__ import annotations

import marshal
import os
import sys
from pathlib import Path
from typing import Any, Callable, Optional

__all__ = ["cache_folder", "cache_path", "read_parsed", "read_toml", "store"]


def cache_folder(source: Path) -> Path:
    """The folder Python gives the bytecode of modules beside ``source``."""
    folder = source.resolve().parent
    if sys.pycache_prefix:
        return Path(sys.pycache_prefix, *folder.parts[1:])
    return folder / "__pycache__"


def cache_path(source: Path, form: str = "") -> Path:
    """Where the parsed form of ``source`` is kept (``form`` names one of several forms of one file)."""
    suffix = f".{form}" if form else ""
    return cache_folder(source) / f"{source.name}{suffix}.{sys.implementation.cache_tag}.marshal"


def read_parsed(source: Path, parse: Callable[[str], Any], form: str = "", pack: Optional[Callable[[Any], Any]] = None) -> Any:
    """``parse(text)`` of the file's text, from the cache when the text is unchanged. What is kept is ``pack`` of the
    result (the result itself without one), so a hit returns the packed form and callers take both; a form marshal
    does not take is not kept."""
    text = source.read_text(encoding="utf-8")
    cache = cache_path(source, form)
    try:
        cached_text, data = marshal.loads(cache.read_bytes())
        if cached_text == text:
            return data
    except (OSError, EOFError, ValueError, TypeError):
        pass  # absent, unreadable, or written by another interpreter: parse
    data = parse(text)
    if not sys.dont_write_bytecode:
        try:
            payload = marshal.dumps((text, pack(data) if pack else data))
        except ValueError:
            return data  # a value marshal does not take (a TOML date): parsed every time
        store(cache, payload)
    return data


def _toml(text: str) -> dict[str, Any]:
    import tomllib  # on a miss only: its import is ~1 ms

    return tomllib.loads(text)


def read_toml(source: Path) -> dict[str, Any]:
    """``tomllib.loads`` of the file's text (raising its TOMLDecodeError), from the cache when the text is unchanged."""
    data = read_parsed(source, _toml)
    return data if isinstance(data, dict) else _toml(source.read_text(encoding="utf-8"))  # a foreign file: parse


def store(path: Path, payload: bytes) -> None:
    """Write ``payload`` atomically (a reader sees the old file or the new one, whole), unless Python writes no
    bytecode; a failure only costs speed."""
    if sys.dont_write_bytecode:
        return
    partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial.write_bytes(payload)
        os.replace(partial, path)
    except OSError:
        try:
            partial.unlink(missing_ok=True)
        except OSError:
            pass
