"""`python -m stacks plan` writes the stack's outputs (secrets redacted) to DIR/outputs.json beside its report.

DESIGN.md's plan contract; docs/reuse.md plans examples/consumer offline from that file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stacks.offline import REDACTED, load_stack_file, run_program
from stacks.plan import OUTPUTS_FILE, normalise, write_files
from tests.conftest import ROOT

PLATFORM = "organization/llm-serving/prod"
CONSUMER = ROOT / "examples" / "consumer"


@pytest.fixture(scope="module")
def prod_out(planned) -> Path:
    out, proc = planned("prod").out, planned("prod").proc  # python -m stacks plan prod --format json, exit 0
    assert f"{out}/{OUTPUTS_FILE} (secrets redacted)" in proc.stderr
    return out


def test_outputs_file_holds_what_the_program_exports(prod_out):
    written = json.loads((prod_out / OUTPUTS_FILE).read_text())
    assert written == normalise(dict(run_program(load_stack_file("prod")).outputs))
    assert {"clusterName", "namespace", "poolNames", "serviceUrls", "hfTokenSecret", "kubeconfig"} <= set(written)


def test_secret_outputs_are_redacted(prod_out):
    written = json.loads((prod_out / OUTPUTS_FILE).read_text())
    # The kubeconfig is a secret output (components/platform.py): only the placeholder is written.
    assert written["kubeconfig"] == REDACTED
    text = (prod_out / OUTPUTS_FILE).read_text()
    assert "apiVersion" not in text and "client.authentication.k8s.io" not in text


def test_a_consumer_plans_offline_from_the_written_outputs(prod_out):
    """docs/reuse.md: the platform's outputs.json stands in for `pulumi stack output --json`."""
    from stacks import plan_program

    outputs = json.loads((prod_out / OUTPUTS_FILE).read_text())
    result = plan_program(CONSUMER, CONSUMER / "Pulumi.dev.yaml", stack_references={PLATFORM: outputs})
    services = [r for r in result.resources if r.type.endswith(":InferenceService")]
    assert [s.inputs["metadata"]["namespace"] for s in services] == [outputs["namespace"]]
    assert result.mandatory == []


def test_an_outputs_file_no_plan_wrote_is_not_replaced(tmp_path):
    (tmp_path / OUTPUTS_FILE).write_text("{}\n")
    from components.errors import ConfigError

    with pytest.raises(ConfigError, match="already holds a file outputs.json that no plan wrote"):
        write_files(tmp_path, {OUTPUTS_FILE: "{}\n"})
    assert (tmp_path / OUTPUTS_FILE).read_text() == "{}\n"


def test_the_next_plan_replaces_the_outputs_file(tmp_path):
    write_files(tmp_path, {OUTPUTS_FILE: '{"a": 1}\n', "kubernetes/x.yaml": "a: 1\n"})
    write_files(tmp_path, {OUTPUTS_FILE: '{"a": 2}\n'})
    assert (tmp_path / OUTPUTS_FILE).read_text() == '{"a": 2}\n'
    write_files(tmp_path, {"kubernetes/x.yaml": "a: 1\n"})
    assert not (tmp_path / OUTPUTS_FILE).exists()
