"""S26: the CEL rules of a custom resource's CRD that could not be evaluated on it, listed (never passed).

A rule the CEL library cannot compile, or whose evaluation errs (a field the API server would
default, a value of the wrong type), is neither a pass nor a proven rejection: it is reported here at
advisory level with the library's message, so a reader knows what was not checked.
"""

from __future__ import annotations

from policies.crd import cel
from policies.crd.validation_rules import outcome
from policies.framework import Policy, Resource


def _check(resource: Resource, config: dict) -> list[str]:
    return [
        f"{f.where}: CEL rule of CRD {f.rule.crd} not checked, {f.error} (rule: {f.rule.rule}; its message: {f.rule.message})"
        for f in outcome(resource).unevaluated
    ]


POLICY = Policy(
    name="crd-validation-rules-unevaluated",
    description="Lists the CEL validation rules of a custom resource's CRD that could not be evaluated on it.",
    catalog="S26",
    severity="low",
    enforcement="advisory",
    remediation_steps=(
        "Read the rule and the error: the API server errs the same way (and refuses the object) unless a schema "
        "default fills the field first. Set the field explicitly, or check the object with a dry-run apply."
    ),
    resource_types=cel.resource_types(),
    check_resource=_check,
    rationale=(
        "Rules the checker cannot evaluate must be visible, not passed in silence: an evaluation error at the API "
        "server refuses the object "
        "(https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#validation-rules)."
    ),
)
