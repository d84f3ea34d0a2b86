"""The product's TOML tables parsed once per edit of the file, not once per process.

tomllib is pure Python: parsing hardware.toml and serving_engines.toml cost ~11 ms of each ~255 ms
``python -m policies check`` (benchmarks/policies_check.py). ``read_toml`` keeps tomllib's result beside the file's
bytecode cache, as Python keeps a module's compiled code: ``__pycache__`` next to the file (or under
PYTHONPYCACHEPREFIX), one file per table and interpreter (``hardware.toml.cpython-311.marshal``) holding the text it
was parsed from and the result. The cached result is used only when that text equals the file's text now, so an
edited table is parsed again and never read stale. Nothing is written where Python writes no bytecode
(PYTHONDONTWRITEBYTECODE, a read-only folder): there every run parses, as before. The cache holds only tomllib's own
result (marshal: tables, arrays, strings, numbers, booleans; a table holding dates is not cached); the callers check
every row of it on every import, as they check a fresh parse.
"""

from __future__ import annotations

import marshal
import os
import sys
from pathlib import Path
from typing import Any

__all__ = ["cache_path", "read_toml"]


def cache_path(source: Path) -> Path:
    """Where the parsed form of ``source`` is kept: the folder Python gives its own bytecode there."""
    folder = source.resolve().parent
    if sys.pycache_prefix:
        cache = Path(sys.pycache_prefix, *folder.parts[1:])
    else:
        cache = folder / "__pycache__"
    return cache / f"{source.name}.{sys.implementation.cache_tag}.marshal"


def read_toml(source: Path) -> dict[str, Any]:
    """``tomllib.loads`` of the file's text (raising its TOMLDecodeError), from the cache when the text is unchanged."""
    text = source.read_text(encoding="utf-8")
    cache = cache_path(source)
    try:
        cached_text, data = marshal.loads(cache.read_bytes())
        if cached_text == text and isinstance(data, dict):
            return data
    except (OSError, EOFError, ValueError, TypeError):
        pass  # absent, unreadable, or written by another interpreter: parse
    import tomllib  # on a miss only: its import is ~1 ms

    data = tomllib.loads(text)
    if not sys.dont_write_bytecode:
        _write(cache, text, data)
    return data


def _write(cache: Path, text: str, data: dict[str, Any]) -> None:
    """Store (text, data) atomically (a reader sees the old file or the new one, whole); a failure only costs speed."""
    try:
        payload = marshal.dumps((text, data))
    except ValueError:
        return  # a value marshal does not take (a TOML date): this table is parsed every time
    partial = cache.with_name(f"{cache.name}.{os.getpid()}.tmp")
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        partial.write_bytes(payload)
        os.replace(partial, cache)
    except OSError:
        try:
            partial.unlink(missing_ok=True)
        except OSError:
            pass
