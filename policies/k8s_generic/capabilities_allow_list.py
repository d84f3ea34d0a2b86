"""G30: containers may add only allow-listed Linux capabilities.

RDMA and EFA need IPC_LOCK to pin memory, so it is on the default allow-list; SYS_ADMIN,
NET_ADMIN, SYS_PTRACE and the like turn a model server into a foothold on the node.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, as_list, container_label, containers, get, pod_specs
from policies.reading.node_agents import weighed


def _check(resource: Resource, config: dict) -> list[str]:
    allowed = {str(c).upper() for c in config["allowedCapabilities"]}
    messages = []
    for path, podspec in pod_specs(resource):
        for container in containers(podspec, init=True, model=True):
            added = [str(c) for c in as_list(get(container, "securityContext", "capabilities", "add"))]
            extra = [c for c in added if c.upper().removeprefix("CAP_") not in allowed]
            if extra:
                messages.append(
                    f"{container_label(path, container)}: adds capabilities {', '.join(extra)}, which are "
                    f"not in allowedCapabilities ({', '.join(sorted(allowed)) or 'none'})"
                )
    return weighed(resource, messages)


POLICY = Policy(
    name="capabilities-allow-list",
    description="Containers may add only the Linux capabilities on an allow-list (default IPC_LOCK).",
    catalog="G30",
    severity="high",
    # Advisory: a risk, not a failure the files prove (docs/policies.md "Enforcement levels"); --config raises it.
    enforcement="advisory",
    remediation_steps="Remove the added capabilities, or add a capability the workload truly needs to allowedCapabilities in the pack config.",
    config_schema={
        "allowedCapabilities": {
            "type": "array",
            "items": {"type": "string"},
            "default": ["IPC_LOCK"],
            "description": 'Capabilities a container may add, without the CAP_ prefix (default ["IPC_LOCK"], for RDMA/EFA memory pinning).',
        },
    },
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        "The baseline Pod Security Standard allows only a short list of added capabilities "
        "(https://kubernetes.io/docs/concepts/security/pod-security-standards/#baseline); RDMA/EFA needs IPC_LOCK "
        "to register memory (https://github.com/aws-samples/aws-efa-eks). Catalogue row 30."
    ),
)
