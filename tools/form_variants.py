"""Form invariance of `python -m policies check`: rewrite real manifests in ways Kubernetes treats as the same objects,
and compare the findings (metamorphic testing).

    python tools/form_variants.py [--json] [--transform NAME]... [--detail] PATH...

PATH: a labelled set (a folder with labels.yaml: each repository folder under files/ is one unit, as
tools/score_labels.py runs them), a corpus (a folder of repository folders: each is a unit), or one folder (a unit).
For each unit the check runs in-process (``--format json``) on the files as they are, then on a copy written back from
the parsed YAML (the "yaml-roundtrip" row: comments and layout are lost, so this copy is the baseline of every
transform), then on each transform of tools/form_transforms.py that changes something there. A finding is
(catalogue id, Kind/name, policy, enforcement): by resource, not by file, so transforms that move objects between
files compare. Per transform it reports the baseline findings of the units it applied to, those LOST, and the
MANDATORY findings GAINED (a precision risk); per policy, the losses. Losses (and gains) that are right (the finding
depends on what the transform changed, such as the registry an image comes from) are listed in EXPECTED with the
reason and counted apart ("expect"), never hidden.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any, Optional

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import yaml  # noqa: E402
from form_transforms import TRANSFORMS, Folder  # noqa: E402

from policies import check  # noqa: E402

Key = tuple[str, str, str, str]  # catalogue id, Kind/name, policy, enforcement

# Losses that are right: (transform, policy) -> why the finding depends on what the transform changed.
EXPECTED: dict[tuple[str, str], str] = {
    ("mirror-registry", "registry-pull-auth"): "S52 is about the registry itself: nvcr.io asks NGC credentials of every "
    "pull; a mirror answers with its own",
    ("mirror-registry", "engine-image-from-publisher"): "S46 reads Docker Hub references only (an image in a team's own "
    "registry is a mirror or a build of theirs: policies/models/engine_image_publisher.py)",
    ("mirror-registry", "manifest-is-kubernetes"): "the registry host was the placeholder (your-acr-repo.azurecr.io/...); "
    "mirroring drops it",
    ("mirror-registry", "run-as-non-root-image-user"): "G28 knows the USER of the publisher's own image; a copy in a "
    "team's registry may be a rebuild with its own USER (tests/policies/test_policy_run_as_non_root_image.py)",
    ("mirror-registry", "ray-serve-app-module-shipped"): "G73 knows what Ray's own images ship; a copy in a team's "
    "registry may be a rebuild that adds the application's code",
    ("merge-folder", "one-autoscaler-per-workload"): "G17 reads two autoscalers of one workload in separate files as "
    "possible alternatives (samples/autoscaling/hpa.yaml, kpa.yaml) and in one file as applied together: one file "
    "says more than the folder did (the finding moves between advisory and mandatory)",
    ("merge-folder", "serving-app-service"): "two files that define the same Service are read as alternatives "
    "(policies/scopes.py variants); merged into one file the later definition wins, as kubectl apply makes it",
    ("explicit-namespace", "namespace-set"): "G38 reports the objects that state no namespace; the rewrite states one "
    "on each, so there is nothing left to report",
    ("split-files", "one-autoscaler-per-workload"): "the same reading the other way: two autoscalers of one file are "
    "applied together (mandatory), in two files they may be alternatives (advisory)",
}


def units(path: Path) -> list[Path]:
    """The units of a PATH (see the module docstring)."""
    if (path / "labels.yaml").is_file():
        data = yaml.safe_load((path / "labels.yaml").read_text())
        return sorted({path / Path(e["file"]).parent for e in data.get("files") or [] if isinstance(e, dict)})
    subs = sorted(p for p in path.iterdir() if p.is_dir())
    direct = [p for p in path.iterdir() if p.is_file() and p.suffix in check_suffixes()]
    return subs if subs and not direct else [path]


def check_suffixes() -> tuple[str, ...]:
    from policies.input.run_files import SUFFIXES

    return SUFFIXES


def read_folder(unit: Path) -> Folder:
    """The unit's files: parsed documents for the files the check reads whose documents are all mappings, raw bytes for
    the rest."""
    folder = Folder({}, {})
    read = {Path(f).resolve() for f in check.manifest_files([str(unit)])}  # what the check reads (a .yaml.template too)
    for file in sorted(p for p in unit.rglob("*") if p.is_file()):
        rel = str(file.relative_to(unit))
        folder.raw[rel] = file.read_bytes()
        docs: Optional[list[Any]] = None
        if file.suffix in check_suffixes() or file.resolve() in read:
            try:
                docs = list(yaml.safe_load_all(folder.raw[rel].decode("utf-8")))
            except (yaml.YAMLError, UnicodeDecodeError, ValueError, RecursionError):
                docs = None
            if docs is not None and (not any(isinstance(d, dict) for d in docs) or any(
                    d is not None and not isinstance(d, dict) for d in docs)):  # fmt: skip
                docs = None
        folder.docs[rel] = docs
    return folder


def write_folder(folder: Folder, dest: Path) -> None:
    """Write ``folder`` under ``dest`` (parsed files dumped in its style; the rest as they were)."""
    for rel, docs in folder.docs.items():
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if docs is None:
            target.write_bytes(folder.raw[rel])
        elif rel.endswith(".json") and len(docs) == 1:
            target.write_text(json.dumps(docs[0], indent=2, default=str))
        elif folder.style == "json":
            target.write_text("".join(f"---\n{json.dumps(d, default=str)}\n" for d in docs))
        else:
            target.write_text(yaml.safe_dump_all(docs, sort_keys=False, width=10**6, allow_unicode=True))


def findings(target: Path) -> tuple[set[Key], int]:
    """The check's findings on ``target`` and the number of 'could not be checked' rows (a policy that raised)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        check.main([str(target), "--format", "json"])
    try:
        report = json.loads(out.getvalue())
    except json.JSONDecodeError:
        return set(), 0
    keys, raised = set(), 0
    for v in report.get("violations") or []:
        if str(v.get("message", "")).startswith("could not be checked:"):
            raised += 1
            continue
        keys.add((str(v.get("catalog", "")), str(v.get("resource", "")), str(v.get("policy", "")), str(v.get("enforcement", ""))))
    return keys, raised


