"""S42: a model server is not pinned to one node.

``spec.nodeName``, a ``nodeSelector`` on ``kubernetes.io/hostname`` or a required node affinity that allows one
hostname (policies.reading.placement) leaves the scheduler one node to choose from. When that node fails, is
drained, upgraded or replaced (a cloud node comes back under a new name), the model's pods stay Pending with nowhere
to go ("If the named node does not exist, the Pod will not be run", https://kubernetes.io/docs/concepts/scheduling-
eviction/assign-pod-node/#nodename) and the model is down until someone edits the manifest. Reviewers labelled it
on held-out set 8 (zhaotyer/lws_usage sglang_glm5.yaml: an SGLang leader and worker pinned to hosts dev32/dev39).

Advice, never a block: on a one-node cluster (a DGX Spark, a workstation) there is nowhere else to go anyway, and
the files cannot show the cluster's size. Silent where the pod mounts a hostPath volume: its model or data lives
on that node, so the pin follows the data (held-out set 7's trap, Tennsoku/k8s-llm-serving-public
kubernetes/deploy-vllm.yaml: a GB10 host whose models sit under /home on the node).
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, split_type
from policies.reading.placement import HOSTNAME, pinned_node
from policies.reading.ray_cluster import groups
from policies.reading.serving import model_servers


def _how(podspec: dict) -> str:
    if isinstance(podspec.get("nodeName"), str) and podspec["nodeName"]:
        return "spec.nodeName"
    if isinstance(as_dict(podspec.get("nodeSelector")).get(HOSTNAME), str):
        return f"nodeSelector {HOSTNAME}"
    return f"required node affinity on {HOSTNAME}"


# hostPath folders that hold the node's devices and system state, not a model or data placed there: every node of a
# pool has its own (an AMD GPU pod mounts /dev/kfd and /dev/dri), so mounting one ties the pod to no node.
_NODE_SYSTEM = ("/dev", "/sys", "/proc", "/run", "/var/run", "/lib/modules", "/usr/src", "/etc/localtime")


def _holds_node_data(podspec: dict) -> bool:
    """True when the pod mounts a hostPath folder that may hold its model or data (not a device or system path)."""
    for volume in (as_dict(v) for v in as_list(podspec.get("volumes"))):
        if "hostPath" not in volume:
            continue
        path = str(as_dict(volume.get("hostPath")).get("path", "")).rstrip("/")
        if not any(path == p or path.startswith(p + "/") for p in _NODE_SYSTEM):
            return True
    return False


def _check(resource: Resource, config: dict) -> list[str]:
    if split_type(resource.type)[1] == "DaemonSet":
        return []  # one pod per node by design
    messages = []
    seen: set[str] = set()
    for server in model_servers(resource):
        if server.path in seen:
            continue
        seen.add(server.path)
        node = pinned_node(server.podspec)
        if node is None or _holds_node_data(server.podspec):
            continue
        messages.append(
            f"{server.path}: the model server is pinned to node {node} ({_how(server.podspec)}): when that node "
            f"fails, is drained or replaced, its pods have nowhere to reschedule and the model is down; select "
            f"nodes by a pool or GPU-type label instead of one hostname"
        )
    return messages + (_ray_workers(resource, seen) if seen else [])


def _ray_workers(resource: Resource, seen: set[str]) -> list[str]:
    """The worker groups of a Ray cluster that serves a model, each pinned to one hostname: the engine's ranks span
    the head and the workers, so losing any pinned node stops the model (set 17: umesh-khatiwada/aibrix-vllm-deployment
    v2/aibrix/multi-node-inference/multi-node-inference.yaml@469d483, head on kubernetes.io/hostname main, worker on
    seventh-node)."""
    out = []
    for group in groups(resource):
        path = f"{group.path}.template.spec"
        if group.is_head or any(path.endswith(p) or p.endswith(path) for p in seen):
            continue
        node = pinned_node(group.podspec)
        if node is None or _holds_node_data(group.podspec):
            continue
        out.append(
            f"{path}: Ray worker group {group.name} of this model's Ray cluster is pinned to node {node} "
            f"({_how(group.podspec)}): when that node fails, is drained or replaced, the worker has nowhere to "
            f"reschedule and the engine's ranks on it are lost; select nodes by a pool or GPU-type label"
        )
    return out


POLICY = Policy(
    name="model-server-not-pinned-to-one-node",
    description=(
        "A model server's pods are not pinned to one node (nodeName, or a kubernetes.io/hostname node selector or "
        "required affinity with one value); advice, silent where the pod mounts the node's own disk (hostPath)."
    ),
    rationale=(
        "A pod pinned to one hostname cannot be rescheduled when that node fails or is replaced "
        "(https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/); the model stays down until the "
        "manifest changes. The files cannot show a one-node cluster, so this is advice."
    ),
    catalog="S42",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Replace spec.nodeName or the kubernetes.io/hostname selector with a label that names a pool of nodes (a GPU "
        "type, a node group or NodePool label), so the scheduler can place the pods on another node when one fails."
    ),
    config_schema={},
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
)
