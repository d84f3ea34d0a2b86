"""`python -m policies check PATH... | -`: the policy pack over plain Kubernetes manifests.

For pull requests that change manifests rather than a Pulumi program (or that check what
`python -m stacks plan` wrote, or `helm template ... | python -m policies check -`), with no Pulumi
CLI and no cluster. Reading (files, folders of .yaml/.yml/.json, stdin, Lists flattened, bounded
input) is policies/manifests.py; each object becomes a resource of type
``kubernetes:<group/version>:<kind>`` exactly as the Pulumi engine would name it, and every policy
of the pack runs over them.

Exit codes, as `python -m stacks plan`: 0 no mandatory violation, 1 mandatory violations, 2
unreadable input, invalid policy configuration, or no Kubernetes object read at all (named, no
traceback), 3 an internal error (a bug): a policy that raises on one object is reported there ("could not be checked",
framework.CHECK_FAILED) and every other policy and object is still checked.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from typing import Any, BinaryIO, NoReturn, Optional, Sequence

from components.commands import command, json_error, wants_json
from components.errors import ConfigError
from components.json_loading import load_json
from components.loading import JSON_FILE, LoadError
from policies.framework import DOCS_PAGE, SALVAGED, PolicyConfigError, Resource, Violation
from policies.input.comment_tokens import COMMENT_TYPE, CommentToken, comment_props
from policies.input.run_files import ManifestReadError
from policies.input.unreadable import UNREADABLE_TYPE, unreadable_props
from policies.kube import annotations_of, evaluation_memo, read_generically
from policies.manifests import ManifestObject, ManifestSet, Unreadable, manifest_paths, read_manifests
from policies.overlay_builds import Overlays, deduplicated, overlay_builds
from policies.reading.gaps import sizing_gaps
from policies.reading.kustomize import (
    is_patch,
    listed_patches,
    namespace_set,
    overlays,
    rescaled,
    rewritten_images,
    targeted,
)
from policies.reading.placeholders import placeholders, terraform_filled, with_unknowns
from policies.registry import evaluate, validate_config
from policies.scopes import redefinitions, split
from policies.values_files import READ_FROM
from policies.vendored_releases import without_vendored_duplicates

FORMATS = ("text", "json", "markdown", "sarif")

# Modules the check imports where a run first needs them, not at load (a Helm template's text, a document that does
# not parse, KServe's storage initializer, a metric's name, the report): `python -m policies check` imports them while
# the pack loads (policies/__main__.py), inside the caches of its regular expressions and dataclass methods, which a
# module imported later misses. tests/policies/test_policy_check_imports.py holds the list whole on both corpora.
ON_DEMAND = (
    "components.vllm_metrics",
    "policies.reading.kserve_storage",
    "policies.reading.salvage",
    "policies.reading.template_text",
    "policies.report",
)


# How unreadable input counts: said in --help (and docs/cli.md), and kept by tests/policies/test_check_unreadable.py.
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


def _key(o: ManifestObject | Unreadable | CommentToken) -> str:
    return f"{o.location} {o.shown_kind}/{o.name}"


def resources_of(manifests: ManifestSet) -> list[Resource]:
    """The objects read as the policy framework's resources, typed as the Pulumi engine types them, then one
    resource per file or document that could not be read (policies.input: the S27 policies report them)."""
    # A Kustomize patch lacks what its base holds: findings that rest on an absence are advice there.
    files = sorted({o.file for o in manifests.objects})
    patches = listed_patches(files)
    # ... and a base a patch targets lacks what the patch adds; a kustomization's `images` may retag it.
    # (a kustomization file holds no object: it is among the unreadable, S27's "no Kubernetes object").
    built = overlays(sorted({*files, *(u.file for u in manifests.unreadable)}))
    patch_objects = [o.obj for o in manifests.objects if not o.chart and is_patch(o.file, o.obj, patches)]
    resources = [
        _unrendered(
            Resource(
                type=o.resource_type,
                name=_key(o),
                props=o.obj,
                # A chart's template is no Kustomize patch (and may hold unknown parts the patch reader does not take).
                patch=not o.chart and is_patch(o.file, o.obj, patches),
                base=not o.chart and targeted(o.file, o.obj, patch_objects, built),
                retagged=rewritten_images(o.file, built),
                rescaled=not o.chart and rescaled(o.file, o.obj, built),
                kustomize_namespace="" if o.chart else namespace_set(o.file, built),
                # A document that does not parse, read best-effort, is advice the same way (framework.SALVAGED).
                template=o.chart or (SALVAGED if o.salvaged else ""),
            )
        )
        for o in manifests.objects
    ]
    resources = _redefined(manifests.objects, resources)
    resources += [
        Resource(type=UNREADABLE_TYPE, name=_key(u), props=unreadable_props(u.file, u.document, u.line, u.why, u.kind, u.repeats))
        for u in manifests.unreadable
    ]
    # A credential-shaped token in a YAML comment (no object carries it): no-literal-credential reports it (G35).
    resources += [Resource(type=COMMENT_TYPE, name=_key(c), props=comment_props(c)) for c in manifests.comments]
    return resources


def _redefined(objects: Sequence[ManifestObject], resources: list[Resource]) -> list[Resource]:
    """The resources, each object that its folder defines again with other content marked with the other definitions
    (Resource.redefined; G58 reports them). Objects rendered from a template or repaired, Kustomize patches and
    their bases, and the releases Helm values files are read as (values.yaml beside values-gpu.yaml, layered with
    helm -f; policies/values_files.py) are no whole definitions a folder applies: neither marked nor compared."""
    stated = [i for i, o in enumerate(objects) if not o.best_effort]
    skip = [resources[i].patch or resources[i].base or READ_FROM in annotations_of(objects[i].obj) for i in stated]
    found = redefinitions([objects[i] for i in stated], skip)
    out = list(resources)
    for j, others in found.items():
        out[stated[j]] = dataclasses.replace(out[stated[j]], redefined=others)
    return out


def _with_builds(resources: list[Resource], groups: Any, reported: Any, built: Overlays) -> tuple[Any, Any]:
    """The run's scopes and their reported names, with one scope per Kustomize overlay the run builds, reporting the
    objects it changes (policies/overlay_builds.py); unchanged when it builds none."""
    if not built.groups:
        return groups, reported
    return [*(groups or [resources]), *built.groups], [*(reported or [None] * len(groups or [resources])), *built.reported]


def _built_resource(shown: ManifestObject, name: str) -> Resource:
    """An object a kustomization of the run builds, as a resource: whole (no patch or base note), placeholders read."""
    return _unrendered(Resource(type=shown.resource_type, name=name, props=shown.obj))


def _kustomize_line(row: dict) -> str:
    """What the text report says of one kustomization: what its build changed, or why it was not built."""
    if row["skipped"]:
        return f"{row['kustomization']}: not built ({row['skipped']}); its patches and bases were checked alone"
    return f"{row['kustomization']}: {row['objects']} objects built, {row['changed']} changed by it and checked whole"


def _unrendered(resource: Resource) -> Resource:
    """The resource with its unrendered placeholders (``IMAGE_PLACEHOLDER``, ``__VLLM_REPLICAS__``) as
    framework.UNKNOWN, named in ``unrendered`` for S27: no other rule builds a finding on a fill-in's text."""
    hits = tuple(placeholders(resource))
    if not hits:
        return dataclasses.replace(resource, unrendered=())  # looked for once: S27 does not read the object again
    # A Terraform interpolation is unknown to every rule, and no fill-in S27 names: the plan renders it.
    named = tuple(hit for hit in hits if not terraform_filled(resource, hit[1]))
    return dataclasses.replace(resource, props=with_unknowns(resource), unrendered=named, written=resource.props)


