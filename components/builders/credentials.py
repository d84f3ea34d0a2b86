"""Model credentials as KServe reads them: one ServiceAccount per model, listing the Hugging Face Secret.

KServe (v0.20.0) gives a storage initializer or a LocalModel download job ``HF_TOKEN`` only from a
Secret that is listed in ``secrets`` of the pod's ServiceAccount and holds the key ``HF_TOKEN``
(pkg/credentials/service_account_credentials.go ``CreateSecretVolumeAndEnvFromServiceAccount``
walks ``serviceAccount.Secrets``; ``mountSecretCredential`` matches ``hf.HFTokenKey``, which
pkg/credentials/hf/hf_secret.go defines as ``"HF_TOKEN"``). The env of ``kserve-container`` is not
copied to the init container, so the ServiceAccount is the only route.

A LocalModelCache is cluster-scoped and its download jobs run in the job namespace of the
``localModel`` config (``kserve-localmodel-jobs`` by default, charts/kserve-resources values); the
node agent looks the cache's ``serviceAccountName`` up *there*
(pkg/controller/v1alpha1/localmodelnode/controller.go ``injectCredentials`` with ``jobNs``), and only
when the cache names one (same file, "Only inject if credentials are explicitly configured"). No
chart creates that namespace, so the stack does, with its own ServiceAccount and Secret.
"""

from __future__ import annotations

from typing import Any, Optional

from ..builders.labels import recommended_labels
from ..config import ModelConfig

# KServe's key for a Hugging Face token (pkg/credentials/hf/hf_secret.go HFTokenKey, v0.20.0).
HF_TOKEN_KEY = "HF_TOKEN"
# Where KServe's LocalModel download jobs run (kserve-resources values kserve.localmodel.jobNamespace, v0.20.0).
LOCALMODEL_JOB_NAMESPACE = "kserve-localmodel-jobs"


def model_service_account_name(m: ModelConfig) -> str:
    """The ServiceAccount a model's pods (and its cache's download jobs) run as.

    An S3 model reads its mirror as the account its source names (EKS Pod Identity); every other
    model gets ``<name>-model``.
    """
    if m.source.type == "s3" and m.source.service_account:
        return str(m.source.service_account)
    return f"{m.name}-model"


def model_service_account(m: ModelConfig, namespace: str, hf_secret: Optional[str]) -> dict[str, Any]:
    """A model's ServiceAccount, listing the Hugging Face Secret when the stack has a token.

    No API token is mounted: vLLM never calls the Kubernetes API.
    """
    sa: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {
            "name": model_service_account_name(m),
            "namespace": namespace,
            "labels": recommended_labels(m.name, component="credentials"),
        },
        "automountServiceAccountToken": False,
    }
    if hf_secret:
        sa["secrets"] = [{"name": hf_secret}]
    return sa


def needs_model_service_account(m: ModelConfig) -> bool:
    """True for a model whose ServiceAccount the stack creates: every model but an S3 reader, which has its own.

    Only a back-end whose pods read credentials through their ServiceAccount asks (components/backends/kserve.py).
    """
    return m.source.type != "s3"


def credentials_secret(namespace: str, name: str) -> dict[str, Any]:
    """Metadata of a Secret holding one credential (the Hugging Face token under ``HF_TOKEN``, the API key
    under ``key``); the value is added by the component as a Pulumi secret, never rendered here."""
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name, "namespace": namespace, "labels": recommended_labels(name, component="credentials")},
        "type": "Opaque",
    }


def localmodel_job_namespace() -> dict[str, Any]:
    """The namespace KServe's LocalModel download jobs run in (no chart creates it)."""
    return {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": LOCALMODEL_JOB_NAMESPACE,
            "labels": recommended_labels(LOCALMODEL_JOB_NAMESPACE, component="namespace"),
        },
    }
