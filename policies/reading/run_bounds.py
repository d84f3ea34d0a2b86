"""Which files a reference inside a checked file may make the pack read: those under what the run was asked to check.

A helmfile's ``values:`` entry or ``chart:`` path, an Argo CD source's ``valueFiles`` and a Terraform ``file()`` /
``templatefile()`` name other files by path, and the pack reads them to know what the release or resource applies.
Such a path may be absolute (``/root/.aws/config.yaml``) or climb out of the checkout (``../../../../etc/x.yaml``):
on a pull request, the files are the author's and the machine is the CI runner's, so what the pack reads through them
must stay within what it was asked to check. ``run_bounds(paths)`` holds the folders of the run (each folder argument,
the folder of each file argument; none for stdin) while policies.manifests.read_manifests reads (``bounded_by_paths``); ``within_run(path)``
is True for a path whose real location (symbolic links followed) is inside one of them. A path outside is read as a
file the run does not hold (each reader's own "not in the run" case: a release whose values the run does not show).

Kustomize bases are not bounded here: an overlay's ``../../base`` is kustomize's own reading (policies/reading/
kustomize.py), which loads local files as ``kustomize build`` does. A reader called on its own, outside a run (a test
of one function), has no bounds to apply and reads what it is given.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Concatenate, Optional, ParamSpec, TypeVar

__all__ = ["bounded_by_paths", "run_bounds", "within_run"]

_P = ParamSpec("_P")
_T = TypeVar("_T")

_FOLDERS: ContextVar[Optional[frozenset[str]]] = ContextVar("llm_serving_run_folders", default=None)


@contextmanager
def run_bounds(paths: Sequence[str], stdin: str = "-") -> Iterator[None]:
    """Bound what references may read to under ``paths`` (folders, or files' folders) while the block runs."""
    folders = frozenset(
        os.path.realpath(p if os.path.isdir(p) else os.path.dirname(os.path.abspath(p))) for p in paths if p != stdin
    )
    token = _FOLDERS.set(folders)
    try:
        yield
    finally:
        _FOLDERS.reset(token)


def bounded_by_paths(read: Callable[Concatenate[Sequence[str], _P], _T]) -> Callable[Concatenate[Sequence[str], _P], _T]:
    """``read(paths, ...)`` (policies.manifests.read_manifests) run under ``run_bounds(paths)``."""

    @functools.wraps(read)
    def bounded(paths: Sequence[str], /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
        with run_bounds(paths):
            return read(paths, *args, **kwargs)

    return bounded


def within_run(path: str) -> bool:
    """True when ``path`` (followed through symbolic links) lies under a folder of the run, or no run is bounding."""
    folders = _FOLDERS.get()
    if folders is None:
        return True
    here = os.path.realpath(path)
    while True:
        if here in folders:
            return True
        parent = os.path.dirname(here)
        if parent == here:
            return False
        here = parent
