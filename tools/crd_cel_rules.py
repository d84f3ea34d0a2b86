"""Extract the CEL rules (``x-kubernetes-validations``) of the pinned CRDs into policies/crd/cel_rules.json.

    python tools/crd_cel_rules.py            # print the data the reference folder gives
    python tools/crd_cel_rules.py --write    # rewrite policies/crd/cel_rules.json
    python tools/crd_cel_rules.py --check    # exit 1 when the committed file differs

The product never reads the reference folder at run time (docs/reference-data.md): the rules the
policy ``crd-validation-rules`` evaluates live in the repository, with each CRD's source (repository,
path, tag, from the folder's crds/PROVENANCE.md) and the sha256 of the file they came from.
tests/policies/test_crd_cel_rules.py regenerates the data from the reference folder and compares.

The reference folder is ``$LLM_SERVING_REFERENCE`` (default ``../shared`` beside the checkout). A second source list,
tools/crd_sources.json, names CRDs the folder lacks (Envoy AI Gateway, Envoy Gateway, the Inference Extension) by
repository, tag, commit, path and sha256; they are read from the fetched mirror (``$LLM_SERVING_MIRRORS``, default
/work/.mirror) with git show, and where it is absent their committed entries are kept as they are.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "policies" / "crd" / "cel_rules.json"
# Where more than one file in crds/ defines the same CRD, the one EKS users install. Karpenter's core
# NodePool CRD and the AWS provider's differ only by the AWS label-domain rules, and the karpenter
# chart installs the provider's (crds/PROVENANCE.md, notes).
SKIPPED = {"karpenter.sh/NodePool.yaml": "karpenter.sh/NodePool.aws-provider.yaml"}
# The second source list: CRDs the reference folder does not carry (Envoy AI Gateway, Envoy Gateway, the Gateway API
# Inference Extension), each read at a pinned tag of its repository's fetched mirror; only the facts are committed.
SOURCES = ROOT / "tools" / "crd_sources.json"


def mirror_folder() -> Path:
    """Where fetched repositories are (<owner>+<name>/repo git directories)."""
    return Path(os.environ.get("LLM_SERVING_MIRRORS") or "/work/.mirror")


def _pinned_sources() -> list[dict]:
    return json.loads(SOURCES.read_text(encoding="utf-8"))["crds"]


def _read_pinned(source: dict) -> bytes | None:
    """The CRD file at its pinned tag from the fetched mirror, or None when the mirror is not on this machine; a file
    whose sha256 differs from the list's is an error (the tag moved, or the list is wrong)."""
    git_dir = mirror_folder() / source["repo"].replace("/", "+") / "repo"
    if not git_dir.is_dir():
        return None
    done = subprocess.run(
        ["git", "--git-dir", str(git_dir), "show", f"{source['commit']}:{source['path']}"], capture_output=True, check=False
    )
    if done.returncode != 0:
        return None
    if hashlib.sha256(done.stdout).hexdigest() != source["sha256"]:
        raise ValueError(f"{source['repo']} {source['tag']} {source['path']}: sha256 differs from tools/crd_sources.json")
    return done.stdout


def reference_folder() -> Path:
    """The reference folder, as the tests find it (tests/conftest.py)."""
    return Path(os.environ.get("LLM_SERVING_REFERENCE") or ROOT.parent / "shared").resolve()


