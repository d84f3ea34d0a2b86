"""G83: a claim that pre-binds a PersistentVolume asks for what that volume offers (access modes, size, class, mode).

A PersistentVolumeClaim whose ``spec.volumeName`` names a PersistentVolume that reserves no claim (no
``spec.claimRef``) is bound by the PV controller only when the volume satisfies it; otherwise it records a
VolumeMismatch event (``Cannot bind to requested volume "NAME": ...``) and leaves the claim Pending, and every pod that
mounts the claim stays Pending with it (kubernetes/kubernetes pkg/controller/volume/persistentvolume/pv_controller.go
syncUnboundClaim, the ``claim.Spec.VolumeName != ""`` branch, and checkVolumeSatisfyClaim: the volume's
``capacity.storage`` below the claim's ``requests.storage`` is "requested PV is too small"; a class other than the
claim's "storageClassName does not match"; a volumeMode other than the claim's (both default to Filesystem)
"incompatible volumeMode"; an access mode the claim asks that the volume lacks "incompatible accessMode"; code index
stored version id 93169161, the klog.FromContext release line). The classes compared are
component-helpers storage/volume GetPersistentVolumeClass (the ``volume.beta.kubernetes.io/storage-class``
annotation, else spec.storageClassName, else "") and GetPersistentVolumeClaimClass (the annotation, else
spec.storageClassName, else "").

A volume that reserves a claim (``claimRef``) is bound to it without this check, so the rule is silent there.

A claim with no class is given the cluster's default class at admission, volumeName or not (kubernetes
plugin/pkg/admission/storage/storageclass/setdefault/admission.go Admit: a claim that has no class gets the default's
name; code index stored version id 65377254): it binds a volume of class X only where X is that default, and a volume
of no class only where the cluster has no default (EKS, GKE, AKS and k3s all have one). The cluster's default is not
in the files, so that case is advice, and silent where the run defines class X annotated as the default.
Third-party form of that case: a public K3s/vLLM guide in the code index (stored version id 63143504159) creating PV
``model-cache-pv`` (hostPath, no class) and claim ``model-cache-pvc`` with ``volumeName: model-cache-pv`` and no
storageClassName.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from policies.framework import Policy, Resource, unproven
from policies.k8s_generic.host_path_volume_per_node import _matches
from policies.kube import as_dict, as_list, as_quantity, get, memoized, metadata_name, split_type, viewed_resources
from policies.reading.run_objects import templated, unrendered

PVC_TYPE = "kubernetes:core/v1:PersistentVolumeClaim"
_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
_DEFAULT_ANNOTATIONS = ("storageclass.kubernetes.io/is-default-class", "storageclass.beta.kubernetes.io/is-default-class")


def _volumes(view: Any) -> dict[str, list[Resource]]:
    """PersistentVolume name -> its definitions in the run (cluster-scoped: any namespace the file states)."""
    found: dict[str, list[Resource]] = {}
    for r in view:
        if split_type(r.type) == ("", "PersistentVolume") and isinstance(r.props, dict):
            name = metadata_name(r.props)
            if isinstance(name, str) and name:
                found.setdefault(name, []).append(r)
    return found


def _default_classes(view: Any) -> set[str]:
    """The StorageClasses of the run annotated as the cluster's default."""
    return {
        str(metadata_name(r.props))
        for r in view
        if split_type(r.type) == ("storage.k8s.io", "StorageClass")
        and any(str(get(r.props, "metadata", "annotations", a)).lower() == "true" for a in _DEFAULT_ANNOTATIONS)
    }


def _class(obj: Mapping, claim: bool) -> Optional[str]:
    """The storage class the binder reads, or None for a claim that states none (the default class is admitted)."""
    annotations = as_dict(get(obj, "metadata", "annotations"))
    if _CLASS_ANNOTATION in annotations:
        return str(annotations[_CLASS_ANNOTATION])
    value = get(obj, "spec", "storageClassName")
    if value is None:
        return None if claim else ""
    return value if isinstance(value, str) else None


def _modes(value: Any) -> Optional[list[str]]:
    modes = as_list(value)
    return [m for m in modes if isinstance(m, str)] if all(isinstance(m, str) and not unrendered(m) for m in modes) else None


def _meant_for_classless(claim: dict, view: Any) -> list[str]:
    """Advice on a claim that names no volume and no class while a PersistentVolume of the run with no class, reserving
    no other claim, is the one it matches (its selector, access modes, size and volumeMode: the volume controller's
    test, policies.k8s_generic.host_path_volume_per_node._matches): admission gives the claim the cluster's default
    class (setdefault/admission.go, stored version id 65377254), and the binder then matches only volumes of that class
    (component-helpers FindMatchingVolume), so the claim never binds the volume written for it: a fresh empty volume
    of the default class is provisioned instead, or, with a selector (which dynamic provisioning refuses), the claim
    stays Pending. Spent set 86 cuongtop4598/chatbot-ui k8s/ollama-pvc.yaml (hostPath PV, claim with no class) and set
    89 doublefix/OpsFlow deploy/deepseek_r1_pvc_model.yaml (NFS PV picked by a label selector), both labelled G83."""
    if _class(claim, claim=True) is not None:
        return []
    defaults = sorted(memoized(view, "default_classes", _default_classes))
    given = (
        f"the default class {defaults[0]} of the files"
        if defaults
        else "the cluster's default class (EKS, GKE, AKS and k3s all have one)"
    )
    for volumes in memoized(view, "named_volumes", _volumes).values():
        if len(volumes) != 1:
            continue
        volume = volumes[0].props
        if _class(volume, claim=False) != "" or not _matches(volume, claim):
            continue
        selector = get(claim, "spec", "selector") is not None
        outcome = (
            "its selector rules out dynamic provisioning, so it stays Pending with every pod that mounts it"
            if selector
            else "a fresh, empty volume of that class is provisioned instead and the data on the volume is never seen"
        )
        return [
            unproven(
                f"spec: the claim states no storageClassName and no volumeName, and PersistentVolume "
                f"{metadata_name(volume)} (no storage class) is the volume it matches"
                f"{' by its selector' if selector else ''}; admission gives the claim {given}, so it never binds that volume: {outcome}; set the claim's "
                f'storageClassName to "" (or volumeName {metadata_name(volume)})'
            )
        ]
    return []


