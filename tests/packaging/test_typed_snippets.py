"""The documented snippets and the example program type-check as a user's checker sees them: plain mypy (no pydantic
plugin) and basedpyright (pyright's engine), with the package importable under its installed names.

The library's pydantic fields spell their defaults `Field(default=...)`, which any checker reads through
pydantic's `dataclass_transform`; a positional `Field(None, ...)` is visible to the pydantic mypy plugin only, and
plain mypy then reports every such field as a missing argument (issue 33).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

# Where a user's checker finds them once installed (setup.py PUBLIC_NAMES).
INSTALLED_NAMES = {"llm_serving": "components", "llm_serving_plan": "stacks", "llm_serving_policies": "policies"}
DOCUMENTED = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
EXAMPLES = [ROOT / "examples" / "consumer" / "__main__.py"]


def _snippets() -> dict[str, str]:
    """Every ```python block of the README and the docs, named by page and index, and the example programs."""
    found = {}
    for page in DOCUMENTED:
        for i, block in enumerate(re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)):
            found[f"{page.stem.lower()}_{i}.py"] = block
    for path in EXAMPLES:
        found[f"example_{path.parent.name}.py"] = path.read_text(encoding="utf-8")
    return found


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    """A folder with the snippets and the installed package names linked to their folders here."""
    tmp = tmp_path_factory.mktemp("typed")
    site = tmp / "site"
    site.mkdir()
    for name, folder in INSTALLED_NAMES.items():
        (site / name).symlink_to(ROOT / folder, target_is_directory=True)
    for name, text in _snippets().items():
        (tmp / name).write_text(text, encoding="utf-8")
    return tmp


def _mypy(workspace: Path, files: list[str]) -> subprocess.CompletedProcess:
    empty = workspace / "mypy.ini"
    empty.write_text("[mypy]\n")  # no plugins, no project settings: what a consumer's plain mypy does
    env = {"MYPYPATH": f"{workspace / 'site'}:{ROOT}", "PATH": str(Path(sys.executable).parent)}
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(empty), "--follow-imports=silent", "--python-version", "3.11"]
        + ["--cache-dir", str(workspace / ".mypy_cache"), *files],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _pyright(workspace: Path, files: list[str]) -> subprocess.CompletedProcess:
    (workspace / "pyrightconfig.json").write_text(
        json.dumps({"extraPaths": [str(workspace / "site"), str(ROOT)], "typeCheckingMode": "standard", "pythonVersion": "3.11"})
    )
    exe = shutil.which("basedpyright", path=str(Path(sys.executable).parent)) or "basedpyright"
    return subprocess.run(
        [exe, "--pythonpath", sys.executable, *files], cwd=workspace, capture_output=True, text=True, timeout=600
    )


def test_there_are_snippets_to_check():
    names = set(_snippets())
    assert {"readme_0.py", "example_consumer.py"} <= names and any(n.startswith("reuse_") for n in names)


def test_plain_mypy_accepts_the_documented_snippets_and_examples(workspace):
    proc = _mypy(workspace, sorted(_snippets()))
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_basedpyright_accepts_the_documented_snippets_and_examples(workspace):
    proc = _pyright(workspace, sorted(_snippets()))
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_both_checkers_refuse_a_missing_required_argument(workspace):
    """The check can fail: VllmServiceArgs without its required `namespace` is an error to both."""
    bad = workspace / "bad_args.py"
    bad.write_text(
        "from llm_serving import ModelConfig, VllmServiceArgs\n"
        "model = ModelConfig.model_validate({})\n"
        "args = VllmServiceArgs(model=model)\n"
    )
    mypy, pyright = _mypy(workspace, [bad.name]), _pyright(workspace, [bad.name])
    assert mypy.returncode != 0 and '"namespace"' in mypy.stdout, mypy.stdout
    assert pyright.returncode != 0 and '"namespace"' in pyright.stdout, pyright.stdout
