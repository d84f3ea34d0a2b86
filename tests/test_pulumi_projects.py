"""Pulumi.yaml and examples/consumer/Pulumi.yaml tie `pulumi up` to the project's own environment.

The Python language host's pip toolchain (pulumi/pulumi sdk/python/toolchain/pip.go at commit
c944503e9d440bd57967123360e9b8bdde287988): ``resolveVirtualEnvironmentPath`` joins a relative
``virtualenv`` to the project folder; ``EnsureVenv`` creates it when absent or empty through
``InstallDependencies`` (``python -m venv``, then ``pip install -r requirements.txt`` from the
project folder, skipped when that file is missing); ``Command`` then runs that venv's python. With
no ``virtualenv`` option the host runs the first ``python3`` on PATH (``CommandPath``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT

PROJECTS = {"platform": ROOT, "consumer": ROOT / "examples" / "consumer"}


def project(folder: Path) -> dict:
    return yaml.safe_load((folder / "Pulumi.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(PROJECTS))
def test_the_cli_runs_the_program_in_the_projects_venv(name):
    runtime = project(PROJECTS[name])["runtime"]
    assert runtime == {"name": "python", "options": {"toolchain": "pip", "virtualenv": ".venv"}}


@pytest.mark.parametrize("name", sorted(PROJECTS))
def test_the_venv_the_cli_makes_gets_the_library(name):
    """The pip toolchain installs requirements.txt from the project folder: without it the new venv has no SDK."""
    folder = PROJECTS[name]
    lines = [
        line.strip()
        for line in (folder / "requirements.txt").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    if name == "platform":
        assert any(line.startswith("pulumi>=") for line in lines)
    else:
        # The consumer installs this checkout's library, whose metadata brings the SDKs.
        assert lines == ["../.."]
        assert (folder / lines[0] / "setup.py").is_file()


def test_deploy_docs_say_how_the_cli_finds_the_environment():
    text = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    section = text[text.index("## Which Python runs the program") :]
    for needle in ("toolchain: pip", "virtualenv: .venv", "requirements.txt", "pulumi install"):
        assert needle in section, needle

