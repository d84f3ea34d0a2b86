"""Extract the CEL rules (``x-kubernetes-validations``) of the pinned CRDs into policies/crd/cel_rules.json.

    python tools/crd_cel_rules.py            # print the data the reference folder gives
    python tools/crd_cel_rules.py --write    # rewrite policies/crd/cel_rules.json
    python tools/crd_cel_rules.py --check    # exit 1 when the committed file differs

The product never reads the reference folder at run time (docs/reference-data.md): the rules the
policy ``crd-validation-rules`` evaluates live in the repository, with each CRD's source (repository,
path, tag, from the folder's crds/PROVENANCE.md) and the sha256 of the file they came from.
tests/policies/test_crd_cel_rules.py regenerates the data from the reference folder and compares.

The reference folder is ``$LLM_SERVING_REFERENCE`` (default ``../shared`` beside the checkout).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
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


def extract_crds(reference: Path, per_version: Callable[[dict], Any], tool: str) -> dict:
    """What ``per_version`` takes from every served version of every CRD under ``reference/crds`` (a version it
    returns None for is left out, and a CRD with no version left), with each CRD's provenance, deterministic.
    Shared by this tool (CEL rules) and tools/crd_schemas.py (pruned spec schemas)."""
    crds = reference / "crds"
    sources = _provenance(crds)
    entries = []
    for path in sorted(crds.rglob("*.yaml")):
        name = path.relative_to(crds).as_posix()
        if name in SKIPPED:
            continue
        data = path.read_bytes()
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
                        "source": sources.get(name, ""),
                        "sha256": hashlib.sha256(data).hexdigest(),
                        "versions": versions,
                    }
                )
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
    return extract_crds(reference, _version_rules, "tools/crd_cel_rules.py")


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
