"""G98 (host-port-rollout): a Deployment whose pods hold a host port rolls out without needing a spare node.

A pod with a ``hostPort`` (or ``hostNetwork: true``, where every container port is a host port) can run only on a node
where no other pod holds that port, protocol and address (https://kubernetes.io/docs/concepts/configuration/overview/:
each hostIP, hostPort and protocol combination must be unique on a node; the scheduler's NodePorts filter). A
RollingUpdate starts ``maxSurge`` new pods before it stops an old one whenever ``maxUnavailable`` resolves to 0: the
percentage rounds down (https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#max-unavailable), so
Kubernetes' 25% default gives 0 for one to three replicas, while a surge rounds up (#max-surge). The new pod then needs
a node beyond those the old pods hold; on a single-node cluster (k3s, minikube, a one-GPU box) or a pool with as many
nodes as replicas it stays Pending ("didn't have free ports for the requested pod ports") and the rollout never
completes until someone deletes the old pod.

Advice: the cluster may have a spare node. Silent: strategy Recreate, a maxUnavailable that resolves above 0, a surge
of 0, unrendered values. Spent set 79 aknot242/genai-stack k8s/llm-deployment.yaml (kompose output: an Ollama
Deployment, one replica, hostPort 11434, the default strategy; labelled NONE advisory).
"""

from __future__ import annotations

import math
from typing import Any, Optional

from policies.framework import Policy, Resource
from policies.kube import as_dict, as_list, container_label, containers, get, pod_specs


def _resolved(value: Any, replicas: int, default: str, up: bool) -> Optional[int]:
    """An intstr fencepost as the Deployment controller resolves it (a percentage of replicas, up or down), or None."""
    value = default if value is None else value
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.endswith("%"):
        try:
            scaled = replicas * float(value[:-1]) / 100
        except ValueError:
            return None
        return math.ceil(scaled) if up else math.floor(scaled)
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None


def _host_ports(path: str, podspec: dict) -> list[str]:
    """``container c: hostPort N`` of each container port bound on the node (all of them under hostNetwork)."""
    found = []
    host_network = podspec.get("hostNetwork") is True
    for container in containers(podspec, init=True):
        for port in (as_dict(p) for p in as_list(container.get("ports"))):
            host = port.get("hostPort") or (port.get("containerPort") if host_network else None)
            if isinstance(host, int) and not isinstance(host, bool) and host > 0:
                found.append(f"{container_label(path, container)} hostPort {host}")
    return found


def _check(resource: Resource, config: dict) -> list[str]:
    spec = get(resource.props, "spec")
    if not isinstance(spec, dict):
        return []
    strategy = as_dict(spec.get("strategy"))
    if strategy.get("type") not in (None, "RollingUpdate"):
        return []
    replicas = spec.get("replicas", 1)
    if not isinstance(replicas, int) or isinstance(replicas, bool) or replicas < 1:
        return []
    rolling = as_dict(strategy.get("rollingUpdate"))
    surge = _resolved(rolling.get("maxSurge"), replicas, "25%", up=True)
    unavailable = _resolved(rolling.get("maxUnavailable"), replicas, "25%", up=False)
    if surge is None or unavailable is None or unavailable > 0 or surge < 1:
        return []
    ports = [p for path, podspec in pod_specs(resource) for p in _host_ports(path, podspec)]
    if not ports:
        return []
    return [
        f"{ports[0]}: a pod holding a host port runs only on a node where no other pod holds it, and spec.strategy's "
        f"maxUnavailable resolves to 0 for {replicas} replica(s), so each rollout first starts {surge} new pod(s) "
        f"that need a node beyond the {replicas} the old pods hold; on a single node (or as many nodes as replicas) "
        f"the new pod stays Pending (no free ports) and the rollout never completes; use strategy Recreate, or "
        f"maxSurge 0 with maxUnavailable 1, or drop the hostPort for a Service"
    ]


POLICY = Policy(
    name="host-port-rollout",
    description=(
        "A Deployment whose pods bind a hostPort (or use hostNetwork) rolls out without a spare node: Recreate, or "
        "maxUnavailable above 0 with maxSurge 0 (advice)."
    ),
    catalog="G98",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Set spec.strategy.type: Recreate, or rollingUpdate maxSurge: 0 and maxUnavailable: 1; better, publish the "
        "server through a Service instead of a hostPort."
    ),
    resource_types=("kubernetes:apps/v1:Deployment",),
    check_resource=_check,
    rationale=(
        "Each hostIP, hostPort and protocol combination must be unique on a node "
        "(https://kubernetes.io/docs/concepts/configuration/overview/), and a RollingUpdate whose maxUnavailable "
        "rounds down to 0 starts its surge pods first (https://kubernetes.io/docs/concepts/workloads/controllers/"
        "deployment/#max-unavailable, #max-surge): with no spare node the new pod never schedules."
    ),
)
