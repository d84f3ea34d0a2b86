"""Shared fixtures: the project root, ../shared (read-only data beside the project), stack files."""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SHARED = ROOT.parent / "shared"
STACKS = ROOT / "stacks"


def shared_path(*parts: str) -> Path:
    """A path under ../shared, or skip the test with the reason when that folder is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent: these tests read the shared reference data kept beside the project")
    return path


def stack_config(name: str) -> dict:
    """The config: mapping of stacks/Pulumi.<name>.yaml (a deep copy, safe to mutate)."""
    return copy.deepcopy(yaml.safe_load((STACKS / f"Pulumi.{name}.yaml").read_text())["config"])


@pytest.fixture
def dev_config() -> dict:
    """The dev stack's config mapping."""
    return stack_config("dev")


@pytest.fixture
def prod_config() -> dict:
    """The prod stack's config mapping."""
    return stack_config("prod")