def run_unit(unit: Path, names: list[str], tmp: Path) -> dict[str, Any]:
    """The rows of one unit: per transform that applies, baseline count, lost and gained mandatory findings."""
    original, _ = findings(unit)
    folder = read_folder(unit)
    rows: dict[str, Any] = {}
    base = _run(folder, unit.name, tmp / "roundtrip")
    rows["yaml-roundtrip"] = _compare(original, base)
    for name in names:
        variant = TRANSFORMS[name](folder)
        if variant is not None:
            rows[name] = _compare(base[0], _run(variant, unit.name, tmp / name))
    return rows


def _run(folder: Folder, name: str, where: Path) -> tuple[set[Key], int]:
    dest = where / name
    if where.exists():
        shutil.rmtree(where)
    write_folder(folder, dest)
    return findings(dest)


def _compare(base: Any, after: tuple[set[Key], int]) -> dict[str, Any]:
    base_keys = base[0] if isinstance(base, tuple) else base
    keys, raised = after
    return {
        "baseline": len(base_keys),
        "lost": sorted(base_keys - keys),
        "gained": sorted(k for k in keys - base_keys if k[3] == "mandatory"),
        "raised": raised,
    }


def summarise(results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Per transform: units applied, baseline, kept, lost (expected apart), gained mandatory, raised; per policy lost."""
    table: dict[str, Any] = {}
    for unit, rows in results.items():
        for name, row in rows.items():
            t = table.setdefault(name, {"units": 0, "baseline": 0, "lost": 0, "expected": 0, "gained": 0, "expected_gained": 0, "raised": 0,
                                        "by_policy": Counter(), "losses": [], "gains": []})  # fmt: skip
            t["units"] += 1
            t["baseline"] += row["baseline"]
            t["raised"] += row["raised"]
            for k in row["lost"]:
                why = EXPECTED.get((name, k[2]))
                t["expected" if why else "lost"] += 1
                t["by_policy"][k[2]] += 0 if why else 1
                t["losses"].append({"unit": unit, "catalog": k[0], "resource": k[1], "policy": k[2], "enforcement": k[3],
                                    "expected": why})  # fmt: skip
            for k in row["gained"]:
                why = EXPECTED.get((name, k[2]))
                t["expected_gained" if why else "gained"] += 1
                t["gains"].append({"unit": unit, "catalog": k[0], "resource": k[1], "policy": k[2], "expected": why})
    for t in table.values():
        t["kept_pct"] = round(100.0 * (t["baseline"] - t["lost"] - t["expected"]) / t["baseline"], 1) if t["baseline"] else 100.0
        t["by_policy"] = dict(t["by_policy"].most_common())
        t["by_policy"] = {k: v for k, v in t["by_policy"].items() if v}
    return table


def text_table(table: dict[str, Any]) -> str:
    lines = [f"{'transform':22} {'units':>5} {'base':>6} {'kept%':>6} {'lost':>5} {'expect':>6} {'+mand':>5} {'raised':>6}"]
    for name, t in table.items():
        lines.append(
            f"{name:22} {t['units']:5} {t['baseline']:6} {t['kept_pct']:6} {t['lost']:5} {t['expected']:6} "
            f"{t['gained']:5} {t['raised']:6}"
        )
        top = ", ".join(f"{p} {n}" for p, n in list(t["by_policy"].items())[:4])
        if top:
            lines.append(f"{'':22} lost: {top}")
    return "\n".join(lines)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--transform", action="append", choices=sorted(TRANSFORMS), help="only these (default: all)")
    parser.add_argument("--json", action="store_true", help="print the whole result as JSON")
    parser.add_argument("--detail", action="store_true", help="with --json: every loss and gain, by unit")
    parser.add_argument("--quiet", action="store_true", help="no progress on standard error")
    args = parser.parse_args(argv)
    names = args.transform or list(TRANSFORMS)
    todo = [u for p in args.paths for u in units(p.resolve())]
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="form-variants-") as tmp:
        for i, unit in enumerate(todo):
            if not args.quiet:
                print(f"[{i + 1}/{len(todo)}] {unit}", file=sys.stderr)
            results[str(unit)] = run_unit(unit, names, Path(tmp))
    table = summarise(results)
    if args.json:
        if not args.detail:
            for t in table.values():
                t.pop("losses"), t.pop("gains")
        print(json.dumps({"units": len(todo), "transforms": table}, indent=2))
    else:
        print(text_table(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
