"""G69 (scaleTargetRef): an autoscaler's target is a kind whose CustomResourceDefinition serves the /scale subresource.

An HPA, a KEDA ScaledObject and an HTTPScaledObject (which makes a ScaledObject for the same target) read and write
their target's replica count through its /scale subresource only. KEDA's ScaledObject controller checks that first
(kedacore/keda v2.20.2 controllers/keda/scaledobject_controller.go:279-283 calls checkTargetResourceIsScalable, which at
:455-478 asks the scale client for the target and, where the object exists but /scale does not answer, emits
ScaleTargetNoSubresourceMsg and returns the error): the ScaledObject never becomes Ready and never scales. The HPA
controller likewise records FailedGetScale on every sync. A custom resource serves /scale only where its CRD declares
``subresources.scale``; components/scale_subresources.toml holds, for the operator kinds the pack reads, whether their
CRD does at our pinned releases (KubeRay's RayService, RayCluster and RayJob: status only at every tag v1.0.0 to
v1.7.0; KServe's InferenceService and LLMInferenceService: status only at v0.20.0; LeaderWorkerSet and Karpenter's
NodePool: /scale). Form: spent set 87 xiaolin8/Wan2.2@f7e81e36 k8s/keda-scaledobject.yaml (a ScaledObject on ray.io/v1
RayService, labelled none).

Blocking where the table says the kind has no /scale and the files hold no CRD of that group and kind that declares
one (a CRD of the run is read instead of the table). Kinds the table does not hold, and a target whose apiVersion is
not stated, are left alone.
"""

from __future__ import annotations

from typing import Optional

from components.scale_subresources import KINDS
from policies.framework import Policy, Resource
from policies.kube import HPA_TYPES, SCALED_OBJECT_TYPE, as_dict, as_list, get, split_type, viewed_resources

_CRD = ("apiextensions.k8s.io", "CustomResourceDefinition")


def _run_crd_scales(group: str, kind: str) -> Optional[bool]:
    """Whether a CRD of the files for (group, kind) declares /scale in any version; None where the files hold none."""
    for r in viewed_resources() or ():
        if split_type(getattr(r, "type", "")) != _CRD or not isinstance(r.props, dict):
            continue
        spec = as_dict(r.props.get("spec"))
        if spec.get("group") != group or as_dict(spec.get("names")).get("kind") != kind:
            continue
        return any("scale" in as_dict(as_dict(v).get("subresources")) for v in as_list(spec.get("versions")))
    return None


def _check(resource: Resource, config: dict) -> list[str]:
    ref = as_dict(get(resource.props, "spec", "scaleTargetRef"))
    api_version, kind, name = ref.get("apiVersion"), ref.get("kind"), ref.get("name")
    if not isinstance(api_version, str) or "/" not in api_version or not isinstance(kind, str):
        return []
    group = api_version.rsplit("/", 1)[0]
    row = KINDS.get((group, kind))
    if row is None or row.scale:
        return []
    if _run_crd_scales(group, kind):
        return []
    owner = split_type(resource.type)[1]
    refusal = (
        "the HPA controller records FailedGetScale on every sync"
        if owner == "HorizontalPodAutoscaler"
        else "KEDA refuses the target (checkTargetResourceIsScalable: no /scale subresource) and the ScaledObject never "
        "becomes Ready"
    )
    return [
        f"spec.scaleTargetRef {api_version} {kind} {name!r}: the {kind} CustomResourceDefinition serves no /scale "
        f"subresource ({row.source}), and an autoscaler reads and sets replicas only through it, so {refusal}: it never "
        f"scales; scale what the operator runs through the operator's own autoscaling (its replica fields or "
        f"autoscaler), or target a Deployment, StatefulSet or LeaderWorkerSet"
    ]


POLICY = Policy(
    name="scale-target-scalable",
    description=(
        "An HPA's or KEDA ScaledObject's scaleTargetRef names a kind that serves the /scale subresource: a KubeRay "
        "RayService/RayCluster or a KServe InferenceService does not (components/scale_subresources.toml), so the "
        "autoscaler never scales it."
    ),
    catalog="G69",
    severity="high",
    enforcement="mandatory",
    remediation_steps=(
        "Autoscale the operator's resource with the operator's own mechanism (KubeRay's autoscaler and Ray Serve "
        "autoscaling, KServe's minReplicas/maxReplicas or its KEDA autoscaler class), or target a Deployment, "
        "StatefulSet or LeaderWorkerSet."
    ),
    config_schema={},
    resource_types=(
        *HPA_TYPES,
        "kubernetes:autoscaling/v2beta1:HorizontalPodAutoscaler",
        SCALED_OBJECT_TYPE,
        "kubernetes:http.keda.sh/v1alpha1:HTTPScaledObject",
    ),
    check_resource=_check,
    rationale=(
        "Autoscalers use the scale subresource (https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/"
        "custom-resource-definitions/#scale-subresource); KEDA checks for it before it creates the HPA "
        "(kedacore/keda v2.20.2 controllers/keda/scaledobject_controller.go checkTargetResourceIsScalable)."
    ),
)
