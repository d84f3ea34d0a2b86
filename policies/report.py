"""The pack's findings as reports: the JSON violation row, the Markdown table and pull-request comment, SARIF.

`python -m policies check` renders with these; `python -m stacks plan` (stacks/report.py) renders its
violations with the same functions, so both commands report a finding the same way.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from policies.framework import DOCS_PAGE


def violation_row(v: Any, file: Optional[str] = None, document: Optional[int] = None, line: Optional[int] = None) -> dict:
    """One violation as the JSON reports carry it (plan and check alike): policy, catalog,
    enforcement, file, document, line, resource, message. `file` is repository-relative where it
    can be; `document` is the index of the YAML document in it (None for a stack file)."""
    return {
        "policy": v.policy,
        "catalog": v.catalog,
        "enforcement": v.enforcement,
        "file": file,
        "document": document,
        "line": line,
        "resource": v.resource,
        "message": v.message,
    }


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def violations_markdown(violations: Sequence[Mapping[str, Any]]) -> list[str]:
    """The violations as a table (mandatory first), each policy linked to its docs section."""
    if not violations:
        return ["No policy violations."]
    mandatory = sum(1 for v in violations if v["enforcement"] == "mandatory")
    rows = sorted(violations, key=lambda v: (v["enforcement"] != "mandatory", v["policy"], v["resource"], v["message"]))
    out = [
        f"**{mandatory} mandatory, {len(violations) - mandatory} advisory.**",
        "",
        "| | policy | where | message |",
        "|---|---|---|---|",
    ]
    for v in rows:
        mark = ":x:" if v["enforcement"] == "mandatory" else ":warning:"
        where = v["resource"] or "(stack)"
        if v.get("file"):
            where = f"{where} ({v['file']}{':' + str(v['line']) if v.get('line') else ''})"
        out.append(
            f"| {mark} | [{v['policy']}]({DOCS_PAGE}#{v['policy']}) ({v['catalog']}) | {_cell(where)} | {_cell(v['message'])} |"
        )
    return out


def generic_line(row: dict) -> str:
    """One object read generically, as text and Markdown reports say it: a chart release (or a values file read as one,
    policies/values_files.py) whose pods are the chart's, as the pods the chart renders from its values."""
    paths = row["paths"]
    if paths and all("chart" in p.partition("[")[2] for p in paths):
        return (
            f"{row['location']} {row['resource']} (line {row['line']}): read as a chart release"
            f"{' (' + row['read_as'] + ')' if row.get('read_as') else ''}: the pod rules ran on the "
            f"pod{'s' if len(paths) != 1 else ''} the chart renders from these values, at {', '.join(paths)} (values "
            f"set elsewhere may change them, so findings there are advisory)"
        )
    return (
        f"{row['location']} {row['resource']} (line {row['line']}): no reader knows this kind; the generic pod rules "
        f"ran on the pod template{'s' if len(row['paths']) != 1 else ''} at {', '.join(row['paths'])} (findings on "
        f"fields its operator may fill in, such as probes, drain and requests, are advisory)"
    )


def template_line(row: dict) -> str:
    """One Helm template read best-effort, as text and Markdown reports say it."""
    values = f"its values.yaml ({row['values']})" if row.get("values") else "no values file"
    return (
        f"{row['file']}: rendered best-effort with chart {row['chart']} and {values}, {row['objects']} "
        f"object{'s' if row['objects'] != 1 else ''} checked (findings advisory)"
    )


def salvage_line(row: dict) -> str:
    """One document that does not parse, read best-effort, as text and Markdown reports say it."""
    return (
        f"{row['file']}#{row['document']} (line {row['line']}): cannot be applied as written, read best-effort ({row['repair']}), "
        f"{row['objects']} object{'s' if row['objects'] != 1 else ''} checked (findings advisory)"
    )


def check_markdown(report: Mapping[str, Any]) -> str:
    """`python -m policies check` as a pull-request comment: what was read, then the violations."""
    skipped = report.get("skipped") or {}
    out = [
        "### llm-serving policies check",
        "",
        f"Read {plural(report['files'], 'file')}, {plural(report['documents'], 'document')}, "
        f"{plural(report['objects'], 'Kubernetes object')}"
        + (f"; skipped {', '.join(f'{k} ({n})' for k, n in skipped.items())}." if skipped else "."),
        "",
    ]
    generic = report.get("generic") or []
    if generic:
        out += ["Read generically (no reader for the kind; the generic pod rules ran):", ""]
        out += [f"- {_cell(generic_line(row))}" for row in generic]
        out.append("")
    templates = report.get("templates") or []
    if templates:
        out += ["Read from Helm templates, best-effort (every finding on them is advisory):", ""]
        out += [f"- {_cell(template_line(row))}" for row in templates]
        out.append("")
    salvaged = report.get("salvaged") or []
    if salvaged:
        out += ["Read best-effort from documents that are not valid YAML (every finding on them is advisory):", ""]
        out += [f"- {_cell(salvage_line(row))}" for row in salvaged]
        out.append("")
    unsized = report.get("unsized") or []
    if unsized:
        # Not a pass: S2 did not judge these servers (policies/reading/gaps.py sizing_gaps).
        out += [
            f"**{len(unsized)} model server{'s' if len(unsized) != 1 else ''} could not be sized**, so whether "
            f"{'they start' if len(unsized) != 1 else 'it starts'} was not checked:",
            "",
        ]
        out += [f"- `{_cell(g['resource'])}` {_cell(g['server'])}: {_cell(g['reason'])}" for g in unsized]
        out.append("")
    if report.get("error"):
        out += [f"**{_cell(report['error'])}** (exit 3)", ""]
    out += violations_markdown(report["violations"])
    return "\n".join(out) + "\n"


