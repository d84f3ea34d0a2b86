"""S26 (beside crd-validation-rules): a custom resource passes the structural schema of its pinned CRD.

The API server refuses, on create, a custom resource whose ``spec`` lacks a property its CRD requires, holds a value
of the wrong type, or a value outside an enum (policies/crd/schema.py says how the schema is checked and what is
left out). A Karpenter v1 NodePool whose ``nodeClassRef`` still says ``apiVersion: karpenter.k8s.aws/v1`` (the v1beta1
form) and no ``group`` is refused: karpenter.sh/v1 requires [group, kind, name]. `pulumi up` stops there, and a
third-party manifest never applies.
"""

from __future__ import annotations

from policies.crd import schema
from policies.framework import Policy, Resource


def _check(resource: Resource, config: dict) -> list[str]:
    found = schema.evaluate(resource.type, resource.props)
    if not found:
        return []
    pinned = schema.source_of(resource.type)
    return [
        f"{f.where}: the API server refuses this object: {f.message} (schema of CRD {pinned.crd}, {pinned.source})"
        for f in found
        if not (resource.patch and "Required value" in f.message)  # a Kustomize patch leaves the rest to its base
    ]


POLICY = Policy(
    name="crd-schema-valid",
    description=(
        "A custom resource passes the structural schema of its CRD: required properties present, types and enums "
        "respected (the API server refuses it otherwise)."
    ),
    catalog="S26",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Set the field the finding names as the CRD version in apiVersion defines it (for Karpenter v1, nodeClassRef "
        "takes group, kind and name; apiVersion was the v1beta1 form). Unknown fields are pruned, not refused, and "
        "are not reported."
    ),
    resource_types=schema.resource_types(),
    check_resource=_check,
    rationale=(
        "The API server validates a custom resource against its CRD version's openAPIV3Schema on every create and "
        "update, after pruning unknown fields and applying defaults "
        "(https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#validation). "
        "The schemas are those of the pinned CRDs (policies/crd/schemas.json, regenerated from the reference folder by "
        "`python tools/crd_schemas.py --write`; each CRD's repository, tag and sha256 are in the file), checked with "
        "the jsonschema library; formats, patterns, bounds and embedded pod specs are left to other rules."
    ),
)
