"""Inside components/ every self-import is relative, so the installed package never needs the name `components`."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def test_no_absolute_self_imports():
    proc = subprocess.run(
        [sys.executable, "tools/relative_imports.py", "--check"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, (
        "components/ imports itself by its repository name; the installed package is llm_serving, so use a "
        "relative import (from .x import y), or run `python tools/relative_imports.py`:\n" + proc.stdout
    )


def test_the_check_finds_an_absolute_import(tmp_path, monkeypatch):
    """The checker itself can fail: an absolute self-import in a scratch package is reported and rewritten."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import relative_imports as tool
    finally:
        sys.path.pop(0)
    package = tmp_path / "components"
    (package / "sub").mkdir(parents=True)
    (package / "sub" / "mod.py").write_text("def f():\n    from components.config import X\n    return X\n")
    monkeypatch.setattr(tool, "PACKAGE", package)
    assert tool.absolute_imports() == ["components/sub/mod.py:2: from components.config import X"]
    assert tool.main([]) == 0
    assert (package / "sub" / "mod.py").read_text() == "def f():\n    from ..config import X\n    return X\n"
