"""One package, two import names: ``llm_serving`` (installed) and ``components`` (this repository).

The repository keeps the library in ``components/``; ``pip install`` ships the same folder as
``llm_serving`` (pyproject.toml maps it), so another stack imports a name that cannot clash with
its own folders. Inside the package every import is relative (.flake8's flake8-tidy-imports rule
checks it), so the installed package never uses, and never claims, the name ``components``: a
consumer's own ``components`` package stays theirs.

In this repository the finder below makes ``llm_serving`` resolve to the very same module
objects as ``components``, never to a second copy, so code written for the installed name (the
example consumer, run by the tests) works from a checkout: a class imported as
``llm_serving.config.ModelConfig`` is the class ``components.config.ModelConfig``.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import sys
from types import ModuleType
from typing import TYPE_CHECKING, Optional, Sequence, cast

if TYPE_CHECKING:
    from importlib.abc import Loader

INSTALLED_NAME = "llm_serving"
REPOSITORY_NAME = "components"


# The finder and the loader are plain classes, as the import system takes any object with these methods: subclassing
# importlib.abc's would import importlib.resources with tempfile, shutil, random and zipfile (~6 ms of every
# `policies check`, benchmarks/policies_check.py) for nothing the alias needs.
class _AliasLoader:
    """Hands out the module already imported (or imported now) under the real name."""

    def __init__(self, real_name: str) -> None:
        self.real_name = real_name

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:  # noqa: D102
        return importlib.import_module(self.real_name)

    def exec_module(self, module: ModuleType) -> None:  # noqa: D102 (already executed under its real name)
        return None


class AliasFinder:
    """Resolves ``alias`` and ``alias.*`` to the modules of ``real`` (first on sys.meta_path)."""

    def __init__(self, alias: str, real: str) -> None:
        self.alias = alias
        self.real = real

    def find_spec(
        self, fullname: str, path: Optional[Sequence[str]] = None, target: Optional[ModuleType] = None
    ) -> Optional[importlib.machinery.ModuleSpec]:
        """A spec for ``alias[.sub]`` whose loader returns ``real[.sub]``; None for every other name."""
        if fullname != self.alias and not fullname.startswith(self.alias + "."):
            return None
        real_name = self.real + fullname[len(self.alias) :]
        if importlib.util.find_spec(real_name) is None:
            return None
        return importlib.util.spec_from_loader(fullname, cast("Loader", _AliasLoader(real_name)))


def install(package_name: str) -> None:
    """In a checkout (``package_name`` is ``components``), make ``llm_serving`` an alias of it (idempotent).

    Installed, the package is ``llm_serving`` already and adds no alias.
    """
    if package_name != REPOSITORY_NAME:
        return
    alias = INSTALLED_NAME
    if any(isinstance(f, AliasFinder) and f.alias == alias for f in sys.meta_path):
        return
    sys.meta_path.insert(0, AliasFinder(alias, package_name))
