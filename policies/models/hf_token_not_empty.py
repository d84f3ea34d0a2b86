"""S28: a Hugging Face token is never an empty literal.

``env: [{name: HF_TOKEN, value: ""}]`` is a placeholder someone meant to fill: the Hub client then sends no
token (huggingface_hub treats an empty HF_TOKEN as none), so a gated model (Llama, Gemma, Mistral's) fails
with 401 minutes into the start, after the GPU node was bought, and the empty literal also shadows a token
the image or a mounted file would have supplied. no-literal-secret-env (G35) passes it: there is no value to
leak. The careful form takes the token from a Secret (``valueFrom.secretKeyRef``) or leaves the variable out.

A token taken from a Secret that the same files commit with an empty value (``HF_TOKEN: ""`` under ``data`` or
``stringData``; policies/reading/secrets.py joins it by name and namespace), by ``secretKeyRef`` or ``envFrom``, is the
same empty token once the files are applied as they stand. Advice: such a file is often a reference the README says to
replace with ``kubectl create secret`` (spent set 23, aubree-lianto/Orchard k8s/secrets.yaml at
376d28461652927a4da42fba6580a3e88bf61b0f: "DO NOT fill in real values here").
"""

from __future__ import annotations

from typing import Any, Optional

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, container_label, containers, get, pod_specs
from policies.reading.secrets import secret_values
from policies.reading.serving import namespace_of

# The variables huggingface_hub reads for the token (constants.py: HF_TOKEN, and the legacy HUGGING_FACE_HUB_TOKEN).
TOKEN_VARIABLES = ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HUGGINGFACE_HUB_TOKEN", "HF_API_TOKEN")


def _empty_in_secret(namespace: Optional[str], secret: Any, key: Any) -> bool:
    values = secret_values(namespace, secret)
    value = values.get(str(key)) if values is not None else None
    return isinstance(value, str) and not value.strip()


def _from_empty_secrets(namespace: Optional[str], label: str, container: dict) -> list[str]:
    """Advice for each token variable the container takes from a Secret of the files whose committed value is empty."""
    found = []
    for item in (as_dict(i) for i in as_list(container.get("env"))):
        ref = as_dict(get(item, "valueFrom", "secretKeyRef"))
        if item.get("name") in TOKEN_VARIABLES and _empty_in_secret(namespace, ref.get("name"), ref.get("key")):
            found.append((str(item["name"]), f"key {ref.get('key')} of Secret {ref.get('name')}"))
    for source in (as_dict(s) for s in as_list(container.get("envFrom"))):
        secret = get(source, "secretRef", "name")
        prefix = source.get("prefix") if isinstance(source.get("prefix"), str) else ""
        for key in TOKEN_VARIABLES:
            if prefix == "" and _empty_in_secret(namespace, secret, key):
                found.append((key, f"Secret {secret} (envFrom)"))
    return [
        unproven(
            f"{label}: env {name} comes from {where}, whose committed value is empty: applied as these files stand, "
            f"the token is an empty string, the Hub client sends none and a gated model fails with 401 at start; "
            f"create the Secret out of band (and leave it out of the applied files) or fill it from a secret store"
        )
        for name, where in found
    ]


def _check(resource: Resource, config: dict) -> list[str]:
    messages = []
    namespace = namespace_of(resource)
    for path, podspec in pod_specs(resource):
        for container in containers(podspec, init=True):
            messages += _from_empty_secrets(namespace, container_label(path, container), container)
            for item in as_list(container.get("env")):
                item = as_dict(item)
                name = item.get("name")
                if name not in TOKEN_VARIABLES or "valueFrom" in item or "value" not in item:
                    continue
                value = item.get("value")
                if value is None or (isinstance(value, str) and not value.strip()):
                    messages.append(
                        f"{container_label(path, container)}: env {name} is an empty literal, so the Hub client sends no "
                        f"token and a gated model fails with 401 at start; take it from valueFrom.secretKeyRef, or drop "
                        f"the variable for a public model"
                    )
    return messages


POLICY = Policy(
    name="hf-token-not-empty",
    description="A Hugging Face token variable (HF_TOKEN, HUGGING_FACE_HUB_TOKEN) is never an empty literal.",
    catalog="S28",
    severity="medium",
    enforcement="mandatory",
    remediation_steps=(
        "Set `valueFrom: {secretKeyRef: {name: hf-token, key: token}}` on the variable (a Secret created out of band), "
        "or remove the variable when the model is public."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "An empty HF_TOKEN is read as no token (https://huggingface.co/docs/huggingface_hub/package_reference/"
        "environment_variables#hftoken), so gated repositories answer 401 and the server exits after the node, the "
        "image pull and the queue wait; the placeholder passes review because it holds no secret to flag."
    ),
)
