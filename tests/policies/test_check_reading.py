"""`python -m policies check` over what policies/manifests.py reads: stdin, nested and typed
Lists, and files it cannot read (exit 2, named, no traceback; never exit 1)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BAD = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: vllm}\nspec:\n  template:\n    spec:\n"
    "      containers:\n      - {name: vllm, image: 'vllm/vllm-openai:latest', command: [vllm, serve], args: [m]}\n"
)


def check(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "policies", "check", *args], cwd=ROOT, input=stdin, capture_output=True, text=True, timeout=120
    )


def _indent(text: str, by: int) -> str:
    return "\n".join(" " * by + line for line in text.splitlines())


def test_stdin_is_read():
    proc = check("-", stdin=BAD)
    assert proc.returncode == 1
    assert "<stdin>#0 Deployment/vllm" in proc.stdout


def test_a_workload_in_a_nested_list_is_checked(tmp_path):
    nested = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items:\n  -\n" + _indent(BAD, 4) + "\n"
    (tmp_path / "nested.yaml").write_text(nested)
    proc = check(str(tmp_path / "nested.yaml"))
    assert proc.returncode == 1, proc.stderr
    assert "nested.yaml#0[0][0] Deployment/vllm" in proc.stdout and "image-tag-pinned" in proc.stdout


def test_a_workload_in_a_typed_list_is_checked(tmp_path):
    item = "\n".join(BAD.splitlines()[2:])  # no apiVersion/kind: the API server leaves them out
    (tmp_path / "typed.yaml").write_text("apiVersion: apps/v1\nkind: DeploymentList\nitems:\n-\n" + _indent(item, 2) + "\n")
    proc = check(str(tmp_path / "typed.yaml"))
    assert proc.returncode == 1, proc.stderr
    assert "typed.yaml#0[0] Deployment/vllm" in proc.stdout


def test_unreadable_files_exit_2_and_are_all_named(tmp_path):
    (tmp_path / "good.yaml").write_text(BAD)
    (tmp_path / "odd-key.yaml").write_text("? [a]\n: 1\n")
    (tmp_path / "deep.yaml").write_text("[" * 5000 + "]" * 5000)
    proc = check(str(tmp_path))
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.splitlines() == [
        f"error: {tmp_path / 'deep.yaml'}: line 1: nested deeper than 100 levels (the limit for a manifest file)",
        f"error: {tmp_path / 'odd-key.yaml'}: line 1: a mapping key is a list or a mapping; keys must be strings",
    ]


def test_an_unreadable_pack_config_is_exit_2(tmp_path):
    (tmp_path / "cfg.json").write_text('{"a": NaN}')
    proc = check(str(tmp_path), "--config", str(tmp_path / "cfg.json"))
    assert proc.returncode == 2
    assert (
        proc.stderr
        == f"error: --config {tmp_path / 'cfg.json'}: cannot be read as JSON (a = nan: not a finite number (NaN, Infinity and overflowing numbers are not JSON))\n"
    )
