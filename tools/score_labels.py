"""Score `policies check` against a hand-labelled set of third-party manifests.

A labelled set is a folder holding `labels.yaml` and the manifests it names under `files/`, one
folder per repository (`files/OWNER__NAME/<path with / replaced by __>`). Labels are made by someone
who has not read the pack's code, before any checker runs on the files (docs/accuracy.md says how the
held-out sets are made). This script only measures; it never changes a label.

    python tools/score_labels.py SET_DIR [--unit repository|file] [--json]

labels.yaml:

    set: 12
    files:  [{file: files/OWNER__NAME/a.yaml, repo: OWNER/NAME, commit: <40 hex>}, ...]
    labels: [{file: ..., object: Kind/name | "*", ids: [S16, ...] | [none],
              severity: blocking | advisory, why: ...}, ...]
    traps:  [{file: ..., object: Kind/name, ids: [S15], why: ...}, ...]

Matching rules (fixed before any set was scored; kind is ignored because a finding may sit on the
object a controller derives from the labelled one, under the same name):
- a finding matches a label when it is on the same file, its catalogue id is among the label's ids,
  and its resource name equals the label's object name (case-insensitive), or the label's object is
  "*", or the finding names no resource;
- recall counts labels with at least one matching finding (blocking recall: the blocking labels);
  a label whose ids are only `none` names no catalogue row and can never be matched;
- a wrong blocking finding is a mandatory finding that matches no label;
- a trap is hit when a finding on its file and object carries one of its ids (reported apart; a
  mandatory trap hit is also a wrong blocking finding).

A `none` label is never matched, but a reader may judge that a finding describes it (a row added after
the set was labelled, for example). `--json` lists, under `none_candidates`, each missed `none` label
with the findings on its file and object, for a person to read; the figures above never count them.

The unit of a run is a repository folder (what a pull-request check sees: cross-file joins count) or
one file at a time (`--unit file`, the figure sets 2 to 11 were scored with). `--unit tree` runs each
repository on its folder tree rebuilt from the flattened names (`k8s__overlays__gpu__kustomization.yaml`
back to `k8s/overlays/gpu/kustomization.yaml`, in a temporary folder), as a pull request's checkout holds
it: a Kustomize overlay is built only there, where its kustomization sits beside its patches and its
base (`../../base`) resolves. Findings are mapped back to the flattened names; a repository whose names
do not rebuild into a tree (a file that is also a folder) is run flat, as `repository` does.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

_SEVERITIES = ("blocking", "advisory")


class LabelError(ValueError):
    """labels.yaml does not follow the documented shape."""


@dataclass(frozen=True)
class Label:
    file: str
    name: str  # "*" for the whole file
    ids: frozenset[str]
    severity: str
    why: str


@dataclass(frozen=True)
class Finding:
    file: str
    name: str  # "" when the finding names no resource
    catalog: str
    enforcement: str
    policy: str
    message: str


def _object_name(value: object, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise LabelError(f"{where}.object: must be 'Kind/name' or '*', got {value!r}")
    return "*" if value.strip() == "*" else value.strip().rsplit("/", 1)[-1].lower()


def _ids(value: object, where: str) -> frozenset[str]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items or not all(isinstance(i, str) for i in items):
        raise LabelError(f"{where}.ids: must be a non-empty list of catalogue ids or [none], got {value!r}")
    return frozenset(i.strip().upper() for i in items)


def load_labels(set_dir: Path) -> tuple[list[Label], list[Label], list[str]]:
    """The labels, traps and labelled files of a set; a wrong shape raises LabelError naming the field."""
    path = set_dir / "labels.yaml"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise LabelError(f"{path}: cannot be read: {exc}") from None
    if not isinstance(data, dict):
        raise LabelError(f"{path}: must be a mapping with files, labels and traps")
    files = [str(entry.get("file", "")) for entry in data.get("files") or [] if isinstance(entry, dict)]
    missing = [f for f in files if not (set_dir / f).is_file()]
    if not files or missing:
        raise LabelError(f"{path}: files: every entry needs an existing file; missing {missing[:3]}")
    out: dict[str, list[Label]] = {"labels": [], "traps": []}
    for key in out:
        for index, entry in enumerate(data.get(key) or []):
            where = f"{key}[{index}]"
            if not isinstance(entry, dict) or entry.get("file") not in files:
                raise LabelError(f"{where}.file: must be one of the set's files")
            severity = str(entry.get("severity", "advisory" if key == "traps" else ""))
            if severity not in _SEVERITIES:
                raise LabelError(f"{where}.severity: must be blocking or advisory, got {severity!r}")
            out[key].append(
                Label(
                    file=entry["file"],
                    name=_object_name(entry.get("object"), where),
                    ids=_ids(entry.get("ids"), where),
                    severity=severity,
                    why=str(entry.get("why", "")),
                )
            )
    return out["labels"], out["traps"], files


def run_pack(set_dir: Path, targets: list[str], python: str) -> list[Finding]:
    """The pack's findings on the targets (files or folders relative to the set), as relative paths."""
    proc = subprocess.run(
        [python, "-m", "policies", "check", *targets, "--format", "json"],
        cwd=Path(__file__).resolve().parents[1],
        capture_output=True,
        text=True,
        check=False,
    )
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        raise SystemExit(f"policies check {targets}: exit {proc.returncode}, no JSON: {proc.stderr.strip()[:300]}") from None
    root = set_dir.resolve()
    findings = []
    for v in report.get("violations", []):
        if str(v.get("message", "")).startswith("could not be checked:"):
            continue  # a policy that raised there (exit 3): no finding of any problem, so it matches no label
        file = Path(v.get("file") or "")
        rel = str(file.resolve().relative_to(root)) if file.is_absolute() and root in file.resolve().parents else str(file)
        resource = v.get("resource") or ""
        name = resource.rsplit("/", 1)[-1].lower() if "/" in resource and not resource.startswith("Document/") else ""
        findings.append(
            Finding(
                rel, name, str(v.get("catalog", "")).upper(), v.get("enforcement", ""), v.get("policy", ""), v.get("message", "")
            )
        )
    return findings


