"""G24/G25: pods must not share the node's network, PID or IPC namespace.

`hostIPC: true` is the usual wrong fix for NCCL's "Error while creating shared memory segment"
(vllm-project/vllm#1710): it hands the pod the node's whole System V IPC and /dev/shm namespace
instead of a private, bounded memory emptyDir. `hostNetwork` is sometimes asked for by RDMA/EFA
setups; those go through an exemption annotation with a reason.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, pod_specs
from policies.reading.node_agents import weighed

_WHY = {
    "hostNetwork": "puts the pod on the node's network stack, where every port and interface of the node is its own",
    "hostPID": "lets the pod see and signal every process on the node",
    "hostIPC": (
        "shares the node's IPC namespace and /dev/shm with the pod; it is the wrong fix for NCCL shared "
        "memory, which needs an emptyDir {medium: Memory, sizeLimit} mounted at /dev/shm"
    ),
}


def _check(resource: Resource, config: dict) -> list[str]:
    return weighed(
        resource,
        [
            f"{path}.{field}: true {why}"
            for path, podspec in pod_specs(resource)
            for field, why in _WHY.items()
            if podspec.get(field) is True
        ],
    )


POLICY = Policy(
    name="no-host-namespaces",
    description="Pods must not set hostNetwork, hostPID or hostIPC.",
    catalog="G25",
    severity="high",
    # Advisory: a risk, not a failure the files prove (docs/policies.md "Enforcement levels"); --config raises it.
    enforcement="advisory",
    remediation_steps=(
        "Remove hostNetwork/hostPID/hostIPC. For NCCL or vLLM shared memory mount an emptyDir {medium: Memory, "
        "sizeLimit: <size>} at /dev/shm; for EFA/RDMA use the device plugin's resources, and where the network stack "
        'truly must be the host\'s, annotate the workload llm-serving.io/exempt-no-host-namespaces: "<reason>".'
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "Host namespaces break the pod's isolation; the Pod Security Standards' baseline profile forbids all three "
        "(https://kubernetes.io/docs/concepts/security/pod-security-standards/). For GPU serving, hostIPC is what "
        "people reach for when NCCL fails on the runtime's 64 MiB /dev/shm (https://github.com/vllm-project/vllm/issues/1710); "
        "the private memory emptyDir is the fix. Catalogue rows 24-25."
    ),
)
