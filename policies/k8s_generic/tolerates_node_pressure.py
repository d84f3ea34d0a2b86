"""G59: a model server does not tolerate the taints that keep pods off nodes in trouble.

The node lifecycle controller taints a node whose kubelet reports a pressure condition: MemoryPressure ->
``node.kubernetes.io/memory-pressure``, DiskPressure -> ``node.kubernetes.io/disk-pressure``, PIDPressure ->
``node.kubernetes.io/pid-pressure``, all NoSchedule; a cordoned node carries ``node.kubernetes.io/unschedulable``; a
NotReady or unreachable node ``node.kubernetes.io/not-ready`` / ``unreachable`` NoExecute (kubernetes
pkg/controller/nodelifecycle/node_lifecycle_controller.go ``nodeConditionToTaintKeyStatusMap``;
https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/#taint-nodes-by-condition). A pod that
tolerates a pressure taint is scheduled onto a node already short of that resource, where the kubelet's eviction
manager then evicts pods by their use of it (https://kubernetes.io/docs/concepts/scheduling-eviction/
node-pressure-eviction/): a model server, which writes gigabytes of weights to the node's disk and holds them in host
memory while it loads, is placed there and evicted, or evicts others. A NoExecute toleration of not-ready/unreachable
without ``tolerationSeconds`` keeps the pod bound to a dead node for ever instead of the default 300 s
(DefaultTolerationSeconds admission), so the model is down until someone deletes the pod. ``operator: Exists`` with no
key tolerates every taint, these included. Set 34: Jneville0815/llama-k8s-platform infrastructure/kubernetes/
manifests/model-server/model-server-deployment.yaml@a26e477 tolerates disk-pressure:NoSchedule while it writes up to
30Gi of emptyDir.

Advice (the node may never come under pressure). Silent for a DaemonSet (the DaemonSet controller adds these
tolerations to its pods itself: pkg/controller/daemon/util/daemonset_util.go ``AddOrUpdateDaemonPodTolerations``),
for a toleration of any other key (a GPU or pool taint), and for a NoExecute toleration with ``tolerationSeconds``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Optional

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, split_type
from policies.reading.serving import model_servers

_PREFIX = "node.kubernetes.io/"
# NoSchedule taints of a node in trouble -> how messages name such a node.
_PRESSURE = {
    "memory-pressure": "under memory pressure",
    "disk-pressure": "under disk pressure",
    "pid-pressure": "under PID pressure",
    "unschedulable": "cordoned for a drain",
}
# NoExecute taints of a failed node: tolerated without tolerationSeconds, the pod is never moved off it.
_FAILED = ("not-ready", "unreachable")


def _tolerated(toleration: Mapping, key: str, effect: str) -> bool:
    """core/v1 Toleration.ToleratesTaint for a taint with no value: an empty effect matches every effect, an empty key
    with Exists every key; Equal needs an empty value."""
    if toleration.get("effect") not in (None, "", effect):
        return False
    wanted = toleration.get("key")
    operator = toleration.get("operator") or "Equal"
    if wanted in (None, ""):
        return operator == "Exists"
    if wanted != key:
        return False
    return operator == "Exists" or toleration.get("value") in (None, "")


def _findings(path: str, podspec: Mapping) -> list[str]:
    out: list[str] = []
    for i, toleration in enumerate(as_dict(t) for t in as_list(podspec.get("tolerations"))):
        where = f"{path}.tolerations[{i}]"
        blanket = toleration.get("key") in (None, "")
        pressured = [name for name in _PRESSURE if _tolerated(toleration, _PREFIX + name, "NoSchedule")]
        failed = [
            name
            for name in _FAILED
            if _tolerated(toleration, _PREFIX + name, "NoExecute") and toleration.get("tolerationSeconds") is None
        ]
        what = _what(toleration, blanket)
        if what is None or not (pressured or failed):
            continue
        text = ""
        if pressured:
            nodes = ", ".join(_PRESSURE[name] for name in pressured)
            evicts = [
                *(["the kubelet evicts pods by their use of what runs short"] if pressured != ["unschedulable"] else []),
                *(["the drain evicts every pod"] if "unschedulable" in pressured else []),
            ]
            text = f"{where}: {what}, so the scheduler places this model server on nodes {nodes}, where {' or '.join(evicts)}"
        if failed:
            stay = (
                f"with no tolerationSeconds it tolerates {' and '.join(_PREFIX + n for n in failed)}:NoExecute for ever, "
                f"so a pod on a failed node is never recreated elsewhere and the model stays down"
            )
            text = f"{text}; and {stay}" if text else f"{where}: {what}; {stay}"
        fix = "tolerate the taints of its own pool by key" if blanket else "remove the toleration"
        out.append(
            f"{text} (a model server writes its weights to the node's disk and holds them in host memory while it "
            f"loads); {fix} (only DaemonSets, to which the DaemonSet controller adds them, need these)"
        )
    return out


def _what(toleration: Mapping, blanket: bool) -> Optional[str]:
    if blanket:
        effect = toleration.get("effect")
        return f"operator Exists with no key tolerates every taint{f' of effect {effect}' if effect else ''}"
    key, effect = toleration.get("key"), toleration.get("effect") or "any effect"
    return f"tolerates {key}:{effect}" if isinstance(key, str) else None


def _check(resource: Resource, config: dict) -> list[str]:
    if split_type(resource.type)[1] == "DaemonSet":
        return []
    messages: list[str] = []
    seen: set[int] = set()
    for server in model_servers(resource):
        if id(server.podspec) in seen:
            continue
        seen.add(id(server.podspec))
        path = server.path.rsplit(".containers", 1)[0] if ".containers" in server.path else server.path
        messages += _findings(path, server.podspec)
    return messages


POLICY = Policy(
    name="model-server-avoids-troubled-nodes",
    description=(
        "A model server does not tolerate the taints Kubernetes puts on nodes in trouble: memory, disk or PID pressure, "
        "cordoned, or (with no tolerationSeconds) not-ready / unreachable; operator Exists with no key tolerates them "
        "all. Advice; silent for DaemonSets, which get them from their controller."
    ),
    rationale=(
        "The node lifecycle controller taints a node under memory, disk or PID pressure NoSchedule and a failed node "
        "NoExecute (https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/#taint-nodes-by-"
        "condition); a pod that tolerates them is placed on a node short of what a model server needs most and then "
        "evicted by the kubelet (https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/), or "
        "stays bound to a dead node. Only DaemonSet pods need these tolerations, and their controller adds them."
    ),
    catalog="G59",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Remove tolerations of node.kubernetes.io/memory-pressure, disk-pressure, pid-pressure and unschedulable from "
        "the model server's pod template; give not-ready / unreachable NoExecute tolerations a tolerationSeconds; "
        "replace operator: Exists without a key by the taints of the GPU pool (nvidia.com/gpu, the pool's own)."
    ),
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
)
