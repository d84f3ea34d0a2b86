"""Where a pod template lets its pods run: the one node it pins them to, if any.

A pod spec pins its pods to one node with ``spec.nodeName`` (the scheduler is bypassed: "If the nodeName field is
not empty, the scheduler ignores the Pod", https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename),
a ``nodeSelector`` on ``kubernetes.io/hostname`` (a well-known label the kubelet sets to the node's name,
https://kubernetes.io/docs/reference/labels-annotations-taints/#kubernetesiohostname), or a required node affinity
whose every term (terms are ORed) pins that label to the same one value.
"""

from __future__ import annotations

import posixpath
from typing import Any, Optional

from policies.kube import as_dict, as_list, get

HOSTNAME = "kubernetes.io/hostname"


def pinned_node(podspec: Any) -> Optional[str]:
    """The one node a pod spec pins its pods to (its name), or None when the scheduler may choose among several."""
    podspec = as_dict(podspec)
    name = podspec.get("nodeName")
    if isinstance(name, str) and name:
        return name
    selected = get(podspec, "nodeSelector", HOSTNAME)
    if isinstance(selected, str):
        return selected
    terms = as_list(
        get(podspec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
    )
    pins = [_pinned_host(term) for term in terms]
    if pins and None not in pins and len(set(pins)) == 1:
        return pins[0]
    return None


def _pinned_host(term: Any) -> Optional[str]:
    """The one node a node-selector term pins (kubernetes.io/hostname In [one name]), else None."""
    for expr in as_list(as_dict(term).get("matchExpressions")):
        expr = as_dict(expr)
        values = as_list(expr.get("values"))
        if expr.get("key") == HOSTNAME and expr.get("operator") == "In" and len(values) == 1 and isinstance(values[0], str):
            return values[0]
    return None


def placed(podspec: Any) -> bool:
    """True when the pod spec says anything of where its pods go: a nodeName, a nodeSelector, or a required node
    affinity (a class of nodes or one node; preferences and tolerations are not placement)."""
    podspec = as_dict(podspec)
    if podspec.get("nodeName") or as_dict(podspec.get("nodeSelector")):
        return True
    required = get(podspec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
    return bool(as_list(get(required, "nodeSelectorTerms")))


# Host folders every Linux node of a cluster has (the operating system's, the kubelet's and the container runtime's):
# a pod that mounts one reads its node's own on purpose (/etc/localtime, /dev/dri, /var/log, /lib/modules), so where
# the pod lands does not decide whether it is there.
_SYSTEM_DIRS = (
    "/bin", "/boot", "/dev", "/etc", "/lib", "/lib64", "/opt/cni", "/proc", "/run", "/sbin", "/sys", "/tmp", "/usr",
    "/var/lib/cni", "/var/lib/containerd", "/var/lib/docker", "/var/lib/kubelet", "/var/log", "/var/run",
)  # fmt: skip
# Home folders: what lies there was put on one machine by its user (/Users is macOS's, a workstation's, not a node's).
_HOME_DIRS = ("/Users/", "/home/", "/root/")


def system_path(path: str) -> bool:
    """True for a host path every node has: one of the system folders above (or below one, or the root itself)."""
    clean = posixpath.normpath(path) if path else ""
    return clean == "/" or any(clean == d or clean.startswith(d + "/") for d in _SYSTEM_DIRS)


def home_path(path: str) -> bool:
    """True for a host path inside a user's home folder (/Users/NAME/..., /home/NAME/..., /root/...)."""
    return posixpath.normpath(path).startswith(_HOME_DIRS) if path else False
