"""G40 (scaleTargetRef): an HPA's target named under a group/version Kubernetes no longer serves for that kind.

The HPA controller resolves its target by group and kind only: it parses ``scaleTargetRef.apiVersion``, keeps the group,
asks the REST mapper for every mapping of (group, kind) and reads the scale subresource through them (kubernetes/
kubernetes pkg/controller/podautoscaler/horizontal.go reconcileAutoscaler: ``targetGK := schema.GroupKind{Group:
targetGV.Group, Kind: ...}``, ``a.mapper.RESTMappings(targetGK)``; code index stored version 00067268). So:

* ``extensions/v1beta1`` Deployment or ReplicaSet: the extensions group serves neither from Kubernetes 1.16 (the
  deprecation guide's v1.16 removals, api_version_served.REMOVED), no mapping exists, and the controller records
  FailedGetScale ("unable to determine resource for scale target reference") on every sync: the HPA never scales.
  Blocking, for the cluster minor the pack is configured with (kubernetesVersion, default 1.33).
* ``apps/v1beta1`` or ``apps/v1beta2`` Deployment/StatefulSet/ReplicaSet: the apps group still serves the kind (apps/v1),
  so the controller finds it and scales; the reference names an API version removed in 1.16 all the same, which
  readers of the manifest (and tools that map by version) take at its word. Advice, saying that the HPA still works.
  Form: spent set 78 ishaangulati8/kubernetes-gpu-inference@af4c161a hpa.yaml and run.yaml (apps/v1beta1 Deployment
  my-gpu-app; labelled NONE as never scaling, which the controller's code does not bear out: hence advice).
"""

from __future__ import annotations

from policies.framework import Policy, Resource, unproven
from policies.k8s_generic.api_version_served import DEFAULT_KUBERNETES, REMOVED, _minor
from policies.kube import HPA_TYPES, as_dict, get

# Groups that still serve each kind in another version (apps/v1), so the HPA controller's group-and-kind lookup finds it.
_STILL_SERVED = {("apps", "Deployment"), ("apps", "StatefulSet"), ("apps", "ReplicaSet"), ("apps", "DaemonSet")}
_WORKLOAD_KINDS = ("Deployment", "StatefulSet", "ReplicaSet")


def _check(resource: Resource, config: dict) -> list[str]:
    ref = as_dict(get(resource.props, "spec", "scaleTargetRef"))
    api_version, kind = ref.get("apiVersion"), ref.get("kind")
    if not isinstance(api_version, str) or kind not in _WORKLOAD_KINDS:
        return []
    row = next((r for r in REMOVED if r.api_version == api_version and kind in r.kinds and r.removed_in), None)
    if row is None or row.removed_in is None:
        return []
    version = str(config.get("kubernetesVersion") or DEFAULT_KUBERNETES)
    if _minor(version) < _minor(row.removed_in):
        return []
    group = api_version.rsplit("/", 1)[0]
    named = f"spec.scaleTargetRef.apiVersion {api_version} {kind} {ref.get('name')!r}"
    if (group, kind) in _STILL_SERVED:
        return [
            unproven(
                f"{named}: Kubernetes {row.removed_in} and later serve no {api_version} {kind} ({row.source}); the HPA "
                f"controller maps its target by group and kind alone, so it still finds the {row.use} {kind} and "
                f"scales, but the reference names a removed API; write apiVersion: {row.use}"
            )
        ]
    return [
        f"{named}: the {group} group serves no {kind} from Kubernetes {row.removed_in} (checked for {version}; "
        f"{row.source}); the HPA controller resolves its target by group and kind, finds no mapping and records "
        f"FailedGetScale on every sync, so it never scales; write apiVersion: {row.use}"
    ]


POLICY = Policy(
    name="scale-target-version-served",
    description=(
        "An HPA's scaleTargetRef names its Deployment, StatefulSet or ReplicaSet under a group that serves it: "
        "extensions/v1beta1 (no Deployment or ReplicaSet from 1.16) leaves the HPA unable to scale; apps/v1beta1 and "
        "apps/v1beta2 still resolve through the apps group and are advice."
    ),
    catalog="G40",
    severity="high",
    enforcement="mandatory",
    remediation_steps="Write the target's current apiVersion in spec.scaleTargetRef (apps/v1 for Deployments, "
    "StatefulSets and ReplicaSets).",
    config_schema={
        "kubernetesVersion": {
            "type": "string",
            "pattern": "^[0-9]+[.][0-9]+([.][0-9]+)?$",
            "default": DEFAULT_KUBERNETES,
            "description": f"The cluster's Kubernetes minor; versions removed at or before it are judged (default {DEFAULT_KUBERNETES}).",
        },
    },
    resource_types=(*HPA_TYPES, "kubernetes:autoscaling/v2beta1:HorizontalPodAutoscaler"),
    check_resource=_check,
    rationale=(
        "The HPA controller maps scaleTargetRef by group and kind (kubernetes pkg/controller/podautoscaler/horizontal.go "
        "reconcileAutoscaler); the extensions group stopped serving Deployments and ReplicaSets in 1.16 (Kubernetes "
        "deprecation guide), so such a target has no mapping and the HPA reports FailedGetScale."
    ),
)
