"""README.md and docs/ tell the truth: every command they show runs here (or they say what it needs),
their figures come from the code, the reference page is what the models say, and the site builds."""

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
DOCS = ROOT / "docs"
SETUP = [
    "python -m pip install -r requirements.txt && python -m stacks plan dev",
    "python -m pip install -r requirements-dev.txt && python -m pytest -q -n auto",
]
# Commands that need what this machine lacks; the text must say so before their block (or the
# section's heading must say it runs under the Pulumi CLI).
NEEDS = re.compile(r"needs? (the )?pulumi cli|not on this machine|needs aws credentials, which this machine", re.I)
# Slow commands the test runs in a lighter form (the text says they take minutes).
LIGHTER = {"python benchmarks/run.py": "python benchmarks/run.py --quick"}
# "# 0: fits", "# 1: ..." after a command: the exit code it promises.
PROMISED = re.compile(r"#\s*([0-2]):")


def pages() -> dict[str, str]:
    """README.md and every docs/*.md page, by path relative to the repository."""
    out = {"README.md": README}
    out.update({f"docs/{p.name}": p.read_text(encoding="utf-8") for p in sorted(DOCS.glob("*.md"))})
    return out


def bash_blocks(text: str = README) -> list[tuple[int, list[str]]]:
    """(offset, command lines without comments) of every ```bash block of ``text``."""
    blocks = []
    for m in re.finditer(r"```bash\n(.*?)```", text, re.S):
        lines = [re.sub(r"\s+#.*$", "", line).strip() for line in m.group(1).splitlines()]
        blocks.append((m.start(), [line for line in lines if line]))
    return blocks


def promised_codes(text: str) -> dict[str, int]:
    """Command -> the exit code its comment promises ("# 1: it does not fit")."""
    out = {}
    for m in re.finditer(r"```bash\n(.*?)```", text, re.S):
        for line in m.group(1).splitlines():
            code = PROMISED.search(line)
            if code:
                out[re.sub(r"\s+#.*$", "", line).strip()] = int(code.group(1))
    return out


def needs_missing_tools(offset: int, text: str = README) -> bool:
    """True when the paragraph before the block, or its section's heading, says it needs the Pulumi CLI (or a cluster)."""
    before = text[max(0, text.rfind("\n\n", 0, offset - 1)) : offset]
    heading = text[:offset].rsplit("\n#", 1)[-1].split("\n", 1)[0]
    return bool(NEEDS.search(before)) or "pulumi cli" in heading.lower()


def test_the_two_set_up_commands_come_first():
    first = bash_blocks()[0]
    assert README.index("```bash") < README.index("\n## "), "the set-up commands must open the README"
    assert first[1] == SETUP


def test_readme_stays_short():
    assert len(README.splitlines()) <= 300, "README.md is the way in: move detail to a docs/ page and link it"


def test_ci_runs_the_set_up_commands_in_a_new_venv():
    """.ci/run makes a fresh virtualenv and runs the README's first block as written, then the docs build."""
    ci = (ROOT / ".ci" / "run").read_text()
    assert 'python3 -m venv "$scratch/venv"' in ci and '. "$scratch/venv/bin/activate"' in ci
    assert ci.index("activate") < ci.index('re.search(r"```bash\\n(.*?)```", open("README.md"')
    installs = [
        line.removesuffix(" \\") for line in ci.splitlines() if "pip install" in line and not line.lstrip().startswith("#")
    ]
    # Besides the README's lines, CI installs only the SDK floor (requirements-floor.txt) in a venv of its own.
    assert installs == ['"$scratch/floor/bin/python" -m pip install --quiet -r requirements-dev.txt -c requirements-floor.txt'], (
        "CI installs only what the README's lines install, plus the SDK floor venv"
    )
    assert "tests/plan tests/packaging" in ci, "CI runs the plan, packaging and SDK-hook tests at the SDK floor"
    # The docs build and the self-import lint are tests of the README's run (test_the_site_builds_strictly below,
    # tests/packaging/test_relative_imports.py), which CI runs whole; CI does not repeat either command.
    commands = "\n".join(line for line in ci.splitlines() if not line.lstrip().startswith("#"))
    assert "python -m mkdocs build" not in commands and "python -m flake8" not in commands
    assert 'bash -euo pipefail -c "$line"' in ci and SETUP[-1].endswith("python -m pytest -q -n auto")
    assert "tests/packaging/test_relative_imports.py" in re.search(r"^SDK_FREE=\((.*)\)$", ci, re.M).group(1)
    assert "python -m ruff check ." in ci, "CI lints with the pyproject.toml rules"
    assert "python -m ruff format --check ." in ci, "CI keeps the tree as `ruff format` writes it"
    # mypy runs in the background beside the SDK floor's tests; CI fails on its verdict all the same.
    mypy = re.search(
        r'^MYPY_CACHE_DIR="\$scratch/mypy-cache" python -m mypy >"\$scratch/mypy.log" 2>&1 &\nmypy_run=\$!$', ci, re.M
    )
    assert mypy and 'if ! wait "$mypy_run"; then' in ci, "CI type-checks what pyproject.toml [tool.mypy] names"
    assert "mypy" in (ROOT / "requirements-dev.txt").read_text(), "the README's second line installs the type checker"
    assert "-r requirements.txt" in (ROOT / "requirements-dev.txt").read_text()


