"""Containers whose requests a VerticalPodAutoscaler of the files writes when their pods are created.

The VPA admission controller patches every pod its VPA targets as the API server admits it: a container with no
resources gets an empty ``resources`` object, then each recommended request is added (kubernetes/autoscaler
vertical-pod-autoscaler/pkg/admission-controller/resource/pod/patch/resource_updates.go:113-131 getContainerPatch,
util.go:56-74 GetAddResourceRequirementValuePatch / GetPatchInitializingEmptyResources, at tag
vertical-pod-autoscaler-1.7.1; ``pod.Spec.Containers`` only, so init containers are not filled). What the VPA object
says, at the same tag (pkg/apis/autoscaling.k8s.io/v1/types.go): ``updatePolicy.updateMode`` (:194) ``Off`` never
changes pods (:221-224; the patch calculator returns nothing for it, resource_updates.go:68), every other mode assigns
resources at pod creation (:225-252); a container policy applies to
the container it names, else the ``containerName: "*"`` one (:270-272, :331-333); its ``mode`` defaults to Auto and
``Off`` disables the container (:274, :344-345); ``controlledResources`` defaults to ``[cpu, memory]`` (:286-290); and
``controlledValues`` (:292-295) is ``RequestsAndLimits`` (default) or ``RequestsOnly`` (:353-357): the request is written
either way.
"""

from __future__ import annotations

from typing import Any

from policies.kube import as_dict, as_list, get, metadata_name, split_type, viewed_resources
from policies.reading.serving import namespace_of

VPA_TYPE = ("autoscaling.k8s.io", "VerticalPodAutoscaler")
_DEFAULT_CONTROLLED = ("cpu", "memory")


def _container_policy(vpa: Any, container: str) -> dict | None:
    policies = [as_dict(p) for p in as_list(get(vpa.props, "spec", "resourcePolicy", "containerPolicies"))]
    named = [p for p in policies if p.get("containerName") == container]
    if named:
        return named[0]
    wildcard = [p for p in policies if p.get("containerName") == "*"]
    return wildcard[0] if wildcard else None


def _controls(vpa: Any, container: str, wanted: str) -> bool:
    mode = get(vpa.props, "spec", "updatePolicy", "updateMode")
    if mode == "Off" or (mode is not None and not isinstance(mode, str)):
        return False
    policy = _container_policy(vpa, container)
    if policy is None:
        return wanted in _DEFAULT_CONTROLLED
    if policy.get("mode") == "Off":
        return False
    listed = policy.get("controlledResources")
    if listed is None:
        return wanted in _DEFAULT_CONTROLLED
    return isinstance(listed, list) and wanted in listed


def vpa_requested(target: Any, container: str, wanted: str) -> bool:
    """True when a VPA of the files targets ``target`` (same kind and name, same namespace where both say one), applies
    its recommendations (updateMode not Off) and controls ``wanted`` for the (main) container named ``container``."""
    kind, name, namespace = split_type(target.type)[1], metadata_name(target.props) or target.name, namespace_of(target)
    for r in viewed_resources() or ():
        if split_type(getattr(r, "type", "")) != VPA_TYPE:
            continue
        ref = as_dict(get(r.props, "spec", "targetRef"))
        if ref.get("kind") != kind or ref.get("name") != name:
            continue
        if namespace is not None and namespace_of(r) is not None and namespace_of(r) != namespace:
            continue
        if _controls(r, container, wanted):
            return True
    return False


__all__ = ["VPA_TYPE", "vpa_requested"]