def _check(resource: Resource, config: dict) -> list[str]:
    claim = resource.props
    name = get(claim, "spec", "volumeName")
    view = viewed_resources()
    if isinstance(claim, dict) and name is None and view:
        return _meant_for_classless(claim, view)
    if not isinstance(claim, dict) or not isinstance(name, str) or not name or templated(name) or not view:
        return []
    volumes = memoized(view, "named_volumes", _volumes).get(name, [])
    if len(volumes) != 1 or get(volumes[0].props, "spec", "claimRef") is not None:
        return []
    volume = volumes[0].props
    lead = f"spec.volumeName {name}: "
    pending = (
        f'so the PV controller refuses the binding (VolumeMismatch: Cannot bind to requested volume "{name}": '
        "{why}) and the claim stays Pending, with every pod that mounts it"
    )
    found: list[str] = []
    asked, offered = _modes(get(claim, "spec", "accessModes")), _modes(get(volume, "spec", "accessModes"))
    if asked is not None and offered is not None and offered:
        missing = [m for m in asked if m not in offered]
        if missing:
            found.append(
                f"{lead}the claim asks access mode {', '.join(missing)} that PersistentVolume {name} does not offer "
                f"({', '.join(offered)}), " + pending.format(why="incompatible accessMode") + "; ask only the volume's modes"
            )
    request = get(claim, "spec", "resources", "requests", "storage")
    capacity = get(volume, "spec", "capacity", "storage")
    size, room = as_quantity(request), as_quantity(capacity)
    if size is not None and room is not None and room < size:
        found.append(
            f"{lead}the claim requests {request} of storage and PersistentVolume {name} holds {capacity}, "
            + pending.format(why="requested PV is too small")
            + "; request at most the volume's capacity"
        )
    modes = [str(get(o, "spec", "volumeMode") or "Filesystem") for o in (claim, volume)]
    if modes[0] != modes[1] and not any(unrendered(m) for m in modes):
        found.append(
            f"{lead}the claim's volumeMode {modes[0]} is not PersistentVolume {name}'s {modes[1]}, "
            + pending.format(why="incompatible volumeMode")
            + "; give both one volumeMode"
        )
    wanted, has = _class(claim, claim=True), _class(volume, claim=False)
    if has is None or unrendered(has) or (wanted is not None and unrendered(wanted)):
        return found
    shown = f"storageClassName {has}" if has else "no storage class"
    if wanted is not None and wanted != has:
        asked_class = f"storageClassName {wanted}" if wanted else 'storageClassName ""'
        found.append(
            f"{lead}the claim's {asked_class} is not PersistentVolume {name}'s ({shown}), "
            + pending.format(why="storageClassName does not match")
            + "; give the claim the volume's class"
        )
    elif wanted is None and has not in memoized(view, "default_classes", _default_classes):
        where = (
            "the cluster has no default class, and EKS, GKE, AKS and k3s all have one"
            if not has
            else f"{has} is the cluster's default class"
        )
        found.append(
            unproven(
                f"{lead}the claim states no storageClassName, so admission gives it the cluster's default class, while "
                f"PersistentVolume {name} has {shown}: unless {where}, "
                + pending.format(why="storageClassName does not match")
                + f"; set the claim's storageClassName to {has or chr(34) * 2}"
            )
        )
    return found


POLICY = Policy(
    name="claim-fits-bound-volume",
    description=(
        "A PersistentVolumeClaim that names its PersistentVolume (spec.volumeName) asks for what that volume offers: "
        "access modes it has, no more storage than its capacity, its storage class and volumeMode."
    ),
    catalog="G83",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Make the claim's accessModes a subset of the volume's, its storage request at most the volume's capacity, and "
        'its storageClassName ("" for a volume with no class) and volumeMode the volume\'s.'
    ),
    config_schema={},
    resource_types=(PVC_TYPE,),
    check_resource=_check,
    rationale=(
        "The PV controller binds a claim to the volume it names only when checkVolumeSatisfyClaim passes "
        "(kubernetes/kubernetes pkg/controller/volume/persistentvolume/pv_controller.go); otherwise the claim stays "
        "Pending (https://kubernetes.io/docs/concepts/storage/persistent-volumes/#reserving-a-persistentvolume)."
    ),
)