def scoped(
    manifests: ManifestSet, resources: Sequence[Resource]
) -> tuple[list[str], Optional[list[list[Resource]]], Optional[list[Optional[frozenset[str]]]]]:
    """The labels of the run's clusters (policies.scopes; [] when the run is one), the resources of each scope (a
    cluster, or one variant of a folder that defines an object twice; None when the run is one scope) and, per scope,
    the names of the resources whose findings it reports (None: all; framework.evaluate_policies ``reported``)."""
    # Scopes come from the files' own objects: an object rendered from a chart (its name a guess from the chart's
    # defaults) must not split a run whose files alone are one cluster. It joins the scopes of the nearest file.
    stated = [i for i, o in enumerate(manifests.objects) if not o.best_effort]
    # A Kustomize patch is its base's object by design (an overlay's patch names the base's kind and name): it does
    # not make the overlay another cluster (session 48: a GPU patch keeping the base's env is judged beside its base).
    scopes = split([manifests.objects[i] for i in stated], [resources[i].patch for i in stated])
    if len(scopes) <= 1:
        return [], None, None
    groups = [[resources[stated[j]] for j in s.indexes] for s in scopes]
    homes = [[manifests.objects[stated[j]].file for j in s.indexes] for s in scopes]
    for i, o in enumerate(manifests.objects):
        if o.best_effort:
            cluster = scopes[_nearest(homes, o.file)].label
            for group, scope in zip(groups, scopes):
                if scope.label == cluster:  # every variant of the nearest folder
                    group.append(resources[i])
    # The files that could not be read belong to no cluster: their findings (S27) are reported once.
    groups[0].extend(resources[len(manifests.objects) :])
    labels = list(dict.fromkeys(s.label for s in scopes))
    reported = [None if s.own is None else frozenset(resources[stated[j]].name for j in s.own) for s in scopes]
    return (labels if len(labels) > 1 else []), groups, reported


