"""Where a pod template lets its pods run: the one node it pins them to, if any.

A pod spec pins its pods to one node with ``spec.nodeName`` (the scheduler is bypassed: "If the nodeName field is
not empty, the scheduler ignores the Pod", https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodename),
a ``nodeSelector`` on ``kubernetes.io/hostname`` (a well-known label the kubelet sets to the node's name,
https://kubernetes.io/docs/reference/labels-annotations-taints/#kubernetesiohostname), or a required node affinity
whose every term (terms are ORed) pins that label to the same one value.
"""

from __future__ import annotations

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
