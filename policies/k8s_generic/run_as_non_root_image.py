"""G28: runAsNonRoot that the image cannot satisfy stops the container before it starts.

With ``runAsNonRoot: true`` and no ``runAsUser``, the kubelet reads the user from the image: an image that runs
as UID 0 (no USER in its Dockerfile) is refused with CreateContainerConfigError ("container has runAsNonRoot and
image will run as root"; kubernetes pkg/kubelet/kuberuntime/security_context_others.go verifyRunAsNonRoot).
``runAsUser: 0`` with ``runAsNonRoot: true`` is refused whatever the image ("runAsUser breaks non-root policy").
The container's securityContext wins over the pod's, field by field (core/v1 SecurityContext).

Which images run as root is data (components/image_users.toml, each row with the Dockerfile read): only those
repositories, matched exactly, make the finding; any other image may set a non-root USER.

A platform that assigns a UID at admission fills runAsUser itself: OpenShift's restricted SCCs set it from the
namespace's openshift.io/sa.scc.uid-range, so the same pod spec starts there. Manifests written for OpenShift say so
nowhere in the pod (the corpus has two: rh-aiservices-bu/llm-on-openshift's TGI Deployment, kcns008/llm-on-k8s's
OpenShift vLLM), so the image-user finding is advice (unproven), and silent when an *.openshift.io object is among
the files; ``runAsUser: 0`` with runAsNonRoot is refused everywhere and blocks.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import components
from components.images import image_repository
from components.parse_cache import read_toml
from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, container_label, containers, memoized, pod_specs, split_type, viewed_resources

TABLE = Path(components.__file__).resolve().with_name("image_users.toml")  # installed as llm_serving too


@cache
def image_users() -> dict[str, int]:
    """repository -> uid of components/image_users.toml, read once."""
    rows = read_toml(TABLE)["image"]
    return {str(row["repository"]): int(row["uid"]) for row in rows}


def _repository(image: str) -> str:
    repository = image_repository(image.strip())
    for prefix in ("docker.io/library/", "docker.io/", "index.docker.io/"):
        if repository.startswith(prefix):
            return repository[len(prefix) :]
    return repository


def _field(container: dict, podspec: dict, key: str) -> object:
    for context in (as_dict(container.get("securityContext")), as_dict(podspec.get("securityContext"))):
        if key in context and context[key] is not None:
            return context[key]
    return None


def _openshift_in(view: tuple) -> bool:
    return any(split_type(getattr(r, "type", ""))[0].endswith("openshift.io") for r in view)


def _on_openshift() -> bool:
    """True when an OpenShift object (route.openshift.io, security.openshift.io, ...) is among the files checked."""
    view = viewed_resources()
    return view is not None and memoized(view, "openshift_objects", _openshift_in)


def _check(resource: Resource, config: dict) -> list[str]:
    messages: list[str] = []
    for path, podspec in pod_specs(resource):
        for container in containers(podspec, init=True):
            if _field(container, podspec, "runAsNonRoot") is not True:
                continue
            label = container_label(path, container)
            user = _field(container, podspec, "runAsUser")
            if user == 0 and not isinstance(user, bool):
                messages.append(
                    f"{label}: runAsNonRoot: true with runAsUser: 0; the kubelet refuses to start the container "
                    f"(CreateContainerConfigError), so the model never serves; set a non-zero runAsUser"
                )
                continue
            image = container.get("image")
            if user is not None or not isinstance(image, str):
                continue
            uid = image_users().get(_repository(image))
            if uid == 0 and not _on_openshift():
                messages.append(
                    unproven(
                        f"{label}: runAsNonRoot: true without runAsUser, but the {_repository(image)} image runs as root "
                        f"(UID 0, no USER in its Dockerfile): the kubelet refuses to start the container "
                        f"(CreateContainerConfigError: image will run as root), so the model never serves; set runAsUser "
                        f"(and a writable HOME or cache directory for that user) or drop runAsNonRoot (advice: a platform "
                        f"that assigns a UID at admission, such as OpenShift's restricted SCC, would fill runAsUser)"
                    )
                )
    return messages


POLICY = Policy(
    name="run-as-non-root-image-user",
    description=(
        "runAsNonRoot: true needs a non-root user the kubelet can prove: a non-zero runAsUser, or an image that runs as "
        "a numeric non-root user (engine images known to run as root are listed with their Dockerfiles)."
    ),
    catalog="G28",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Set securityContext.runAsUser (and runAsGroup/fsGroup) to a non-zero UID and give that user writable cache "
        "directories (HF_HOME on a volume), or remove runAsNonRoot for images that run as root."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "kubernetes pkg/kubelet/kuberuntime/security_context_others.go verifyRunAsNonRoot: a container with "
        "runAsNonRoot and no runAsUser whose image user is UID 0 fails with CreateContainerConfigError. vLLM's "
        "vllm/vllm-openai image has no USER (vllm-project/vllm docker/Dockerfile), so it runs as root."
    ),
)