def _provenance(crds: Path) -> dict[str, str]:
    """File -> "<repo> <tag> <path>" from the table of crds/PROVENANCE.md."""
    sources = {}
    for line in (crds / "PROVENANCE.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if len(cells) >= 5 and cells[0].endswith(".yaml"):
            sources[cells[0]] = f"{cells[1]} {cells[3]} {cells[2]}"
    return sources


def _walk(node: Any, path: list[str], out: list[dict]) -> None:
    """Every rule under one schema node; path segments are property names, "[]" (a list item), "{}" (a map value)."""
    if not isinstance(node, dict):
        return
    for rule in node.get("x-kubernetes-validations") or []:
        row = {"path": list(path), "rule": rule["rule"], "type": node.get("type", "")}
        for key in ("message", "messageExpression", "reason", "fieldPath"):
            if key in rule:
                row[key] = rule[key]
        out.append(row)
    for name, sub in sorted((node.get("properties") or {}).items()):
        _walk(sub, [*path, name], out)
    if isinstance(node.get("items"), dict):
        _walk(node["items"], [*path, "[]"], out)
    if isinstance(node.get("additionalProperties"), dict):
        _walk(node["additionalProperties"], [*path, "{}"], out)
    for key in ("allOf", "anyOf", "oneOf"):
        for sub in node.get(key) or []:
            _walk(sub, path, out)


def _entries(data: bytes, name: str, source: str, per_version: Callable[[dict], Any]) -> list[dict]:
    entries = []
    # libyaml: the CRDs are megabytes of YAML, which the pure-Python loader takes minutes to read.
    for doc in yaml.load_all(data, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
        if not isinstance(doc, dict) or doc.get("kind") != "CustomResourceDefinition":
            continue
        versions = {}
        for version in doc["spec"]["versions"]:
            taken = per_version(version) if version.get("served", True) else None
            if taken is not None:
                versions[version["name"]] = taken
        if versions:
            entries.append(
                {
                    "crd": doc["metadata"]["name"],
                    "group": doc["spec"]["group"],
                    "kind": doc["spec"]["names"]["kind"],
                    "file": name,
                    "source": source,
                    "sha256": hashlib.sha256(data).hexdigest(),
                    "versions": versions,
                }
            )
    return entries


def extract_crds(reference: Path, per_version: Callable[[dict], Any], tool: str, committed: Path | None = None) -> dict:
    """What ``per_version`` takes from every served version of every CRD under ``reference/crds`` and of the pinned
    sources of tools/crd_sources.json (a version it returns None for is left out, and a CRD with no version left), with
    each CRD's provenance, deterministic. A pinned source whose mirror is not on this machine keeps the entries of the
    ``committed`` file. Shared by this tool (CEL rules) and tools/crd_schemas.py (pruned spec schemas)."""
    crds = reference / "crds"
    sources = _provenance(crds)
    entries = []
    for path in sorted(crds.rglob("*.yaml")):
        name = path.relative_to(crds).as_posix()
        if name not in SKIPPED:
            entries += _entries(path.read_bytes(), name, sources.get(name, ""), per_version)
    kept = json.loads(committed.read_text(encoding="utf-8"))["crds"] if committed is not None and committed.exists() else []
    for pinned in _pinned_sources():
        data = _read_pinned(pinned)
        if data is None:
            entries += [e for e in kept if e["file"] == pinned["file"]]
        else:
            source = f"{pinned['repo']} {pinned['tag']} {pinned['path']}"
            entries += _entries(data, pinned["file"], source, per_version)
    return {
        "generatedBy": f"python {tool} --write (from the reference folder's crds/)",
        "crds": sorted(entries, key=lambda e: (e["group"], e["kind"])),
    }


def _version_rules(version: dict) -> list[dict] | None:
    rules: list[dict] = []
    _walk(version["schema"]["openAPIV3Schema"], [], rules)
    return rules or None


def extract(reference: Path) -> dict:
    """The rules of every served version of every CRD under ``reference/crds``, deterministic."""
    return extract_crds(reference, _version_rules, "tools/crd_cel_rules.py", DATA)


def render(data: dict) -> str:
    """The committed file's bytes: sorted keys, one indent, a final newline."""
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def generated_file_main(argv: list[str] | None, description: str, data: Path, produce: Callable[[Path], str], tool: str) -> int:
    """Print, write or check a data file generated from the reference folder's crds/ (`produce` turns the
    reference folder into the file's text); exit 1 when --check finds it stale, 2 without a reference folder."""
    parser = argparse.ArgumentParser(description=description)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help=f"rewrite {data.relative_to(ROOT)}")
    mode.add_argument("--check", action="store_true", help="exit 1 when the committed file differs from the reference")
    args = parser.parse_args(argv)
    reference = reference_folder()
    if not (reference / "crds").is_dir():
        print(f"no crds/ under {reference}: set LLM_SERVING_REFERENCE", file=sys.stderr)
        return 2
    text = produce(reference)
    if args.write:
        data.write_text(text, encoding="utf-8")
        print(f"wrote {data.relative_to(ROOT)}")
    elif args.check:
        if data.read_text(encoding="utf-8") != text:
            print(f"{data.relative_to(ROOT)} is stale: run python {tool} --write", file=sys.stderr)
            return 1
    else:
        sys.stdout.write(text)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Print, write or check policies' CEL rule file (see generated_file_main)."""
    return generated_file_main(argv, __doc__.splitlines()[0], DATA, lambda ref: render(extract(ref)), "tools/crd_cel_rules.py")


if __name__ == "__main__":
    sys.exit(main())
