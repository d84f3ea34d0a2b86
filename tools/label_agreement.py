"""How far two independent labellers of the same files agree, under the held-out scorer's own matching rule.

The pack's recall on a held-out set is measured against one labeller's labels (tools/score_labels.py). This asks what
a second careful reviewer, labelling the same files without seeing the first one's labels, would score by that
measure: each label of B stands in for findings (one per catalogue id it names; blocking labels as mandatory
findings), and tools/score_labels.score scores them against A's labels, then the other way round. A `none` label of B
names no row and so stands for no finding, as a `none` label of A can never be found.

    python tools/label_agreement.py SET_A SET_B [--json]

SET_A and SET_B are set folders (labels.yaml beside files/) over the same files. The figures read as the pack's do:
"A found by B" is the recall a second human reaches on A's labels, and B's wrong blocking are B's blocking labels that
match no label of A.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from score_labels import Finding, Label, LabelError, load_labels, matches, score


def as_findings(labels: list[Label]) -> list[Finding]:
    """One finding per catalogue id of each label, on its file and object (a whole-file label names no resource)."""
    return [
        Finding(
            file=label.file,
            name="" if label.name == "*" else label.name,
            catalog=catalog,
            enforcement="mandatory" if label.severity == "blocking" else "advisory",
            policy="label",
            message=label.why,
        )
        for label in labels
        for catalog in sorted(label.ids - {"NONE"})
    ]


def wrong_blocking(labels: list[Label], reference: list[Label]) -> int:
    """Blocking labels none of whose ids matches a reference label: counted per label, not per id (a label naming two
    rows means either describes it, and one matching is enough)."""
    return sum(
        1
        for label in labels
        if label.severity == "blocking" and not any(matches(f, ref) for f in as_findings([label]) for ref in reference)
    )


def agreement(set_a: Path, set_b: Path) -> dict[str, Any]:
    """Both directions' scores; the two sets must label the same files."""
    labels_a, traps_a, files_a = load_labels(set_a)
    labels_b, traps_b, files_b = load_labels(set_b)
    if sorted(files_a) != sorted(files_b):
        only = sorted(set(files_a) ^ set(files_b))
        raise LabelError(f"files: the two sets must list the same files; differing {only[:3]}")
    keep = ("labels", "blocking", "found", "found_blocking", "recall", "blocking_recall")
    a_by_b = score(labels_a, traps_a, as_findings(labels_b)) | {"wrong_blocking": wrong_blocking(labels_b, labels_a)}
    b_by_a = score(labels_b, traps_b, as_findings(labels_a)) | {"wrong_blocking": wrong_blocking(labels_a, labels_b)}
    return {
        "files": len(files_a),
        "a_found_by_b": {k: a_by_b[k] for k in (*keep, "wrong_blocking")},
        "b_found_by_a": {k: b_by_a[k] for k in (*keep, "wrong_blocking")},
        "none": {"a": sum(1 for x in labels_a if x.ids == {"NONE"}), "b": sum(1 for x in labels_b if x.ids == {"NONE"})},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("set_a", type=Path)
    parser.add_argument("set_b", type=Path)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    try:
        result = agreement(args.set_a, args.set_b)
    except LabelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{result['files']} files; none labels: A {result['none']['a']}, B {result['none']['b']}")
    for name, key in (("A found by B", "a_found_by_b"), ("B found by A", "b_found_by_a")):
        r = result[key]
        print(
            f"{name}: recall {r['recall']}% ({r['found']}/{r['labels']}), blocking {r['found_blocking']}/{r['blocking']}, "
            f"wrong blocking {r['wrong_blocking']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
