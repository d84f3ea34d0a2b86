"""`python -m policies check` over what policies/manifests.py reads: stdin, nested and typed
Lists, and files or documents it cannot read (each a finding of its own, S27; the others still checked;
exit 2 only when no Kubernetes object was read at all)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import check_in_process

ROOT = Path(__file__).resolve().parents[2]
BAD = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: vllm}\nspec:\n  template:\n    spec:\n"
    "      containers:\n      - {name: vllm, image: 'vllm/vllm-openai:latest', command: [vllm, serve], args: [m]}\n"
)


def check(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    """The command in a fresh interpreter: stdin, an exit 2 and a whole corpus run as the command runs them (the other
    tests call it in this process, tests.conftest.check_in_process: the same output, without loading the pack again)."""
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
    proc = check_in_process(str(tmp_path / "nested.yaml"))
    assert proc.returncode == 1, proc.stderr
    assert "nested.yaml#0[0][0] Deployment/vllm" in proc.stdout and "image-tag-pinned" in proc.stdout


def test_a_workload_in_a_typed_list_is_checked(tmp_path):
    item = "\n".join(BAD.splitlines()[2:])  # no apiVersion/kind: the API server leaves them out
    (tmp_path / "typed.yaml").write_text("apiVersion: apps/v1\nkind: DeploymentList\nitems:\n-\n" + _indent(item, 2) + "\n")
    proc = check_in_process(str(tmp_path / "typed.yaml"))
    assert proc.returncode == 1, proc.stderr
    assert "typed.yaml#0[0] Deployment/vllm" in proc.stdout


def test_unreadable_files_are_findings_and_the_others_are_still_checked(tmp_path):
    (tmp_path / "good.yaml").write_text(BAD)
    # A file that names apiVersion and kind (a file that does not holds no object: test_manifests.py, review #16).
    (tmp_path / "odd-key.yaml").write_text("apiVersion: v1\nkind: ConfigMap\n? [a]\n: 1\n")
    (tmp_path / "deep.yaml").write_text("[" * 5000 + "]" * 5000)
    proc = check_in_process(str(tmp_path), "--format", "json")
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    unread = [v for v in report["violations"] if v["policy"] == "manifest-readable"]
    assert [(Path(v["file"]).name, v["line"], v["enforcement"], v["catalog"], v["message"]) for v in unread] == [
        (
            "deep.yaml",
            1,
            "mandatory",
            "S27",
            "the file was not checked: nested deeper than 100 levels (the limit for a manifest file)",
        ),
        (
            "odd-key.yaml",
            3,
            "mandatory",
            "S27",
            "the file was not checked: a mapping key is a list or a mapping; keys must be strings",
        ),
    ]
    # good.yaml was still checked: its own findings are there.
    assert any(v["policy"] == "image-tag-pinned" and v["file"].endswith("good.yaml") for v in report["violations"])


def test_one_bad_document_costs_only_itself(tmp_path):
    service = "apiVersion: v1\nkind: Service\nmetadata: {name: vllm}\nspec: {ports: [{port: 80}]}\n"
    (tmp_path / "multi.yaml").write_text(BAD + "---\n" + "apiVersion: v1\nkind: ConfigMap\ndata: {a: [1, 2\n" + "---\n" + service)
    proc = check_in_process(str(tmp_path / "multi.yaml"))
    assert proc.returncode == 1, proc.stderr
    assert "multi.yaml#0 Deployment/vllm" in proc.stdout  # the document before the bad one
    assert "read 1 file, 2 documents, 2 Kubernetes objects" in proc.stdout  # and the one after it
    assert (
        f"[mandatory] manifest-readable (S27) {tmp_path / 'multi.yaml'}#1 Document/multi.yaml (line 13): document 1 was not checked: is not valid YAML"
        in proc.stdout
    )


def test_a_helm_template_and_a_values_file_are_advisory_findings(tmp_path):
    (tmp_path / "good.yaml").write_text(BAD)
    (tmp_path / "values.yaml").write_text("replicas: 2\n")
    # Quoted, this template even parses as YAML: it is still not a manifest until rendered.
    (tmp_path / "deploy.yaml").write_text('apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: "{{ include \\"x\\" . }}"\n')
    # A Jinja chat template in a ConfigMap is data, not an unrendered manifest.
    (tmp_path / "chat.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: chat}\ndata:\n  t: \"{{ message['content'] }}{% if x %}{% endif %}\"\n"
    )
    proc = check_in_process(str(tmp_path), "--format", "json")
    report = json.loads(proc.stdout)
    rows = sorted((Path(v["file"]).name, v["policy"], v["enforcement"]) for v in report["violations"] if v["catalog"] == "S27")
    assert rows == [("deploy.yaml", "manifest-is-kubernetes", "advisory"), ("values.yaml", "manifest-is-kubernetes", "advisory")]
    assert proc.returncode == 1  # good.yaml's own mandatory findings; the two advisories alone would not fail


def test_only_unreadable_files_exit_2_and_are_still_reported_in_sarif(tmp_path):
    (tmp_path / "broken.yaml").write_text("a: [1\n")
    proc = check(str(tmp_path), "--format", "sarif")
    assert proc.returncode == 2
    assert "no Kubernetes object read" in proc.stderr
    (result,) = json.loads(proc.stdout)["runs"][0]["results"]
    assert result["ruleId"] == "manifest-readable" and result["level"] == "error"
    assert result["locations"][0]["physicalLocation"]["region"] == {"startLine": 2}
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("broken.yaml")


def test_help_says_how_an_unreadable_file_counts():
    proc = check_in_process("--help")
    assert "manifest-readable (S27, mandatory, exit 1)" in proc.stdout
    assert "no Kubernetes object read at all (the unreadable files are still reported)" in proc.stdout


def test_an_unreadable_pack_config_is_exit_2(tmp_path):
    (tmp_path / "cfg.json").write_text('{"a": NaN}')
    proc = check_in_process(str(tmp_path), "--config", str(tmp_path / "cfg.json"))
    assert proc.returncode == 2
    assert (
        proc.stderr
        == f"error: --config {tmp_path / 'cfg.json'}: cannot be read as JSON (a = nan: not a finite number (NaN, Infinity and overflowing numbers are not JSON))\n"
    )


def test_the_second_corpus_runs_to_the_end_with_its_two_invalid_files_as_findings():
    # Robustness only (issue 32): part of manifests-v2 is held out, so nothing here reads its other findings.
    from tests.conftest import shared_path

    folder = shared_path("corpus", "manifests-v2")
    files = [p for p in folder.rglob("*") if p.suffix in (".yaml", ".yml", ".json") and p.is_file()]
    proc = check(str(folder), "--format", "json")
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    unread = [v for v in report["violations"] if v["policy"] == "manifest-readable"]
    assert len(unread) == 2 and all(v["line"] and v["enforcement"] == "mandatory" for v in unread)
    assert report["files"] == len(files) and report["objects"] > 30
    # Both are read best-effort (policies/reading/salvage.py: their `-   ` list items), S27 still mandatory; every
    # finding on the two salvaged objects is advice.
    assert sorted(Path(s["file"]).name for s in report["salvaged"]) == [
        "ai-ml__gke-model-armor__configuring-the-gateway__llm-httproute.yaml",
        "ai-ml__gke-model-armor__preparing-the-model__vllm-gemma-deployment.yaml",
    ]
    on_salvaged = [v for v in report["violations"] if "gke-model-armor" in v["file"] and v["policy"] != "manifest-readable"]
    assert on_salvaged and all(v["enforcement"] == "advisory" for v in on_salvaged)


def test_only_unreadable_files_in_json_is_one_object_with_the_findings(tmp_path):
    (tmp_path / "broken.yaml").write_text("a: [1\n")
    proc = check_in_process(str(tmp_path), "--format", "json")
    assert proc.returncode == 2
    report = json.loads(proc.stdout)  # one object: the error's fields and the findings
    assert report["exit"] == 2 and report["command"] == "policies check" and "no Kubernetes object read" in report["error"]
    assert [(v["policy"], v["line"]) for v in report["violations"]] == [("manifest-readable", 2)]