def _tree(repo: Path, into: Path) -> dict[str, str] | None:
    """``repo``'s flattened files copied into ``into`` as the tree their names spell; rebuilt path -> flattened path
    (both relative to their roots), or None when the names collide (a file that is also a folder)."""
    back: dict[str, str] = {}
    files = sorted(p for p in repo.iterdir() if p.is_file())
    for file in files:
        rebuilt = Path(*[part for part in file.name.split("__") if part]) if "__" in file.name.strip("_") else Path(file.name)
        back[rebuilt.as_posix()] = file.name
    folders = {parent.as_posix() for path in back for parent in Path(path).parents if parent != Path(".")}
    if folders & set(back) or len(back) != len(files):
        return None
    for rebuilt, flat in back.items():
        (into / rebuilt).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(repo / flat, into / rebuilt)
    return back


def run_tree(set_dir: Path, repo: str, python: str) -> list[Finding]:
    """The pack's findings on one repository folder's rebuilt tree (module docstring), under the flattened names."""
    with tempfile.TemporaryDirectory(prefix="score-tree-") as tmp:
        into = Path(tmp) / Path(repo).name
        back = _tree(Path(repo), into)
        if back is None:
            return run_pack(set_dir, [repo], python)
        prefix = Path(repo).resolve().relative_to(set_dir.resolve()).as_posix()
        found = run_pack(into, [str(into)], python)
        return [
            Finding(
                f"{prefix}/{back[f.file]}" if f.file in back else f.file, f.name, f.catalog, f.enforcement, f.policy, f.message
            )
            for f in found
        ]


def matches(finding: Finding, label: Label) -> bool:
    """The documented matching rule."""
    if finding.file != label.file or finding.catalog not in label.ids:
        return False
    return label.name == "*" or not finding.name or finding.name == label.name


def score(labels: list[Label], traps: list[Label], findings: list[Finding]) -> dict[str, Any]:
    found = [label for label in labels if any(matches(f, label) for f in findings)]
    blocking = [label for label in labels if label.severity == "blocking"]
    wrong = [f for f in findings if f.enforcement == "mandatory" and not any(matches(f, label) for label in labels)]
    trap_hits = [(t, f) for t in traps for f in findings if matches(f, t) and t.name != "*"]
    pct = lambda part, whole: round(100.0 * part / whole, 1) if whole else 0.0  # noqa: E731
    return {
        "labels": len(labels),
        "blocking": len(blocking),
        "traps": len(traps),
        "found": len(found),
        "found_blocking": sum(1 for label in found if label.severity == "blocking"),
        "recall": pct(len(found), len(labels)),
        "blocking_recall": pct(sum(1 for label in found if label.severity == "blocking"), len(blocking)),
        "wrong_blocking": len(wrong),
        "missed": [vars(label) | {"ids": sorted(label.ids)} for label in labels if label not in found],
        "wrong": [vars(f) for f in wrong],
        "trap_hits": [{"trap": vars(t) | {"ids": sorted(t.ids)}, "finding": vars(f)} for t, f in trap_hits],
        "none_candidates": _none_candidates(labels, findings),
    }


def _none_candidates(labels: list[Label], findings: list[Finding]) -> list[dict[str, Any]]:
    """Each `none` label with the findings on its file and object (never counted: a reader judges them)."""
    out = []
    for label in labels:
        if label.ids != frozenset({"NONE"}):
            continue
        near = [
            f"{f.catalog} {f.enforcement} {f.policy}: {f.message}"
            for f in findings
            if f.file == label.file and (label.name == "*" or not f.name or f.name == label.name)
        ]
        out.append({"file": label.file, "name": label.name, "severity": label.severity, "why": label.why, "findings": near})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("set_dir", type=Path)
    parser.add_argument("--unit", choices=("repository", "file", "tree"), default="repository")
    parser.add_argument("--python", default=sys.executable, help="the interpreter that runs the pack")
    parser.add_argument("--json", action="store_true", help="print the whole result as JSON")
    args = parser.parse_args(argv)
    set_dir = args.set_dir.resolve()
    try:
        labels, traps, files = load_labels(set_dir)
    except LabelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.unit == "file":
        units = [[str(set_dir / f)] for f in files]
    else:
        repos = sorted({str(set_dir / Path(f).parent) for f in files})
        units = [[r] for r in repos]
    if args.unit == "tree":
        findings = [f for (repo,) in units for f in run_tree(set_dir, repo, args.python) if f.file in files]
    else:
        findings = [f for unit in units for f in run_pack(set_dir, unit, args.python) if f.file in files]
    result = score(labels, traps, findings)
    if args.json:
        print(json.dumps(result, indent=2, default=sorted))
        return 0
    print(
        f"{len(files)} files, {result['labels']} labels ({result['blocking']} blocking), {result['traps']} traps; "
        f"unit: {args.unit}\nrecall {result['recall']}% ({result['found']}/{result['labels']}), "
        f"blocking {result['blocking_recall']}% ({result['found_blocking']}/{result['blocking']}), "
        f"wrong blocking findings {result['wrong_blocking']}, trap hits {len(result['trap_hits'])}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
