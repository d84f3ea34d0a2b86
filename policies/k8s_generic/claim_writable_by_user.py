"""G84: a non-root pod that writes to a claim can write it: a well-known app running as a fixed user, a model server.

Well-known apps whose images run as a fixed user other than root (components/image_users.toml rows with ``writes``,
each cited at a release: Grafana as 472 writing /var/lib/grafana, Prometheus as 65534 writing /prometheus) on any pod
template, with that folder on a claim, no fsGroup and no init container that takes ownership: a block provisioner
formats a new volume as root, its root folder root-owned with mode 0755, so the app cannot create its database and
exits (Grafana: "failed to create SQLite database file ... permission denied"; Prometheus: the TSDB lock). Mandatory
when the claim is provisioned new in a block class (a StorageClass of the files with the EBS, PD or Azure Disk
provisioner, or a class name those platforms ship: gp2/gp3/io1/io2, standard-rwo/premium-rwo, managed-csi); advice
for another or no class, a claim bound to a volume or filled from a data source, and where the files hold an
OpenShift object (any *.openshift.io group: its restricted SCCs assign an fsGroup, MustRunAs, to a pod stating
none); silent for a runAsUser the files do not state as a number (a template's value). Spent set 78
Brayantcw/kserve_k8s_setup k8s/monitoring/grafana.yaml (grafana/grafana:11.4.0 over a gp3 claim, labelled NONE
blocking).

Model servers (advice):

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
from policies.kube import (
    as_dict,
    as_list,
    container_label,
    containers,
    get,
    memoized,
    pod_specs,
    split_type,
    viewed_resources,
    workload_types,
)
from policies.operators import OPERATOR_TYPES
from policies.reading.engines import cache_dirs, path_under, table_servers
from policies.reading.image_users import ImageUser, non_root_image, repository_of
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


def _user_unstated(podspec: Mapping, container: Mapping) -> bool:
    """True when the container's or pod's runAsUser is there but not a number the files state (``{{ .Values.uid }}``)."""
    return any(
        "runAsUser" in context for context in (as_dict(container.get("securityContext")), as_dict(podspec.get("securityContext")))
    )


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


# Provisioners that format a new block volume (ext4/xfs made by root: its root folder root-owned, mode 0755).
_BLOCK_PROVISIONERS = frozenset(
    {
        "ebs.csi.aws.com",
        "kubernetes.io/aws-ebs",
        "pd.csi.storage.gke.io",
        "kubernetes.io/gce-pd",
        "disk.csi.azure.com",
        "kubernetes.io/azure-disk",
    }
)
# Class names that are such block volumes wherever a cluster has them: EBS volume types (EKS ships gp2), GKE's and
# AKS's built-in disk classes. A StorageClass of the files under that name decides instead.
_BLOCK_CLASS_NAMES = frozenset({"gp2", "gp3", "io1", "io2", "standard-rwo", "premium-rwo", "managed-csi", "managed-csi-premium"})


def _storage_index(view: Any) -> dict:
    """("class", name) -> provisioner and ("claim", namespace, name) -> spec, over the run's objects."""
    index: dict = {}
    for r in view:
        kind = split_type(getattr(r, "type", ""))
        name, namespace = get(r.props, "metadata", "name"), get(r.props, "metadata", "namespace")
        if kind[0].endswith(".openshift.io"):  # an OpenShift cluster's SCC admission fills in fsGroup and the user
            index[("openshift",)] = True
        if kind == ("storage.k8s.io", "StorageClass"):
            index[("class", name)] = get(r.props, "provisioner")
        elif kind == ("", "PersistentVolumeClaim"):
            index[("claim", namespace, name)] = as_dict(get(r.props, "spec"))
    return index


def _claim_spec(resource: Resource, podspec: Mapping, name: Any) -> Optional[dict]:
    """The spec of the claim behind volume ``name``: a PVC of the files, a volumeClaimTemplate, an ephemeral template."""
    volume = next((as_dict(v) for v in as_list(podspec.get("volumes")) if as_dict(v).get("name") == name), None)
    if volume is None:
        templates = as_list(get(resource.props, "spec", "volumeClaimTemplates"))
        return next(
            (as_dict(t.get("spec")) for t in templates if isinstance(t, dict) and get(t, "metadata", "name") == name), None
        )
    if "ephemeral" in volume:
        return as_dict(get(volume, "ephemeral", "volumeClaimTemplate", "spec"))
    view = viewed_resources() or ()
    claim = get(volume, "persistentVolumeClaim", "claimName")
    return memoized(view, "claim_storage_index", _storage_index).get(
        ("claim", get(resource.props, "metadata", "namespace"), claim)
    )


