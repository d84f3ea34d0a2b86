"""S37 kserve-s3-credentials: a KServe InferenceService whose model is on ``s3://`` gives the storage initializer a way
to the bucket's keys and endpoint (advice).

KServe's webhook gives the storage initializer S3 settings only from the predictor's ServiceAccount (``default`` when
``serviceAccountName`` is left out): the Secret the InferenceService's ``serving.kserve.io/storageSecretName``
annotation names, else every Secret the account lists, read for AWS keys and the ``serving.kserve.io/s3-endpoint``
annotation, and IRSA's ``eks.amazonaws.com/role-arn`` annotation (kserve v0.20.0
pkg/webhook/admission/pod/storage_initializer_injector.go:585 CreateSecretVolumeAndEnv;
pkg/credentials/service_account_credentials.go:211-215 the ``default`` account, :241 IRSA, :249-256 the annotation,
:261 the account's Secrets; pkg/credentials/s3/s3_secret.go:35-62 AWS_ENDPOINT_URL / S3_ENDPOINT from the Secret's
annotations). With none, boto3 in the initializer goes to AWS's own S3 endpoint with whatever the node offers: a
bucket on MinIO or another S3-compatible store, or a private bucket the node role cannot read, is never downloaded
and the predictor never starts. Spent set 77 wbe7/torchrt@2db3af4d inferenceservice.yaml (``s3://models/...`` with
no serviceAccountName, while the sibling inferenceservice-full.yaml names an account whose Secret points at MinIO;
labelled NONE blocking).

Advice: the cluster's own ``default`` account may list a Secret, KServe's inferenceservice-config may set S3 defaults,
and the node or pod role may read an AWS bucket, none of which the files show. Silent where the InferenceService names
a ServiceAccount or a storage Secret annotation, uses a ``storage`` spec (a key of the storage Secret), or where the
files define the ``default`` ServiceAccount of its namespace.
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.kube import annotations_of, as_dict, get, split_type, viewed_resources
from policies.models.storage_uri_versioned import storage_uris
from policies.reading.kserve_storage import ISVC
from policies.reading.serving import namespace_of

STORAGE_SECRET_ANNOTATION = "serving.kserve.io/storageSecretName"


def _default_account_defined(namespace: str) -> bool:
    """Whether the files define ServiceAccount ``default`` in the namespace (then its Secrets are what they show)."""
    for r in viewed_resources() or ():
        if split_type(getattr(r, "type", "")) == ("", "ServiceAccount") and isinstance(getattr(r, "props", None), dict):
            if get(r.props, "metadata", "name") == "default" and namespace_of(r, "default") == namespace:
                return True
    return False


def _check(resource: Resource, config: dict) -> list[str]:
    if split_type(resource.type) != ISVC or resource.patch or resource.template:
        return []
    predictor = as_dict(get(resource.props, "spec", "predictor"))
    if predictor.get("serviceAccountName") or STORAGE_SECRET_ANNOTATION in annotations_of(resource.props):
        return []
    if get(predictor, "model", "storage") is not None or predictor.get("storage") is not None:
        return []
    uri = next((u for _, u in storage_uris(resource) if u.strip().startswith("s3://")), None)
    if uri is None or "$" in uri or "{{" in uri:
        return []
    namespace = namespace_of(resource, "default")
    if _default_account_defined(namespace):
        return []
    return [
        unproven(
            f"storageUri {uri} is on S3 but the predictor names no serviceAccountName and no "
            f"{STORAGE_SECRET_ANNOTATION} annotation: KServe gives the storage initializer the keys and endpoint of the "
            f"Secrets of ServiceAccount default of namespace {namespace} only, so unless that account (outside these "
            f"files) lists them, it asks AWS's own S3 endpoint with the node's credentials, and a MinIO or private "
            f"bucket is never downloaded (the predictor never starts); name a ServiceAccount whose Secret holds the keys "
            f"(and the serving.kserve.io/s3-endpoint annotation for an S3-compatible store)"
        )
    ]


POLICY = Policy(
    name="kserve-s3-credentials",
    description="A KServe InferenceService whose model is on s3:// names a ServiceAccount (or a storage Secret) that "
    "gives the storage initializer the bucket's keys and endpoint (advice).",
    catalog="S37",
    severity="medium",
    enforcement="advisory",
    remediation_steps="Set spec.predictor.serviceAccountName to an account whose Secret holds AWS_ACCESS_KEY_ID / "
    "AWS_SECRET_ACCESS_KEY (annotated serving.kserve.io/s3-endpoint for MinIO), or annotate the InferenceService with "
    "serving.kserve.io/storageSecretName.",
    resource_types=("kubernetes:serving.kserve.io/v1beta1:InferenceService",),
    check_resource=_check,
    rationale=(
        "KServe's storage initializer reads S3 keys and endpoint only from the predictor's ServiceAccount Secrets (or the "
        "storageSecretName annotation); without them it calls AWS's endpoint with the node's identity."
    ),
)
