"""G31: hostPath volumes only read-only.

hostPath model caches are common in GPU serving (weights on the node's NVMe), and a read-only
mount of a cache some other agent fills is defensible. A writable hostPath lets a pod change the
node's files, leaves state behind that no controller cleans, and (with `DirectoryOrCreate`)
creates host paths as root.

Like the other generic rows held to model servers (G4, G8, G10, G11 judge only the serving container), a writable
hostPath blocks on a pod that runs a model server or asks for GPUs; on any other workload (a chat UI keeping its
data on the node, a node agent) it is advice: the rule guards the serving path, and a pod that is not on it may
keep state on a pinned node by design.
"""

from __future__ import annotations

from policies.framework import Policy, Resource
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, container_label, containers, pod_specs
from policies.reading.node_agents import weighed_to_serving


def _check(resource: Resource, config: dict) -> list[str]:
    messages = []
    for path, podspec in pod_specs(resource):
        host_paths = {
            v.get("name"): as_dict(v.get("hostPath")).get("path")
            for v in as_list(podspec.get("volumes"))
            if isinstance(v, dict) and "hostPath" in v
        }
        for container in containers(podspec, init=True, model=True):
            for mount in as_list(container.get("volumeMounts")):
                mount = as_dict(mount)
                if mount.get("name") in host_paths and mount.get("readOnly") is not True:
                    messages.append(
                        f"{container_label(path, container)}: mounts hostPath {host_paths[mount['name']]} "
                        f"(volume {mount['name']}) writable at {mount.get('mountPath')}; a pod that writes "
                        f"to the node outlives itself there; mount it readOnly or use an emptyDir or PVC"
                    )
    return weighed_to_serving(resource, messages)


POLICY = Policy(
    name="host-path-read-only",
    description="hostPath volumes may only be mounted readOnly.",
    catalog="G31",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Mount the hostPath with readOnly: true, or replace it: an emptyDir (with an ephemeral-storage request) or a "
        "PVC for a model cache, a projected volume for sockets. A node-local cache filled by a DaemonSet can stay as a "
        'read-only hostPath; annotate llm-serving.io/exempt-host-path-read-only: "<reason>" where write access is required.'
    ),
    resource_types=WORKLOAD_TYPES,
    check_resource=_check,
    rationale=(
        '"HostPath volumes present many security risks... If restricting HostPath access to specific directories '
        '..., volumeMounts MUST be required to use readOnly mounts" (https://kubernetes.io/docs/concepts/storage/volumes/#hostpath). '
        "Catalogue row 31: model caches on hostPath are common, so read-only is allowed."
    ),
)
