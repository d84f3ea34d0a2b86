"""S33: the objects a controller creates from ours pass the API server's schema (kubernetes-validate).

Our own objects are validated in the tests; a derived object is new at plan time (KServe's predictor
Deployment built from our InferenceService and the installed ``inferenceservice-config``), so the plan
validates it against the real Kubernetes OpenAPI schema, strictly (an unknown field is an error).
"""

from __future__ import annotations

from policies.derived.common import subject
from policies.framework import Policy, Resource

# The schema release the plan validates derived objects against (kubernetes-validate ships one per minor).
DEFAULT_VERSION = "1.33"


def _check(resource: Resource, config: dict) -> list[str]:
    if resource.origin is None:
        return []  # our own objects are validated by the tests (tests/kube_schemas.py), third-party ones by their owners
    import kubernetes_validate  # type: ignore[import-untyped]

    try:
        kubernetes_validate.validate(dict(resource.props), str(config["kubernetesVersion"]), strict=True)
    except kubernetes_validate.ValidationError as exc:
        where = ".".join(str(p) for p in exc.path) or "(object)"
        return [f"{subject(resource)}: {where}: {exc.message}; the API server refuses it, so the model never serves"]
    except kubernetes_validate.SchemaNotFoundError as exc:  # an apiVersion/kind the release has no schema for
        return [f"{subject(resource)}: no Kubernetes {config['kubernetesVersion']} schema to validate it against ({exc})"]
    return []


POLICY = Policy(
    name="derived-object-valid",
    description="Each object a controller creates from ours (KServe's predictor Deployment and Service) passes Kubernetes' schema.",
    catalog="S33",
    severity="critical",
    enforcement="mandatory",
    remediation_steps=(
        "Read the field the message names in the derived object under derived/ of the plan's output, then fix the "
        "InferenceService (or the inferenceservice-config values) it comes from."
    ),
    config_schema={
        "kubernetesVersion": {
            "type": "string",
            "default": DEFAULT_VERSION,
            "description": f"The Kubernetes minor whose OpenAPI schema (from kubernetes-validate) derived objects are checked against; default {DEFAULT_VERSION}.",
        }
    },
    resource_types=("kubernetes:apps/v1:Deployment", "kubernetes:core/v1:Service", "kubernetes:core/v1:Pod"),
    check_resource=_check,
    rationale=(
        "A controller's object that the API server refuses never exists, and nothing in `pulumi up` says so "
        "(custom resources are not awaited). The schema is the Kubernetes OpenAPI document shipped by "
        "kubernetes-validate (https://github.com/willthames/kubernetes-validate). Issue 30."
    ),
)
