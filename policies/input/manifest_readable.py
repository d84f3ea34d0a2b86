"""S27: every manifest file can be read; one that cannot is a finding of its own, and the rest are still checked.

A file that is not valid YAML or JSON, is larger or deeper than the reader's limits, or is not UTF-8 cannot be
applied either (kubectl refuses it): it is reported where the parser stopped, at mandatory level. Before, one
such file stopped the whole run (exit 2) and every other file went unchecked.

A document that is not YAML only by a slip (a line one column off, a tab, `-   ` list items) is also read best-effort
(policies/reading/salvage.py): its objects are checked, every finding on them advice; the finding here stays
mandatory and says how the document was read.

A document whose only fault is a repeated mapping key is advice: ``kubectl apply -f`` decodes YAML without strict
checks, so the last value wins and the object applies (kubernetes/cli-runtime v0.33.13 pkg/resource/visitor.go:590-594
StreamVisitor -> kubernetes/apimachinery v0.33.0 pkg/util/yaml/decoder.go:125-132 ``yaml.Unmarshal`` -> sigs.k8s.io/yaml
v1.4.0 yaml.go:50-57, non-strict goyaml.v2, whose decode.go:686 reports "already set in map" only when strict). kustomize and strict readers refuse it, and the value dropped may be the one meant: worth fixing, not
blocking (set 14: Angel-FulFilment-Services/Angel-Intelligence repeats an identical nodeSelector).
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.input.unreadable import UNREADABLE_TYPE, message


def _check(resource: Resource, config: dict) -> list[str]:
    kind = resource.props.get("kind")
    if kind == "repeated-read":
        return [unproven(message(resource.props))]
    return [message(resource.props)] if kind in ("invalid", "invalid-read") else []


POLICY = Policy(
    name="manifest-readable",
    description=(
        "Every manifest file and document can be read (valid YAML or JSON, within the size and depth limits); a "
        "document whose only fault is a repeated key is advice (kubectl apply keeps the key's last value)."
    ),
    catalog="S27",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Fix the YAML at the line named (a tab in indentation, an unclosed quote, a bad merge), split a file over the "
        "size limit, or move files that are not manifests out of the folder checked."
    ),
    resource_types=(UNREADABLE_TYPE,),
    check_resource=_check,
    rationale=(
        "A manifest the checker cannot read is one nobody checked; reporting it (file, line, why) and checking "
        "every other file keeps one broken file from silencing a whole pull request (issue 32: two invalid files of "
        "a GKE sample made `policies check` exit 2 with no finding for the 33 others). kubectl apply refuses the "
        "same file, so it blocks. A document a small repair reads (a line re-indented, tabs, `-   ` items) is checked "
        "best-effort, its findings advice: the problems inside a broken file are real too."
    ),
)