@dataclasses.dataclass(frozen=True)
class PreparedRun:
    """What `policies check` evaluates for a read ManifestSet (``prepared``): the files' resources, the clusters'
    labels, the scopes and their reported names (``scoped``, with one scope per Kustomize overlay built), the overlay
    builds, and ``checked``, the resources plus the builds' objects (what the policies are handed)."""

    resources: list[Resource]
    labels: list[str]
    groups: Any
    reported: Any
    built: Overlays

    @property
    def checked(self) -> list[Resource]:
        return [*self.resources, *(r for g in self.built.groups for r in g)]


def prepared(manifests: ManifestSet) -> PreparedRun:
    """The run `policies check` evaluates for ``manifests`` (main; benchmarks/policy_costs.py times each policy on it)."""
    resources = resources_of(manifests)
    labels, groups, reported = scoped(manifests, resources)
    built = overlay_builds(manifests, _key, _built_resource)
    groups, reported = _with_builds(resources, groups, reported, built)
    return PreparedRun(resources, labels, groups, reported, built)


def _nearest(homes: Sequence[Sequence[str]], file: str) -> int:
    """The index of the scope holding the file whose path shares the most folders with ``file`` (the first on ties)."""

    def shared(other: str) -> int:
        a, b = file.split(os.sep), other.split(os.sep)
        n = 0
        while n < min(len(a), len(b)) and a[n] == b[n]:
            n += 1
        return n

    scores = [max((shared(f) for f in files), default=0) for files in homes]
    return scores.index(max(scores))


