""".github/workflows/pr-checks.yml: valid against GitHub's workflow schema (as check-jsonschema
vendors it from SchemaStore) and wired to what the repository really has."""

import importlib.resources
import io
import json
import re
from pathlib import Path

import jsonschema
import pytest

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "pr-checks.yml"


@pytest.fixture(scope="module")
def workflow() -> dict:
    # YAML 1.2 (ruamel, as GitHub reads it): `on` is a key, not the boolean PyYAML's 1.1 makes of it.
    from ruamel.yaml import YAML

    return YAML(typ="safe").load(io.StringIO(WORKFLOW.read_text(encoding="utf-8")))


def test_workflow_validates_against_the_github_workflow_schema(workflow):
    schema_file = importlib.resources.files("check_jsonschema.builtin_schemas.vendor") / "github-workflows.json"
    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    jsonschema.validators.validator_for(schema)(schema).validate(workflow)


def test_a_broken_workflow_is_refused():
    schema_file = importlib.resources.files("check_jsonschema.builtin_schemas.vendor") / "github-workflows.json"
    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validators.validator_for(schema)(schema).validate({"on": "pull_request", "jobs": {"x": {"steps": []}}})


def test_plan_matrix_covers_every_stack_file(workflow):
    stacks = sorted(p.name.removeprefix("Pulumi.").removesuffix(".yaml") for p in (ROOT / "stacks").glob("Pulumi.*.yaml"))
    assert sorted(workflow["jobs"]["plan"]["strategy"]["matrix"]["stack"]) == stacks
    assert sorted(workflow["jobs"]["preview"]["strategy"]["matrix"]["stack"]) == stacks


def steps(workflow, job):
    return workflow["jobs"][job]["steps"]


def test_plan_uploads_sarif_and_writes_the_markdown_summary(workflow):
    runs = " ".join(s.get("run", "") for s in steps(workflow, "plan"))
    assert "python -m stacks plan" in runs and "--format sarif" in runs
    assert '--format markdown >> "$GITHUB_STEP_SUMMARY"' in runs
    assert any(s.get("uses", "").startswith("github/codeql-action/upload-sarif@") for s in steps(workflow, "plan"))
    assert workflow["jobs"]["plan"]["permissions"]["security-events"] == "write"


def test_tests_job_runs_the_ci_script(workflow):
    assert any(s.get("run") == "bash .ci/run" for s in steps(workflow, "tests"))


def test_manifest_check_covers_deploy_yaml(workflow):
    runs = " ".join(s.get("run", "") for s in steps(workflow, "manifests"))
    assert "python -m policies check deploy" in runs and "find deploy -name '*.yaml'" in runs


def test_preview_runs_only_with_a_backend_and_credentials(workflow):
    job = workflow["jobs"]["preview"]
    assert re.fullmatch(r"\$\{\{ vars\.PULUMI_BACKEND_URL != '' && vars\.AWS_ROLE_TO_ASSUME != '' \}\}", job["if"])
    runs = " ".join(s.get("run", "") for s in job["steps"])
    assert "python -m policies build build/policy-pack" in runs
    assert 'pulumi preview --stack "${{ matrix.stack }}" --policy-pack build/policy-pack' in runs