def _block_class(resource: Resource, podspec: Mapping, name: Any) -> Optional[str]:
    """The class of a claim that is provisioned new as a formatted block volume (root-owned), else None: no class
    named, a class of the files with another provisioner, a claim bound to a volume or filled from a data source."""
    spec = _claim_spec(resource, podspec, name)
    if not spec or spec.get("volumeName") or spec.get("dataSource") or spec.get("dataSourceRef"):
        return None
    cls = spec.get("storageClassName")
    if not isinstance(cls, str):
        return None
    index = memoized(viewed_resources() or (), "claim_storage_index", _storage_index)
    if ("class", cls) in index:
        return cls if index[("class", cls)] in _BLOCK_PROVISIONERS else None
    return cls if cls in _BLOCK_CLASS_NAMES else None


def _app_dirs(container: Mapping, row: ImageUser) -> list[str]:
    """The folders the app writes: the table's, the first moved by its variable or flag where the container sets it."""
    dirs = list(row.writes)
    if row.env:
        for item in (as_dict(e) for e in as_list(container.get("env"))):
            if item.get("name") == row.env and isinstance(item.get("value"), str) and item["value"].startswith("/"):
                dirs[0] = item["value"]
    if row.flag:
        argv = container_argv(container)
        for i, word in enumerate(argv):
            if word.startswith(row.flag + "=") and word[len(row.flag) + 1 :].startswith("/"):
                dirs[0] = word[len(row.flag) + 1 :]
            elif word == row.flag and i + 1 < len(argv) and argv[i + 1].startswith("/"):
                dirs[0] = argv[i + 1]
    return dirs


def _app_messages(resource: Resource) -> list:
    """Well-known apps that run as a fixed non-root user (components/image_users.toml) over a claim they cannot write."""
    messages: list = []
    for path, podspec in pod_specs(resource):
        if get(podspec, "securityContext", "fsGroup") is not None:
            continue
        for container in containers(podspec):
            row = non_root_image(container.get("image"))
            if row is None:
                continue
            user = _user(podspec, container)
            if user == 0 or (user is None and _user_unstated(podspec, container)):
                continue
            user = row.uid if user is None else user
            for directory in _app_dirs(container, row):
                mount = _mount(container, directory)
                if mount is None or mount.get("readOnly") is True:
                    continue
                claim = _claim(resource, podspec, mount.get("name"))
                if claim is None or _owned_by_init(podspec, mount.get("name")):
                    continue
                block = _block_class(resource, podspec, mount.get("name"))
                if block and memoized(viewed_resources() or (), "claim_storage_index", _storage_index).get(("openshift",)):
                    block = None  # restricted SCCs assign fsGroup (MustRunAs) to pods that state none
                made = f"a new {block} volume is formatted by root" if block else "a new block volume's root is owned by root"
                message = (
                    f"{container_label(path, container)}: {repository_of(str(container.get('image')))} runs as user {user} "
                    f"and must write {directory}, on {claim}, but the pod sets no securityContext.fsGroup and no init "
                    f"container takes ownership of the folder: {made} (mode 0755) and Kubernetes changes a volume's "
                    f"owner only for fsGroup, so the app cannot create its files there (permission denied) and exits; set "
                    f"securityContext.fsGroup: {user} on the pod"
                )
                messages.append(message if block else unproven(message + " (the claim's class may make world-writable volumes)"))
                break
    return messages


def _check(resource: Resource, config: dict) -> list[str]:
    messages: list[str] = _app_messages(resource)
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
        "A pod running as a non-root user that writes to a PersistentVolumeClaim has a way to own it (securityContext."
        "fsGroup, or an init container that chowns the folder): a well-known app with a fixed user (Grafana 472, "
        "Prometheus 65534) over a new block volume never starts; a non-root model server's download is advice."
    ),
    catalog="G84",
    severity="medium",
    enforcement="mandatory",
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
        "(components/serving_engines.toml downloads.env, policies/reading/engines.py cache_dirs); the user and folders "
        "of well-known apps are components/image_users.toml rows (grafana/helm-charts grafana-8.15.0 charts/grafana/"
        "values.yaml:148-152 runs Grafana as 472 with fsGroup 472; prometheus/prometheus v3.1.0 Dockerfile:16-24 USER "
        "nobody over /prometheus)."
    ),
)
