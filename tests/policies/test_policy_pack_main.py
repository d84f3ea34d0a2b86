"""policies/__main__.py is well-formed and wires the registry into one PolicyPack, without serving it.

Constructing a real PolicyPack starts a gRPC server and blocks, so these tests either load the
module under another __name__ or replace PolicyPack with a recorder first.
"""

import json
import os
import re
import runpy
import subprocess
import sys
from pathlib import Path

import pulumi_policy
import yaml

from policies import POLICIES

PACK_DIR = Path(__file__).resolve().parents[2] / "policies"
MAIN = PACK_DIR / "__main__.py"


def test_main_compiles():
    compile(MAIN.read_text(), str(MAIN), "exec")


def test_main_imports_without_building_the_pack(monkeypatch):
    def refuse(**kwargs):
        raise AssertionError("PolicyPack must only be built when run as __main__")

    monkeypatch.setattr(pulumi_policy, "PolicyPack", refuse)
    namespace = runpy.run_path(str(MAIN), run_name="policies_main_under_test")
    assert callable(namespace["main"])


# What `python -m pulumi.policy ADDRESS DIR` leaves in sys.argv once runpy.run_path(DIR) runs the pack.
RUNNER_ARGV = [str(PACK_DIR), "127.0.0.1:1", str(PACK_DIR)]


def test_main_builds_the_pack_from_the_registry(monkeypatch):
    built = {}
    monkeypatch.setattr(pulumi_policy, "PolicyPack", lambda **kwargs: built.update(kwargs))
    monkeypatch.setattr("sys.argv", RUNNER_ARGV)
    runpy.run_path(str(PACK_DIR), run_name="__main__")
    assert built["name"] == "llm-serving"
    assert built["enforcement_level"] == pulumi_policy.EnforcementLevel.ADVISORY
    assert [p.name for p in built["policies"]] == [p.name for p in POLICIES]


def test_pack_loads_the_way_the_pulumi_runner_loads_it():
    # `python -m pulumi.policy ADDRESS policies` runs runpy.run_path(<pack dir>) with the pack
    # directory as the working directory; a recorder stands in for the gRPC server.
    script = (
        "import json, runpy, sys, pulumi_policy, pulumi.policy\n"
        "pulumi_policy.PolicyPack = lambda **kw: print(json.dumps([p.name for p in kw['policies']]))\n"
        "sys.argv = [pulumi.policy.__file__.replace('__init__.py', '__main__.py'), '127.0.0.1:1', '.']\n"
        "runpy.run_path('.', run_name='__main__')  # as pulumi/policy/__main__.py does\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=PACK_DIR, capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout.strip().splitlines()[-1]) == [p.name for p in POLICIES]


def test_pulumi_policy_yaml():
    manifest = yaml.safe_load((PACK_DIR / "PulumiPolicy.yaml").read_text())
    assert manifest["runtime"] == {"name": "python", "options": {"virtualenv": "venv"}}
    assert re.fullmatch(r"\d+\.\d+\.\d+", manifest["version"])
    assert manifest["description"].strip()
    assert (PACK_DIR / "requirements.txt").read_text().count("pulumi-policy") == 1


def run_policies(*args, **kwargs):
    return subprocess.run(
        [sys.executable, "-m", "policies", *args],
        cwd=PACK_DIR.parent,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        **kwargs,
    )


def test_a_profiler_run_from_the_repository_root_checks_instead_of_serving():
    # `python -m cProfile -m policies ...` leaves sys.argv[0] == "policies", which resolves to the pack
    # folder from the repository root, as the Pulumi runner's DIR does; before the command word was
    # read, this started the gRPC server and blocked forever instead of writing the docs.
    proc = subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", os.devnull, "-m", "policies", "docs"],
        cwd=PACK_DIR.parent,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("# ")
    bare = subprocess.run(  # no command at all: the usage, as `python -m policies` alone prints it
        [sys.executable, "-m", "cProfile", "-o", os.devnull, "-m", "policies"],
        cwd=PACK_DIR.parent,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert (bare.returncode, bare.stderr.startswith("usage: python -m policies check")) == (2, True), bare.stderr


def test_no_command_prints_usage_and_exits_2():
    proc = run_policies(stdin=subprocess.DEVNULL)
    assert proc.returncode == 2
    assert proc.stderr.startswith("usage: python -m policies check PATH...")
    assert proc.stdout == ""


def test_help_prints_usage_and_exits_0():
    proc = run_policies("--help")
    assert (proc.returncode, proc.stdout.splitlines()[0]) == (
        0,
        "usage: python -m policies check PATH... | - [--config FILE] [--format text|json|markdown|sarif]",
    )


def test_unknown_command_exits_2():
    proc = run_policies("serve")
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: unknown command 'serve'")
