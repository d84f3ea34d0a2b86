"""G17: one autoscaler per workload (two autoscalers on one Deployment fight over its replicas).

Each autoscaler writes the target's scale subresource from its own metrics, so two on one workload undo each
other's decisions: replicas flap between what each wants, and GPU pods are bought and dropped. The objects that
end up as an autoscaler of a workload, read from the set:

- an HPA (``spec.scaleTargetRef``);
- a KEDA ScaledObject: KEDA creates an HPA ``keda-hpa-<name>`` for it (kedacore/keda v2.20.2
  controllers/keda/hpa.go:402); KEDA's webhook refuses a ScaledObject whose target another HPA or ScaledObject
  already scales (apis/keda/v1alpha1/scaledobject_webhook.go:256-315, 360-392), unless the ScaledObject adopts that
  HPA: annotation ``scaledobject.keda.sh/transfer-hpa-ownership: "true"`` with
  ``spec.advanced.horizontalPodAutoscalerConfig.name`` naming it (:298-300; scaledobject_types.go:55);
- a KEDA HTTPScaledObject: the HTTP add-on creates a ScaledObject of the same name on its scaleTargetRef (kedacore/
  http-add-on v0.15.0 operator/controllers/http/scaled_object.go:36-46, pkg/k8s/scaledobject.go:38-52) unless
  annotated ``httpscaledobject.keda.sh/skip-scaledobject-creation: "true"`` (operator/controllers/http/app.go:20,49-54);
- a KServe InferenceService in Standard (RawDeployment) mode: KServe creates an HPA on ``<name>-predictor`` unless
  ``serving.kserve.io/autoscalerClass`` is ``external`` or ``none`` (kserve v0.20.0 pkg/controller/v1beta1/
  inferenceservice/reconcilers/hpa/hpa_reconciler.go:150-185 createHPA, :252-261 shouldCreateHPA), or a KEDA
  ScaledObject for class ``keda`` (reconcilers/autoscaler/autoscaler_reconciler.go:91-97); in Knative mode the KPA
  scales revision Deployments of other names, so nothing is read there;
- a NIMService with ``spec.scale.enabled``: its operator renders an HPA on the Deployment of the NIMService's name
  (NVIDIA/k8s-nim-operator v3.1.2 api/apps/v1alpha1/nimservice_types.go:1697-1724 GetHPAParams, :1106-1108, :1167-1169);
- an AIBrix PodAutoscaler (``spec.scaleTargetRef``; vllm-project/aibrix v0.7.0 api/autoscaling/v1alpha1/
  podautoscaler_types.go:57-58);
- a VerticalPodAutoscaler that applies its recommendations, beside an HPA or ScaledObject of the same workload that
  scales on CPU or memory (the VPA project documents the pair as unsupported; policies/autoscaling/vpa_pairs.py).

An HPA or ScaledObject another object of the set owns (``metadata.ownerReferences``), KEDA's ``keda-hpa-<name>``
and the ScaledObject an HTTPScaledObject of the same name creates are that object's autoscaler, not a second one.
Blocking when both autoscalers name the same target in the same namespace (both explicit, or both left to the
namespace they are applied in), the target is in the set and one file holds both; advice when they are in different
files (a folder's alternatives, "use hpa.yaml or keda.yaml": KEDA's webhook would refuse the pair anyway), when the target is in no file read (two
alternatives of a sample folder, or two clusters' files whose objects never collide), when only one states a
namespace, or when the KServe mode is the cluster's default. Objects of different clusters in one run are never
joined (policies/scopes.py). A proven conflict blocks once, on the autoscaler applied later (document order in its
file; kubectl applies a folder's files in name order): a later ScaledObject is the one KEDA's webhook refuses ("the
workload ... is already managed by the hpa", scaledobject_webhook.go:256, 307-309), and a later HPA is the one that
starts the fight with the HPA KEDA already created (the same check refuses the ScaledObject's next update, :133-142). The earlier
autoscaler is reported too, as advice naming the blocking one: the fix may be to delete either.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from policies.autoscaling.scalers import namespace_of
from policies.autoscaling.vpa_pairs import APPLYING, VPA, scaled_on, vpa_controls, vpa_message, vpa_mode, vpa_target
from policies.framework import Policy, Resource, unproven
from policies.kube import (
    ISVC_TYPE,
    KNATIVE_MODES,
    annotations_of,
    as_dict,
    as_list,
    get,
    kserve_default_mode_setting,
    kserve_deployment_mode,
    metadata_name,
    split_type,
)

TRANSFER_HPA = "scaledobject.keda.sh/transfer-hpa-ownership"
SKIP_SCALED_OBJECT = "httpscaledobject.keda.sh/skip-scaledobject-creation"
AUTOSCALER_CLASS = "serving.kserve.io/autoscalerClass"
_HPA, _SO, _HTTP_SO = "HorizontalPodAutoscaler", ("keda.sh", "ScaledObject"), ("http.keda.sh", "HTTPScaledObject")
_NIM, _AIBRIX = ("apps.nvidia.com", "NIMService"), ("autoscaling.aibrix.ai", "PodAutoscaler")


@dataclass(frozen=True)
class Claim:
    """An object of the set that ends up as an autoscaler of (kind, name) in namespace (None: where it is applied)."""

    resource: Resource
    how: str
    kind: str
    name: str
    namespace: Optional[str]
    proven: bool = True


def _ref(resource: Resource, default_kind: Optional[str]) -> tuple[Optional[str], Optional[str]]:
    ref = as_dict(get(resource.props, "spec", "scaleTargetRef"))
    kind, name = ref.get("kind") or default_kind, ref.get("name")
    return (kind, name) if isinstance(kind, str) and isinstance(name, str) else (None, None)


def _isvc_claim(r: Resource, config: dict) -> Optional[Claim]:
    mode, annotated = kserve_deployment_mode(r.props, config["kserveDefaultDeploymentMode"])
    predictor = as_dict(get(r.props, "spec", "predictor"))
    cls = {**annotations_of(r.props), **as_dict(predictor.get("annotations"))}.get(AUTOSCALER_CLASS)
    if mode in KNATIVE_MODES or cls not in (None, "hpa", "keda"):
        return None
    name = metadata_name(r.props) or r.name
    made = "a KEDA ScaledObject" if cls == "keda" else "an HPA"
    shown = f"{AUTOSCALER_CLASS} {cls}" if cls else f"no {AUTOSCALER_CLASS} (hpa)"
    how = f"InferenceService {name} (KServe creates {made} on {name}-predictor in {mode} mode: {shown})"
    return Claim(r, how, "Deployment", f"{name}-predictor", namespace_of(r), proven=annotated)


def _claim(r: Resource, config: dict) -> Optional[Claim]:
    group_kind, name = split_type(r.type), metadata_name(r.props) or r.name
    if r.type == ISVC_TYPE:
        return _isvc_claim(r, config)
    if group_kind == _NIM:
        if get(r.props, "spec", "scale", "enabled") is not True:
            return None
        return Claim(r, f"NIMService {name} (the HPA its operator renders from spec.scale)", "Deployment", name, namespace_of(r))
    if group_kind[1] == _HPA and group_kind[0] == "autoscaling":
        kind, target = _ref(r, None)
        how = f"HPA {name}"
    elif group_kind == _SO:
        kind, target = _ref(r, "Deployment")
        how = f"ScaledObject {name} (through the HPA KEDA creates for it)"
    elif group_kind == _HTTP_SO:
        if str(annotations_of(r.props).get(SKIP_SCALED_OBJECT)).lower() == "true":
            return None
        kind, target = _ref(r, "Deployment")
        how = f"HTTPScaledObject {name} (through the ScaledObject the KEDA HTTP add-on creates)"
    elif group_kind == _AIBRIX:
        kind, target = _ref(r, None)
        how = f"PodAutoscaler {name} (AIBrix, {get(r.props, 'spec', 'scalingStrategy') or 'its strategy'})"
    else:
        return None
    return None if kind is None or target is None else Claim(r, how, kind, target, namespace_of(r))


def written_claims(resources: list[Resource]) -> list[Claim]:
    """The autoscalers the files write themselves on a named workload (HPA, KEDA ScaledObject and HTTPScaledObject,
    AIBrix PodAutoscaler, NIMService spec.scale), less those another of them owns (KEDA's keda-hpa-<name>)."""
    claims = [c for r in resources if r.type != ISVC_TYPE and (c := _claim(r, {})) is not None]
    claimed = {(split_type(c.resource.type)[1], metadata_name(c.resource.props) or c.resource.name) for c in claims}
    return [c for c in claims if not _owned(c.resource, claimed)]


def _owned(r: Resource, claimed: set[tuple[str, str]]) -> bool:
    """An HPA or ScaledObject another claimant of the set creates: owned by it, or named as KEDA / the add-on name it."""
    for owner in as_list(get(r.props, "metadata", "ownerReferences")):
        if (get(owner, "kind"), get(owner, "name")) in claimed:
            return True
    name, group_kind = metadata_name(r.props) or "", split_type(r.type)
    if group_kind[1] == _HPA and name.startswith("keda-hpa-") and ("ScaledObject", name[len("keda-hpa-") :]) in claimed:
        return True
    return group_kind == _SO and ("HTTPScaledObject", name) in claimed


def _adopts(a: Claim, b: Claim) -> bool:
    """True when one of the two is a ScaledObject adopting the other, an HPA, as KEDA documents."""
    for so, hpa in ((a, b), (b, a)):
        if split_type(so.resource.type) != _SO or split_type(hpa.resource.type)[1] != _HPA:
            continue
        adopted = get(so.resource.props, "spec", "advanced", "horizontalPodAutoscalerConfig", "name")
        transfer = str(annotations_of(so.resource.props).get(TRANSFER_HPA)).lower() == "true"
        if transfer and adopted == metadata_name(hpa.resource.props):
            return True
    return False


def _target_present(claim: Claim, resources: list[Resource]) -> bool:
    """True when the target is in the set: the InferenceService or NIMService renders it, or an object of the set is
    it. Only then is the pair known to be one cluster's (policies/scopes.py splits a run where the targets collide)."""
    if claim.resource.type == ISVC_TYPE or split_type(claim.resource.type) == _NIM:
        return True
    return any(
        (split_type(r.type)[1], metadata_name(r.props)) == (claim.kind, claim.name)
        and (claim.namespace is None or namespace_of(r) in (None, claim.namespace))
        for r in resources
    )


# How `policies check` names an object read from a file: "<file>#<document>[<item>...] <Kind>/<name>"
# (policies/check.py _key, policies/manifests.py ManifestObject.location); a stack's resources carry no file.
_LOCATION = re.compile(r"^(?P<file>.+)#(?P<document>\d+)(?P<items>(\[\d+\])*) [^ ]+/[^ ]*$")


def file_of(resource: Resource) -> Optional[str]:
    """The manifest file an object was read from, or None (a stack resource, stdin included as one file)."""
    found = _LOCATION.match(resource.name or "")
    return found.group("file") if found else None


def _applied_order(resource: Resource, index: int) -> tuple[str, int, tuple[int, ...], int]:
    """Where ``resource`` comes in ``kubectl apply``'s order: by file name, then document and List item; a stack's
    resources (no file) in the order they were registered."""
    found = _LOCATION.match(resource.name or "")
    if not found:
        return ("", 0, (), index)
    items = tuple(int(i) for i in re.findall(r"\d+", found.group("items")))
    return (found.group("file"), int(found.group("document")), items, index)


def _message(later: Claim, earlier: Claim) -> str:
    namespace = later.namespace or earlier.namespace
    where = f" in namespace {namespace}" if namespace else ""
    keda = any(split_type(c.resource.type) in (_SO, _HTTP_SO) for c in (later, earlier))
    refused = " (KEDA's webhook refuses a ScaledObject on a target another autoscaler scales)" if keda else ""
    return (
        f"{later.how} and {earlier.how} both scale {later.kind}/{later.name}{where}: two autoscalers write one replica "
        f"count from different signals, each undoing the other, so GPU replicas flap{refused}; keep one autoscaler"
    )


def _pair(one: Claim, other: Claim, resources: list[Resource]) -> tuple[str, bool]:
    """The finding on ``one`` for its conflict with ``other``: the message (naming ``other``) and whether it is proven."""
    message = _message(one, other)
    proven = one.proven and other.proven and one.namespace == other.namespace
    proven = proven and (_target_present(one, resources) or _target_present(other, resources))
    # Two files of one folder may be alternatives (hpa.yaml "or" keda.yaml, review 32 R7): only one file holding both
    # proves they are applied together.
    files = {file_of(one.resource), file_of(other.resource)}
    if None not in files and len(files) > 1:
        proven, message = False, message + f" (if both {' and '.join(sorted(str(f) for f in files))} are applied)"
    return message, proven


def _conflict(a: Claim, b: Claim) -> bool:
    if (a.kind, a.name) != (b.kind, b.name) or _adopts(a, b):
        return False
    return a.namespace is None or b.namespace is None or a.namespace == b.namespace


def _check(resources: list[Resource], config: dict) -> list[tuple[str, str]]:
    claims = [c for r in resources if (c := _claim(r, config)) is not None]
    claimed = {(split_type(c.resource.type)[1], metadata_name(c.resource.props) or c.resource.name) for c in claims}
    position = {id(r): _applied_order(r, i) for i, r in enumerate(resources)}
    claims = sorted((c for c in claims if not _owned(c.resource, claimed)), key=lambda c: position[id(c.resource)])
    findings = []
    for i, one in enumerate(claims):
        earlier = [_pair(one, other, resources) for other in claims[:i] if _conflict(one, other)]
        later = [other for other in claims[i + 1 :] if _conflict(one, other)]
        blocking = next((p for p in earlier if p[1]), None)
        if blocking:
            # One block per conflict, on the autoscaler applied after another of the workload (module docstring).
            findings.append((one.resource.name, blocking[0]))
        elif earlier or later:
            findings.append((one.resource.name, unproven(_earlier_message(one, earlier, later, resources))))
    return findings + _vpa_findings(claims, resources)


def _earlier_message(one: Claim, earlier: list[tuple[str, bool]], later: list[Claim], resources: list[Resource]) -> str:
    """Advice on an autoscaler no proven conflict blocks here: a later one's block names it, or the pair is unproven."""
    for other in later:
        message, proven = _pair(one, other, resources)
        if proven:
            named = f"{split_type(other.resource.type)[1]}/{metadata_name(other.resource.props) or other.resource.name}"
            return f"{message} (the blocking finding is on {named}, applied after this one)"
    return earlier[0][0] if earlier else _pair(one, later[0], resources)[0]


def _vpa_findings(claims: list[Claim], resources: list[Resource]) -> list[tuple[str, str]]:
    """A VPA that applies its recommendations beside an HPA or ScaledObject on CPU or memory of the same workload
    (policies/autoscaling/vpa_pairs.py); proven as the pairs above are (one file, the target in the set)."""
    findings = []
    for vpa in resources:
        if split_type(vpa.type) != VPA or vpa_mode(vpa) == "Off":
            continue
        kind, name = vpa_target(vpa)
        for claim in claims:
            if (claim.kind, claim.name) != (kind, name) or namespace_of(vpa) != claim.namespace:
                continue
            both = vpa_controls(vpa) & scaled_on(claim.resource)
            if not both:
                continue
            message = vpa_message(vpa, claim.how, claim.kind, claim.name, both)
            files = {file_of(vpa), file_of(claim.resource)}
            proven = vpa_mode(vpa) in APPLYING and _target_present(claim, resources) and len(files) == 1
            findings.append((vpa.name, message if proven else unproven(message)))
    return findings


POLICY = Policy(
    name="one-autoscaler-per-workload",
    description=(
        "A workload has one autoscaler: no two of HPA, KEDA ScaledObject or HTTPScaledObject, KServe's own HPA of a "
        "Standard-mode InferenceService, a NIMService's spec.scale HPA or an AIBrix PodAutoscaler may target the same "
        "Deployment (files of one run are joined; KEDA's documented HPA adoption is allowed), and no VerticalPodAutoscaler "
        "applies recommendations on a workload an HPA scales on CPU or memory."
    ),
    catalog="G17",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Keep one autoscaler per workload: delete the extra HPA; to move an HPA under KEDA, annotate the ScaledObject "
        f'{TRANSFER_HPA}: "true" and name the HPA in spec.advanced.horizontalPodAutoscalerConfig.name; for a KServe '
        f"InferenceService scaled by your own HPA or ScaledObject, set {AUTOSCALER_CLASS}: external; for a NIMService, "
        "use spec.scale or your HPA, not both."
    ),
    config_schema={
        "kserveDefaultDeploymentMode": kserve_default_mode_setting(
            "The deployment mode of an InferenceService without the serving.kserve.io/deploymentMode annotation (the "
            "cluster's inferenceservice-config deploy.defaultDeploymentMode); default Serverless, as KServe v0.20.0 "
            "ships it. Only in Standard (RawDeployment) mode does KServe create an HPA on <name>-predictor; a "
            "finding that rests on this setting is advice."
        ),
    },
    check_stack=_check,
    rationale=(
        "Two HPAs on one target both write its replica count, each from its own metrics, so the count flaps "
        "(https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/); KEDA refuses a ScaledObject "
        "on a workload another HPA already scales unless it adopts that HPA (annotation scaledobject.keda.sh/"
        "transfer-hpa-ownership, https://keda.sh/docs/latest/reference/scaledobject-spec), and KServe creates its own HPA for a "
        "Standard-mode InferenceService unless its autoscalerClass is external or none. A VerticalPodAutoscaler "
        "should not be used with an HPA on CPU or memory (kubernetes/autoscaler vertical-pod-autoscaler/docs/"
        "known-limitations.md): the VPA rewrites the requests the HPA's utilization is measured against. Catalogue G17."
    ),
)
