"""benchmarks/run.py's bare floor runs the public mock engine and leaves no event loop open."""

from __future__ import annotations

import asyncio
import gc
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.run import bare_engine  # noqa: E402


def _open_loops() -> int:
    return len([o for o in gc.get_objects() if isinstance(o, asyncio.BaseEventLoop) and not o.is_closed()])


def test_bare_floor_closes_the_loops_its_threads_opened():
    # Counted with the collector off: a loop left open is closed only by its __del__, at exit,
    # where it prints "Exception ignored in BaseEventLoop.__del__" once its descriptors are gone.
    enabled = gc.isenabled()
    gc.disable()
    try:
        before = _open_loops()
        bare_engine(60)
        bare_engine(60, [(f"r{i}", {"spec": {"i": i}}) for i in range(60)])
        assert _open_loops() == before
    finally:
        if enabled:
            gc.enable()
