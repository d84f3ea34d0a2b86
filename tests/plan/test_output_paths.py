"""Stack names and output folders: a valid Pulumi stack name, the default folder inside the
working directory, and concurrent plans into one --out taking turns on a lock."""

from __future__ import annotations

import threading
import time

import pytest

from components.errors import ConfigError
from stacks.offline import check_stack_name, load_stack_file
from stacks.plan import PLAN_LOCK, PLAN_MARKER, _plan_lock, default_out_dir, write_files


@pytest.mark.parametrize("name", ["dev", "prod-eu.1", "a_b", "x" * 100])
def test_valid_stack_names(name):
    assert check_stack_name(name, name) == name


@pytest.mark.parametrize("name", ["..", ".", "...", "", "a/b", "a b", "x" * 101, "dev\n", "é"])
def test_invalid_stack_names_are_refused(name):
    with pytest.raises(ConfigError, match="the stack name must be 1-100 letters"):
        check_stack_name(name, name)


def test_a_stack_file_named_pulumi_dot_dot_is_refused(tmp_path):
    path = tmp_path / "Pulumi....yaml"
    path.write_text("config: {}\n")
    with pytest.raises(ConfigError) as info:
        load_stack_file(str(path))
    assert str(info.value.problems[0]).startswith("STACK = ")
    assert "the stack name must be" in str(info.value)


def test_the_default_output_folder_is_build_stack_inside_the_working_directory(tmp_path):
    assert default_out_dir("dev", tmp_path) == tmp_path.resolve() / "build" / "dev"
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "cwd").mkdir()
    (tmp_path / "cwd" / "build").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(ConfigError, match="would not be a folder of its own inside the working directory"):
        default_out_dir("dev", tmp_path / "cwd")
    for bad in ("..", "."):
        with pytest.raises(ConfigError):
            default_out_dir(bad, tmp_path)


def test_a_second_plan_waits_for_the_first(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    released = threading.Event()

    def hold():
        with _plan_lock(out, 5):
            time.sleep(0.3)
        released.set()

    holder = threading.Thread(target=hold)
    holder.start()
    time.sleep(0.05)
    write_files(out, {"kubernetes/a.yaml": "a: 1\n"}, lock_wait_seconds=10)
    holder.join()
    assert released.is_set()
    assert (out / "kubernetes" / "a.yaml").read_text() == "a: 1\n" and (out / PLAN_MARKER).exists()


def test_a_second_plan_refuses_clearly_when_the_first_holds_on(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    with _plan_lock(out, 1):
        with pytest.raises(ConfigError, match=f"another plan has been writing this folder for 0.2 s \\(it holds {PLAN_LOCK}\\)"):
            write_files(out, {"kubernetes/a.yaml": "a: 1\n"}, lock_wait_seconds=0.2)
    assert not (out / "kubernetes").exists()
