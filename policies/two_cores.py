"""Run the policies of `policies check` on two cores: half in a forked child, half in the process itself.

After the pack is loaded and the manifests are read, evaluating ~160 policies is ~60% of a corpus run
(benchmarks/policies_check.py) and uses one core. On a POSIX system with a second core free to this process,
``split`` forks once: the child evaluates every other item (policies in catalogue order, so both halves hold a
share of the costly ones) and writes its results to a pipe as a pickle; the process evaluates the rest meanwhile,
then reads the child's and returns both, in the order of the items. The child is a copy of this process taken
after loading (copy-on-write: nothing is loaded twice); what the two halves derive from the same objects (the
memoized readers, policies.kube.memoized) is derived in each. Nothing else changes: the same functions run on the
same objects, and the caller sorts what they found.

Only the command line splits (policies/__main__.py calls ``from_command_line``): a program or a test calling
``policies.check.main`` or ``evaluate`` in its own process keeps every policy there, where it can see what they do.
It stays on one core (the items evaluated in order, here) when a second core is not this process's to use
(os.sched_getaffinity), without os.fork (Windows), when another thread runs in the process (a fork copies only the
calling thread, and a lock another thread holds stays held in the child: pytest-xdist's workers, the Pulumi engine's
gRPC server), for fewer than ``MIN_ITEMS`` items, under LLM_SERVING_DEBUG (an exception ends the run where it is
raised), or when ``LLM_SERVING_CHECK_CORES`` is ``1``. A child that fails (killed, an exception outside the checks'
own catching, an unreadable answer) costs time, never a result: its half is evaluated here after all.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = ["MIN_ITEMS", "from_command_line", "split", "two_cores_free"]

T = TypeVar("T")
R = TypeVar("R")

# A fork and the pickle between the two costs ~3 ms; fewer items than this are not worth it.
MIN_ITEMS = 16


_COMMAND_LINE = [False]


def from_command_line() -> None:
    """Let this process's checks use two cores: it is `python -m policies check`, whose process is its own."""
    _COMMAND_LINE[0] = True


def two_cores_free() -> bool:
    """Whether this process may use a second core for its checks now (the module docstring says when not)."""
    if (
        not _COMMAND_LINE[0]
        or os.environ.get("LLM_SERVING_CHECK_CORES", "").strip() == "1"
        or os.environ.get("LLM_SERVING_DEBUG")
    ):
        return False
    threading = sys.modules.get("threading")  # not imported: no other thread runs
    if not hasattr(os, "fork") or (threading is not None and threading.active_count() != 1):
        return False
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return cores >= 2


def split(run: Callable[[Sequence[T]], R], items: Sequence[T]) -> list[R]:
    """``[run(items[0::2]), run(items[1::2])]``, the second computed in a forked child where two cores are free
    (``two_cores_free``); ``[run(items)]`` otherwise."""
    if len(items) < MIN_ITEMS or not two_cores_free():
        return [run(items)]
    import pickle  # here, not at load: a run that stays on one core never needs it

    mine, theirs = items[0::2], items[1::2]
    try:
        read_end, write_end = os.pipe()
    except OSError:
        return [run(items)]
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return [run(items)]
    if pid == 0:  # the child: its half, pickled to the pipe, then out without the interpreter's teardown
        status = 1
        try:
            os.close(read_end)
            data = pickle.dumps(run(theirs), protocol=pickle.HIGHEST_PROTOCOL)
            view = memoryview(data)
            while view:
                view = view[os.write(write_end, view) :]
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    try:
        found = run(mine)
    finally:
        answer = _read_all(read_end)
        _, status = os.waitpid(pid, 0)
    return [found, _answer(answer, status, run, theirs)]


def _read_all(fd: int) -> bytes:
    chunks = []
    try:
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)


def _answer(data: bytes, status: int, run: Callable[[Sequence[T]], R], theirs: Sequence[T]) -> R:
    """The child's result, or its half evaluated here when the child did not finish well."""
    if status == 0 and data:
        import pickle

        try:
            return pickle.loads(data)  # noqa: S301 (our own child's pickle, through a pipe only it writes)
        except Exception:  # noqa: BLE001 (a torn answer: evaluate the half here)
            pass
    return run(theirs)
