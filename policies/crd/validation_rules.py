"""S26: a custom resource passes the CEL rules (``x-kubernetes-validations``) of its pinned CRD.

The API server refuses, on create, an object that breaks one of its CRD's rules: `pulumi up` stops
there, and a third-party manifest never applies. policies/crd/cel.py evaluates the rules of the CRDs
this project pins (policies/crd/cel_rules.json, with each CRD's source and tag) on every custom
resource the stacks render and every one `policies check` reads.
"""

from __future__ import annotations

from policies.crd import cel
from policies.framework import Policy, Resource
from policies.kube import memoized


def outcome(resource: Resource) -> cel.Outcome:
    """The rules' verdict on one resource, computed once per evaluation (both S26 policies read it)."""
    return memoized(resource, "crd-cel", lambda r: cel.evaluate(r.type, r.props))


def _check(resource: Resource, config: dict) -> list[str]:
    return [
        f"{f.where}: the API server refuses this object: {f.rule.message} "
        f"(CEL rule of CRD {f.rule.crd}, {f.rule.source}: {f.rule.rule})"
        for f in outcome(resource).failed
    ]


POLICY = Policy(
    name="crd-validation-rules",
    description="A custom resource passes the CEL validation rules of its CRD (the API server refuses it otherwise).",
    catalog="S26",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Change the field the finding names so that the rule holds; the message is the CRD's own. Rules that "
        "compare with the stored object (oldSelf) run only on update and are not checked here."
    ),
    resource_types=cel.resource_types(),
    check_resource=_check,
    rationale=(
        "The API server evaluates a CRD's x-kubernetes-validations rules on every create and update and refuses "
        "the object when one is false "
        "(https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#validation-rules). "
        "A NodePool whose requirement names a restricted label, or an EC2NodeClass with two root volumes, "
        "plans green and fails on `pulumi up`. The rules are those of the pinned CRDs (policies/crd/cel_rules.json, "
        "regenerated from the reference folder by `python tools/crd_cel_rules.py --write`; each CRD's repository, tag "
        "and sha256 are in the file), evaluated with cel-expr-python plus Kubernetes' regex `find` and the strings "
        "extension's `split`. Rules that read `oldSelf` are transition rules the API server runs on update only, "
        "against the stored object: they are skipped. Schema defaults are not applied first; a rule that errs on a "
        "field the API server would default is listed by crd-validation-rules-unevaluated, never passed."
    ),
)
