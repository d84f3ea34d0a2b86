"""`python -m policies check PATH...`: the policy pack over plain Kubernetes manifests.

For pull requests that change manifests rather than a Pulumi program (or that check what
`python -m stacks plan` wrote), with no Pulumi CLI and no cluster. Each YAML document with an
apiVersion and a kind becomes a resource of type ``kubernetes:<apiVersion>:<kind>`` exactly as the
Pulumi engine would name it; every policy of the pack runs over them.

Exit codes: 0 no mandatory violation, 1 mandatory violations, 2 unreadable input or invalid
policy configuration (named, no traceback).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Optional, Sequence

import yaml

from policies.framework import PolicyConfigError, Resource, Violation, evaluate

YAML_SUFFIXES = (".yaml", ".yml")


class InputError(ValueError):
    """A path or document that cannot be checked."""


def manifest_files(paths: Sequence[str]) -> list[Path]:
    """The YAML files named, and those under the folders named, in a stable order."""
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*") if p.suffix in YAML_SUFFIXES and p.is_file()))
        elif path.is_file():
            files.append(path)
        else:
            raise InputError(f"{raw}: no such file or folder")
    return files


def load_resources(files: Sequence[Path]) -> list[Resource]:
    """Every Kubernetes object in the files (lists flattened), named ``<file>#<n> <kind>/<name>``."""
    resources = []
    for path in files:
        try:
            docs = list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"{path}: cannot be read ({exc.__class__.__name__})") from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" at line {mark.line + 1}" if mark else ""
            raise InputError(f"{path}: not valid YAML{where}") from None
        objects = []
        for doc in docs:
            if isinstance(doc, dict) and doc.get("kind") == "List" and isinstance(doc.get("items"), list):
                objects.extend(doc["items"])
            else:
                objects.append(doc)
        for index, obj in enumerate(objects):
            if not isinstance(obj, dict) or not obj.get("apiVersion") or not obj.get("kind"):
                continue
            meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
            name = f"{path}#{index} {obj['kind']}/{meta.get('name', '?')}"
            resources.append(Resource(type=f"kubernetes:{obj['apiVersion']}:{obj['kind']}", name=name, props=obj))
    return resources


def render(violations: Sequence[Violation], fmt: str) -> str:
    """Text (one line per violation) or JSON (a list of objects)."""
    if fmt == "json":
        rows = [{"policy": v.policy, "catalog": v.catalog, "enforcement": v.enforcement, "resource": v.resource, "message": v.message}
                for v in violations]
        return json.dumps(rows, indent=2, sort_keys=True) + "\n"
    if not violations:
        return "no violations\n"
    return "".join(f"[{v.enforcement}] {v.policy} ({v.catalog}) {v.resource or '(stack)'}: {v.message}\n" for v in violations)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the check; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m policies check", description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="YAML files or folders of manifests")
    parser.add_argument("--config", help="policy pack config (JSON, the format of --policy-pack-config)")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    args = parser.parse_args(argv)
    try:
        config = None
        if args.config:
            try:
                config = json.loads(Path(args.config).read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise InputError(f"--config {args.config}: cannot be read as JSON ({exc.__class__.__name__})") from None
        resources = load_resources(manifest_files(args.paths))
        violations = evaluate(resources, config)
    except InputError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    except PolicyConfigError as exc:
        sys.stderr.write("error: invalid policy configuration:\n" + "".join(f"  {e}\n" for e in exc.errors))
        return 2
    sys.stdout.write(render(violations, args.format))
    return 1 if any(v.enforcement == "mandatory" for v in violations) else 0
