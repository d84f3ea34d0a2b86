"""G55: an image built for one CPU architecture runs only on nodes of that architecture (advice).

Registries publish per-architecture builds under their own tags or repositories (``vllm/vllm-openai-cpu:v0.19.1-arm64``,
``sapcc/pause-amd64:3.1``, ``arm64v8/ubuntu``); such a reference names a single-platform image, not a multi-arch
index, so the runtime pulls that one build whatever the node is, and its binaries fail on another architecture
("exec format error", the kernel's ENOEXEC for a foreign ELF machine). The scheduler keeps a pod to nodes of one
architecture only when the pod says so: the well-known node label ``kubernetes.io/arch`` (set by the kubelet from
GOARCH, https://kubernetes.io/docs/reference/labels-annotations-taints/#kubernetes-io-arch) in a nodeSelector or
node affinity. Set 20: Coosis/k8s-vllm-router benchmarks/baseline/3_pods_20260423/deployment.yaml (an ``-arm64``
tag, no selector).

Silent where the pod names the architecture (nodeSelector, node affinity, or a toleration of the
``kubernetes.io/arch`` taint GKE puts on Arm nodes) or pins itself to a node pool, instance type or host whose
architecture the author chose (GKE/EKS/AKS/Karpenter pool labels, ``node.kubernetes.io/instance-type``,
``kubernetes.io/hostname``). Advice: a cluster whose nodes are all of that architecture runs it fine.
"""

from __future__ import annotations

import json
import re

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, container_label, containers, get, pod_specs

_ARCHES = {"arm64": "arm64", "aarch64": "arm64", "arm64v8": "arm64", "amd64": "amd64", "x86_64": "amd64", "x86-64": "amd64"}
_MARK = re.compile(r"(?:^|[-_.])(arm64v8|arm64|aarch64|amd64|x86_64|x86-64)(?=$|[-_.])")
# Node labels that pin a pod to a pool, an instance type or a host whose architecture its author chose.
_POOL_KEYS = (
    "kubernetes.io/arch",
    "beta.kubernetes.io/arch",
    "cloud.google.com/gke-nodepool",
    "eks.amazonaws.com/nodegroup",
    "karpenter.sh/nodepool",
    "karpenter.sh/provisioner-name",
    "kubernetes.azure.com/agentpool",
    "agentpool",
    "node.kubernetes.io/instance-type",
    "beta.kubernetes.io/instance-type",
    "karpenter.k8s.aws/instance-family",
    "kubernetes.io/hostname",
)


def image_arch(image: object) -> str | None:
    """The one architecture an image reference names in its tag or repository (``-arm64``, ``amd64``), or None."""
    if not isinstance(image, str) or "@sha256:" in image:
        return None
    last = image.rsplit("/", 1)[-1]
    repository, _, tag = last.partition(":")
    namespace = image.rsplit("/", 1)[0] if "/" in image else ""
    for word in (tag, repository, namespace.rsplit("/", 1)[-1]):
        found = _MARK.search(word.lower())
        if found:
            return _ARCHES[found.group(1)]
    return None


def _pinned(podspec: dict) -> bool:
    """True when the pod spec names its architecture or pins itself to chosen nodes (module docstring)."""
    text = json.dumps([podspec.get("nodeSelector"), podspec.get("affinity"), podspec.get("tolerations")], default=str)
    keys = set(as_dict(podspec.get("nodeSelector")))
    return any(key in keys or f'"{key}"' in text for key in _POOL_KEYS) or bool(get(podspec, "nodeName"))


def _check(resource: Resource, config: dict) -> list[str]:
    messages: list[str] = []
    for path, podspec in pod_specs(resource):
        if _pinned(podspec):
            continue
        for container in containers(podspec, init=True):
            arch = image_arch(container.get("image"))
            if arch is None:
                continue
            messages.append(
                unproven(
                    f"{container_label(path, container)}: image {container.get('image')} is an {arch}-only build (its "
                    f"name says so) and the pod has no kubernetes.io/arch nodeSelector or node affinity, so on a node "
                    f"of another architecture it fails with 'exec format error'; add nodeSelector "
                    f"kubernetes.io/arch: {arch}, or use the multi-arch tag"
                )
            )
    return messages


POLICY = Policy(
    name="arch-image-has-arch-selector",
    description="A pod whose image is a single-architecture build (-arm64, -amd64 tags or repositories) selects nodes of that architecture.",
    catalog="G55",
    severity="low",
    enforcement="advisory",
    remediation_steps="Add nodeSelector kubernetes.io/arch: <arch> (or node affinity on it), or use the image's multi-arch tag.",
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "A single-platform image runs only on its architecture (exec format error elsewhere), and only the "
        "kubernetes.io/arch node label, selected by the pod, keeps it there "
        "(https://kubernetes.io/docs/reference/labels-annotations-taints/#kubernetes-io-arch). Advice: a cluster of "
        "one architecture runs it."
    ),
)
