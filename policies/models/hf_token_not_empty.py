"""S28: a Hugging Face token is never an empty literal.

``env: [{name: HF_TOKEN, value: ""}]`` is a placeholder someone meant to fill: the Hub client then sends no
token (huggingface_hub treats an empty HF_TOKEN as none), so a gated model (Llama, Gemma, Mistral's) fails
with 401 minutes into the start, after the GPU node was bought, and the empty literal also shadows a token
the image or a mounted file would have supplied. no-literal-secret-env (G35) passes it: there is no value to
leak. The careful form takes the token from a Secret (``valueFrom.secretKeyRef``) or leaves the variable out.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, container_label, containers, pod_specs

# The variables huggingface_hub reads for the token (constants.py: HF_TOKEN, and the legacy HUGGING_FACE_HUB_TOKEN).
TOKEN_VARIABLES = ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HUGGINGFACE_HUB_TOKEN", "HF_API_TOKEN")


def _check(resource: Resource, config: dict) -> list[str]:
    messages = []
    for path, podspec in pod_specs(resource):
        for container in containers(podspec, init=True):
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
