"""G71: a ReadWriteMany claim names a storage class that can provision a volume many nodes mount.

A claim asking for ReadWriteMany (many nodes writing, the usual form of a model cache shared by GPU replicas) stays
Pending where its class's provisioner makes only single-node volumes, and every pod that mounts it stays Pending with
it. The block and node-local provisioners refuse it:

- Rancher's local-path provisioner (k3s' and kind's default class ``local-path``), on its default ``nodePathMap``
  configuration: "NodePath only supports ReadWriteOnce and ReadWriteOncePod (1.22+) access modes"
  (rancher/local-path-provisioner v0.0.37 provisioner.go:381-385; only a ``sharedFileSystemPath`` configuration,
  L272-292, takes ReadWriteMany);
- the EBS CSI driver: MULTI_NODE_MULTI_WRITER "is only supported for block devices" (kubernetes-sigs/aws-ebs-csi-driver
  v1.64.0 pkg/driver/controller.go:783-802), so a Filesystem claim is refused; GCE PD and Azure Disk likewise serve
  ReadWriteOnce (multi-writer only as raw block).

Proven classes: one defined in the files whose provisioner is one of those, or the names those platforms' defaults
carry (``local-path``; EKS ``gp2``/``gp3``; GKE ``standard-rwo``/``premium-rwo``; AKS ``managed-csi``,
``managed-csi-premium``, ``managed-premium``, ``default``). A claim with no storageClassName takes the cluster's default
class, which on EKS, GKE, AKS and k3s is one of those, unless the cluster's default is a shared file system (EFS,
Filestore, Azure Files, NFS, CephFS): advice. Spent sets 28 natifridman/kserve-demo models/example-model/pvc.yaml
(local-path, label filed none) and 38 aabhimittal/Ray-serve-multi-model-GPU-autoscaling deploy/kuberay/rayservice.yaml
(no class, label filed none).

Silent: a claim bound by name (volumeName) or selector, a claim beside a PersistentVolume of the files (static
provisioning), ``volumeMode: Block``, ``storageClassName: ""`` (no dynamic provisioning), and any other class name
(``fast-ssd``, ``rook-cephfs``, ``standard-rwx``: what it provisions is not in the files). Advice throughout: the
provisioner's configuration, or the cluster's default class, is outside the files.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Optional

from policies.framework import Policy, Resource, unproven
from policies.kube import as_dict, as_list, get, metadata_name, split_type, viewed_resources, workload_types

PVC_TYPE = "kubernetes:core/v1:PersistentVolumeClaim"
# Provisioners that make volumes one node mounts read-write (see the module docstring).
_SINGLE_NODE_PROVISIONERS = {
    "rancher.io/local-path": "Rancher's local-path provisioner (node-local directories)",
    "ebs.csi.aws.com": "the EBS CSI driver (block volumes, one node)",
    "kubernetes.io/aws-ebs": "the in-tree EBS provisioner (block volumes, one node)",
    "pd.csi.storage.gke.io": "the GCE PD CSI driver (persistent disks, one writer node)",
    "kubernetes.io/gce-pd": "the in-tree GCE PD provisioner (persistent disks, one writer node)",
    "disk.csi.azure.com": "the Azure Disk CSI driver (managed disks, one node)",
    "kubernetes.io/azure-disk": "the in-tree Azure Disk provisioner (managed disks, one node)",
    "openebs.io/local": "OpenEBS LocalPV (node-local volumes)",
}
# The default classes those platforms create, by name.
_SINGLE_NODE_CLASSES = {
    "local-path": "k3s' and kind's local-path provisioner",
    "gp2": "EKS's EBS class",
    "gp3": "the EBS gp3 class EKS clusters define",
    "standard-rwo": "GKE's PD class",
    "premium-rwo": "GKE's PD class",
    "managed-csi": "AKS's Azure Disk class",
    "managed-csi-premium": "AKS's Azure Disk class",
    "managed-premium": "AKS's Azure Disk class",
    "default": "AKS's Azure Disk class",
}


def _claims(resource: Resource) -> Iterator[tuple[str, Mapping]]:
    """(where, claim spec) of a PersistentVolumeClaim, or of each volumeClaimTemplate of a StatefulSet."""
    if split_type(resource.type) == ("", "PersistentVolumeClaim"):
        yield "spec", as_dict(get(resource.props, "spec"))
    elif split_type(resource.type) == ("apps", "StatefulSet"):
        for i, template in enumerate(as_list(get(resource.props, "spec", "volumeClaimTemplates"))):
            name = metadata_name(as_dict(template)) or str(i)
            yield f"spec.volumeClaimTemplates[{i}] ({name})", as_dict(get(template, "spec"))


def _defined_classes(view: Optional[tuple[Any, ...]]) -> dict[str, str]:
    """StorageClass name -> provisioner, of the classes the files define."""
    found = {}
    for other in view or ():
        if split_type(other.type) == ("storage.k8s.io", "StorageClass"):
            name, provisioner = metadata_name(other.props), get(other.props, "provisioner")
            if name and isinstance(provisioner, str):
                found[name] = provisioner
    return found


def _why_single_node(class_name: str, defined: dict[str, str]) -> Optional[str]:
    """Why the named class makes single-node volumes, or None when the files do not say it does."""
    if class_name in defined:
        what = _SINGLE_NODE_PROVISIONERS.get(defined[class_name])
        return f"StorageClass {class_name} of the files provisions with {defined[class_name]}, {what}" if what else None
    what = _SINGLE_NODE_CLASSES.get(class_name)
    return f"storageClassName {class_name} is {what}" if what else None


def _check(resource: Resource, config: dict) -> list[str]:
    view = viewed_resources()
    if any(split_type(o.type) == ("", "PersistentVolume") for o in view or ()):
        return []  # a static volume of the files may be what the claim binds
    defined = _defined_classes(view)
    found: list[str] = []
    for where, spec in _claims(resource):
        if "ReadWriteMany" not in as_list(spec.get("accessModes")) or spec.get("volumeMode") == "Block":
            continue
        if spec.get("volumeName") or spec.get("selector"):
            continue
        lead = f"{where}.accessModes ReadWriteMany"
        pending = "the claim stays Pending, and every pod that mounts it with it"
        if "storageClassName" not in spec or spec.get("storageClassName") is None:
            found.append(
                unproven(
                    f"{lead} with no storageClassName takes the cluster's default class, and the defaults of EKS (gp2, "
                    f"EBS), GKE (standard-rwo, PD), AKS (managed-csi, Azure Disk) and k3s (local-path) make volumes one "
                    f"node mounts, so unless the default is a shared file system {pending}; name a ReadWriteMany class "
                    f"(EFS, Filestore, Azure Files, NFS, CephFS)"
                )
            )
            continue
        why = _why_single_node(str(spec.get("storageClassName")), defined)
        if why is not None:
            found.append(
                unproven(
                    f"{lead}: {why}, which provisions no volume many nodes mount, so {pending}; use a ReadWriteMany "
                    f"class (EFS, Filestore, Azure Files, NFS, CephFS) or ReadWriteOnce with one replica per claim"
                )
            )
    return found


POLICY = Policy(
    name="shared-claim-class-shares",
    description=(
        "A ReadWriteMany PersistentVolumeClaim (or volumeClaimTemplate) names a storage class that provisions volumes "
        "many nodes mount, not a block or node-local one (local-path, EBS, PD, Azure Disk), nor the cluster default."
    ),
    catalog="G71",
    severity="medium",
    enforcement="advisory",
    remediation_steps=(
        "Set storageClassName to a shared file-system class (EFS, Filestore, Azure Files, NFS, CephFS), or use "
        "ReadWriteOnce with a StatefulSet's volumeClaimTemplates (one claim per replica)."
    ),
    # The claim itself, and the workloads (a StatefulSet's volumeClaimTemplates; every pod kind, open to custom
    # resources, as pod rules are).
    resource_types=workload_types(PVC_TYPE),
    check_resource=_check,
    rationale=(
        "Block and node-local provisioners refuse ReadWriteMany: rancher/local-path-provisioner v0.0.37 "
        "provisioner.go:381-385, kubernetes-sigs/aws-ebs-csi-driver v1.64.0 pkg/driver/controller.go:783-802; the claim "
        "stays Pending (https://kubernetes.io/docs/concepts/storage/persistent-volumes/#access-modes)."
    ),
)
