"""S52: a pod pulling an image from a registry that requires a login has a way to log in.

NVIDIA NIM images (``nvcr.io/nim/...``) are pulled only with NGC credentials: NVIDIA's own deployment scripts create a
``docker-registry`` Secret for nvcr.io with the user ``$oauthtoken`` and the NGC API key before any NIM runs
(NVIDIA/nim-deploy kserve/scripts/create-secrets.sh:23-26 at 3c6bcbd05f0c70612d2ed96112248e623035ed05). A pod with
such an image and neither ``imagePullSecrets`` nor a ``serviceAccountName`` (whose service account may list the
secret) gets no credentials from its manifest, so the kubelet's pull is refused and the pod stays in
ImagePullBackOff. Advice: a kubelet credential provider or a node's own registry login, which the files do not show,
may supply them. Set 12: g-rabah/namla-usecases- nim-deployment.yaml at 3f71b9a (an ngc-secret defined and never
referenced).

Red Hat's ``registry.redhat.io`` (the Red Hat AI Inference Server images, ``registry.redhat.io/rhaiis/vllm-cuda-rhel9``)
refuses an anonymous pull too: "registry.redhat.io ... requires authentication" with a Red Hat account or a registry
service account token, unlike ``registry.access.redhat.com`` (https://access.redhat.com/RegistryAuthentication). An
OpenShift cluster's global pull secret carries those credentials for every node, so a resource that shows it is meant
for OpenShift (a label or annotation under openshift.io or opendatahub.io: OpenShift AI's ServingRuntimes and
LLMInferenceServices) is not judged. Set 35: bhajian/redhat llm-d-vllm-aks/manifest/vllm-redhat-llama8b.yaml at
c23f3c4 (AKS, imagePullSecrets commented out).
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, containers, get, pod_specs

# Image prefixes of registries that refuse an anonymous pull (lower case), with who runs the registry and the Secret
# that logs in to it.
LOGIN_REGISTRIES = {
    "nvcr.io/nim/": ("NGC", "a docker-registry Secret for nvcr.io (user $oauthtoken, password the NGC API key)"),
    "registry.redhat.io/": (
        "Red Hat's registry.redhat.io",
        "a docker-registry Secret for registry.redhat.io (a Red Hat registry service account token)",
    ),
}
# Label and annotation domains that say a resource is meant for OpenShift, whose global pull secret logs every node in
# to registry.redhat.io.
_OPENSHIFT_MARKS = ("openshift.io", "opendatahub.io")


def _meant_for_openshift(resource: Resource) -> bool:
    keys = [k for field in ("labels", "annotations") for k in as_dict(get(resource.props, "metadata", field))]
    return any(mark in str(k) for k in keys for mark in _OPENSHIFT_MARKS)


def _check(resource: Resource, config: dict) -> list[str]:
    messages: list[str] = []
    for path, podspec in pod_specs(resource):
        images = [
            (str(c.get("image")), prefix)
            for c in containers(podspec, init=True, model=True)
            for prefix in LOGIN_REGISTRIES
            if str(c.get("image") or "").lower().startswith(prefix)
        ]
        if not images or as_list(podspec.get("imagePullSecrets")) or podspec.get("serviceAccountName"):
            continue
        image, prefix = images[0]
        if prefix == "registry.redhat.io/" and _meant_for_openshift(resource):
            continue
        who, secret = LOGIN_REGISTRIES[prefix]
        registry = prefix.split("/", 1)[0]
        where = f"{path}: " if path else ""
        messages.append(
            unproven(
                f"{where}image {image} comes from {who}, which refuses an anonymous pull, and the pod has neither "
                f"imagePullSecrets nor a serviceAccountName that could carry them, so the pull fails "
                f"(ImagePullBackOff) unless the nodes log in to {registry} themselves; reference {secret} in "
                f"imagePullSecrets"
            )
        )
    return messages


POLICY = Policy(
    name="registry-pull-auth",
    description="A pod whose image comes from a registry that requires a login (NVIDIA NIM's nvcr.io/nim, Red Hat's "
    "registry.redhat.io outside OpenShift) names "
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
        "NGC credentials (NVIDIA/nim-deploy kserve/scripts/create-secrets.sh:23-26 at 3c6bcbd); registry.redhat.io a Red "
        "Hat login (https://access.redhat.com/RegistryAuthentication), which OpenShift's global pull secret gives its "
        "nodes."
    ),
)
