"""Custom resources whose fields sit at the wrong level: under a ``spec`` the kind does not have, or beside it (S26).

Most CRDs put their settings under ``spec``; a few put them at the top of the object. KAITO's ``Workspace`` has no
``spec``: ``resource``, ``inference`` and ``tuning`` are top-level fields (kaito-project/kaito v0.12.0
api/v1alpha1/workspace_types.go:201-203, api/v1beta1/workspace_types.go:302-304; the CRD's openAPIV3Schema lists only
apiVersion, inference, kind, metadata, resource, status and tuning, config/crd/bases/kaito.sh_workspaces.yaml:45-294
for v1alpha1, :422-760 for v1beta1). A Workspace written with them under ``spec`` is refused under strict field
validation (kubectl's default) for the unknown field; otherwise the API server prunes ``spec``, and KAITO's webhook
refuses what is left: "Either Inference or Tuning must be specified, not neither" (api/v1alpha1/workspace_validation.go
:105-107, api/v1beta1/workspace_validation.go:164-166). Set 33: ctava-msft/apim-mcp-aks-kaito
k8s/kaito-workspace.yaml@3fbdb54.

The reverse form, on a CRD the pack pins (policies/crd/schemas.json): a field its ``spec`` defines written at the top of
the object (an InferenceService's ``predictor`` beside ``spec``), which the API server refuses or prunes alike.

Both are advice, as every unknown field is (crd-validation-rules): the cluster's CRD version may differ, and the KAITO
CRD is not pinned here, only read at a tag.
"""

from __future__ import annotations

from policies.crd import schema
from policies.framework import Resource
from policies.kube import split_type

_SOURCE = "kaito-project/kaito v0.12.0"
# (group, kind) of a CRD with no spec -> (its top-level fields, where they are read, the admission rule it enforces on
# them: (message, where it is read)).
TOP_LEVEL_KINDS: dict[tuple[str, str], tuple[tuple[str, ...], str, tuple[str, str]]] = {
    ("kaito.sh", "Workspace"): (
        ("resource", "inference", "tuning"),
        f"{_SOURCE} api/v1alpha1/workspace_types.go:201-203, api/v1beta1/workspace_types.go:302-304",
        (
            "Either Inference or Tuning must be specified, not neither",
            f"{_SOURCE} api/v1alpha1/workspace_validation.go:105-107, api/v1beta1/workspace_validation.go:164-166",
        ),
    ),
}
RESOURCE_TYPES = ("kubernetes:kaito.sh/v1alpha1:Workspace", "kubernetes:kaito.sh/v1beta1:Workspace")
# What every object may carry at its top (TypeMeta, ObjectMeta, spec and status).
_OBJECT_FIELDS = frozenset({"apiVersion", "kind", "metadata", "spec", "status"})
_PRUNED = (
    "under strict field validation (kubectl's default --validate=strict) the API server refuses the object, otherwise "
    "it drops the field without a word"
)


def _spec_less(kind: tuple[str, str], props: dict) -> list[str]:
    fields, where, (rule, rule_source) = TOP_LEVEL_KINDS[kind]
    spec = props.get("spec")
    chosen = {"inference", "tuning"} & {f for f in fields if props.get(f) is not None}
    refused = (
        f'the {kind[1]} has neither inference nor tuning, which KAITO\'s admission webhook refuses ("{rule}", '
        f"{rule_source}): no model is deployed"
    )
    if spec is not None:
        nested = [f for f in fields if isinstance(spec, dict) and spec.get(f) is not None]
        written = f" ({', '.join(nested)} written there)" if nested else ""
        then = "what spec holds never takes effect" if chosen else f"once it is dropped {refused}"
        return [
            f"spec: {kind[1]} ({kind[0]}) has no spec{written}: {', '.join(fields)} are top-level fields ({where}); "
            f"{_PRUNED}, and {then}; move them to the top level of the object"
        ]
    return [] if chosen else [f"{', '.join(fields)}: {refused}; set inference (or tuning) at the top level"]


def findings(resource: Resource) -> list[str]:
    """Advice on fields at the wrong level of a custom resource (see the module docstring): messages, unmarked."""
    props = resource.props
    if not isinstance(props, dict) or resource.patch or resource.template:
        return []
    kind = split_type(resource.type)
    if kind in TOP_LEVEL_KINDS:
        return _spec_less(kind, props)
    if resource.type not in schema.schemas_by_type():
        return []
    defined = schema.schemas_by_type()[resource.type].spec.get("properties") or {}
    misplaced = sorted(k for k in props if k not in _OBJECT_FIELDS and k in defined)
    return [
        f"{key}: written at the top of the object, but it is a field of spec in the CRD's schema "
        f"({schema.source_of(resource.type).crd}, {schema.source_of(resource.type).source}); {_PRUNED}, so the "
        f"setting never takes effect; move it under spec"
        for key in misplaced
    ]
