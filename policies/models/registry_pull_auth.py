"""S52: a pod pulling an image from a registry that requires a login has a way to log in.

NVIDIA NIM images (``nvcr.io/nim/...``) are pulled only with NGC credentials: NVIDIA's own deployment scripts create a
``docker-registry`` Secret for nvcr.io with the user ``$oauthtoken`` and the NGC API key before any NIM runs
(NVIDIA/nim-deploy kserve/scripts/create-secrets.sh:23-26 at 3c6bcbd05f0c70612d2ed96112248e623035ed05). A pod with
such an image and neither ``imagePullSecrets`` nor a ``serviceAccountName`` (whose service account may list the
secret) gets no credentials from its manifest, so the kubelet's pull is refused and the pod stays in
ImagePullBackOff. Advice: a kubelet credential provider or a node's own registry login, which the files do not show,
may supply them. Set 12: g-rabah/namla-usecases- nim-deployment.yaml at 3f71b9a (an ngc-secret defined and never
referenced).
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_list, containers, pod_specs

# Image prefixes of registries that refuse an anonymous pull (lower case).
LOGIN_REGISTRIES = ("nvcr.io/nim/",)


def _check(resource: Resource, config: dict) -> list[str]:
    messages: list[str] = []
    for path, podspec in pod_specs(resource):
        images = [
            str(c.get("image"))
            for c in containers(podspec, init=True, model=True)
            if str(c.get("image") or "").lower().startswith(LOGIN_REGISTRIES)
        ]
        if not images or as_list(podspec.get("imagePullSecrets")) or podspec.get("serviceAccountName"):
            continue
        where = f"{path}: " if path else ""
        messages.append(
            unproven(
                f"{where}image {images[0]} comes from NGC, which refuses an anonymous pull, and the pod has neither "
                f"imagePullSecrets nor a serviceAccountName that could carry them, so the pull fails "
                f"(ImagePullBackOff) unless the nodes log in to nvcr.io themselves; reference a docker-registry Secret "
                f"for nvcr.io (user $oauthtoken, password the NGC API key) in imagePullSecrets"
            )
        )
    return messages


POLICY = Policy(
    name="registry-pull-auth",
    description="A pod whose image comes from a registry that requires a login (NVIDIA NIM's nvcr.io/nim) names "
    "imagePullSecrets or a service account that can carry them (advice).",
    catalog="S52",
    severity="high",
    enforcement="advisory",
    remediation_steps=(
        "Create a docker-registry Secret for nvcr.io (kubectl create secret docker-registry ngc-secret "
        "--docker-server=nvcr.io --docker-username='$oauthtoken' --docker-password=<NGC API key>) and list it in the pod "
        "spec's imagePullSecrets, or in the imagePullSecrets of the pod's service account."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "The kubelet pulls with the pod's imagePullSecrets and those of its service account "
        "(https://kubernetes.io/docs/concepts/containers/images/#specifying-imagepullsecrets-on-a-pod); NIM images need "
        "NGC credentials (NVIDIA/nim-deploy kserve/scripts/create-secrets.sh:23-26 at 3c6bcbd)."
    ),
)
