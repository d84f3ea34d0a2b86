"""tools/score_labels.py: the held-out scorer's matching rules, on a small set written here."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import score_labels  # noqa: E402

# An unpinned vLLM server with no probes: the pack finds G1 (image tag latest, advisory) on Deployment/chat, and a
# --gpu-memory-utilization above S1's band (mandatory), which no label below names.
MANIFEST = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: chat}
spec:
  replicas: 1
  selector: {matchLabels: {app: chat}}
  template:
    metadata: {labels: {app: chat}}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:latest
          args: ["--model", "Qwen/Qwen2.5-7B-Instruct", "--gpu-memory-utilization", "0.99"]
          resources: {limits: {nvidia.com/gpu: "1"}}
"""


def _set(tmp_path: Path, labels: list[dict], traps: list[dict] | None = None) -> Path:
    rel = "files/acme__serving/deploy__chat.yaml"
    (tmp_path / rel).parent.mkdir(parents=True)
    (tmp_path / rel).write_text(MANIFEST)
    for entry in labels + (traps or []):
        entry.setdefault("file", rel)
    doc = {"set": 0, "files": [{"file": rel, "repo": "acme/serving", "commit": "0" * 40}], "labels": labels, "traps": traps or []}
    (tmp_path / "labels.yaml").write_text(yaml.safe_dump(doc))
    return tmp_path


def _score(set_dir: Path, unit: str = "repository") -> dict:
    labels, traps, files = score_labels.load_labels(set_dir)
    targets = [str(set_dir / f) for f in files] if unit == "file" else [str(set_dir / "files" / "acme__serving")]
    return score_labels.score(labels, traps, score_labels.run_pack(set_dir, targets, sys.executable))


def test_a_label_is_found_by_id_and_object_and_missed_otherwise(tmp_path: Path) -> None:
    set_dir = _set(
        tmp_path,
        [
            {"object": "Deployment/chat", "ids": ["G1"], "severity": "blocking", "why": "latest tag"},
            {"object": "Deployment/other", "ids": ["G1"], "severity": "advisory", "why": "another object"},
            {"object": "*", "ids": ["none"], "severity": "advisory", "why": "no catalogue row"},
        ],
    )
    result = _score(set_dir)
    assert (result["labels"], result["found"], result["found_blocking"]) == (3, 1, 1)
    assert result["recall"] == 33.3 and result["blocking_recall"] == 100.0
    assert {m["name"] for m in result["missed"]} == {"other", "*"}
    # Every mandatory finding that matches no label counts as wrong: S1's, here; G1 matched its label.
    assert "S1" in {w["catalog"] for w in result["wrong"]} and result["wrong_blocking"] == len(result["wrong"])
    assert all(w["catalog"] != "G1" for w in result["wrong"])
    assert _score(set_dir, unit="file")["found"] == 1
    # The `none` label is listed with the findings on its file for a reader, and never counted as found.
    (candidate,) = result["none_candidates"]
    assert candidate["name"] == "*" and any(line.startswith("G1 advisory image-tag-pinned") for line in candidate["findings"])


def test_a_trap_on_the_object_is_reported(tmp_path: Path) -> None:
    set_dir = _set(tmp_path, [], traps=[{"object": "Deployment/chat", "ids": ["G1"], "why": "a naive checker"}])
    hits = _score(set_dir)["trap_hits"]
    assert [h["finding"]["catalog"] for h in hits] == ["G1"]


@pytest.mark.parametrize(
    ("entry", "field"),
    [
        ({"object": "", "ids": ["G1"], "severity": "blocking"}, "labels[0].object"),
        ({"object": "Deployment/chat", "ids": [], "severity": "blocking"}, "labels[0].ids"),
        ({"object": "Deployment/chat", "ids": ["G1"], "severity": "urgent"}, "labels[0].severity"),
    ],
)
def test_a_malformed_label_names_the_field(tmp_path: Path, entry: dict, field: str, capsys: pytest.CaptureFixture[str]) -> None:
    set_dir = _set(tmp_path, [entry])
    assert score_labels.main([str(set_dir)]) == 2
    assert field in capsys.readouterr().err


def test_the_tree_unit_builds_a_flattened_overlay_as_the_checkout_holds_it(tmp_path: Path) -> None:
    """A set keeps each file under its flattened name (k8s/overlays/prod/kustomization.yaml ->
    k8s__overlays__prod__kustomization.yaml), so the overlay's `../../base` and its kustomization's name mean nothing
    there; `--unit tree` rebuilds the tree, and the overlay's retag to :latest is found on its kustomization."""
    repo = tmp_path / "files" / "acme__serving"
    repo.mkdir(parents=True)
    (repo / "k8s__base__deployment.yaml").write_text(MANIFEST.replace(":latest", ":v0.10.1").replace("0.99", "0.9"))
    (repo / "k8s__base__kustomization.yaml").write_text("resources: [deployment.yaml]\n")
    overlay = "files/acme__serving/k8s__overlays__prod__kustomization.yaml"
    (tmp_path / overlay).write_text("resources: [../../base]\nimages:\n- name: vllm/vllm-openai\n  newTag: latest\n")
    files = [{"file": f"files/acme__serving/{p.name}", "repo": "acme/serving", "commit": "0" * 40} for p in repo.iterdir()]
    label = {"file": overlay, "object": "Deployment/chat", "ids": ["G1"], "severity": "advisory", "why": "retagged latest"}
    (tmp_path / "labels.yaml").write_text(yaml.safe_dump({"set": 0, "files": files, "labels": [label], "traps": []}))
    labels, traps, _ = score_labels.load_labels(tmp_path)
    tree = score_labels.run_tree(tmp_path, str(repo), sys.executable)
    assert score_labels.score(labels, traps, tree)["found"] == 1
    flat = score_labels.run_pack(tmp_path, [str(repo)], sys.executable)
    assert score_labels.score(labels, traps, flat)["found"] == 0
    # Names that cannot rebuild into a tree (a file that is also a folder) are run flat.
    (repo / "k8s").write_text("kind: x\n")
    assert score_labels._tree(repo, tmp_path / "t") is None
