"""DaemonSets that run no model server: node agents, which need the host by design.

A device plugin registers through a socket under the kubelet's /var/lib/kubelet/device-plugins (a writable hostPath:
kubelet's device plugin API, https://kubernetes.io/docs/concepts/extend-kubernetes/compute-storage-net/device-plugins/),
the AWS EFA device plugin and NVIDIA's driver and toolkit DaemonSets run privileged on the host network, exporters
and log agents read the node, and a model-cache filler writes the node-local cache serving pods mount read-only. The
host-access rules (G25 host namespaces, G26 privileged, G30 capabilities, G31 writable hostPath) were written for
serving pods; on a node agent their findings are advice. A DaemonSet that runs a model server (or asks for GPUs) is
serving and keeps the rules' level.
"""

from __future__ import annotations

from typing import Any

from policies.framework import unproven
from policies.kube import pod_specs, requests_gpu, split_type
from policies.reading.serving import model_servers

NOTE = (
    " (advisory: a DaemonSet that runs no model server is a node agent, such as a device plugin, an exporter or a "
    "cache filler, which needs the host by design)"
)


def node_agent(resource: Any) -> bool:
    """True for a DaemonSet none of whose pods runs a model server or asks for GPUs."""
    if split_type(getattr(resource, "type", "")) != ("apps", "DaemonSet"):
        return False
    return not model_servers(resource) and not any(requests_gpu(spec) for _, spec in pod_specs(resource))


def weighed(resource: Any, messages: list[str]) -> list[str]:
    """The messages of a host-access rule, advisory (and said so) on a node agent."""
    if not messages or not node_agent(resource):
        return messages
    return [unproven(m + NOTE) for m in messages]


SERVING_NOTE = (
    " (advisory: this pod runs no model server and asks for no GPU; what it leaves on the node is its own state, "
    "not the serving path's)"
)


def serving(resource: Any) -> bool:
    """True when a pod of the resource runs a model server or asks for GPUs (what the serving rows judge)."""
    return bool(model_servers(resource)) or any(requests_gpu(spec) for _, spec in pod_specs(resource))


def weighed_to_serving(resource: Any, messages: list[str]) -> list[str]:
    """The messages of a rule written for serving pods (G31), advisory (and said so) on any other workload."""
    if not messages or serving(resource):
        return messages
    note = NOTE if node_agent(resource) else SERVING_NOTE
    return [unproven(m + note) for m in messages]


__all__ = ["NOTE", "SERVING_NOTE", "node_agent", "serving", "weighed", "weighed_to_serving"]
