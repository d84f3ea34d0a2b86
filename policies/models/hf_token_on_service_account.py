"""G35 (credentials reaching the container; S17 pins the revision): a gated Hugging Face model downloaded by KServe must find HF_TOKEN where KServe looks for it.

KServe v0.20.0 gives its storage initializer (and a LocalModelCache's download job) ``HF_TOKEN``
only from a Secret that holds the key ``HF_TOKEN`` and is either named by the InferenceService's
``serving.kserve.io/secretName`` annotation or listed in ``secrets`` of the pod's ServiceAccount
(``default`` unless ``serviceAccountName`` says otherwise): pkg/credentials/service_account_credentials.go
``CreateSecretVolumeAndEnvFromServiceAccount`` (lines 248-266) and ``mountSecretCredential`` (line 331,
key ``hf.HFTokenKey`` = "HF_TOKEN", pkg/credentials/hf/hf_secret.go:24). An ``HF_TOKEN`` env on the
serving container is not copied to the init container, and a Secret keyed ``token`` is skipped. A
LocalModelCache injects credentials only when it names a ServiceAccount (or storage), looked up in
KServe's job namespace (pkg/controller/v1alpha1/localmodelnode/controller.go:173-179, 266-272).
A gated model then fails its download with 401 and the pod never starts.

Read from: an InferenceService's ``storageUri`` (``spec.predictor.model.storageUri``,
``spec.predictor.storageUri``) or its container's ``STORAGE_URI`` env (KServe's custom-container
form, constants.go CustomSpecStorageUriEnvVarKey); a LocalModelCache's ``sourceModelUri``. The
ServiceAccounts and Secrets are those of the same stack (or manifest set); an account or Secret
named but defined outside the set is not judged (KServe's own Hugging Face sample names an account
its docs create elsewhere), while ``default`` lists no Secret unless patched.
"""

from __future__ import annotations

from typing import Any

from policies.framework import Policy, Resource
from policies.kube import annotations_of, as_dict, as_list, get, split_type
from policies.reading.serving import namespace_of

HF_TOKEN_KEY = "HF_TOKEN"
SECRET_NAME_ANNOTATION = "serving.kserve.io/secretName"
JOB_NAMESPACE = "kserve-localmodel-jobs"


def _storage_uri(isvc: Resource) -> str | None:
    predictor = as_dict(get(isvc.props, "spec", "predictor"))
    for uri in (get(predictor, "model", "storageUri"), predictor.get("storageUri")):
        if isinstance(uri, str):
            return uri
    for container in as_list(predictor.get("containers")):
        for env in as_list(as_dict(container).get("env")):
            if as_dict(env).get("name") == "STORAGE_URI" and isinstance(as_dict(env).get("value"), str):
                return env["value"]
    return None


def _gated(uri: Any, prefixes: list[str]) -> bool:
    return isinstance(uri, str) and uri.startswith("hf://") and any(uri[5:].startswith(p) for p in prefixes)


def _secret_keys(secret: Resource) -> set[str]:
    return set(as_dict(get(secret.props, "data"))) | set(as_dict(get(secret.props, "stringData")))


def _index(resources: list[Resource]) -> tuple[dict, dict]:
    accounts, secrets = {}, {}
    for r in resources:
        group, kind = split_type(r.type)
        key = (namespace_of(r), get(r.props, "metadata", "name"))
        if not all(isinstance(part, (str, type(None))) for part in key):
            continue  # a name or namespace that is not text (a mutated manifest): no account or Secret to join
        if group == "" and kind == "ServiceAccount":
            accounts[key] = r
        elif group == "" and kind == "Secret":
            secrets[key] = r
    return accounts, secrets


def _has_token(secrets: dict, namespace: Any, name: Any) -> bool | None:
    """True/False for a Secret of the set; None for one defined elsewhere (not judged), or named by no text."""
    if not isinstance(name, str) or not isinstance(namespace, (str, type(None))):
        return None
    secret = secrets.get((namespace, name))
    if secret is None:
        return None
    return HF_TOKEN_KEY in _secret_keys(secret)


