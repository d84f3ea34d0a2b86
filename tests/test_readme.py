"""README.md tells the truth: every command it shows runs here (or it says what it needs), its
figures come from the code, and its reference section is what the models say."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT, STACKS

README = (ROOT / "README.md").read_text(encoding="utf-8")
SETUP = [
    "python -m pip install -r requirements.txt && python -m stacks plan dev",
    "python -m pip install -r requirements-dev.txt && python -m pytest -q",
]
# Commands that need what this machine lacks; the README must say so before their block.
NEEDS = re.compile(r"needs? (the )?pulumi cli|not on this machine", re.I)
# Slow commands the test runs in a lighter form (the README says they take minutes).
LIGHTER = {"python benchmarks/run.py": "python benchmarks/run.py --quick"}


def bash_blocks() -> list[tuple[int, list[str]]]:
    """(offset, command lines without comments) of every ```bash block."""
    blocks = []
    for m in re.finditer(r"```bash\n(.*?)```", README, re.S):
        lines = [re.sub(r"\s+#.*$", "", line).strip() for line in m.group(1).splitlines()]
        blocks.append((m.start(), [line for line in lines if line]))
    return blocks


def needs_missing_tools(offset: int) -> bool:
    """True when the paragraph before the block says it needs the Pulumi CLI (or a cluster)."""
    before = README[max(0, README.rfind("\n\n", 0, offset - 1)) : offset]
    return bool(NEEDS.search(before))


def test_the_two_set_up_commands_come_first():
    first = bash_blocks()[0]
    assert README.index("```bash") < README.index("\n## "), "the set-up commands must open the README"
    assert first[1] == SETUP


def test_ci_runs_the_set_up_commands_in_a_new_venv():
    """.ci/run makes a fresh virtualenv and runs the README's first block as written, then the docs build."""
    ci = (ROOT / ".ci" / "run").read_text()
    assert 'python3 -m venv "$scratch/venv"' in ci and '. "$scratch/venv/bin/activate"' in ci
    assert ci.index("activate") < ci.index('re.search(r"```bash\\n(.*?)```", open("README.md"')
    assert "pip install" not in ci, "CI installs only what the README's lines install"
    assert "python -m mkdocs build --strict" in ci
    assert "-r requirements.txt" in (ROOT / "requirements-dev.txt").read_text()


def test_commands_that_cannot_run_here_say_why():
    for offset, lines in bash_blocks():
        if any(line.startswith("pulumi ") or "pulumi up" in line for line in lines):
            assert needs_missing_tools(offset), f"README block {lines[0]!r}... needs the Pulumi CLI: say so just before it"


def runnable() -> list[str]:
    out = []
    for offset, lines in bash_blocks()[1:]:
        if needs_missing_tools(offset):
            continue
        out.extend(LIGHTER.get(line, line) for line in lines)
    return out


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    """A scratch folder with the files README commands name (a model's config.json)."""
    folder = tmp_path_factory.mktemp("readme")
    configs = json.loads((ROOT / "tests" / "capacity" / "data" / "model_configs.json").read_text())
    config = next(iter(configs.values()))
    (folder / "config.json").write_text(json.dumps(config.get("config", config)))
    (folder / "docs").mkdir()  # as in the repository: `policies docs --out docs/policies.md` writes there
    return folder


def test_every_other_command_runs(workdir):
    """In README order, in one folder (later commands read what earlier ones wrote)."""
    commands = runnable()
    assert "python -m stacks plan dev" in commands and "python benchmarks/run.py --quick" in commands
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for command in commands:
        command = command.replace("python benchmarks/", f"python {ROOT}/benchmarks/")
        proc = subprocess.run(["bash", "-c", command.replace("python ", f"{sys.executable} ", 1)], cwd=workdir, env=env,
                              capture_output=True, text=True, timeout=900)
        # 1 is a finding (a violation, a model that does not fit), not a broken command.
        assert proc.returncode in (0, 1), f"README command failed: {command}\n{proc.stderr[-3000:]}"
        assert "Traceback" not in proc.stderr, command


def test_quickstart_excerpt_is_what_the_plan_prints(tmp_path):
    """The quickstart edits dev's maxModelLen to 32768; the excerpt it shows is the plan's own text."""
    from stacks.plan import run_plan
    from stacks.report import RENDERERS

    doc = yaml.safe_load((STACKS / "Pulumi.dev.yaml").read_text())
    doc["config"]["llm-serving:models"][0]["engine"]["maxModelLen"] = 32768
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text(yaml.safe_dump(doc))
    text = RENDERERS["text"](run_plan(str(path)).report)
    excerpt = re.search(r"it reads, among other lines:\n\n```\n(.*?)```", README, re.S)
    assert excerpt, "the quickstart excerpt block moved"
    for line in excerpt.group(1).splitlines():
        assert line in text, f"README quickstart line not in the plan's output: {line!r}"


def test_timeout_chain_figures_are_the_dev_plans():
    from components.capacity.plan import plan_stack
    from components.config import load_stack_config
    from tests.conftest import stack_config

    c = plan_stack(load_stack_config(stack_config("dev")))["chat-8b"].timeouts
    expected = [
        f"ALB idle {c.alb_idle_timeout_seconds} s -> Istio route {c.route_timeout_seconds} s (per try {c.retry.per_try_timeout_seconds} s)"
        f" -> vLLM (longest request {c.longest_request_seconds} s)",
        f"keep-alive:  ALB {c.alb_idle_timeout_seconds} s  <  gateway {c.gateway_idle_timeout_seconds} s  <=  upstream "
        f"{c.upstream_idle_timeout_seconds} s  <  vLLM {c.vllm_keep_alive_seconds} s",
        f"drain: preStop {c.pre_stop_seconds} s + vLLM --shutdown-timeout {c.shutdown_timeout_seconds} s + margin = "
        f"terminationGracePeriodSeconds {c.termination_grace_seconds} s",
    ]
    for line in expected:
        assert line in README, f"README's timeout chain differs from the dev plan: {line!r}"


def test_reference_is_generated_from_the_models():
    from stacks import reference

    assert reference.current() == reference.render(), (
        "README.md's reference section is stale: run `python -m stacks.reference --write` and commit README.md"
    )


def test_cold_start_figures_are_the_dev_plans():
    from stacks.plan import run_plan
    from stacks.report import RENDERERS

    text = RENDERERS["text"](run_plan("dev").report)
    quoted = re.findall(r'=> "([^"]+)"', README)
    assert quoted, "the cold-start diagram moved"
    for phrase in quoted:
        assert phrase in text, f"README's cold-start figure is not in the dev plan's output: {phrase!r}"