def test_the_sdk_floor_leaves_out_only_modules_that_never_import_the_sdk():
    """.ci/run's SDK-floor run skips SDK_FREE: each module, imported and its tests' commands read, loads no Pulumi
    package and starts no plan (the type checkers and flake8 read source; they ran in the README's run already)."""
    ci = (ROOT / ".ci" / "run").read_text()
    listed = re.search(r"^SDK_FREE=\((.*)\)$", ci, re.M)
    assert listed and '"${SDK_FREE[@]/#/--ignore=}"' in ci
    modules = listed.group(1).split()
    assert modules and all((ROOT / m).is_file() and m.startswith(("tests/plan/", "tests/packaging/")) for m in modules)
    names = [m.removesuffix(".py").replace("/", ".") for m in modules]
    script = f"import importlib, sys\nfor n in {names!r}:\n    importlib.import_module(n)\n"
    script += "print(sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0].startswith('pulumi')}))"
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]", proc.stdout
    for m in modules:
        source = (ROOT / m).read_text(encoding="utf-8")
        assert not re.search(
            r"run_plan|record\(|run_program|plan_program|[\"']-m[\"'],\s*[\"']stacks[\"']|sdk_support", source
        ), m


def test_commands_that_cannot_run_here_say_why():
    for name, text in pages().items():
        for offset, lines in bash_blocks(text):
            if any(line.startswith(("pulumi ", "helm ")) or "pulumi up" in line for line in lines):
                assert needs_missing_tools(offset, text), (
                    f"{name} block {lines[0]!r}... needs the Pulumi CLI: say so just before it"
                )


def runnable() -> list[str]:
    out = []
    for name, text in pages().items():
        blocks = bash_blocks(text)[1:] if name == "README.md" else bash_blocks(text)
        for offset, lines in blocks:
            if needs_missing_tools(offset, text):
                continue
            out.extend(LIGHTER.get(line, line) for line in lines)
    return out


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    """A scratch folder with the files the commands name (the example configs, a docs/ folder)."""
    folder = tmp_path_factory.mktemp("readme")
    (folder / "examples").symlink_to(ROOT / "examples")
    (folder / "docs").mkdir()  # as in the repository: `policies docs --out docs/policies.md` writes there
    return folder


def test_every_other_command_runs(workdir):
    """README then docs/ pages, in order, in one folder (later commands read what earlier ones wrote);
    a command whose comment promises an exit code must exit with it."""
    commands = runnable()
    assert "python -m stacks plan dev" in commands and "python benchmarks/run.py --quick" in commands
    promised = {k: v for text in pages().values() for k, v in promised_codes(text).items()}
    assert len(promised) >= 4, "the size examples say what their exit code means"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for command in commands:
        command = command.replace("python benchmarks/", f"python {ROOT}/benchmarks/")
        proc = subprocess.run(
            ["bash", "-c", command.replace("python ", f"{sys.executable} ", 1)],
            cwd=workdir,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        # 1 is a finding (a violation, a model that does not fit), not a broken command.
        assert proc.returncode in (0, 1), f"command failed: {command}\n{proc.stderr[-3000:]}"
        assert "Traceback" not in proc.stderr, command
        original = command.replace(f"python {ROOT}/benchmarks/", "python benchmarks/")
        if original in promised:
            assert proc.returncode == promised[original], (
                f"{original}: exit {proc.returncode}, the page says {promised[original]}"
            )


def test_the_site_builds_strictly(tmp_path):
    """mkdocs build --strict: every page and every link (anchors included) whole."""
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_every_docs_page_is_in_the_nav_and_linked_from_the_readme():
    nav = json.dumps(yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)["nav"])
    on_disk = sorted(p.name for p in DOCS.glob("*.md"))
    assert [p for p in on_disk if f'"{p}"' not in nav] == [], "add the page to mkdocs.yml's nav"
    linked = set(re.findall(r"\]\(docs/([^)#]+\.md)", README)) | {"index.md"}
    index = (DOCS / "index.md").read_text()
    linked |= set(re.findall(r"\]\(([^)#/]+\.md)", index))
    assert [p for p in on_disk if p not in linked] == [], "link the page from the README or docs/index.md"


def test_readme_links_point_at_files_that_exist():
    for target in re.findall(r"\]\(((?!https?:)[^)#]+)(?:#[^)]*)?\)", README):
        assert (ROOT / target).exists(), f"README links to {target}, which does not exist"


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
    concepts = (DOCS / "concepts.md").read_text()
    for line in expected:
        assert line in concepts, f"docs/concepts.md's timeout chain differs from the dev plan: {line!r}"


def test_reference_is_generated_from_the_models():
    from stacks import reference

    assert reference.current() == reference.render(), (
        "docs/configuration.md is stale: run `python -m stacks.reference --write` and commit it"
    )


def test_cold_start_figures_are_the_dev_plans():
    from stacks.plan import run_plan
    from stacks.report import RENDERERS

    text = RENDERERS["text"](run_plan("dev").report)
    quoted = re.findall(r'=> "([^"]+)"', (DOCS / "concepts.md").read_text())
    assert quoted, "the cold-start diagram moved"
    for phrase in quoted:
        assert phrase in text, f"docs/concepts.md's cold-start figure is not in the dev plan's output: {phrase!r}"


# docs/reuse.md's 'Planning your own program offline' snippet imports the installed names
# (llm_serving_plan): tests/packaging/test_install.py runs it as written with only the wheel installed.
