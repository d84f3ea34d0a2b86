"""G100: a StorageClass that provisions nothing (``kubernetes.io/no-provisioner``) has PersistentVolumes for its claims.

``kubernetes.io/no-provisioner`` is the provisioner name a StorageClass takes "to indicate dynamic provisioning is not
supported by the storage" (kubernetes component-helpers storage/volume NotSupportedProvisioner, code index stored
version id 66897335449): the scheduler's volume binder treats a claim of such a class as one only an existing volume
can satisfy ("Storage class of claim does not support dynamic provisioning", checkVolumeProvisions, stored version id
18325448662), so the claim binds only a PersistentVolume of that class (a local PV written by hand or by a static
provisioner) and otherwise stays Pending, with every pod that mounts it. The class is the Kubernetes documentation's
form for local volumes (https://kubernetes.io/docs/concepts/storage/storage-classes/#local), and repositories copy
it with a comment to swap in their cloud's provisioner (spent set 88 JakeBx/hardened-llm-deployment
deployments/manifests/base/storage-class.yaml@88313865, class fast-ssd for the model caches, labelled none, blocking).

Advice, on the StorageClass and on each claim of it the files hold (a PVC or a StatefulSet's claim template, with no
volumeName: one naming its volume binds what it names, G83), when no PersistentVolume of the files has the class: the
volumes may be made outside the files (a local static provisioner, a script), which the files cannot rule out.
A claim with no class counts when the class is annotated as the cluster's default (admission gives it the class).
"""

from __future__ import annotations

from typing import Any

from policies.framework import Policy, Resource, unproven
from policies.kube import WorkloadTypes, as_dict, as_list, get, memoized, metadata_name, split_type, viewed_resources

NO_PROVISIONER = "kubernetes.io/no-provisioner"
STORAGE_CLASS_TYPE = "kubernetes:storage.k8s.io/v1:StorageClass"
PVC_TYPE = "kubernetes:core/v1:PersistentVolumeClaim"
STATEFULSET_TYPE = "kubernetes:apps/v1:StatefulSet"
_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
_DEFAULT_ANNOTATIONS = ("storageclass.kubernetes.io/is-default-class", "storageclass.beta.kubernetes.io/is-default-class")


def _class_of(obj: Any) -> Any:
    """A claim's or volume's class as the binder reads it (the beta annotation, else spec.storageClassName)."""
    annotations = as_dict(get(obj, "metadata", "annotations"))
    return annotations[_CLASS_ANNOTATION] if _CLASS_ANNOTATION in annotations else get(obj, "spec", "storageClassName")


def _static_classes(view: Any) -> dict[str, bool]:
    """Name -> is-default of each StorageClass of the run that provisions nothing and has no PersistentVolume of the
    run of its class."""
    classes = {
        str(metadata_name(r.props)): any(
            str(get(r.props, "metadata", "annotations", a)).lower() == "true" for a in _DEFAULT_ANNOTATIONS
        )
        for r in view
        if split_type(r.type) == ("storage.k8s.io", "StorageClass")
        and isinstance(r.props, dict)
        and r.props.get("provisioner") == NO_PROVISIONER
        and isinstance(metadata_name(r.props), str)
    }
    for r in view:
        if classes and split_type(r.type) == ("", "PersistentVolume"):
            classes.pop(str(_class_of(r.props)), None)
    return classes


def _claims(view: Any, classes: dict[str, bool]) -> list[tuple[Resource, str, str]]:
    """(object, where, class) of each claim of the run, with no volumeName, on one of ``classes``."""
    default = next((name for name, is_default in classes.items() if is_default), None)
    found = []
    for r in view:
        if r.type == PVC_TYPE:
            specs = [("spec", r.props)]
        elif r.type == STATEFULSET_TYPE:
            specs = [
                (f"spec.volumeClaimTemplates {get(t, 'metadata', 'name')}", t)
                for t in as_list(get(r.props, "spec", "volumeClaimTemplates"))
            ]
        else:
            continue
        for where, claim in specs:
            if get(claim, "spec", "volumeName"):
                continue
            wanted = _class_of(claim)
            name = wanted if isinstance(wanted, str) else default
            if name in classes:
                found.append((r, where, name))
    return found


def _check(resource: Resource, config: dict) -> list[str]:
    view = viewed_resources()
    if not view or not isinstance(resource.props, dict):
        return []
    classes = memoized(view, "static_classes_unfilled", _static_classes)
    if not classes:
        return []
    claims = _claims(view, classes)
    if resource.type == STORAGE_CLASS_TYPE:
        name = metadata_name(resource.props)
        users = sorted({str(metadata_name(r.props)) for r, _, c in claims if c == name})
        if not users:
            return []
        return [
            unproven(
                f"provisioner {NO_PROVISIONER}: this class creates no volumes, and no PersistentVolume of the files has "
                f"storageClassName {name}, so the claims on it ({', '.join(users)}) stay Pending, with every pod that "
                f"mounts them, unless such volumes are made outside the files; name a provisioner that creates volumes "
                f"(ebs.csi.aws.com, pd.csi.storage.gke.io, disk.csi.azure.com, a local-path provisioner) or add the "
                f"PersistentVolumes"
            )
        ]
    return [
        unproven(
            f"{where}: StorageClass {c} has provisioner {NO_PROVISIONER} (it creates no volumes) and no "
            f"PersistentVolume of the files has that class, so this claim stays Pending, with every pod that mounts it, "
            f"unless such a volume is made outside the files; use a class whose provisioner creates volumes, or add "
            f"the PersistentVolume"
        )
        for r, where, c in claims
        if r is resource
    ]


POLICY = Policy(
    name="static-class-has-volumes",
    description=(
        "A claim on a StorageClass whose provisioner is kubernetes.io/no-provisioner (no dynamic provisioning) has a "
        "PersistentVolume of that class in the files; otherwise it stays Pending unless volumes are made elsewhere "
        "(advice, on the class and the claim)."
    ),
    catalog="G100",
    severity="high",
    enforcement="advisory",
    remediation_steps=(
        "Give the StorageClass a provisioner that creates volumes (the cloud's CSI driver, a local-path provisioner), "
        "or ship the PersistentVolumes of that class (local volumes with nodeAffinity) with the claims."
    ),
    config_schema={},
    resource_types=WorkloadTypes((STORAGE_CLASS_TYPE, PVC_TYPE, STATEFULSET_TYPE)),
    check_resource=_check,
    rationale=(
        "kubernetes.io/no-provisioner marks a class without dynamic provisioning (component-helpers storage/volume "
        "NotSupportedProvisioner; https://kubernetes.io/docs/concepts/storage/storage-classes/#local): its claims bind "
        "only existing PersistentVolumes of the class."
    ),
)