def check_report(
    manifests: ManifestSet,
    violations: Sequence[Violation],
    unsized: Sequence = (),
    scopes: Sequence[str] = (),
    built: Overlays | None = None,
) -> dict:
    """The JSON report: counts of what was read, each violation with its file, document and line,
    the model servers the capacity policies could not size (``unsized``: not a pass), and the
    folders checked as separate clusters (``scopes``; empty when the run is one)."""
    from policies.report import violation_row

    read: list[ManifestObject | Unreadable | CommentToken] = [*manifests.objects, *manifests.unreadable, *manifests.comments]
    where = {_key(o): o for o in read}
    if built is not None:
        where.update(built.shown)  # an object a kustomization builds: reported at its patch or kustomization
    rows = []
    rendered: list[tuple[dict, ManifestObject]] = []
    for v in violations:
        o = where.get(v.resource)
        row = violation_row(v, file=o.file if o else None, document=o.document if o else None, line=o.line if o else None)
        if o is not None:
            row["resource"] = f"{o.shown_kind}/{o.name}"
            # Text reports name the object as `<file>#<document>[<list item>...] <kind>/<name>`.
            row["location"] = o.location
            if isinstance(o, ManifestObject) and o.built:
                row["built"] = True  # found on the object a kustomization builds, reported at its patch or itself
            if isinstance(o, ManifestObject) and o.chart:
                rendered.append((row, o))
        rows.append(row)
    if rendered:  # a chart's finding is fixed in its values.yaml: reported at the key that produced the field
        from policies.value_paths import relocate

        relocate(rendered, manifests.charts)
    counts = manifests.counts
    generic = [
        {
            "file": o.file,
            "document": o.document,
            "line": o.line,
            "resource": f"{o.shown_kind}/{o.name}",
            "location": o.location,
            "paths": paths,
            **({"read_as": how} if (how := str(annotations_of(o.obj).get(READ_FROM) or "")) else {}),
        }
        for o in manifests.objects
        if (paths := read_generically(Resource(type=o.resource_type, name=_key(o), props=o.obj)))
    ]
    templates = [
        {"file": t.file, "chart": t.chart, "values": t.values or None, "objects": t.objects} for t in manifests.templates
    ]
    salvaged = [
        {"file": s.file, "document": s.document, "line": s.line, "repair": s.repair, "objects": s.objects}
        for s in manifests.salvaged
    ]
    return {
        "generic": generic,
        "templates": templates,
        "salvaged": salvaged,
        "files": counts.files,
        "documents": counts.documents,
        "objects": counts.objects,
        "skipped": dict(sorted(counts.skipped.items())),
        "violations": rows,
        "unsized": [gap.row() for gap in unsized],
        "scopes": list(scopes),
        "kustomize": [] if built is None else built.read,
    }


def _summary(report: dict) -> str:
    from policies.report import plural

    skipped = report["skipped"]
    text = (
        f"read {plural(report['files'], 'file')}, {plural(report['documents'], 'document')}, "
        f"{plural(report['objects'], 'Kubernetes object')}"
    )
    if skipped:
        text += "; skipped (not Kubernetes objects): " + ", ".join(f"{k} x{n}" for k, n in skipped.items())
    if report.get("scopes"):
        text += (
            f"; checked as {len(report['scopes'])} separate clusters, never joined ({', '.join(report['scopes'])}): "
            "the same object is defined in more than one of them"
        )
    if report.get("unsized"):
        count = len(report["unsized"])
        text += (
            f"; {count} model server{'s' if count != 1 else ''} could not be sized (unknown model or GPU, or an "
            f"engine the plan does not model), so whether "
            f"{'they start' if count != 1 else 'it starts'} (S2) was not checked"
        )
    return text


def render(report: dict, fmt: str) -> str:
    """The report as text, JSON, Markdown (a PR comment) or SARIF 2.1.0."""
    from policies.report import check_markdown, generic_line, salvage_line, sarif_log, template_line

    if fmt == "json":
        public = {
            **report,
            "violations": [{k: v for k, v in row.items() if k != "location"} for row in report["violations"]],
            "generic": [{k: v for k, v in row.items() if k != "location"} for row in report.get("generic", [])],
        }
        return json.dumps(public, indent=2, sort_keys=True) + "\n"
    if fmt == "markdown":
        return check_markdown(report)
    if fmt == "sarif":
        return json.dumps(sarif_log(report["violations"], error=report.get("error", "")), indent=2, sort_keys=True) + "\n"
    out = [_summary(report)]
    for row in report.get("generic", []):
        out.append(f"[read generically] {generic_line(row)}")
    for row in report.get("templates", []):
        out.append(f"[read from a template] {template_line(row)}")
    for row in report.get("salvaged", []):
        out.append(f"[read best-effort] {salvage_line(row)}")
    for row in report.get("kustomize", []):
        out.append(f"[built from a kustomization] {_kustomize_line(row)}")
    for gap in report.get("unsized", []):
        out.append(f"[not sized] {gap['resource']} {gap['server']}: {gap['reason']}")
    for v in report["violations"]:
        where = f"{v['location']} {v['resource']} (line {v['line']})" if v["file"] else "(all manifests)"
        out.append(f"[{v['enforcement']}] {v['policy']} ({v['catalog']}) {where}: {v['message']}")
    if report["violations"]:
        out.append(
            "why and how to fix: " + ", ".join(f"{DOCS_PAGE}#{p}" for p in sorted({v["policy"] for v in report["violations"]}))
        )
    elif report.get("unsized"):
        out.append("no violations among what could be checked; the servers above were not sized")
    else:
        out.append("no violations")
    return "\n".join(out) + "\n"


