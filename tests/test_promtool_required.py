"""A missing promtool skips the rule tests on a laptop but fails them in CI."""

from __future__ import annotations

import pytest

from tests import promtool


@pytest.fixture
def no_promtool(monkeypatch):
    monkeypatch.setattr(promtool.shutil, "which", lambda name: None)
    monkeypatch.setattr(promtool.Path, "is_file", lambda self: False)
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv(promtool.REQUIRE_ENV, raising=False)


@pytest.mark.parametrize("env", [("CI", "true"), (promtool.REQUIRE_ENV, "1")])
def test_missing_promtool_fails_in_ci(no_promtool, monkeypatch, env):
    monkeypatch.setenv(*env)
    with pytest.raises(pytest.fail.Exception, match="promtool is not installed"):
        promtool.promtool()


def test_missing_promtool_skips_elsewhere(no_promtool):
    with pytest.raises(pytest.skip.Exception, match="promtool is not installed"):
        promtool.promtool()


def test_ci_script_requires_promtool():
    from tests.conftest import ROOT

    assert f"export {promtool.REQUIRE_ENV}=1" in (ROOT / ".ci" / "run").read_text()
