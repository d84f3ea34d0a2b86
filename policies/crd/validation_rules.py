"""S26: a custom resource passes its pinned CRD's structural schema and CEL rules (``x-kubernetes-validations``).

The API server refuses, on create, an object that breaks one of its CRD's rules: `pulumi up` stops
there, and a third-party manifest never applies. policies/crd/cel.py evaluates the rules of the CRDs
this project pins (policies/crd/cel_rules.json, with each CRD's source and tag) on every custom
resource the stacks render and every one `policies check` reads; policies/crd/schema.py checks the same objects'
``spec`` against the CRD version's structural schema (policies/crd/schemas.json): a required property missing, a
value of the wrong type or outside an enum. A Karpenter v1 NodePool whose ``nodeClassRef`` keeps the v1beta1 form
(``apiVersion``, no ``group``) is refused: karpenter.sh/v1 requires [group, kind, name]. A field the schema does not
define (set 15: a NodePool taint's ``operator``, souhailsegni/Deepseek_R1_VLLM-EKS) is refused under strict field
validation (kubectl's default since server-side field validation went GA in Kubernetes 1.27, KEP-2885: ``--validate``
defaults to "strict", kubernetes/kubectl v0.33.0 pkg/cmd/util/helpers.go:452-457) and pruned otherwise: mandatory where
the object's version is a GA or beta one, or an alpha one its CRD has frozen as deprecated (ray.io/v1alpha1: set 81
jinzishuai/jark-demo's RayService ``spec.serveConfig``, dropped from both versions at KubeRay v1.1.0; set 69
nohdol97/Nexus's InferenceService ``spec.predictor.container``), advice under a live alpha version, whose fields a
release newer than the pinned one may have added (LLMInferenceService v1alpha1, KEDA's v1alpha1); so are fields at the wrong level
(policies/crd/top_level.py: a KAITO Workspace's settings under a spec it does not have, a spec field written beside
spec), and a field the pinned version added
after a release clusters still run (a ServingRuntime's ``schedulerName``, KServe v0.17.0: set 15
bogdancstrike/k8s-llm-slm-hami installs v0.13.0).
"""

from __future__ import annotations

import re

from policies.crd import cel, schema, top_level
from policies.crd.unpinned_bounds import RESOURCE_TYPES as UNPINNED_TYPES
from policies.crd.unpinned_bounds import bound_findings
from policies.framework import Policy, Resource, unproven
from policies.kube import memoized, split_type


def outcome(resource: Resource) -> cel.Outcome:
    """The rules' verdict on one resource, computed once per evaluation (both S26 policies read it)."""
    return memoized(resource, "crd-cel", lambda r: cel.evaluate(r.type, r.props))


def _schema_findings(resource: Resource) -> list[str]:
    found = schema.evaluate(resource.type, resource.props)
    if not found:
        return []
    pinned = schema.source_of(resource.type)
    return [
        f"{f.where}: the API server refuses this object: {f.message} (schema of CRD {pinned.crd}, {pinned.source})"
        for f in found
        if not (resource.patch and "Required value" in f.message)  # a Kustomize patch leaves the rest to its base
    ]


# What an undefined field costs: the API server's two ways with it (server-side field validation, KEP-2885, GA in
# Kubernetes 1.27; kubectl's --validate defaults to strict).
_PRUNED = (
    "under strict field validation (kubectl's default --validate=strict) the API server refuses the object, "
    "otherwise it drops the field without a word and the setting never takes effect"
)
_REFUSED = (
    "kubectl apply validates strictly by default (--validate=strict, kubernetes/kubectl v0.33.0 "
    "pkg/cmd/util/helpers.go:452-457), so the API server refuses the object (strict decoding error: unknown field); "
    "applied without validation, the field is dropped and the setting never takes effect"
)


# Alpha versions a pinned CRD still serves but marks deprecated: no release adds fields to them (KubeRay v1.7.0
# ray-operator/config/crd/bases/ray.io_rayservices.yaml, ray.io_rayclusters.yaml, ray.io_rayjobs.yaml: v1alpha1
# `deprecated: true`), so a field the pinned schema lacks is one no current release has.
_FROZEN_ALPHA = frozenset({"ray.io/v1alpha1"})
_ALPHA_VERSION = re.compile(r"v[0-9]+alpha[0-9]+")