class _BadArguments(Exception):
    """Arguments argparse refuses (main() reports them, in JSON too when --format json was asked for)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _BadArguments(message)


def _terminal_columns() -> int:
    """The terminal's width as shutil.get_terminal_size reads it (CPython 3.11 Lib/shutil.py:1397-1439): $COLUMNS,
    else the terminal of stdout, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """argparse's formatter given the width it would compute: argparse builds one for every argument added (to check
    its metavar) and, without a width, imports shutil for it (with zlib, bz2 and lzma: ~1.8 ms of each run)."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: Optional[int] = None):
        # argparse.HelpFormatter: the terminal's columns less 2 when no width is given.
        super().__init__(prog, indent_increment, max_help_position, _terminal_columns() - 2 if width is None else width)


def _pack_config(path: str) -> Any:
    """The --config file, read as JSON and validated against every policy's schema (InputError / PolicyConfigError)."""
    try:
        config = load_json(path, JSON_FILE)
    except LoadError as exc:
        where = f" at line {exc.line}" if exc.line else ""
        raise InputError(f"--config {path}: cannot be read as JSON ({exc.problem}{where})") from None
    if errors := validate_config(config):
        raise PolicyConfigError(errors)
    return config


def main(argv: Optional[Sequence[str]] = None, stdin: Optional[BinaryIO] = None) -> int:
    """Run the check; returns the exit code."""
    row = command("policies check")  # help text and exit codes: the command table (components/commands.py)
    argv = list(sys.argv[1:] if argv is None else argv)
    as_json = wants_json(row.name, argv)
    parser = _Parser(
        prog="python -m policies check",
        description=row.description,
        epilog=row.epilog(),
        formatter_class=_Formatter,
    )
    parser.add_argument("paths", nargs="+", help="YAML/JSON files, folders of manifests, or - for standard input")
    parser.add_argument("--config", help="policy pack config (JSON, the format of --policy-pack-config)")
    parser.add_argument("--format", choices=FORMATS, default="text", help="report format (default text)")
    try:
        args = parser.parse_args(argv)
    except _BadArguments as exc:
        sys.stderr.write(f"{parser.format_usage()}{parser.prog}: error: {exc}\n")
        if as_json:
            sys.stdout.write(json_error(row.name, 2, str(exc)))
        return 2
    try:
        config = _pack_config(args.config) if args.config else None
        # Models resolved from the Hub (stacks/models.lock.json) size before the built-in catalogue.
        from components.capacity.models import LOCK_FILE, use_repo_lock

        try:
            use_repo_lock(LOCK_FILE)
        except ConfigError as exc:
            raise InputError(str(exc).removeprefix("invalid configuration:").strip()) from None
        try:
            manifests = read_manifests(args.paths, stdin=stdin)
        except ManifestReadError as exc:
            raise InputError(str(exc)) from None
        if manifests.counts.objects == 0:
            report = check_report(manifests, evaluate(resources_of(manifests), config))
            error = f"no Kubernetes object read from {' '.join(args.paths)} ({_summary(report)}); nothing was checked"
            if manifests.unreadable and as_json:
                # One JSON object on every exit: the error's fields, and the unreadable files' findings beside them.
                sys.stderr.write("".join(f"error: {u.text}\n" for u in manifests.unreadable) + f"error: {error}\n")
                sys.stdout.write(
                    json.dumps(
                        {**json.loads(render(report, "json")), **json.loads(json_error(row.name, 2, error))},
                        indent=2,
                        sort_keys=True,
                    )
                    + "\n"
                )
                return 2
            if manifests.unreadable:
                sys.stdout.write(render(report, args.format))
            raise InputError("".join(f"{u.text}\n" for u in manifests.unreadable) + error)
        run = prepared(manifests)
        resources, labels, groups, reported, built = run.resources, run.labels, run.groups, run.reported, run.built
        failures: list[Violation] = []  # a policy that raises on one object: reported there, the run goes on
        with evaluation_memo():  # the gaps are read from the evaluation's facts (kube.evaluation_memo)
            checked = run.checked
            violations = _once(manifests, evaluate(checked, config, scopes=groups, reported=reported, failures=failures), built)
            lost: list[str] = []  # a resource whose servers a reader cannot size without an exception
            unsized = sizing_gaps(resources, lost)
        return _reported(manifests, violations, (failures, lost), (unsized, labels), args.format, built)  # a bug: exit 3
    except InputError as exc:
        sys.stderr.write("".join(f"error: {line}\n" for line in str(exc).splitlines()))
        if as_json:
            sys.stdout.write(json_error(row.name, 2, " ".join(str(exc).split())))
        return 2
    except PolicyConfigError as exc:
        sys.stderr.write("error: invalid policy configuration:\n" + "".join(f"  {e}\n" for e in exc.errors))
        if as_json:
            sys.stdout.write(json_error(row.name, 2, "invalid policy configuration: " + "; ".join(map(str, exc.errors))))
        return 2
    except Exception as exc:  # a bug, not bad input: never exit 1 (violations) with a traceback
        if os.environ.get("LLM_SERVING_DEBUG"):
            raise
        sys.stderr.write(f"internal error: {type(exc).__name__} (set LLM_SERVING_DEBUG=1 for details)\n")
        if as_json:
            sys.stdout.write(json_error(row.name, 3, f"internal error: {type(exc).__name__}"))
        return 3


