"""`python -m policies check PATH...`: the policy pack over plain Kubernetes manifests.

For pull requests that change manifests rather than a Pulumi program (or that check what
`python -m stacks plan` wrote), with no Pulumi CLI and no cluster. Each object with an apiVersion
and a kind becomes a resource of type ``kubernetes:<group/version>:<kind>`` exactly as the Pulumi
engine would name it (``v1`` is ``core/v1``); every policy of the pack runs over them.

Reading (files, folders, ``-`` for stdin, Lists, limits) is policies/manifests.py over the bounded
loader of components/loading.py.

Exit codes: 0 no mandatory violation, 1 mandatory violations, 2 unreadable input or invalid
policy configuration (named, no traceback), 3 an internal error (a bug).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import BinaryIO, Optional, Sequence

from components.loading import JSON_FILE, LoadError, load_json
from policies.framework import PolicyConfigError, Resource, Violation, evaluate
from policies.manifests import ManifestReadError, ManifestSet, manifest_paths, read_manifests


class InputError(ValueError):
    """A path or document that cannot be checked."""


def manifest_files(paths: Sequence[str]) -> list[str]:
    """The files named, and those under the folders named, in a stable order (policies.manifests)."""
    try:
        return manifest_paths(paths)
    except ManifestReadError as exc:
        raise InputError(str(exc)) from None


def load_resources(files: Sequence[str], stdin: Optional[BinaryIO] = None) -> list[Resource]:
    """Every Kubernetes object in the files (lists flattened), named ``<file>#<document> <kind>/<name>``."""
    try:
        manifests = read_manifests(files, stdin=stdin)
    except ManifestReadError as exc:
        raise InputError(str(exc)) from None
    return resources_of(manifests)


def resources_of(manifests: ManifestSet) -> list[Resource]:
    """The objects read as the policy framework's resources, typed as the Pulumi engine types them."""
    return [Resource(type=o.resource_type, name=f"{o.location} {o.kind}/{o.name}", props=o.obj) for o in manifests.objects]


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
    parser.add_argument("paths", nargs="+", help="YAML/JSON files, folders of manifests, or - for standard input")
    parser.add_argument("--config", help="policy pack config (JSON, the format of --policy-pack-config)")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    args = parser.parse_args(argv)
    try:
        config = None
        if args.config:
            try:
                config = load_json(args.config, JSON_FILE)
            except LoadError as exc:
                where = f" at line {exc.line}" if exc.line else ""
                raise InputError(f"--config {args.config}: cannot be read as JSON ({exc.problem}{where})") from None
        resources = load_resources(args.paths)
        violations = evaluate(resources, config)
    except InputError as exc:
        sys.stderr.write("".join(f"error: {line}\n" for line in str(exc).splitlines()))
        return 2
    except PolicyConfigError as exc:
        sys.stderr.write("error: invalid policy configuration:\n" + "".join(f"  {e}\n" for e in exc.errors))
        return 2
    except Exception as exc:  # a bug, not bad input: never exit 1 (violations) with a traceback
        if os.environ.get("LLM_SERVING_DEBUG"):
            raise
        sys.stderr.write(f"internal error: {type(exc).__name__} (set LLM_SERVING_DEBUG=1 for details)\n")
        return 3
    sys.stdout.write(render(violations, args.format))
    return 1 if any(v.enforcement == "mandatory" for v in violations) else 0