def _live_alpha(resource: Resource) -> bool:
    """Whether the object's apiVersion is an alpha version its CRD still develops (fields may be newer than the pin)."""
    # The type token (kubernetes:<apiVersion>:<kind>) picked the schema; a Pulumi resource's props may lack apiVersion.
    parts = resource.type.split(":") if isinstance(resource.type, str) else []
    api_version = parts[1] if len(parts) == 3 else None
    if not isinstance(api_version, str) or api_version in _FROZEN_ALPHA:
        return False
    return _ALPHA_VERSION.fullmatch(api_version.rsplit("/", 1)[-1]) is not None


def _undefined_fields(resource: Resource) -> list[str]:
    """Fields the CRD's structural schema does not define: refused (mandatory) under a GA, beta or frozen alpha version,
    advice under a live alpha one; advice too on fields the pinned version added after a release clusters still run
    (schema.NEWER_FIELDS)."""
    messages: list[str] = []
    if resource.type in schema.schemas_by_type():
        pinned = schema.source_of(resource.type)
        live_alpha = _live_alpha(resource)
        for where in schema.unknown_fields(resource.type, resource.props):
            if live_alpha:
                messages.append(
                    unproven(
                        f"{where}: not a field of the CRD's schema ({pinned.crd}, {pinned.source}); {_PRUNED}; remove "
                        f"it or move it where the schema defines it (advice: an alpha version a newer release may "
                        f"have extended)"
                    )
                )
            else:
                messages.append(
                    f"{where}: not a field of the CRD's schema ({pinned.crd}, {pinned.source}): {_REFUSED}; remove it "
                    f"or move it where the schema defines it"
                )
    kind = split_type(resource.type)[1]
    messages += [
        unproven(f"{where}: {kind} defines it only from {since} ({source}); on an earlier release {_PRUNED}")
        for where, since, source in schema.newer_fields(resource.type, resource.props)
    ]
    return messages + [unproven(m) for m in top_level.findings(resource)]


def _check(resource: Resource, config: dict) -> list[str]:
    return (
        _schema_findings(resource)
        + bound_findings(resource)
        + _undefined_fields(resource)
        + [
            f"{f.where}: the API server refuses this object: {f.rule.message} "
            f"(CEL rule of CRD {f.rule.crd}, {f.rule.source}: {f.rule.rule})"
            for f in outcome(resource).failed
        ]
    )


POLICY = Policy(
    name="crd-validation-rules",
    description=(
        "A custom resource passes its CRD's structural schema (required properties, types, enums, number bounds) and CEL validation "
        "rules (the API server refuses it otherwise)."
    ),
    catalog="S26",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Change the field the finding names so that the rule holds; the message is the CRD's own. For a missing "
        "required field, set it as the CRD version in apiVersion defines it (Karpenter v1's nodeClassRef takes group, "
        "kind and name). Rules that compare with the stored object (oldSelf) run only on update and are not checked here."
    ),
    resource_types=tuple(sorted({*cel.resource_types(), *schema.resource_types(), *UNPINNED_TYPES, *top_level.RESOURCE_TYPES})),
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
        "field the API server would default is listed by crd-validation-rules-unevaluated, never passed. The "
        "structural schema (https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#validation) "
        "is checked with the jsonschema library on the pinned CRDs' schemas pruned to required, type, enum and number "
        "bounds; the bounds of CRDs the reference folder lacks (KubeAI's Model) are read from their kubebuilder markers "
        "(policies/crd/unpinned_bounds.py) "
        "(policies/crd/schemas.json, `python tools/crd_schemas.py --write`); a field the schema does not define is "
        "refused under strict field validation (https://kubernetes.io/docs/reference/using-api/api-concepts/"
        "#field-validation; kubectl's --validate defaults to strict), pruned otherwise: mandatory under a GA, beta or "
        "deprecated alpha version, advice under an alpha version a newer release may have extended; "
        "formats, patterns, lengths and pod specs inside a CRD are left to other rules."
    ),
)
