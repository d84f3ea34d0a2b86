"""G26: containers must not run privileged.

The NVIDIA device plugin hands a container its GPUs (device nodes, driver libraries) without
privileges; a privileged container instead sees every device of the node, all GPUs included, and
can escape to the host.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, container_label, containers, get, pod_specs
from policies.reading.node_agents import weighed


def _check(resource: Resource, config: dict) -> list[str]:
    return weighed(
        resource,
        [
            f"{container_label(path, c)}: securityContext.privileged: true gives the container every device of the "
            f"node (all GPUs included) and a way out to the host; the GPU device plugin needs no privileges"
            for path, podspec in pod_specs(resource)
            for c in containers(podspec, init=True, model=True)
            if get(c, "securityContext", "privileged") is True
        ],
    )


POLICY = Policy(
    name="no-privileged",
    description="Containers must not set securityContext.privileged: true.",
    catalog="G26",
    severity="critical",
    # Advisory: a risk, not a failure the files prove (docs/policies.md "Enforcement levels"); --config raises it.
    enforcement="advisory",
    remediation_steps=(
        'Remove privileged: true; request GPUs through resources.limits["nvidia.com/gpu"] and add only the '
        "capabilities the workload needs (IPC_LOCK for RDMA/EFA)."
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "A privileged container has all capabilities and the host's devices "
        "(https://kubernetes.io/docs/concepts/security/pod-security-standards/#baseline). GPUs are exposed by the "
        "device plugin without it (https://github.com/NVIDIA/k8s-device-plugin). Catalogue row 26."
    ),
)