def _once(manifests: ManifestSet, violations: list[Violation], built: Overlays) -> list[Violation]:
    """The violations, each said once: a finding an overlay's build repeats from its base or patch is dropped
    (policies/overlay_builds.py), and one a vendored chart's rendered pod repeats from the Flux HelmRelease that installs
    the folder stays on the release only (policies/vendored_releases.py)."""
    return without_vendored_duplicates(manifests, deduplicated(violations, built), _key)


def _reported(
    manifests: ManifestSet, violations: list[Violation], raised: tuple, gaps: tuple, fmt: str, built: Overlays | None = None
) -> int:
    """Print the report of a run that checked; its exit code (3 when some checks raised: ``raised``, the policies'
    CHECK_FAILED findings and the exception types of the resources sizing_gaps could not read)."""
    failures, lost = raised
    if failures:
        violations = sorted([*violations, *failures], key=lambda v: (v.policy, v.resource, v.message))
    report = check_report(manifests, violations, gaps[0], gaps[1], built=built)
    if failures or lost:
        report.update(command="policies check", exit=3, error=_failed(failures, lost))  # JSON: json_error's beside
    sys.stdout.write(render(report, fmt))
    if fmt != "text":
        sys.stderr.write(_summary(report) + "\n")
    if failures or lost:
        sys.stderr.write(f"{report['error']} (set LLM_SERVING_DEBUG=1 for details)\n")
        return 3
    return 1 if any(v["enforcement"] == "mandatory" for v in report["violations"]) else 0


def _failed(failures: Sequence[Violation], lost: Sequence[str] = ()) -> str:
    """The internal error of a run in which policies raised on some objects (framework.CHECK_FAILED findings) or
    the sizing of some objects' servers did (``lost``: the exception types; 'could not be sized' gaps)."""
    kinds = sorted({v.message.removeprefix("could not be checked: ").split(" ", 1)[0] for v in failures} | set(lost))
    count = len(failures) + len(lost)
    return (
        f"internal error: {count} check{'s' if count != 1 else ''} raised ({', '.join(kinds)}), each "
        "reported as 'could not be checked' (or 'could not be sized') on its object; every other policy and object "
        "was checked"
    )
