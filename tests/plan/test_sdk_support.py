"""The Pulumi SDK range: requirements.txt's floor is the one CI tests, and a release the engine
cannot drive is refused with a message naming the release and the missing hook, never a traceback."""

from __future__ import annotations

import re
from importlib.metadata import version

import pytest

from stacks import sdk_support
from stacks.offline import StackFile, run_program
from tests.conftest import ROOT


def requirement(name: str, text: str) -> str:
    return next(line.split("#")[0].strip() for line in text.splitlines() if re.match(rf"{re.escape(name)}[<>=]", line))


@pytest.fixture(autouse=True)
def fresh_check():
    sdk_support._checked.cache_clear()
    yield
    sdk_support._checked.cache_clear()


def test_the_range_floor_is_the_release_ci_tests():
    """requirements-floor.txt pins each SDK's lower bound in requirements.txt, and the engine's floor is pulumi's."""
    runtime = (ROOT / "requirements.txt").read_text()
    floor = (ROOT / "requirements-floor.txt").read_text()
    for name in ("pulumi", "pulumi-kubernetes", "pulumi-aws", "pulumi-policy"):
        low = requirement(name, runtime).split(">=")[1].split(",")[0]
        pinned = requirement(name, floor).split("==")[1]
        assert sdk_support.version_tuple(pinned + ".0.0")[:2] == sdk_support.version_tuple(low + ".0.0")[:2], name
        assert pinned.startswith(low + "."), (name, pinned, low)
    assert requirement("pulumi", floor) == f"pulumi=={sdk_support.TESTED_LOWEST}"
    assert requirement("pulumi", runtime) == "pulumi>=3.233,<4"


def test_the_installed_sdk_is_inside_the_range_and_has_every_hook():
    installed = sdk_support.version_tuple(version("pulumi"))
    assert sdk_support.version_tuple(sdk_support.TESTED_LOWEST) <= installed < (4, 0, 0)
    assert sdk_support.missing_hooks() == []
    sdk_support.check_sdk()


def test_a_release_without_a_hook_is_refused_before_the_run(tmp_path, monkeypatch):
    """A future SDK that moved settings.ROOT: the run stops at once, naming the release, the hook and the range."""
    from pulumi.runtime import settings

    monkeypatch.delattr(settings, "ROOT")
    monkeypatch.setattr(sdk_support, "installed_version", lambda: "3.300.0")
    ran = []
    with pytest.raises(sdk_support.SdkUnsupported) as err:
        run_program(StackFile("s", tmp_path / "Pulumi.s.yaml", {}), lambda: ran.append(1))
    assert ran == []
    assert str(err.value) == (
        "the installed Pulumi SDK (pulumi 3.300.0) cannot run the offline plan: it lacks "
        "pulumi.runtime.settings.ROOT as a context variable. The engine is tested on pulumi "
        f"{sdk_support.TESTED_LOWEST} to {sdk_support.TESTED_NEWEST}: "
        f"pip install 'pulumi>={sdk_support.TESTED_LOWEST},<={sdk_support.TESTED_NEWEST}'"
    )


def test_moved_wire_markers_are_a_missing_hook(monkeypatch):
    from pulumi.runtime import rpc

    monkeypatch.setattr(rpc, "_special_secret_sig", "another-marker")
    assert sdk_support.missing_hooks() == ["pulumi.runtime.rpc wire markers (_special_sig_key, _special_secret_sig, UNKNOWN)"]


def test_a_release_below_the_floor_is_refused(monkeypatch):
    monkeypatch.setattr(sdk_support, "installed_version", lambda: "3.232.0")
    with pytest.raises(sdk_support.SdkUnsupported, match=r"pulumi 3\.232\.0.*event-loop handling of pulumi>=3\.233\.0"):
        sdk_support.check_sdk()


def test_the_cli_says_so_and_exits_2_writing_nothing(tmp_path, monkeypatch, capsys):
    from pulumi.runtime import config

    from stacks.__main__ import main

    monkeypatch.delattr(config, "CONFIG")
    assert main(["plan", "dev", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: the installed Pulumi SDK (pulumi ") and "pulumi.runtime.config.CONFIG" in err
    assert "Traceback" not in err
    assert not (tmp_path / "out").exists()
