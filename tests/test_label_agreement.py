"""tools/label_agreement.py: two labellers of the same files scored against each other by the held-out matching rule."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import label_agreement  # noqa: E402
from score_labels import LabelError  # noqa: E402

FILE = "files/acme__serving/deploy__chat.yaml"


def _set(folder: Path, labels: list[dict], files: tuple[str, ...] = (FILE,)) -> Path:
    for rel in files:
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text("kind: Deployment\n")
    doc = {"set": 0, "files": [{"file": f, "repo": "acme/serving", "commit": "0" * 40} for f in files], "labels": labels}
    (folder / "labels.yaml").write_text(yaml.safe_dump(doc))
    return folder


def _label(obj: str, ids: list[str], severity: str = "advisory") -> dict:
    return {"file": FILE, "object": obj, "ids": ids, "severity": severity, "why": "-"}


def test_each_direction_reads_the_other_labeller_as_findings(tmp_path: Path) -> None:
    a = _set(
        tmp_path / "a",
        [
            _label("Deployment/chat", ["S16"], "blocking"),  # B names it too, under another row as well
            _label("Deployment/chat", ["G1"]),  # B's whole-file G1 label covers it
            _label("Deployment/other", ["G8"]),  # B put G8 on another object
            _label("*", ["none"]),  # names no row: no one can find it
        ],
    )
    b = _set(
        tmp_path / "b",
        [
            _label("Deployment/chat", ["S16", "G4"], "blocking"),
            _label("*", ["G1"]),
            _label("Deployment/chat", ["G8"]),
            _label("Deployment/chat", ["S1"], "blocking"),  # A has no S1: a wrong blocking label of B
        ],
    )
    result = label_agreement.agreement(a, b)
    assert result["a_found_by_b"]["found"] == 2 and result["a_found_by_b"]["labels"] == 4
    assert result["a_found_by_b"]["found_blocking"] == 1 and result["a_found_by_b"]["wrong_blocking"] == 1
    # From B's side: S16/G4 (A's S16), G8 on chat (A's G8 is on another object: missed), G1 on "*" is found by A's G1 on
    # Deployment/chat (A's finding names the object, B's label covers the whole file), S1 missed.
    assert result["b_found_by_a"]["found"] == 2 and result["b_found_by_a"]["wrong_blocking"] == 0
    assert result["none"] == {"a": 1, "b": 0}


def test_sets_over_different_files_are_refused(tmp_path: Path) -> None:
    a = _set(tmp_path / "a", [_label("Deployment/chat", ["G1"])])
    b = _set(tmp_path / "b", [_label("Deployment/chat", ["G1"])], files=(FILE, "files/acme__serving/svc.yaml"))
    with pytest.raises(LabelError, match="the two sets must list the same files"):
        label_agreement.agreement(a, b)
    assert label_agreement.main([str(a), str(b)]) == 2
