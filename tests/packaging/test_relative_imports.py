"""Inside components/ every self-import is relative, so the installed package never needs the name `components`.

The rule is flake8-tidy-imports' I251 with the repository's .flake8 (banned: `components` and `components.*`, on
components/ only); this module's `python -m flake8` is CI's check (.ci/run runs it through the README's test run).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT


def flake8(cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "flake8"], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_no_absolute_self_imports():
    proc = flake8(ROOT)
    assert proc.returncode == 0, (
        "components/ imports itself by its repository name; the installed package is llm_serving, so use a "
        "relative import (from .x import y):\n" + proc.stdout + proc.stderr
    )


def test_the_check_finds_an_absolute_self_import_and_only_there(tmp_path):
    """The check can fail: in a scratch tree under the same .flake8, an absolute self-import in components/ (a lazy
    one too) is reported; relative imports there, and absolute ones outside components/, are not."""
    shutil.copy(ROOT / ".flake8", tmp_path / ".flake8")
    (tmp_path / "components" / "sub").mkdir(parents=True)
    (tmp_path / "components" / "sub" / "mod.py").write_text(
        "from ..config import A\nfrom . import b\n\n\ndef f():\n    from components.config import X\n    return A, b, X\n"
    )
    (tmp_path / "components" / "top.py").write_text("import components.errors\n")
    (tmp_path / "stacks").mkdir()
    (tmp_path / "stacks" / "use.py").write_text("from components.config import X\n")
    proc = flake8(tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert sorted(line.split(": I251")[0] for line in proc.stdout.splitlines()) == [
        "./components/sub/mod.py:6:5",
        "./components/top.py:1:1",
    ], proc.stdout
