"""G31: hostPath volumes only read-only.

hostPath model caches are common in GPU serving (weights on the node's NVMe), and a read-only
mount of a cache some other agent fills is defensible. A writable hostPath lets a pod change the
node's files, leaves state behind that no controller cleans, and (with `DirectoryOrCreate`)
creates host paths as root.

Like the other generic rows held to model servers (G4, G8, G10, G11 judge only the serving container), a writable
hostPath blocks on a pod that runs a model server or asks for GPUs; on any other workload (a chat UI keeping its
data on the node, a node agent) it is advice: the rule guards the serving path, and a pod that is not on it may
keep state on a pinned node by design.

A non-root container writing to a ``DirectoryOrCreate`` hostPath is advice of its own: "If nothing exists at the given
path, an empty directory will be created there as needed with permission set to 0755, having the same group and
ownership with Kubelet" (https://kubernetes.io/docs/concepts/storage/volumes/#hostpath-volume-types), i.e. root, and
fsGroup does not apply to hostPath volumes, so a runAsUser other than 0 cannot write there (set 12: g-rabah/namla-
usecases- nim-deployment.yaml at 3f71b9a, a NIM cache as user 1000). Advice: the directory may already exist on the
node with other owners.

A model read from a hostPath of type ``DirectoryOrCreate`` that every mount of the pod reads only, in a pod no node
pinning holds, is advice too (``_created_empty_elsewhere``): on another node the kubelet creates the directory empty,
the mount succeeds and the server finds no model.
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.kube import WORKLOAD_TYPES, as_dict, as_list, container_label, containers, name_of, pod_specs, split_type
from policies.reading.node_agents import serving, weighed_to_serving
from policies.reading.placement import home_path, pinned_node, placed, system_path


def _run_as(podspec: dict, container: dict) -> object:
    """The user the container runs as where the manifest says so (its securityContext over the pod's)."""
    own = as_dict(container.get("securityContext")).get("runAsUser")
    return own if own is not None else as_dict(podspec.get("securityContext")).get("runAsUser")


def _created_as_root(path: str, podspec: dict) -> list[str]:
    """Advice for each non-root container writing to a hostPath the kubelet creates (DirectoryOrCreate, root 0755)."""
    created = {
        name_of(v): as_dict(v.get("hostPath")).get("path")
        for v in as_list(podspec.get("volumes"))
        if name_of(v) is not None and as_dict(v.get("hostPath")).get("type") == "DirectoryOrCreate"
    }
    found: list[str] = []
    for container in containers(podspec, init=True):
        user = _run_as(podspec, container)
        if not isinstance(user, int) or isinstance(user, bool) or user == 0:
            continue
        for mount in (as_dict(m) for m in as_list(container.get("volumeMounts"))):
            if name_of(mount) in created and mount.get("readOnly") is not True:
                found.append(
                    unproven(
                        f"{container_label(path, container)}: runs as user {user} and writes to hostPath "
                        f"{created[mount['name']]} (DirectoryOrCreate) at {mount.get('mountPath')}, which the kubelet "
                        f"creates owned by root with mode 0755 (fsGroup does not apply to hostPath), so its writes fail "
                        f"with permission denied; create the directory with the right owner on the node, or use a PVC"
                    )
                )
    return found


def _unnamed(path: str, podspec: dict) -> list[str]:
    """Advice for a hostPath volume with no name while a writable mount names no volume: the join a mis-indented
    ``name:`` breaks (G45 reports the refusal), read as the mount it was written for."""
    volumes = [as_dict(v) for v in as_list(podspec.get("volumes"))]
    unnamed = [as_dict(v.get("hostPath")).get("path") for v in volumes if "hostPath" in v and not v.get("name")]
    names = {name_of(v) for v in volumes}
    found: list[str] = []
    for container in containers(podspec, init=True, model=True) if unnamed else ():
        for mount in (as_dict(m) for m in as_list(container.get("volumeMounts"))):
            if name_of(mount) not in names and mount.get("readOnly") is not True:
                found.append(
                    unproven(
                        f"{container_label(path, container)}: volumeMount {mount.get('name')} names no volume, and "
                        f"the pod's hostPath {', '.join(map(str, unnamed))} has no name: once its name is set, the "
                        f"mount writes to the node at {mount.get('mountPath')}; mount it readOnly or use an emptyDir "
                        f"or PVC"
                    )
                )
    return found


# hostPath types the kubelet checks before it mounts: the path must already exist on the node as that kind of file
# (https://kubernetes.io/docs/concepts/storage/volumes/#hostpath-volume-types; FailedMount "hostPath type check failed").
# A tuple, not a set: membership compares by equality, so a mistyped type (a map) is simply absent (tests/hostile).
_MUST_EXIST = ("Directory", "File")


def _served_models(resource: Resource) -> list[tuple[str, dict, dict, str]]:
    """(label, podspec, container, model) of every model server whose model is a local absolute path."""
    from policies.reading.engines import table_servers
    from policies.reading.vllm_args import served_model, vllm_servers

    found = [(s.label, s.podspec, s.container, served_model(s)) for s in vllm_servers(resource)]
    found += [(s.label, s.podspec, s.container, s.model) for s in table_servers(resource)]
    return [(label, pod, c, m) for label, pod, c, m in found if isinstance(m, str) and m.startswith("/")]


def _weights_on_some_node(resource: Resource) -> list[str]:
    """Advice for a model server reading its model from a hostPath that must exist on the node (type Directory or
    File) while the pod is not pinned to one node: the scheduler may place it on a node of the selected class that
    lacks the files, where the mount fails (set 23 farrukhmustafa/fintech-function-calling-llm
    kubernetes/vllm-deployment.yaml: /mnt/data/outputs, nodeSelector library-solution: k8s-training). A DaemonSet
    means every node on purpose: silent."""
    if split_type(resource.type)[1] == "DaemonSet":
        return []
    messages: list[str] = []
    for label, podspec, container, model in _served_models(resource):
        if pinned_node(podspec) is not None:
            continue
        volumes = {name_of(v): as_dict(as_dict(v).get("hostPath")) for v in as_list(podspec.get("volumes")) if name_of(v)}
        for mount in (as_dict(m) for m in as_list(container.get("volumeMounts"))):
            host = volumes.get(name_of(mount)) or {}
            at = str(mount.get("mountPath") or "").rstrip("/")
            if name_of(host, "type") not in _MUST_EXIST or not at or not (model == at or model.startswith(at + "/")):
                continue
            selector = ", ".join(f"{k}={v}" for k, v in sorted(as_dict(podspec.get("nodeSelector")).items()))
            placed = f"nodeSelector {selector} picks a class of nodes" if selector else "nothing pins the pod to a node"
            messages.append(
                unproven(
                    f"{label}: reads its model {model} from hostPath {host.get('path')} (type {host.get('type')}), "
                    f"which must already exist on the node it lands on, and {placed}, not the node holding the files: "
                    f"on any other node the mount fails and the server never starts; put the weights on a PVC, in "
                    f"the image or a download, or on every node the pod may use"
                )
            )
    return messages


def _must_exist_unplaced(resource: Resource) -> list[str]:
    """Advice for a model-server or GPU pod that mounts a hostPath of type Directory or File ("A directory must exist
    at the given path", kubernetes/api v0.33.0 core/v1/types.go:923-929 HostPathDirectory, HostPathFile) while its
    pod spec says nothing of where it goes (no nodeName, nodeSelector or required node affinity): on a node without
    that folder the kubelet's type check fails the mount and the pod stays in ContainerCreating (spent set 62
    geon-2/AnomalyDetector k8s/vllm-deployment.yaml: a LoRA folder under /Users/..., a macOS home). The model-path
    form with a node-class selector is ``_weights_on_some_node``'s; folders every node has (/etc/localtime, /dev,
    /var/log: placement.system_path) and DaemonSets stay silent."""
    if split_type(resource.type)[1] == "DaemonSet" or not serving(resource):
        return []
    # Volumes holding a served model: _weights_on_some_node reports those (its message names the model).
    served = {
        (id(pod), name_of(m))
        for _, pod, c, model in _served_models(resource)
        for m in (as_dict(m) for m in as_list(c.get("volumeMounts")))
        if (at := str(m.get("mountPath") or "").rstrip("/")) and (model == at or model.startswith(at + "/"))
    }
    messages: list[str] = []
    for path, podspec in pod_specs(resource):
        if placed(podspec):
            continue
        must = {
            name_of(v): as_dict(as_dict(v).get("hostPath"))
            for v in as_list(podspec.get("volumes"))
            if name_of(v) and as_dict(as_dict(v).get("hostPath")).get("type") in _MUST_EXIST
        }
        reported: set[object] = set()
        for container in containers(podspec, init=True):
            for mount in (as_dict(m) for m in as_list(container.get("volumeMounts"))):
                name = name_of(mount)
                host = must.get(name) or {}
                where = host.get("path")
                if not isinstance(where, str) or system_path(where) or name in reported or (id(podspec), name) in served:
                    continue
                reported.add(name)
                home = " (a folder in a user's home, which holds what its user put on one machine)" if home_path(where) else ""
                messages.append(
                    unproven(
                        f"{container_label(path, container)}: mounts hostPath {where} (volume {name}, type "
                        f"{host.get('type')}), which must already exist on the node{home}, and nothing places the pod "
                        f"(no nodeName, nodeSelector or node affinity): on a node without it the mount fails "
                        f"(FailedMount: hostPath type check failed) and the pod stays in ContainerCreating; pin the pod "
                        f"to the node that holds the files, or put them on a PVC, in the image or a download"
                    )
                )
    return messages


_MODEL_FILES = (".gguf", ".ggml", ".safetensors", ".bin", ".pt", ".pth", ".onnx", ".engine", ".plan")


def _model_references(container: dict, at: str) -> list[str]:
    """Paths under ``at`` the container names as its model: the value of a flag or variable whose name says model, or a
    file with a model file's extension (``--model /models/Qwen3-4B-Q4_K_M.gguf``, ``MODEL_PATH=/models/llama``)."""
    words = [w for key in ("command", "args") for w in as_list(container.get(key)) if isinstance(w, str)]
    pairs: list[tuple[str, object]] = list(zip([""] + words, words))
    pairs += [(str(name_of(e) or ""), as_dict(e).get("value")) for e in as_list(container.get("env"))]
    found = []
    for key, value in pairs:
        if not isinstance(value, str):
            continue
        for path in (value, value.split("=", 1)[-1]):
            if path.startswith(at + "/") and ("model" in key.lower() or path.lower().endswith(_MODEL_FILES)):
                found.append(path)
                break
    return found


def _created_empty_elsewhere(resource: Resource) -> list[str]:
    """Advice for a pod that reads its model from a hostPath of type DirectoryOrCreate that nothing in the pod writes
    (every mount of it readOnly) while the pod is not pinned to one node: on a node without the directory the kubelet
    creates it empty ("an empty directory will be created there as needed",
    https://kubernetes.io/docs/concepts/storage/volumes/#hostpath-volume-types), the mount succeeds and the server
    finds no model (fresh set 55: anasgrt/llm-platform-poc deploy/base/02-qwen3-server.yaml, /vagrant/prebuilt-models
    read-only at /models, --model /models/Qwen3-4B-Q4_K_M.gguf, no node pinning). Silent on a DaemonSet, a pinned pod, a
    directory some container of the pod mounts writable (a cache it fills), and a path no container names as its
    model."""
    if split_type(resource.type)[1] == "DaemonSet":
        return []
    messages: list[str] = []
    for path, podspec in pod_specs(resource):
        if pinned_node(podspec) is not None:
            continue
        created = {
            name_of(v): as_dict(as_dict(v).get("hostPath")).get("path")
            for v in as_list(podspec.get("volumes"))
            if name_of(v) and as_dict(as_dict(v).get("hostPath")).get("type") == "DirectoryOrCreate"
        }
        if not created:
            continue
        pod = containers(podspec, init=True, model=True)
        mounts = [(c, as_dict(m)) for c in pod for m in as_list(c.get("volumeMounts"))]
        written = {name_of(m) for _, m in mounts if m.get("readOnly") is not True}
        for container, mount in mounts:
            name, at = name_of(mount), str(mount.get("mountPath") or "").rstrip("/")
            if name not in created or name in written or not at:
                continue
            models = _model_references(container, at)
            if not models:
                continue
            messages.append(
                unproven(
                    f"{container_label(path, container)}: reads its model {models[0]} from hostPath {created[name]} "
                    f"(type DirectoryOrCreate, mounted read-only at {at}) and nothing pins the pod to the node that "
                    f"holds the files: on any other node the kubelet creates the directory empty, the mount succeeds "
                    f"and the server finds no model; pin the pod to that node (or use type Directory so the mount "
                    f"fails visibly), or put the weights on a PVC, in the image or a download"
                )
            )
    return messages


def _check(resource: Resource, config: dict) -> list[str]:
    messages = _weights_on_some_node(resource) + _must_exist_unplaced(resource) + _created_empty_elsewhere(resource)
    for path, podspec in pod_specs(resource):
        messages.extend(_created_as_root(path, podspec))
        messages.extend(_unnamed(path, podspec))
        host_paths = {
            name_of(v): as_dict(v.get("hostPath")).get("path")
            for v in as_list(podspec.get("volumes"))
            if isinstance(v, dict) and "hostPath" in v
        }
        for container in containers(podspec, init=True, model=True):
            for mount in as_list(container.get("volumeMounts")):
                mount = as_dict(mount)
                name = name_of(mount)
                if name is not None and name in host_paths and mount.get("readOnly") is not True:
                    messages.append(
                        f"{container_label(path, container)}: mounts hostPath {host_paths[name]} "
                        f"(volume {name}) writable at {mount.get('mountPath')}; a pod that writes "
                        f"to the node outlives itself there; mount it readOnly or use an emptyDir or PVC"
                    )
    return weighed_to_serving(resource, messages)


POLICY = Policy(
    name="host-path-read-only",
    description="hostPath volumes may only be mounted readOnly.",
    catalog="G31",
    severity="high",
    # Advisory: a risk, not a failure the files prove (docs/policies.md "Enforcement levels"); --config raises it.
    enforcement="advisory",
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
