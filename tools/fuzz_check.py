"""Mutation fuzzer for `python -m policies check`: real manifests, mistyped, run in-process.

    python tools/fuzz_check.py [--seed N] [--cases N] [--out DIR] PATH...

PATH: files or folders of real manifests (the corpora, spent label sets). Each case takes one file's documents and
applies 1-6 mutations: a value replaced by a list, map, number, None, a boolean or odd text; a name, image, port or
command replaced by a list, map, number or None; a key deleted; a key made non-text. Paths under fields the pack reads
(containers, env, volumes, ports, selectors, scalers, routes, ...) are picked more often. The case runs through the
check's own steps (read, scope, evaluate, size, report in every format) with every policy's exception caught and
keyed by its innermost frame in policies/ or components/; the first case of each key is written to DIR. It prints a
JSON summary: cases run, cases that raised, and each key with its count, policy and case file. Session 44 ran it
over both corpora and spent sets 13-43 (docs/limits.md; tests/hostile/test_fuzz44_shapes.py holds what it found).
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import yaml  # noqa: E402

import policies.framework as framework  # noqa: E402
from policies import check  # noqa: E402
from policies.registry import evaluate  # noqa: E402

HOT = frozenset(
    "containers initContainers args command env volumes volumeMounts ports resources selector matchLabels rules "
    "triggers predictor metadata annotations labels scaleTargetRef metrics backendRefs parentRefs template "
    "nodeSelector tolerations requirements readinessProbe livenessProbe startupProbe httpGet workerGroupSpecs "
    "headGroupSpec serveConfigV2 data model storageUri limits requests hostPath persistentVolumeClaim affinity".split()
)
VALUES: list[Any] = ["abc", "-5", "1e400", {"a": {"b": [1]}}, [1], {}, {"a": [1]}, None, True, -1, 0, "x", [[]],
                     10**30, "", {"name": [1]}, 1.5, [{}], ["a", "b"], {"a": "b"}, [None], "8Gi", [1, 2]]  # fmt: skip
NAMED = ("name", "image", "command", "args", "port", "value")


def _paths(node: Any, path: tuple = ()) -> Any:
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, (*path, i))
    yield path


def mutate(doc: dict, rng: random.Random) -> None:
    """One mutation of ``doc`` in place."""
    paths = [p for p in _paths(doc) if p and p[0] != "status"]
    paths = [p for p in paths if len(p) >= rng.choice([1, 2, 3, 4, 5])] or paths
    if rng.random() < 0.6:
        paths = [p for p in paths if any(k in HOT for k in p if isinstance(k, str))] or paths
    if not paths:
        return
    path = rng.choice(paths)
    node = doc
    for key in path[:-1]:
        node = node[key]
    last, roll = path[-1], rng.random()
    if roll < 0.15 and isinstance(node, dict):
        del node[last]
    elif roll < 0.25 and isinstance(node, dict):
        node[rng.choice([1, None, True, 2.5])] = node.pop(last)
    elif roll < 0.35 and last in NAMED:
        node[last] = rng.choice([[node[last]], {"a": node[last]}, 7, None])
    else:
        node[last] = copy.deepcopy(rng.choice(VALUES))


def sources(paths: list[str]) -> list[list[dict]]:
    """The documents of each YAML file under ``paths`` that holds a kind (files that do not parse are passed over)."""
    out = []
    for name in check.manifest_files(paths):
        try:
            docs = [d for d in yaml.safe_load_all(Path(name).read_text()) if isinstance(d, dict) and "kind" in d]
        except (yaml.YAMLError, UnicodeDecodeError, OSError):
            continue
        if docs:
            out.append(docs)
    return out


class _Sites:
    """Exceptions keyed by (type, innermost frame of the pack), the first case of each written to ``out``."""

    def __init__(self, out: Path | None) -> None:
        self.out, self.found, self.case = out, {}, ""  # type: ignore[var-annotated]

    def record(self, exc: BaseException, stage: str) -> None:
        frames = [
            f for f in traceback.extract_tb(exc.__traceback__) if "/policies/" in f.filename or "/components/" in f.filename
        ]
        where = (
            f"{frames[-1].filename.rsplit('/', 2)[-2]}/{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"
        )
        key = f"{type(exc).__name__} {where}"
        if key not in self.found:
            self.found[key] = {"stage": stage, "count": 0, "case": None}
            if self.out is not None:
                kept = self.out / f"crash{len(self.found)}.yaml"
                kept.write_text(self.case)
                self.found[key]["case"] = str(kept)
        self.found[key]["count"] += 1


def run(paths: list[str], seed: int, cases: int, out: Path | None = None) -> dict:
    """Fuzz ``cases`` cases from the files under ``paths``; the summary (see the module docstring)."""
    rng, docs, sites = random.Random(seed), sources(paths), _Sites(out)
    real_resource, real_stack = framework.run_resource_policy, framework.run_stack_policy

    def resource_policy(policy: Any, resource: Any, values: Any) -> list[str]:
        try:
            return real_resource(policy, resource, values)
        except Exception as exc:
            if resource.template:
                raise  # framework's own rule: a template's object that cannot be read finds nothing
            sites.record(exc, f"resource {policy.name}")
            return []

    def stack_policy(policy: Any, resources: Any, values: Any) -> list[tuple[str, str]]:
        try:
            return real_stack(policy, resources, values)
        except Exception as exc:
            sites.record(exc, f"stack {policy.name}")
            return []

    raised, tmp = 0, tempfile.TemporaryDirectory()
    work = Path(tmp.name) / "case.yaml"
    framework.run_resource_policy, framework.run_stack_policy = resource_policy, stack_policy  # type: ignore[assignment]
    try:
        for _ in range(cases if docs else 0):
            case = copy.deepcopy(rng.choice(docs))
            for _ in range(rng.choice([1, 2, 3, 4, 6])):
                mutate(rng.choice(case), rng)
            sites.case = yaml.safe_dump_all(case)
            work.write_text(sites.case)
            before = sum(s["count"] for s in sites.found.values())
            _one(str(work), sites)
            raised += sum(s["count"] for s in sites.found.values()) > before
    finally:
        framework.run_resource_policy, framework.run_stack_policy = real_resource, real_stack  # type: ignore[assignment]
        tmp.cleanup()
    return {"seed": seed, "cases": cases if docs else 0, "raised": raised, "sites": sites.found}


def _one(path: str, sites: _Sites) -> None:
    try:
        manifests = check.read_manifests([path])
        resources = check.resources_of(manifests)
        labels, groups, reported = check.scoped(manifests, resources)
        violations = evaluate(resources, None, scopes=groups, reported=reported)
        report = check.check_report(manifests, violations, check.sizing_gaps(resources), labels)
        for fmt in check.FORMATS:
            check.render(report, fmt)
    except check.ManifestReadError:
        pass
    except Exception as exc:
        sites.record(exc, "pipeline")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cases", type=int, default=500)
    parser.add_argument("--out", type=Path, help="folder for the first case of each exception (default: none kept)")
    args = parser.parse_args()
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    print(json.dumps(run(args.paths, args.seed, args.cases, args.out), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