# GitHub code scanning ranks results by a rule's `security-severity` (0-10): >= 9 critical,
# 7-8.9 high, 4-6.9 medium, < 4 low (docs.github.com, "SARIF support for code scanning").
SECURITY_SEVERITY = {"low": "3.0", "medium": "5.5", "high": "8.0", "critical": "9.5"}


SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


def docs_url(policy: str) -> str:
    """Where a policy's documentation lives, for SARIF's helpUri (an absolute URI).

    In GitHub Actions the repository's blob URL at the commit being checked; elsewhere
    LLM_SERVING_DOCS_URL (a base URL of docs/policies.md) or, failing both, the path relative to
    the repository root.
    """
    base = os.environ.get("LLM_SERVING_DOCS_URL")
    server, repo = os.environ.get("GITHUB_SERVER_URL"), os.environ.get("GITHUB_REPOSITORY")
    if not base and server and repo:
        base = f"{server}/{repo}/blob/{os.environ.get('GITHUB_SHA') or 'HEAD'}/{DOCS_PAGE}"
    return f"{base or DOCS_PAGE}#{policy}"


# What policies/manifests.py names a document read from standard input (kept in step by a test).
STDIN_NAME = "<stdin>"


def plural(n: int, noun: str, nouns: str = "") -> str:
    """'1 violation', '2 violations', '0 violations' (``nouns``: an irregular plural)."""
    return f"{n:,} {noun if n == 1 else (nouns or noun + 's')}"


def repo_uri(path: str) -> str:
    """A file as SARIF wants it: relative to the repository root (the working directory of the
    run), forward slashes; a file outside it as an absolute file URI."""
    candidate = Path(path)
    if not candidate.is_absolute():
        return candidate.as_posix()
    try:
        return candidate.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return candidate.resolve().as_uri()


def _sarif_rule(policy: Any) -> dict:
    return {
        "id": policy.name,
        "name": "".join(part.capitalize() for part in policy.name.split("-")),
        "shortDescription": {"text": policy.description},
        "fullDescription": {"text": policy.rationale or policy.description},
        "help": {
            "text": policy.remediation_steps,
            "markdown": f"{policy.remediation_steps}\n\nExempt one resource with the annotation "
            f'`{policy.exemption_annotation}: "<reason>"`. [Documentation]({docs_url(policy.name)})',
        },
        "helpUri": docs_url(policy.name),
        "defaultConfiguration": {"level": "error" if policy.enforcement == "mandatory" else "warning"},
        "properties": {
            "catalog": policy.catalog,
            "security-severity": SECURITY_SEVERITY[policy.severity],
            "tags": ["llm-serving", policy.catalog],
        },
    }


def sarif_log(violations: Sequence[Mapping[str, Any]], fallback_file: str = "", error: str = "") -> dict:
    """A SARIF 2.1.0 log: one rule per policy of the pack, one result per violation, located at the
    violation's file and line (a stack file line, or the manifest document's first line). ``error``: the run's
    internal error (policies that raised on some objects, each also a result): an invocation that says the run did not
    succeed (SARIF 2.1.0 3.20.14 executionSuccessful, 3.20.21 toolExecutionNotifications)."""
    from policies.registry import POLICIES

    index = {p.name: i for i, p in enumerate(POLICIES)}
    results = []
    for v in violations:
        file = v.get("file") or fallback_file
        if file == STDIN_NAME:
            # Standard input is no file a code-scanning UI can open: no physical location (the message
            # and the fingerprint name the resource); SARIF 2.1.0 3.27.12 makes locations optional.
            file = ""
        location: dict = {"artifactLocation": {"uri": repo_uri(file), "uriBaseId": "%SRCROOT%"}} if file else {}
        if file and v.get("line"):
            location["region"] = {"startLine": int(v["line"])}
        result = {
            "ruleId": v["policy"],
            "level": "error" if v["enforcement"] == "mandatory" else "warning",
            "message": {"text": f"{v['resource'] or '(stack)'}: {v['message']}"},
            "partialFingerprints": {"llmServingResource/v1": f"{v['policy']}:{v['resource']}:{v['message']}"},
        }
        if v["policy"] in index:
            result["ruleIndex"] = index[v["policy"]]
        if location:
            result["locations"] = [{"physicalLocation": location}]
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "llm-serving",
                        "rules": [_sarif_rule(p) for p in POLICIES],
                        **({"informationUri": docs_url("")[:-1]} if "://" in docs_url("") else {}),
                    }
                },
                "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "The repository root."}}},
                "results": results,
                **({"invocations": [_failed_invocation(error)]} if error else {}),
            }
        ],
    }


def _failed_invocation(error: str) -> dict:
    return {"executionSuccessful": False, "toolExecutionNotifications": [{"level": "error", "message": {"text": error}}]}