def _account_has_token(accounts: dict, secrets: dict, namespace: Any, account: str) -> bool:
    """False only when the set shows the account without such a Secret (or the account is "default",
    which lists none unless patched); an account or Secret defined outside the set is not judged."""
    if not isinstance(account, str) or not isinstance(namespace, (str, type(None))):
        return True  # an account named by no text (a mutated manifest): not judged
    sa = accounts.get((namespace, account))
    if sa is None:
        return account != "default"
    found = [_has_token(secrets, namespace, as_dict(ref).get("name")) for ref in as_list(get(sa.props, "secrets"))]
    return any(f is not False for f in found)


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    prefixes = [p for p in config["gatedPrefixes"] if isinstance(p, str)]
    accounts, secrets = _index(resources)
    findings: list[tuple[str, str]] = []
    for r in resources:
        group, kind = split_type(r.type)
        name = get(r.props, "metadata", "name")
        if group == "serving.kserve.io" and kind == "InferenceService":
            uri = _storage_uri(r)
            if not _gated(uri, prefixes):
                continue
            ns = namespace_of(r)
            named = annotations_of(r.props).get(SECRET_NAME_ANNOTATION)
            if named is not None:
                if _has_token(secrets, ns, named) is not False:
                    continue
                findings.append(
                    (
                        r.name,
                        f"InferenceService {name}: {uri} is gated and the Secret {named} that "
                        f"{SECRET_NAME_ANNOTATION} names holds no {HF_TOKEN_KEY} key; KServe's storage "
                        f"initializer downloads without a token and gets 401",
                    )
                )
                continue
            account = get(r.props, "spec", "predictor", "serviceAccountName") or "default"
            if not _account_has_token(accounts, secrets, ns, account):
                findings.append(
                    (
                        r.name,
                        f"InferenceService {name}: {uri} is gated and its ServiceAccount {account} lists no "
                        f"Secret with the key {HF_TOKEN_KEY}; KServe's storage initializer takes the token "
                        f"only from there (an HF_TOKEN env on the container is not copied), so the "
                        f"download gets 401",
                    )
                )
        elif group == "serving.kserve.io" and kind == "LocalModelCache":
            uri = get(r.props, "spec", "sourceModelUri")
            if not _gated(uri, prefixes):
                continue
            account = get(r.props, "spec", "serviceAccountName")
            if get(r.props, "spec", "storage") is not None:
                continue  # credentials from a storage key: another route KServe reads
            job_ns = config["jobNamespace"]
            elsewhere = (
                isinstance(account, str) and (job_ns, account) not in accounts and any(n == account for (_, n) in accounts)
            )
            if not isinstance(account, str) or elsewhere or not _account_has_token(accounts, secrets, job_ns, account):
                if not isinstance(account, str):
                    who = "it names no ServiceAccount"
                elif elsewhere:
                    who = f"its ServiceAccount {account} exists only outside {job_ns}, where KServe looks it up"
                else:
                    who = f"its ServiceAccount {account} in {job_ns} lists no Secret with the key {HF_TOKEN_KEY}"
                findings.append(
                    (
                        r.name,
                        f"LocalModelCache {name}: {uri} is gated and {who}; KServe injects download "
                        f"credentials only from the ServiceAccount a cache names, looked up in its job "
                        f"namespace, so every node's download gets 401",
                    )
                )
    return findings


POLICY = Policy(
    name="kserve-hf-token-on-service-account",
    description="A gated hf:// model KServe downloads must have a Secret keyed HF_TOKEN on its ServiceAccount (or named by serving.kserve.io/secretName); a gated LocalModelCache must name such a ServiceAccount.",
    rationale="KServe reads Hugging Face credentials only from Secrets listed on the pod's ServiceAccount and keyed HF_TOKEN (kserve v0.20.0 pkg/credentials/service_account_credentials.go, pkg/credentials/hf/hf_secret.go), and a LocalModelCache's download job gets them only when the cache names a ServiceAccount (pkg/controller/v1alpha1/localmodelnode/controller.go). Gated repositories (Llama, Mistral, Gemma) answer 401 to an anonymous download, and the InferenceService never becomes ready.",
    catalog="G35",
    severity="high",
    enforcement="mandatory",
    remediation_steps="Create a Secret with the key HF_TOKEN, list it under `secrets:` of a ServiceAccount, and set "
    "spec.predictor.serviceAccountName to it (or annotate the InferenceService with "
    "serving.kserve.io/secretName). For a LocalModelCache set spec.serviceAccountName to an account in "
    "KServe's job namespace (kserve-localmodel-jobs) that lists such a Secret.",
    config_schema={
        "gatedPrefixes": {
            "type": "array",
            "items": {"type": "string"},
            "default": ["meta-llama/", "mistralai/", "google/gemma"],
            "description": "Hugging Face repository prefixes treated as gated (after hf://). Default meta-llama/, mistralai/, google/gemma.",
        },
        "jobNamespace": {
            "type": "string",
            "default": JOB_NAMESPACE,
            "description": "KServe's LocalModel job namespace (inferenceservice-config localModel.jobNamespace). Default kserve-localmodel-jobs.",
        },
    },
    check_stack=_check,
)
