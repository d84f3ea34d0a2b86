"""G84: a model server running as a non-root user that writes to a claim can write it (advice).

A model server writes where its cache settings point: OLLAMA_MODELS, HF_HOME/HF_HUB_CACHE, ``--download-dir``, the
cache variables of its engine row (components/serving_engines.toml ``downloads.env``; ``policies.reading.engines.
cache_dirs``). Where that folder is set explicitly, lies on a PersistentVolumeClaim (a claim, a generic ephemeral
volume, a StatefulSet's volumeClaimTemplate) mounted read-write, and the container runs as a user other than root
(runAsUser above 0, the container's securityContext over the pod's), the folder's owner decides: Kubernetes changes a
volume's ownership and permissions only when the pod sets ``securityContext.fsGroup`` ("the owner for volume ... and
any files created in that volume will be Group ID <fsGroup>", https://kubernetes.io/docs/tasks/configure-pod-container/
security-context/#set-the-security-context-for-a-pod; fsGroupChangePolicy,
#configure-volume-permission-and-ownership-change-policy-for-pods), and a freshly formatted block volume's root is
owned by root and not writable by others, so the first download fails with permission denied and the server never
loads its model.

Advice: a provisioner whose volumes are world-writable (NFS exports, some CSI drivers) or an OpenShift SCC that fills
fsGroup are not in the files. Silent where the pod sets fsGroup, where the user is root or unset, where an init
container mounting the same volume changes owners or modes (chown, chmod), where the folder is an emptyDir
(world-writable), the mount is readOnly, or the folder is only the image's default (the user's HOME moves it).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from typing import Any, Optional

from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, as_list, get, workload_types
from policies.operators import OPERATOR_TYPES
from policies.reading.engines import cache_dirs, path_under, table_servers
from policies.reading.serving import container_argv
from policies.reading.vllm_args import vllm_servers

_OWNS = re.compile(r"\b(?:chown|chmod|setfacl)\b")


def _user(podspec: Mapping, container: Mapping) -> Optional[int]:
    """The user the container runs as where the manifest says (the container's securityContext over the pod's)."""
    for context in (as_dict(container.get("securityContext")), as_dict(podspec.get("securityContext"))):
        user = context.get("runAsUser")
        if isinstance(user, int) and not isinstance(user, bool):
            return user
    return None


def _mount(container: Mapping, directory: str) -> Optional[dict]:
    """The volume mount at ``directory`` or the nearest folder above it."""
    best: Optional[dict] = None
    for mount in (as_dict(m) for m in as_list(container.get("volumeMounts"))):
        path = mount.get("mountPath")
        if isinstance(path, str) and path and path_under(directory, posixpath.normpath(path)):
            if best is None or len(path) > len(str(best.get("mountPath"))):
                best = mount
    return best


def _claim(resource: Resource, podspec: Mapping, name: Any) -> Optional[str]:
    """How the volume named ``name`` is a claim (for the message), or None when it is not one."""
    volume = next((as_dict(v) for v in as_list(podspec.get("volumes")) if as_dict(v).get("name") == name), None)
    if volume is None:
        templates = as_list(get(resource.props, "spec", "volumeClaimTemplates"))
        if any(get(t, "metadata", "name") == name for t in templates if isinstance(t, dict)):
            return f"the volumeClaimTemplate {name}"
        return None
    if "persistentVolumeClaim" in volume:
        return f"the PersistentVolumeClaim {get(volume, 'persistentVolumeClaim', 'claimName')} (volume {name})"
    if "ephemeral" in volume:
        return f"the generic ephemeral volume {name}"
    return None


def _owned_by_init(podspec: Mapping, name: Any) -> bool:
    """True when an init container mounting the volume changes owners or modes in its command."""
    for init in (as_dict(c) for c in as_list(podspec.get("initContainers"))):
        if any(as_dict(m).get("name") == name for m in as_list(init.get("volumeMounts"))):
            if _OWNS.search(" ".join(container_argv(init))):
                return True
    return False


def _servers(resource: Resource) -> list[tuple[str, dict, dict, tuple[str, ...]]]:
    """(label, podspec, container, folders set explicitly) for each model server of the resource."""
    found = []
    for s in vllm_servers(resource):
        if not s.runtime_merged:
            found.append((s.label, s.podspec, s.container, cache_dirs(s.container, s.args)))
    for t in table_servers(resource):
        defaults = t.row.downloads.dirs if t.row is not None and t.row.downloads is not None else ()
        dirs = cache_dirs(t.container, t.args, t.row) if t.row is not None else ()
        found.append((t.label, t.podspec, t.container, () if dirs == defaults else dirs))
    return found


def _check(resource: Resource, config: dict) -> list[str]:
    messages: list[str] = []
    vllm_defaults = cache_dirs({}, {})
    for label, podspec, container, dirs in _servers(resource):
        if not dirs or dirs == vllm_defaults or get(podspec, "securityContext", "fsGroup") is not None:
            continue
        user = _user(podspec, container)
        if user is None or user == 0:
            continue
        for directory in dirs:
            mount = _mount(container, directory)
            if mount is None or mount.get("readOnly") is True:
                continue
            claim = _claim(resource, podspec, mount.get("name"))
            if claim is None or _owned_by_init(podspec, mount.get("name")):
                continue
            messages.append(
                unproven(
                    f"{label}: runs as user {user} and writes its models under {directory}, on {claim}, but the pod "
                    f"sets no securityContext.fsGroup and no init container takes ownership of the folder: Kubernetes "
                    f"changes a volume's owner only for fsGroup, and a new volume's root is owned by root on most "
                    f"provisioners, so the download fails with permission denied; set securityContext.fsGroup (e.g. "
                    f"to the user's group) or chown the folder in an init container"
                )
            )
            break
    return messages


POLICY = Policy(
    name="claim-writable-by-user",
    description=(
        "A model server running as a non-root user that writes its cache or models to a PersistentVolumeClaim has a "
        "way to own it: securityContext.fsGroup, or an init container that chowns the folder (advice)."
    ),
    catalog="G84",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Set spec.securityContext.fsGroup (Kubernetes then gives the volume that group with group write), or add an "
        "init container running as root that chowns the model folder to the server's user."
    ),
    resource_types=workload_types(*OPERATOR_TYPES),
    check_resource=_check,
    rationale=(
        "Kubernetes changes a volume's ownership and permissions only when the pod sets fsGroup "
        "(https://kubernetes.io/docs/tasks/configure-pod-container/security-context/#set-the-security-context-for-a-pod, "
        "#configure-volume-permission-and-ownership-change-policy-for-pods); without it a non-root server cannot write "
        "a root-owned volume. The folder a server writes is its engine row's cache setting "
        "(components/serving_engines.toml downloads.env, policies/reading/engines.py cache_dirs)."
    ),
)
